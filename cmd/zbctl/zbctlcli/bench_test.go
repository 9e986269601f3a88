package zbctlcli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/internal/zbtest"
)

// TestBenchLocomo runs 'zbctl bench locomo' on the one-conversation synthetic fixture (LoCoMo's
// format, not LoCoMo data) in a temporary directory against a test database.
func TestBenchLocomo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "bench", "locomo", "zbsystem", "testdata", "synthetic-locomo.json"))
	require.NoError(t, err)
	file := filepath.Join(dir, "conv.json")
	require.NoError(t, os.WriteFile(file, src, 0o644))
	out := filepath.Join(dir, "results")
	env := map[string]string{"ZB_DATABASE_URL": zbtest.DB(t, nil), "ZB_HOME": filepath.Join(dir, "nohome")}

	r := run(t, env, "bench", "locomo", file, "--out", out, "--systems", "bm25,bm25-w4,flat,zenbrain-nolife", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var sum struct {
		Out     string `json:"out"`
		Results []struct {
			Mode    string `json:"mode"`
			System  string `json:"system"`
			Budgets []struct {
				Tokens        int      `json:"tokens"`
				Chars         float64  `json:"chars"`
				Strict        float64  `json:"strict"`
				Lenient       float64  `json:"lenient"`
				ContextStrict *float64 `json:"context_strict"`
			} `json:"budgets"`
			Top5Sources float64 `json:"top5_sources"`
			All         struct {
				Recall5  float64 `json:"recall_5"`
				Recall10 float64 `json:"recall_10"`
				MRR      float64 `json:"mrr"`
			} `json:"all"`
			Queries int `json:"queries"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &sum), r.stdout)
	require.Equal(t, out, sum.Out)
	require.Len(t, sum.Results, 8, "two modes × four systems")
	for _, res := range sum.Results {
		require.Equal(t, 7, res.Queries)
		require.Len(t, res.Budgets, 3)
		require.Equal(t, []int{250, 1000, 2000}, []int{res.Budgets[0].Tokens, res.Budgets[1].Tokens, res.Budgets[2].Tokens})
		require.Equal(t, res.System == "zenbrain-nolife", res.Budgets[0].ContextStrict != nil, "%s %s", res.Mode, res.System)
		for _, f := range res.Budgets {
			require.GreaterOrEqual(t, f.Lenient, f.Strict)
		}
		switch res.System {
		case "zenbrain-nolife":
			require.InDelta(t, 1.0, res.All.Recall10, 1e-9, res.Mode)
			require.GreaterOrEqual(t, res.All.MRR, 0.75, res.Mode)
		case "bm25-w4":
			require.Greater(t, res.Top5Sources, 1.0, res.Mode)
		}
	}
	for _, f := range []string{"results.json", "results.md", "recall5.png"} {
		st, err := os.Stat(filepath.Join(out, f))
		require.NoError(t, err)
		require.Positive(t, st.Size(), f)
	}

	// A second run resets the tenants and gives the same figures; the text output has the table.
	r = run(t, env, "bench", "locomo", file, "--out", out, "--systems", "zenbrain-nolife", "--mode", "pool")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "shared-pool")
	require.Contains(t, r.stdout, "zenbrain-nolife")
	require.Contains(t, r.stdout, "S@250")
	require.Contains(t, r.stderr, "100%", "progress bar on stderr")

	for _, args := range [][]string{
		{"bench", "locomo", file, "--systems", "nope"},
		{"bench", "locomo", file, "--mode", "sideways"},
		{"bench", "locomo", filepath.Join(dir, "missing.json"), "--systems", "bm25"},
	} {
		r := run(t, env, args...)
		require.NotEqual(t, 0, r.code, args)
	}
}
