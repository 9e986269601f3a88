package locomo

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/embed"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// dataFile returns the LoCoMo development file found by [FindDataFile]. When
// ZB_LOCOMO_FILE names a missing file the test fails. When the variable is unset
// and no copy is found above the repository (the data is licensed CC BY-NC 4.0
// and never committed), the test is skipped with a message saying how to
// provide it.
func dataFile(t *testing.T) string {
	t.Helper()
	path, err := FindDataFile(".")
	if err != nil {
		if os.Getenv(EnvFile) != "" {
			t.Fatalf("%v", err)
		}
		t.Skipf("LoCoMo data not available, so the benchmark tests cannot run: %v", err)
	}
	return path
}

// loadReal loads the development file.
func loadReal(t *testing.T) *Dataset {
	t.Helper()
	ds, err := Load(dataFile(t))
	require.NoError(t, err)
	return ds
}

// parseString parses an inline fixture.
func parseString(t *testing.T, s string) *Dataset {
	t.Helper()
	ds, err := Parse(strings.NewReader(s), "fixture.json")
	require.NoError(t, err)
	return ds
}

// hashEmbedder returns the project's default offline embedder.
func hashEmbedder(t *testing.T) Embedder {
	t.Helper()
	e, err := embed.New(&embed.Config{Provider: "hash", Dim: 768})
	require.NoError(t, err)
	return e
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s missing: run go test -update", path)
	}
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}

// fakeSystem answers from a fixed function; used to drive Run.
type fakeSystem struct {
	name   string
	answer func(tenant, query string) ([]Hit, error)
	ingest func(tenant string, msgs []Message) error
	calls  []string
}

func (f *fakeSystem) Name() string { return f.name }

func (f *fakeSystem) Ingest(_ context.Context, tenant string, msgs []Message) error {
	f.calls = append(f.calls, "ingest "+tenant+" "+msgs[0].SessionKey)
	if f.ingest != nil {
		return f.ingest(tenant, msgs)
	}
	return nil
}

func (f *fakeSystem) AfterIngest(_ context.Context, tenant string, now time.Time) error {
	f.calls = append(f.calls, "after "+tenant+" "+now.Format(time.RFC3339))
	return nil
}

func (f *fakeSystem) Search(_ context.Context, tenant, query string, _ time.Time, _ int) ([]Hit, error) {
	return f.answer(tenant, query)
}
