// Package schema embeds zenbrain's numbered SQL migrations (NNNN_name.up.sql and
// NNNN_name.down.sql). The migrate package applies them; sqlc reads the same directory.
package schema

import "embed"

// FS holds every migration file of this directory.
//
//go:embed *.sql released.sum
var FS embed.FS
