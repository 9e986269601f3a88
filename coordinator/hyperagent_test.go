package coordinator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/hyperagent"
	"github.com/zenbrain/zb/coordinator"
)

// TestHyperagentTunesDiversity measures hyperagent: 25 recalls in the last 25 days whose 50
// results were never used give the monitor a retrieval efficiency of 0 on 25 samples; after the
// sleep run the HyperAgent lowers retrieval_diversity by its maximum step, 0.3 → 0.2 ("favour
// precision": −0.5·(0.5 − 0) = −0.25, capped at 0.1), logs and audits it, and the context
// assembly's redundancy penalty λ drops from 1 to 0.2/0.3 ≈ 0.667. Reverting restores 0.3 and
// λ = 1. With hyperagent off the same traffic changes nothing: λ stays 1.
func TestHyperagentTunesDiversity(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	const n = 25
	world := func(tenant string) {
		for i := range n {
			at := t0.Add(-time.Duration(n-i) * 24 * time.Hour)
			m1 := insertMem(t, pool, tenant, memSpec{content: "Orion note " + fmtInt(int64(i)), created: at.Add(-48 * time.Hour), stability: 30, embed: true})
			m2 := insertMem(t, pool, tenant, memSpec{content: "Orion memo " + fmtInt(int64(i)), created: at.Add(-72 * time.Hour), stability: 30, embed: true})
			execSQL(t, pool, `INSERT INTO zb.recall_event (tenant_id, query_hash, query_class, result_ids, top_score, success, created_at)
				VALUES ($1, '\x00', 'general', $2, 0.9, true, $3)`, tenant, []int64{m1, m2}, at)
		}
	}
	lambda := func(tenant string) float64 {
		blk, err := b.co.Context(ctx, tenant, nil, "Orion note", 400)
		require.NoError(t, err)
		if blk.Workspace.RedundancyPenalty == nil {
			return 1 // the default λ, not reported
		}
		return *blk.Workspace.RedundancyPenalty
	}

	world("ha-on")
	require.InDelta(t, 1.0, lambda("ha-on"), 1e-12, "default diversity 0.3 → λ 1")
	rep, err := b.co.Sleep(ctx, "ha-on", &coordinator.SleepOpts{Trigger: "manual", Seed: 1}, nil)
	require.NoError(t, err)
	require.NotNil(t, rep.Hyperagent)
	require.Equal(t, n+1, rep.Hyperagent.Signals.Samples, "the 25 recalls and the Context call's own")
	require.InDelta(t, 0, rep.Hyperagent.Signals.RetrievalEfficiency, 1e-12)
	require.Len(t, rep.Hyperagent.Adjustments, 1)
	a := rep.Hyperagent.Adjustments[0]
	require.Equal(t, hyperagent.ParamRetrievalDiversity, a.Param)
	require.InDelta(t, 0.3, a.From, 1e-12)
	require.InDelta(t, 0.2, a.To, 1e-12)
	require.InDelta(t, 0.2, queryFloat(t, pool, `SELECT value FROM zb.tenant_parameter WHERE tenant_id = 'ha-on' AND name = 'retrieval_diversity'`), 1e-12)
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = 'ha-on' AND action = 'hyperagent.adjust'`))
	// Idempotent: a second run on the same logs (no recall since) records nothing new and adjusts
	// nothing.
	rep2, err := b.co.Sleep(ctx, "ha-on", &coordinator.SleepOpts{Trigger: "manual", Seed: 1}, nil)
	require.NoError(t, err)
	require.Nil(t, rep2.Hyperagent)
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.hyperagent_adjustment WHERE tenant_id = 'ha-on'`))
	lOn := lambda("ha-on")
	require.InDelta(t, 0.2/0.3, lOn, 1e-12)

	// Reversible.
	require.NoError(t, b.co.RevertHyperagentAdjustment(ctx, "ha-on", rep.Hyperagent.AdjustmentIDs[0]))
	require.InDelta(t, 1.0, lambda("ha-on"), 1e-12)
	require.ErrorIs(t, b.co.RevertHyperagentAdjustment(ctx, "ha-on", rep.Hyperagent.AdjustmentIDs[0]), coordinator.ErrConflict)
	require.ErrorIs(t, b.co.RevertHyperagentAdjustment(ctx, "ha-on", 987654), coordinator.ErrNotFound)
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = 'ha-on' AND action = 'hyperagent.revert'`))

	// Switched off: same traffic, nothing tuned.
	world("ha-off")
	require.NoError(t, b.co.SetAlgorithm(ctx, "ha-off", "hyperagent", false))
	repOff, err := b.co.Sleep(ctx, "ha-off", &coordinator.SleepOpts{Trigger: "manual", Seed: 1}, nil)
	require.NoError(t, err)
	require.Nil(t, repOff.Hyperagent)
	require.Zero(t, queryInt(t, pool, `SELECT count(*) FROM zb.tenant_parameter WHERE tenant_id = 'ha-off'`))
	lOff := lambda("ha-off")
	require.InDelta(t, 1.0, lOff, 1e-12)
	t.Logf("redundancy penalty λ after the sleep: hyperagent on %.4f, off %.4f", lOn, lOff)
}
