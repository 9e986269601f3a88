package coordinator_test

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/workspace"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/pma"
)

func scoreOf(t *testing.T, blk *coordinator.ContextBlock, m workspace.Module) workspace.Scored {
	t.Helper()
	require.NotNil(t, blk.Workspace)
	for _, s := range blk.Workspace.Scores {
		if s.Module == m {
			return s
		}
	}
	t.Fatalf("module %s not offered: %+v", m, blk.Workspace.Scores)
	return workspace.Scored{}
}

// zeusWorld stores one memory per module about the Zeus release, a working slot, a cue
// intention that the context's own recall fires, and a metacognitive alert.
func zeusWorld(t *testing.T, b *testBundle, tenant string) uuid.UUID {
	t.Helper()
	ctx := ctxT(t)
	sess := uuid.New()
	for _, in := range []coordinator.StoreInput{
		{Content: "Sam", CoreLabel: "name"},
		{Content: "drafting the Zeus release notes", Layer: coordinator.LayerWorking, SessionID: &sess},
		{Content: "The Zeus release uses the blue pipeline", Layer: coordinator.LayerSemantic},
		{Content: "We shipped the Zeus release to staging", Layer: coordinator.LayerEpisodic},
		{Content: "How to cut the Zeus release: step 1 tag, step 2 push", Layer: coordinator.LayerProcedural},
		{Content: "The Zeus release also appears in the family calendar", Layer: coordinator.LayerCrossContext},
	} {
		in.TenantID = tenant
		_, err := b.co.Store(ctx, in)
		require.NoError(t, err)
	}
	_, err := b.co.AddIntention(ctx, tenant, coordinator.IntentionInput{
		Content: "announce the Zeus release", Cue: "Zeus release",
		Priority: "high",
	})
	require.NoError(t, err)
	execSQL(t, b.cfg.Pool, `INSERT INTO zb.metacog_event (tenant_id, kind, value, alert, detail, created_at)
		VALUES ($1, 'recency_bias', 0.2, true, '{"message": "recall favours recent memories"}', $2)`, tenant, t0)
	return sess
}

// TestWorkspaceCompetition checks the competition's numbers: the PriorityMap blend, at most 4
// broadcast modules, the budget split by effective salience, the pinned core and the budget.
func TestWorkspaceCompetition(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	sess := zeusWorld(t, b, "ws")
	blk, err := b.co.Context(ctx, "ws", &sess, "Zeus release", 2000)
	require.NoError(t, err)
	rep := blk.Workspace
	require.Equal(t, "core", blk.Items[0].Section)
	require.Equal(t, "name: Sam", blk.Items[0].Content)
	require.LessOrEqual(t, coordinator.EstimateTokens(blk.Text), blk.Used)
	require.LessOrEqual(t, blk.Used, blk.Budget)
	require.Len(t, rep.Scores, 7, "working, episodic, semantic, procedural, prospective, cross_context, metacog_alerts")

	// The blend: eff = 0.7·sal + 0.3·P(s = sal, v, r = stored priority, g = sal) at baseline
	// levels. The alert module's signals are fixed: sal 0.6, v 0, r 0.5.
	pm, err := pma.NewPriorityMap(nil)
	require.NoError(t, err)
	al := scoreOf(t, blk, workspace.MetacogAlerts)
	require.InDelta(t, 0.6, al.Salience, 1e-12)
	p, err := pm.Score(pma.PriorityInput{Salience: 0.6, Relevance: 0.5, Goal: 0.6}, pma.BaselineLevels())
	require.NoError(t, err)
	require.InDelta(t, p.Score, al.Composite, 1e-12)
	require.InDelta(t, 0.7*0.6+0.3*p.Score, al.Effective, 1e-12)
	// The fired high-priority intention: relevance 1 → sal 1.
	pr := scoreOf(t, blk, workspace.Prospective)
	require.InDelta(t, 1, pr.Salience, 1e-12)

	// At most 4 competing modules broadcast; the ignited rest are capped.
	ignited, capped := 0, 0
	for _, s := range rep.Scores {
		switch s.Decision {
		case workspace.DecisionIgnited, workspace.DecisionHysteresis:
			ignited++
		case workspace.DecisionCapped:
			capped++
		}
	}
	require.Equal(t, 4, ignited)
	require.Positive(t, capped)
	require.Len(t, rep.Winners, 4)
	// Capped modules have lower effective salience than every broadcast one.
	minBroadcast := 1.0
	for _, s := range rep.Scores {
		if s.Decision == workspace.DecisionIgnited {
			minBroadcast = math.Min(minBroadcast, s.Effective)
		}
	}
	for _, s := range rep.Scores {
		if s.Decision == workspace.DecisionCapped {
			require.LessOrEqual(t, s.Effective, minBroadcast)
		}
	}
	// The budget after core is split by effective salience (largest remainder: ±1 token).
	rest := blk.Budget - rep.CoreTokens
	sumEff := 0.0
	for _, sec := range rep.Sections {
		sumEff += sec.Effective
	}
	shares := 0
	for _, sec := range rep.Sections {
		require.Zero(t, sec.Skipped, "a 2000-token budget holds every item")
		require.InDelta(t, float64(rest)*sec.Effective/sumEff, float64(sec.Share), 1, sec.Module)
		require.LessOrEqual(t, sec.Used, sec.Share)
		shares += sec.Share
	}
	require.Equal(t, rest, shares)
	require.Contains(t, blk.Text, "## Intentions\n- announce the Zeus release\n")
	js, _ := json.Marshal(rep.Scores)
	t.Logf("scores: %s", js)
}

// TestWorkspaceHysteresis measures hysteresis: the working module, 20 minutes after its slot
// was touched, has eff ≈ 0.45 — below the 0.5 ignition but above 0.3 — and is broadcast only
// when it won the previous assembly of the same session.
func TestWorkspaceHysteresis(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	sess := uuid.New()
	w, err := b.co.Store(ctx, coordinator.StoreInput{
		TenantID: "hy", Content: "refactoring the parser module",
		Layer: coordinator.LayerWorking, SessionID: &sess,
	})
	require.NoError(t, err)
	_, err = b.co.Store(ctx, coordinator.StoreInput{TenantID: "hy", Content: "The parser handles German dates"})
	require.NoError(t, err)

	first, err := b.co.Context(ctx, "hy", &sess, "parser dates", 300)
	require.NoError(t, err)
	require.Equal(t, workspace.DecisionIgnited, scoreOf(t, first, workspace.Working).Decision)
	require.Contains(t, first.Workspace.Winners, workspace.Working)

	b.clock.Add(20 * time.Minute)
	var prio float64
	require.NoError(t, b.cfg.Pool.QueryRow(ctx, `SELECT priority FROM zb.memory WHERE id = $1`, w.ID).Scan(&prio))
	sal := math.Exp(-20.0 / 30) // relevance 1 × recency exp(−Δt/30 min)
	pm, err := pma.NewPriorityMap(nil)
	require.NoError(t, err)
	p, err := pm.Score(pma.PriorityInput{Salience: sal, Relevance: prio, Goal: sal}, pma.BaselineLevels())
	require.NoError(t, err)
	wantEff := 0.7*sal + 0.3*p.Score
	require.Greater(t, wantEff, 0.3)
	require.Less(t, wantEff, 0.5)

	held, err := b.co.Context(ctx, "hy", &sess, "parser dates", 300)
	require.NoError(t, err)
	ws := scoreOf(t, held, workspace.Working)
	require.InDelta(t, wantEff, ws.Effective, 1e-9)
	require.Equal(t, workspace.DecisionHysteresis, ws.Decision, "a previous winner ignites at 0.3")
	require.Contains(t, held.Text, "refactoring the parser module")

	// The same state without the previous winner set: below threshold, not broadcast.
	execSQL(t, b.cfg.Pool, `DELETE FROM zb.workspace_state WHERE tenant_id = 'hy'`)
	fresh, err := b.co.Context(ctx, "hy", &sess, "parser dates", 300)
	require.NoError(t, err)
	require.Equal(t, workspace.DecisionBelow, scoreOf(t, fresh, workspace.Working).Decision)
	require.NotContains(t, fresh.Text, "refactoring the parser module")
	require.Empty(t, fresh.Workspace.Previous)
	var n int
	require.NoError(t, b.cfg.Pool.QueryRow(ctx, `SELECT assembled FROM zb.workspace_state WHERE tenant_id = 'hy' AND scope = $1`,
		"session:"+sess.String()).Scan(&n))
	require.Equal(t, 1, n)
	t.Logf("working module 20 min later: sal %.3f, eff %.3f: hysteresis with the previous winners, below threshold without", sal, wantEff)
}

// TestWorkspaceDeterministicAndSwitches checks byte-identical output for equal inputs, the
// PriorityMap switch (eff = sal) and the gwt switch (the plain assembly).
func TestWorkspaceDeterministicAndSwitches(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	sess := zeusWorld(t, b, "dt")
	a1, err := b.co.Context(ctx, "dt", &sess, "Zeus release", 120)
	require.NoError(t, err)
	execSQL(t, b.cfg.Pool, `DELETE FROM zb.workspace_state WHERE tenant_id = 'dt'`)
	a2, err := b.co.Context(ctx, "dt", &sess, "Zeus release", 120)
	require.NoError(t, err)
	require.Equal(t, a1.Text, a2.Text)
	j1, _ := json.Marshal(a1)
	j2, _ := json.Marshal(a2)
	require.Equal(t, string(j1), string(j2))
	for _, budget := range []int{0, 3, 9, 15, 40, 120, 500} {
		blk, err := b.co.Context(ctx, "dt", &sess, "Zeus release", budget)
		require.NoError(t, err)
		require.LessOrEqual(t, coordinator.EstimateTokens(blk.Text), blk.Used, budget)
		require.LessOrEqual(t, blk.Used, budget)
		if len(blk.Items) > 0 {
			require.Equal(t, "core", blk.Items[0].Section, budget)
		}
	}

	require.NoError(t, b.co.SetAlgorithm(ctx, "dt", "priority_map", false))
	np, err := b.co.Context(ctx, "dt", &sess, "Zeus release", 120)
	require.NoError(t, err)
	for _, s := range np.Workspace.Scores {
		require.InDelta(t, s.Salience, s.Effective, 1e-12, s.Module)
		require.Zero(t, s.Composite)
	}

	require.NoError(t, b.co.SetAlgorithm(ctx, "dt", "gwt", false))
	plain, err := b.co.Context(ctx, "dt", &sess, "Zeus release", 500)
	require.NoError(t, err)
	require.Nil(t, plain.Workspace)
	require.Contains(t, plain.Text, "## Core\n")
	require.Contains(t, plain.Text, "## Working\n- drafting the Zeus release notes\n")
	require.Contains(t, plain.Text, "## Recalled\n")
	require.NotContains(t, plain.Text, "announce the Zeus release", "the plain assembly has no prospective module")
	for _, it := range plain.Items {
		require.Contains(t, []string{"core", "working", "recalled"}, it.Section)
	}
}
