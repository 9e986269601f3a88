package perf_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/bench/perf"
	"github.com/zenbrain/zb/internal/zbtest"
)

// TestMain checks for leaked goroutines after the tests (zbtest.Main runs goleak). With
// ZBPERF_FAKE_WORKER set the test binary is a stand-in for zbworker instead (procwatch_test.go).
func TestMain(m *testing.M) {
	if mode := os.Getenv("ZBPERF_FAKE_WORKER"); mode != "" {
		os.Exit(fakeWorker(mode))
	}
	zbtest.Main(m)
}

func TestConfigValidation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		cfg  perf.Config
		want string
	}{
		{"no url", perf.Config{}, "AdminURL is required"},
		{"dim", perf.Config{AdminURL: "postgres://x/y", Dim: -3}, "Dim"},
		{"size below tenants", perf.Config{AdminURL: "postgres://x/y", Sizes: []int{50}}, "sizes"},
		{"import", perf.Config{AdminURL: "postgres://x/y", ImportSize: -5}, "ImportSize"},
		{"batch", perf.Config{AdminURL: "postgres://x/y", BatchSize: 200_000}, "BatchSize"},
		{"clients", perf.Config{AdminURL: "postgres://x/y", Clients: 5000}, "Clients"},
		{"duration", perf.Config{AdminURL: "postgres://x/y", LoadDuration: 5}, "LoadDuration"},
		{"worker both ways", perf.Config{AdminURL: "postgres://x/y", WorkerBin: "/bin/true", NoWorker: true}, "exclude each other"},
		{"lexical scorer", perf.Config{AdminURL: "postgres://x/y", LexicalScorer: "fast"}, "LexicalScorer"},
		{"hnsw m", perf.Config{AdminURL: "postgres://x/y", HNSWM: 1}, "HNSWM"},
		{"hnsw ef_construction", perf.Config{AdminURL: "postgres://x/y", HNSWEfConstruction: 2000}, "HNSWEfConstruction"},
		{"hnsw ef_construction below 2m", perf.Config{AdminURL: "postgres://x/y", HNSWM: 48}, "at least twice m"},
		{"worker missing", perf.Config{AdminURL: "postgres://x/y", WorkerBin: "/nonexistent/zbworker"}, "WorkerBin"},
	}
	for _, tc := range cases {
		_, err := perf.Run(context.Background(), &tc.cfg)
		require.ErrorContains(t, err, tc.want, tc.name)
	}
}
