package locomo

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRealBaselines runs the baselines on the development file in both modes
// and checks the figures against sanity bounds (issue 5: a plain BM25 over
// turns gives about R@5 0.55 per conversation and 0.50 in the pool).
func TestRealBaselines(t *testing.T) {
	t.Parallel()
	ds := loadReal(t)
	systems, err := Baselines()
	require.NoError(t, err)
	var progress strings.Builder
	start := time.Now()
	rep, err := Run(context.Background(), ds, systems, Options{Mode: Both, Progress: &progress})
	require.NoError(t, err)
	elapsed := time.Since(start)

	var md strings.Builder
	require.NoError(t, WriteMarkdown(&md, rep))
	t.Logf("run took %s\n%s", elapsed, md.String())
	require.Contains(t, progress.String(), "shared-pool")

	require.Equal(t, 997, rep.Stats.Scored)
	require.Equal(t, map[string]string{
		"bm25":    "Okapi BM25 over turns (k1 1.2, b 0.75, language detected per text)",
		"bm25-w4": "Okapi BM25 over non-overlapping windows of 4 turns of one session (k1 1.2, b 0.75, language detected per text)",
		"bm25-w8": "Okapi BM25 over non-overlapping windows of 8 turns of one session (k1 1.2, b 0.75, language detected per text)",
		"flat":    "exhaustive cosine over hash-v1-768 embeddings",
	}, rep.Settings.Descriptions)
	require.Len(t, rep.Results, 8)
	for _, res := range rep.Results {
		all, ok := res.Group(GroupAll)
		require.True(t, ok)
		require.Equal(t, 997, all.Questions, "%s %s", res.Mode, res.System)
		for _, g := range res.Groups {
			for name, v := range map[string]float64{"R@5": g.Recall5, "R@10": g.Recall10, "P@5": g.P5, "MRR": g.MRR, "NDCG@5": g.NDCG5} {
				require.True(t, v >= 0 && v <= 1, "%s %s %s %s = %v", res.Mode, res.System, g.Group, name, v)
			}
			require.GreaterOrEqual(t, g.Recall10, g.Recall5, "%s %s %s", res.Mode, res.System, g.Group)
			require.Len(t, g.Budgets, 3)
			for i, f := range g.Budgets {
				// A larger budget delivers a longer prefix of the same hits.
				if i > 0 {
					require.GreaterOrEqual(t, f.Strict, g.Budgets[i-1].Strict, "%s %s %s", res.Mode, res.System, g.Group)
					require.GreaterOrEqual(t, f.Chars, g.Budgets[i-1].Chars, "%s %s %s", res.Mode, res.System, g.Group)
				}
				require.GreaterOrEqual(t, f.Lenient, f.Strict, "%s %s %s", res.Mode, res.System, g.Group)
				require.Nil(t, f.ContextStrict)
			}
		}
		// Every hit of these systems delivers its turns' text whole: lenient credit equals strict.
		for _, f := range res.Budgets {
			require.InDelta(t, f.Strict, f.Lenient, 1e-12, "%s %s", res.Mode, res.System)
		}
	}
	bmPer, _ := rep.Result(PerConversation, "bm25").Group(GroupAll)
	bmPool, _ := rep.Result(SharedPool, "bm25").Group(GroupAll)
	flatPer, _ := rep.Result(PerConversation, "flat").Group(GroupAll)
	flatPool, _ := rep.Result(SharedPool, "flat").Group(GroupAll)
	// Measured 2026-12: bm25 R@5 0.554 / 0.503, flat (hash-768) 0.396 / 0.381.
	require.GreaterOrEqual(t, bmPer.Recall5, 0.45, "bm25 per-conversation R@5")
	require.LessOrEqual(t, bmPer.Recall5, 0.65, "bm25 per-conversation R@5")
	require.GreaterOrEqual(t, bmPool.Recall5, 0.40, "bm25 shared-pool R@5")
	require.LessOrEqual(t, bmPool.Recall5, 0.60, "bm25 shared-pool R@5")
	require.GreaterOrEqual(t, bmPer.Recall10, 0.55, "bm25 per-conversation R@10")
	// The hash embedder is being tuned elsewhere: only wide bounds here.
	require.GreaterOrEqual(t, flatPer.Recall5, 0.25, "flat per-conversation R@5")
	require.LessOrEqual(t, flatPer.Recall5, 0.65, "flat per-conversation R@5")
	require.GreaterOrEqual(t, flatPool.Recall5, 0.20, "flat shared-pool R@5")
	// The pool only adds distractors: neither baseline may gain from it.
	require.LessOrEqual(t, bmPool.Recall5, bmPer.Recall5)
	require.LessOrEqual(t, flatPool.Recall5, flatPer.Recall5)
	// Windows carry more turns per hit: R@5 grows with the window, strict credit at the
	// smallest budget does not.
	w8Per := rep.Result(PerConversation, "bm25-w8")
	w8All, _ := w8Per.Group(GroupAll)
	require.Greater(t, w8All.Recall5, bmPer.Recall5)
	require.Less(t, w8Per.Budgets[0].Strict, w8All.Recall5)
	require.Greater(t, w8Per.Top5Sources, 7.0)
	require.InDelta(t, 1.0, rep.Result(PerConversation, "bm25").Top5Sources, 1e-12)
	require.Less(t, elapsed, 60*time.Second)
}
