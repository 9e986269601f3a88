package zbsystem_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/budget"
	"github.com/zenbrain/zb/bench/locomo"
	"github.com/zenbrain/zb/bench/locomo/zbsystem"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/internal/zbtest"
)

const fixture = "testdata/synthetic-locomo.json"

func plan(t *testing.T) (*locomo.Dataset, locomo.TenantPlan) {
	t.Helper()
	ds, err := locomo.Load(fixture)
	require.NoError(t, err)
	ps, err := locomo.BuildPlan(ds, locomo.PerConversation)
	require.NoError(t, err)
	require.Len(t, ps, 1)
	return ds, ps[0]
}

func ingest(t *testing.T, s *zbsystem.System, p locomo.TenantPlan) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, s.ResetTenant(ctx, p.Tenant))
	for start := 0; start < len(p.Messages); {
		end := start + 1
		for end < len(p.Messages) && p.Messages[end].SessionKey == p.Messages[start].SessionKey {
			end++
		}
		require.NoError(t, s.Ingest(ctx, p.Tenant, p.Messages[start:end]))
		start = end
	}
	require.NoError(t, s.AfterIngest(ctx, p.Tenant, p.Now))
}

func TestRunOnFixture(t *testing.T) {
	t.Parallel()
	ds, _ := plan(t)
	s, err := zbsystem.New(&zbsystem.Config{Pool: zbtest.Pool(t, nil)})
	require.NoError(t, err)
	require.Equal(t, zbsystem.NameLifecycleOff, s.Name())
	require.Contains(t, s.Describe(), "lifecycle off")
	bm, err := locomo.NewBM25System(nil)
	require.NoError(t, err)
	rep, err := locomo.Run(context.Background(), ds, []locomo.System{bm, s}, locomo.Options{PerQuestion: true})
	require.NoError(t, err)
	for _, mode := range []locomo.Mode{locomo.PerConversation, locomo.SharedPool} {
		zb := rep.Result(mode, zbsystem.NameLifecycleOff)
		require.NotNil(t, zb)
		require.Equal(t, 7, zb.Queries, "the question without evidence is not scored")
		all, ok := zb.Group(locomo.GroupAll)
		require.True(t, ok)
		// 18 turns: every evidence turn is within the top 10, and most single-evidence
		// questions have a relevant top hit (MRR ≥ 0.75).
		require.InDelta(t, 1.0, all.Recall10, 1e-9, "mode %s", mode)
		require.GreaterOrEqual(t, all.MRR, 0.75, "mode %s", mode)
		b := rep.Result(mode, "bm25")
		bAll, _ := b.Group(locomo.GroupAll)
		require.GreaterOrEqual(t, all.Recall5, bAll.Recall5, "mode %s", mode)
		for _, q := range zb.PerQuestion {
			for _, top := range q.Top {
				require.Len(t, top, 1, "every turn maps to its one dia_id")
			}
			require.Len(t, q.Score.Budgets, 3)
		}
		// The system's own context block is credited beside the packed hits; the baseline has
		// none. 18 short turns fit whole into 1000 tokens.
		require.Len(t, zb.Budgets, 3)
		for _, f := range zb.Budgets {
			require.NotNil(t, f.ContextStrict, "mode %s, %d tokens", mode, f.Tokens)
			require.Positive(t, *f.ContextChars)
		}
		require.InDelta(t, 1.0, zb.Budgets[1].Strict, 1e-9, "mode %s", mode)
		require.Positive(t, *zb.Budgets[2].ContextStrict, "mode %s", mode)
		require.InDelta(t, 1.0, zb.Top5Sources, 1e-9)
		require.Positive(t, zb.ContextSeconds)
		require.Nil(t, b.Budgets[0].ContextStrict)
	}
}

func TestContext(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, p := plan(t)
	s, err := zbsystem.New(&zbsystem.Config{Pool: zbtest.Pool(t, nil)})
	require.NoError(t, err)
	ingest(t, s, p)
	query := "What did Ada make in the pottery class?"
	block, err := s.Context(ctx, p.Tenant, query, p.Now, 250)
	require.NoError(t, err)
	require.Contains(t, block, "I made a small blue bowl for my sister.")
	require.LessOrEqual(t, budget.Tokens(block), 250)
	small, err := s.Context(ctx, p.Tenant, query, p.Now, 30)
	require.NoError(t, err)
	require.LessOrEqual(t, budget.Tokens(small), 30)
	require.Less(t, len(small), len(block))
	again, err := s.Context(ctx, p.Tenant, query, p.Now, 250)
	require.NoError(t, err)
	require.Equal(t, block, again, "read-only: assembling does not change the next block")
	_, err = s.Context(ctx, p.Tenant, query, p.Now, -1)
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
}

func TestNeighbourTurnRanksHigh(t *testing.T) {
	t.Parallel()
	_, p := plan(t)
	s, err := zbsystem.New(&zbsystem.Config{Pool: zbtest.Pool(t, nil)})
	require.NoError(t, err)
	ingest(t, s, p)
	// "repaired ... boat" matches D1:4; its answer "on Sunday, the wind was perfect" (D1:6)
	// shares the word "Sunday" and sits in the same exchange.
	hits, err := s.Search(context.Background(), p.Tenant, "How did Bruno spend Sunday after repairing the boat?", p.Now, 3)
	require.NoError(t, err)
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.SourceIDs...)
	}
	// Both evidence turns are in the top 3, D1:6 through its neighbour D1:5 and its session.
	require.Subset(t, ids, []string{"D1:4", "D1:6"})
	require.Len(t, hits, 3)
}

func TestCoordinatorLifecycleOnFixture(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ds, p := plan(t)
	pool := zbtest.Pool(t, nil)
	s, err := zbsystem.New(&zbsystem.Config{Pool: pool, Lifecycle: zbsystem.DefaultLifecycle})
	require.NoError(t, err)
	ingest(t, s, p)
	// Sessions 1–3 were idle at the query time: their turns were consolidated into memories
	// that carry them, and stay active in the episodic layer.
	var consolidated, derived int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE layer = 'episodic' AND status = 'active' AND external_id IS NOT NULL),
		count(*) FILTER (WHERE cardinality(source_ids) > 0) FROM zb.memory WHERE tenant_id = $1`,
		s.Tenant(p.Tenant)).Scan(&consolidated, &derived))
	require.Positive(t, consolidated)
	require.Positive(t, derived)
	known := map[string]bool{}
	for _, m := range p.Messages {
		known[m.DiaID] = true
	}
	rep, err := locomo.Run(ctx, ds, []locomo.System{s}, locomo.Options{Mode: locomo.PerConversation, PerQuestion: true})
	require.NoError(t, err)
	for _, q := range rep.Results[0].PerQuestion {
		for _, top := range q.Top {
			require.NotEmpty(t, top)
			for _, id := range top {
				require.True(t, known[id], "hit maps to a dia_id of the fixture, got %q", id)
			}
		}
	}
}

func TestDerivedMemoryCarriesUnionOfSources(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, p := plan(t)
	pool := zbtest.Pool(t, nil)
	s, err := zbsystem.New(&zbsystem.Config{Pool: pool})
	require.NoError(t, err)
	ingest(t, s, p)
	var ids []int64
	rows, err := pool.Query(ctx, "SELECT id FROM zb.memory WHERE tenant_id = $1 AND external_id = ANY ($2) ORDER BY id",
		s.Tenant(p.Tenant), []string{"D2:1", "D2:3"})
	require.NoError(t, err)
	for rows.Next() {
		var id int64
		require.NoError(t, rows.Scan(&id))
		ids = append(ids, id)
	}
	require.NoError(t, rows.Err())
	require.Len(t, ids, 2)
	// A derived fact (no external id) made from the two turns, and one derived from it.
	r1, err := s.Coordinator().Store(ctx, coordinator.StoreInput{
		TenantID: s.Tenant(p.Tenant), Layer: coordinator.LayerSemantic,
		Content: "Bruno owns a beagle called Pixel, adopted from a shelter", SourceIDs: ids, AIGenerated: true,
	})
	require.NoError(t, err)
	_, err = s.Coordinator().Store(ctx, coordinator.StoreInput{
		TenantID: s.Tenant(p.Tenant), Layer: coordinator.LayerSemantic,
		Content: "Bruno is a dog owner: beagle Pixel from the shelter", SourceIDs: []int64{r1.ID}, AIGenerated: true,
	})
	require.NoError(t, err)
	hits, err := s.Search(ctx, p.Tenant, "Which beagle from the shelter does Bruno own?", p.Now, 10)
	require.NoError(t, err)
	derived := 0
	for _, h := range hits {
		if len(h.SourceIDs) > 1 {
			require.Equal(t, []string{"D2:1", "D2:3"}, h.SourceIDs)
			derived++
		}
	}
	require.Equal(t, 2, derived, "both derived memories map to the union of their turns")
}

func TestLifecycleRunsBetweenSessions(t *testing.T) {
	t.Parallel()
	_, p := plan(t)
	var mu sync.Mutex
	var calls []time.Time
	var tenants []string
	life := func(_ context.Context, c *coordinator.Coordinator, tenant string, now time.Time) error {
		require.NotNil(t, c)
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, now)
		tenants = append(tenants, tenant)
		return nil
	}
	s, err := zbsystem.New(&zbsystem.Config{Pool: zbtest.Pool(t, nil), Lifecycle: life})
	require.NoError(t, err)
	require.Equal(t, zbsystem.NameDefault, s.Name())
	ingest(t, s, p)
	d2 := time.Date(2023, 4, 20, 19, 30, 0, 0, time.UTC)
	d3 := time.Date(2023, 6, 1, 14, 15, 0, 0, time.UTC)
	require.Equal(t, []time.Time{d2, d3, p.Now}, calls, "before sessions 2 and 3, and at the query time")
	require.Equal(t, []string{"zenbrain:synth-1", "zenbrain:synth-1", "zenbrain:synth-1"}, tenants)
}

func TestResetAndBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, p := plan(t)
	_, err := zbsystem.New(nil)
	require.ErrorIs(t, err, zbsystem.ErrNoPool)
	_, err = zbsystem.New(&zbsystem.Config{})
	require.ErrorIs(t, err, zbsystem.ErrNoPool)
	s, err := zbsystem.New(&zbsystem.Config{Pool: zbtest.Pool(t, nil), Name: "zb-test"})
	require.NoError(t, err)
	ingest(t, s, p)
	hits, err := s.Search(ctx, p.Tenant, "pottery", p.Now, 5)
	require.NoError(t, err)
	require.NotEmpty(t, hits)

	cases := []struct {
		name string
		err  error
		call func() error
	}{
		{"k 0", locomo.ErrBadK, func() error { _, err := s.Search(ctx, p.Tenant, "x", p.Now, 0); return err }},
		{"k too large", locomo.ErrBadK, func() error { _, err := s.Search(ctx, p.Tenant, "x", p.Now, locomo.KMax+1); return err }},
		{"empty tenant", locomo.ErrEmptyTenant, func() error { return s.Ingest(ctx, "", p.Messages[:1]) }},
		{"no dia_id", locomo.ErrBadMessage, func() error {
			m := p.Messages[0]
			m.DiaID = ""
			return s.Ingest(ctx, p.Tenant, []locomo.Message{m})
		}},
		{"other tenant", locomo.ErrBadMessage, func() error { return s.Ingest(ctx, "someone-else", p.Messages[:1]) }},
		{"empty query", coordinator.ErrEmptyContent, func() error { _, err := s.Search(ctx, p.Tenant, "", p.Now, 5); return err }},
		{"reset empty tenant", locomo.ErrEmptyTenant, func() error { return s.ResetTenant(ctx, "") }},
	}
	for _, c := range cases {
		require.ErrorIs(t, c.call(), c.err, c.name)
	}

	require.NoError(t, s.ResetTenant(ctx, p.Tenant))
	hits, err = s.Search(ctx, p.Tenant, "pottery", p.Now, 5)
	require.NoError(t, err)
	require.Empty(t, hits, "a reset tenant has no memories")
	require.NoError(t, s.ResetTenant(ctx, "never-ingested"))
}

func TestDisabledAndArms(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ds, p := plan(t)
	pool := zbtest.Pool(t, nil)
	_, err := zbsystem.New(&zbsystem.Config{Pool: pool, Disabled: []string{"decay", "telepathy"}})
	require.ErrorContains(t, err, `unknown algorithm "telepathy" (known: decay, two_factor_hebbian,`)
	base := &zbsystem.Config{Pool: pool, Lifecycle: zbsystem.DefaultLifecycle}
	_, err = zbsystem.Arms(base, []string{"decay", "telepathy"})
	require.ErrorContains(t, err, `unknown algorithm "telepathy"`)

	full, err := zbsystem.New(base)
	require.NoError(t, err)
	arms, err := zbsystem.Arms(base, []string{"gwt", "decay", "gwt"})
	require.NoError(t, err)
	require.Len(t, arms, 2, "registry order, repeats once")
	require.Equal(t, "decay", arms[0].ID)
	require.Equal(t, zbsystem.ArmName("decay"), arms[0].System.Name())
	require.Equal(t, "zenbrain-no-gwt", arms[1].System.Name())
	noDecay := arms[0].System.(*zbsystem.System)
	require.Contains(t, noDecay.Describe(), "switched off: decay")
	require.Empty(t, base.Disabled, "the base configuration is left alone")

	// The full system run twice is identical to itself: the ablation's "identical" is a property
	// of the mechanism, not noise.
	again, err := zbsystem.New(&zbsystem.Config{Pool: pool, Lifecycle: zbsystem.DefaultLifecycle, Name: "zenbrain-again"})
	require.NoError(t, err)
	rep, err := locomo.Run(ctx, ds, []locomo.System{full}, locomo.Options{Mode: locomo.PerConversation, PerQuestion: true})
	require.NoError(t, err)
	abl, err := locomo.Ablate(ctx, ds, rep.Result(locomo.PerConversation, zbsystem.NameDefault),
		append(arms[:1:1], locomo.AblationArm{ID: "nothing", System: again}), locomo.Options{})
	require.NoError(t, err)
	require.Len(t, abl.Arms, 2)
	require.Equal(t, 7, abl.Questions)
	for _, row := range abl.Arms {
		require.NotNil(t, row.Context250, row.ID)
		require.Positive(t, row.SearchMeanMillis, row.ID)
	}
	require.True(t, abl.Arms[1].Identical, "the full system again: %+v", abl.Arms[1])

	// The arm's tenant has decay switched off, and only decay.
	algs, err := noDecay.Coordinator().Algorithms(ctx, noDecay.Tenant(p.Tenant))
	require.NoError(t, err)
	for _, a := range algs {
		require.Equal(t, a.ID != "decay", a.Enabled, a.ID)
	}
	algs, err = full.Coordinator().Algorithms(ctx, full.Tenant(p.Tenant))
	require.NoError(t, err)
	for _, a := range algs {
		require.True(t, a.Enabled, a.ID)
	}
}
