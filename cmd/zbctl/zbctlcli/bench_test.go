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

// TestBenchLocomoAblate runs 'zbctl bench locomo --ablate' on the synthetic fixture and checks
// that bad ablation flags are refused with exit code 2 before any work.
func TestBenchLocomoAblate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join("..", "..", "..", "bench", "locomo", "zbsystem", "testdata", "synthetic-locomo.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--ablate", "telepathy"}, `--ablate: unknown algorithm "telepathy" (known: decay,`},
		{[]string{"--ablate", "decay", "--mode", "pool"}, "--ablate runs per conversation only, not with --mode pool"},
		{[]string{"--ablate", "all", "--mode", "both"}, "--ablate runs per conversation only, not with --mode both"},
		{[]string{"--ablate", "decay", "--systems", "bm25"}, "--ablate compares with zenbrain: add it to --systems"},
		{[]string{"--conversations", "conv-26,synth-1", "--systems", "bm25"}, `unknown "conv-26" (known: synth-1)`},
	} {
		r := run(t, map[string]string{}, append([]string{"bench", "locomo", file, "--out", dir}, tc.args...)...)
		require.Equal(t, 2, r.code, "%v: %s", tc.args, r.stderr)
		require.Contains(t, r.stderr, tc.want, tc.args)
	}

	out := filepath.Join(dir, "results")
	env := map[string]string{"ZB_DATABASE_URL": zbtest.DB(t, nil), "ZB_HOME": filepath.Join(dir, "nohome")}
	r := run(t, env, "bench", "locomo", file, "--out", out, "--systems", "zenbrain,bm25", "--conversations", "synth-1",
		"--ablate", "gwt,decay", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var sum struct {
		Results []struct {
			Mode   string `json:"mode"`
			System string `json:"system"`
		} `json:"results"`
		Ablation struct {
			Conversations []string `json:"conversations"`
			Questions     int      `json:"questions"`
			Full          struct {
				System string `json:"system"`
			} `json:"full"`
			Arms []struct {
				ID         string              `json:"id"`
				System     string              `json:"system"`
				Strict250  struct{ P float64 } `json:"strict_250"`
				Context250 *struct{ N int }    `json:"context_250"`
			} `json:"arms"`
		} `json:"ablation"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &sum), r.stdout)
	require.Len(t, sum.Results, 2, "per conversation only")
	for _, res := range sum.Results {
		require.Equal(t, "per-conversation", res.Mode)
	}
	a := sum.Ablation
	require.Equal(t, []string{"synth-1"}, a.Conversations)
	require.Equal(t, 7, a.Questions)
	require.Equal(t, "zenbrain", a.Full.System)
	require.Len(t, a.Arms, 2)
	require.Equal(t, []string{"decay", "gwt"}, []string{a.Arms[0].ID, a.Arms[1].ID}, "registry order")
	require.Equal(t, "zenbrain-no-decay", a.Arms[0].System)
	for _, arm := range a.Arms {
		require.Positive(t, arm.Strict250.P)
		require.NotNil(t, arm.Context250)
	}
	for _, f := range []string{"results.json", "results.md", "recall5.png", "ablation.json", "ablation.md"} {
		st, err := os.Stat(filepath.Join(out, f))
		require.NoError(t, err)
		require.Positive(t, st.Size(), f)
	}

	// Without --mode the ablation runs per conversation; the text output has its table.
	r = run(t, env, "bench", "locomo", file, "--out", out, "--systems", "zenbrain", "--ablate", "triple_copy")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "ablation against zenbrain (7 questions")
	require.Contains(t, r.stdout, "triple_copy")
	require.Contains(t, r.stdout, "wrote ablation.json and ablation.md to "+out)
	require.Contains(t, r.stderr, "zenbrain-no-triple_copy", "a progress bar per arm")
}
