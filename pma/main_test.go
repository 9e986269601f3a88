package pma

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden files")

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// requireGolden compares got with testdata/name, rewriting the file when the
// test runs with -update.
func requireGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file missing; run go test -update")
	require.Equal(t, string(want), string(got))
}
