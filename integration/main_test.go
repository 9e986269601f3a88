// Package integration holds zenbrain's end-to-end tests against a real PostgreSQL with
// pgvector (found by internal/zbtest: ZB_TEST_DATABASE_URL, dockertest or a local throwaway
// cluster; never skipped).
package integration

import (
	"testing"

	"github.com/zenbrain/zb/internal/zbtest"
)

func TestMain(m *testing.M) { zbtest.Main(m) }
