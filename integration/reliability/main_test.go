// Package reliability holds zenbrain's reliability tests against a real PostgreSQL with
// pgvector (issue #11, docs/reliability.md): the bad-input matrix over every surface (Go API,
// SQL functions, zbctl, MCP), fault injection (a restarted server, connections killed in the
// middle of a transaction, statement timeouts, a full disk), concurrency of recall,
// reconsolidation and sleep, fuzz targets for store and recall against a live database, and
// upgrade and backup round trips.
//
// Long variants run behind environment variables (ZB_SOAK=1, ZB_RESTART_CLIENTS); see
// docs/reliability.md.
package reliability

import (
	"testing"

	"github.com/zenbrain/zb/internal/zbtest"
)

func TestMain(m *testing.M) { zbtest.Main(m) }
