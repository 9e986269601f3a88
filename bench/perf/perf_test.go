package perf_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/bench/perf"
	"github.com/zenbrain/zb/internal/zbtest"
)

// TestMain checks for leaked goroutines after the tests (zbtest.Main runs goleak).
func TestMain(m *testing.M) { zbtest.Main(m) }

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
	}
	for _, tc := range cases {
		_, err := perf.Run(context.Background(), &tc.cfg)
		require.ErrorContains(t, err, tc.want, tc.name)
	}
}
