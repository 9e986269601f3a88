// Package security holds zenbrain's tenancy, security and governance tests against a real
// PostgreSQL (docs/security.md says what each proves): row-level security as the application
// role for every table, view and function found in the catalog, the Go API as that role, the
// audit trail, the erase that leaves nothing (a planted marker searched in every text, JSON,
// array and tsvector column of the database afterwards), consent, retention and approvals.
package security

import (
	"testing"

	"github.com/zenbrain/zb/internal/zbtest"
)

func TestMain(m *testing.M) { zbtest.Main(m) }
