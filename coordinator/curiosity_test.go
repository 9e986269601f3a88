package coordinator_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/curiosity"
	"github.com/zenbrain/zb/coordinator"
)

// curiosityWorld stores what the tenant knows (ten facts about Kubernetes deploys, one about the
// tax return, one each about roses and tulips, nothing about piano lessons) and asks questions:
// piano ×5 (never answered), Kubernetes ×4 (answered), tax ×3, roses ×4 (failing, then used:
// improving) and tulips ×4 (used, then failing: declining), with usefulness feedback on the
// garden questions.
func curiosityWorld(t *testing.T, b *testBundle, tenant string) {
	t.Helper()
	ctx := ctxT(t)
	store := func(content string) int64 {
		res, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: content, Layer: coordinator.LayerSemantic})
		require.NoError(t, err)
		return res.ID
	}
	for i := range 10 {
		store(fmt.Sprintf("Kubernetes deploy step %d uses rollback checks in cluster %c", i+1, 'a'+i))
	}
	store("The tax return is filed by the accountant")
	store("Roses in the garden need pruning in March")
	store("Tulips bulbs go into the ground in October")
	ask := func(q string, used *bool) {
		b.clock.Add(time.Minute)
		res, err := b.co.Recall(ctx, tenant, q, &coordinator.RecallOpts{K: 3})
		require.NoError(t, err)
		if used != nil {
			require.NotEmpty(t, res.Results)
			_, err := b.co.Feedback(ctx, tenant, res.Results[0].ID, *used)
			require.NoError(t, err)
		}
	}
	yes, no := true, false
	for range 5 {
		ask("piano lessons schedule", nil)
	}
	for range 4 {
		ask("kubernetes deploy rollback", nil)
	}
	for range 3 {
		ask("tax return deadline", nil)
	}
	for _, u := range []*bool{&no, &no, &yes, &yes} {
		ask("roses pruning garden", u)
	}
	for _, u := range []*bool{&yes, &yes, &no, &no} {
		ask("tulips bulbs planting", u)
	}
}

func TestKnowledgeGaps(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	curiosityWorld(t, b, "cu")
	gaps, err := b.co.KnowledgeGaps(ctx, "cu", 10)
	require.NoError(t, err)
	require.Len(t, gaps, 5)
	by := map[string]curiosity.Gap{}
	for i, g := range gaps {
		t.Logf("%d. %-28s gap %.3f (base %.3f, LP %+.2f) q %d f %d c %.2f r %.2f → %s", i+1, g.Label, g.Score, g.Base,
			g.Progress, g.Queries, g.Facts, g.MeanConfidence, g.RecallSuccess, g.Action)
		by[g.Label] = g
	}
	piano, kube := by["lesson piano schedul"], by["deploy kubernet rollback"]
	roses, tulips := by["garden prune rose"], by["bulb plant tulip"]
	require.Equal(t, "lesson piano schedul", gaps[0].Label, "asked most, known least: the largest gap")
	require.Equal(t, 5, piano.Queries)
	require.Zero(t, piano.Facts)
	require.Zero(t, piano.RecallSuccess)
	require.Equal(t, curiosity.ActionAskUser, piano.Action)
	// gap = 0.4·5/5 + 0.3·(1 − 0/10) + 0.2·(1 − 0) + 0.1·(1 − 0) = 1.0
	require.InDelta(t, 1.0, piano.Score, 1e-9)

	require.Equal(t, 10, kube.Facts)
	require.InDelta(t, 1, kube.RecallSuccess, 1e-9, "every Kubernetes query is covered by its results")
	require.Equal(t, curiosity.ActionMonitor, kube.Action)
	require.Equal(t, "deploy kubernet rollback", gaps[len(gaps)-1].Label, "the best-known topic has the smallest gap")

	// Learning progress: equal queries, facts and success rate; improving lowers the gap by
	// 0.1·LP, declining raises it.
	require.Equal(t, roses.Queries, tulips.Queries)
	require.Equal(t, roses.Facts, tulips.Facts)
	require.InDelta(t, roses.Base, tulips.Base, 1e-9)
	require.InDelta(t, 1, roses.Progress, 1e-9)
	require.InDelta(t, -1, tulips.Progress, 1e-9)
	require.InDelta(t, 0.2, tulips.Score-roses.Score, 1e-9)
	require.Equal(t, curiosity.ActionAskUser, tulips.Action, "one fact, four questions: ask the user")

	top2, err := b.co.KnowledgeGaps(ctx, "cu", 2)
	require.NoError(t, err)
	require.Equal(t, gaps[:2], top2)
	_, err = b.co.KnowledgeGaps(ctx, "cu", -1)
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
	none, err := b.co.KnowledgeGaps(ctx, "nobody", 0)
	require.NoError(t, err)
	require.Empty(t, none)
}

func TestKnowledgeGapsSwitchedOff(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	_, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "co", Content: "placeholder"})
	require.NoError(t, err)
	require.NoError(t, b.co.SetAlgorithm(ctx, "co", "curiosity", false))
	curiosityWorld(t, b, "co")
	gaps, err := b.co.KnowledgeGaps(ctx, "co", 10)
	require.NoError(t, err)
	require.Empty(t, gaps)
	require.Zero(t, queryInt(t, b.cfg.Pool, `SELECT count(*) FROM zb.recall_event WHERE tenant_id = 'co' AND query_terms IS NOT NULL`),
		"switched off, the query log keeps no terms")
	require.NoError(t, b.co.SetAlgorithm(ctx, "co", "curiosity", true))
	gaps, err = b.co.KnowledgeGaps(ctx, "co", 10)
	require.NoError(t, err)
	require.Empty(t, gaps, "switched on again: only new queries count")
}

// TestQueryLogScrubbedOnErase checks that erasing a memory removes from the query log the terms
// only that memory held, and keeps the terms other live memories hold.
func TestQueryLogScrubbedOnErase(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	pool := b.cfg.Pool
	a, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "sc", Content: "Zorblaxia runs the bakery on Elm Street"})
	require.NoError(t, err)
	c, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "sc", Content: "Quimbrelle runs the bakery near the harbour"})
	require.NoError(t, err)
	_, err = b.co.Recall(ctx, "sc", "who runs the Zorblaxia bakery and the Quimbrelle one?", nil)
	require.NoError(t, err)
	terms := func() string {
		return queryString(t, pool, `SELECT array_to_string(query_terms, ' ') FROM zb.recall_event WHERE tenant_id = 'sc'`)
	}
	require.Equal(t, "run zorblaxia bakeri quimbrell one", terms())

	// A memory none of whose terms a logged query holds leaves the log as it is (0020 returns
	// before searching the tenant's memories).
	u, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "sc", Content: "Pelicans nest on the quay"})
	require.NoError(t, err)
	execSQL(t, pool, `UPDATE zb.memory SET status = 'erased' WHERE id = $1`, u.ID)
	require.Equal(t, "run zorblaxia bakeri quimbrell one", terms())

	execSQL(t, pool, `UPDATE zb.memory SET status = 'erased' WHERE id = $1`, a.ID)
	require.Equal(t, "run bakeri quimbrell one", terms(), "only the erased memory knew zorblaxia")
	execSQL(t, pool, `DELETE FROM zb.memory WHERE id = $1`, c.ID)
	require.Equal(t, "one", terms(), "deleted: its terms go too, the one no memory held stays")
}
