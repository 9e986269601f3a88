package coordinator_test

import (
	"math"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

// liveState reads a memory's retrievability and triple-copy strength at a time through the SQL
// API (zb.memory_live, the twin of the Go formulas).
func liveState(t *testing.T, pool *pgxpool.Pool, tenant string, id int64, at time.Time) (r, strength, stability float64) {
	t.Helper()
	require.NoError(t, pool.QueryRow(ctxT(t), `SELECT retrievability, triple_copy_strength, stability_days
		FROM zb.memory_live($3) WHERE tenant_id = $1 AND id = $2`, tenant, id, at).Scan(&r, &strength, &stability))
	return r, strength, stability
}

type stcScenario struct {
	weak, strong, other int64
}

// runRecallSTC plays the recall path: a weak fact (confidence 0.3) and a strong fact
// (confidence 0.8) about Zeus, and an unrelated strong fact, stored at t0 and derived; at
// t0+2h the weak fact is recalled (tagged), at t0+2h+gap the strong one (the donor). It returns
// the ids and the tags' rescues.
func runRecallSTC(t *testing.T, b *testBundle, tenant string, gap time.Duration, stcOn bool) stcScenario {
	t.Helper()
	ctx := ctxT(t)
	pool := b.cfg.Pool
	b.clock.Set(t0)
	store := func(content string) int64 {
		res, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: content, Layer: coordinator.LayerSemantic})
		require.NoError(t, err)
		return res.ID
	}
	s := stcScenario{
		weak:   store("The Zeus launch slipped to Friday after the audit"),
		strong: store("The Zeus team ships with the blue rollout pipeline"),
		other:  store("The Hermes courier route crosses the harbour bridge"),
	}
	_, err := b.co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, Pending: true}, nil)
	require.NoError(t, err)
	if !stcOn {
		require.NoError(t, b.co.SetAlgorithm(ctx, tenant, "stc_rescue", false))
	}
	execSQL(t, pool, `UPDATE zb.memory SET confidence = CASE id WHEN $2 THEN 0.3 ELSE 0.8 END WHERE tenant_id = $1`, tenant, s.weak)

	b.clock.Set(t0.Add(2 * time.Hour))
	rec, err := b.co.Recall(ctx, tenant, "launch slipped Friday audit", &coordinator.RecallOpts{K: 1})
	require.NoError(t, err)
	require.Equal(t, []int64{s.weak}, rec.Touched)
	b.clock.Add(gap)
	rec, err = b.co.Recall(ctx, tenant, "blue rollout pipeline team", &coordinator.RecallOpts{K: 1})
	require.NoError(t, err)
	require.Equal(t, []int64{s.strong}, rec.Touched)
	return s
}

func TestSTCRescueByRecall(t *testing.T) {
	t.Parallel()
	type outcome struct {
		tags, rescued int
		sAfter        float64
		r14, str14    float64
	}
	run := func(t *testing.T, gap time.Duration, on bool) (outcome, stcScenario, *testBundle) {
		b := setup(t, nil)
		s := runRecallSTC(t, b, "stc", gap, on)
		pool := b.cfg.Pool
		var o outcome
		o.tags = queryInt(t, pool, `SELECT count(*) FROM zb.stc_tag WHERE tenant_id = 'stc'`)
		o.rescued = queryInt(t, pool, `SELECT count(*) FROM zb.stc_tag WHERE tenant_id = 'stc' AND rescued_by IS NOT NULL`)
		_, _, o.sAfter = liveState(t, pool, "stc", s.weak, b.clock.Now())
		o.r14, o.str14, _ = liveState(t, pool, "stc", s.weak, b.clock.Now().Add(14*24*time.Hour))
		return o, s, b
	}
	on, s, b := run(t, 10*time.Minute, true)
	off, _, _ := run(t, 10*time.Minute, false)
	late, _, _ := run(t, 45*time.Minute, true)

	// On: the weak fact was tagged at its recall and rescued by the strong related one.
	require.Equal(t, 1, on.tags)
	require.Equal(t, 1, on.rescued)
	tags, err := b.co.STCTags(ctxT(t), "stc", 0)
	require.NoError(t, err)
	require.Len(t, tags, 1)
	require.Equal(t, s.weak, tags[0].MemoryID)
	require.Equal(t, s.strong, *tags[0].RescuedBy)
	require.Equal(t, t0.Add(2*time.Hour), tags[0].TaggedAt.UTC())
	require.Equal(t, t0.Add(2*time.Hour+30*time.Minute), tags[0].ExpiresAt.UTC())
	// Decay rate halved: the stability doubled relative to the same scenario without STC.
	require.InDelta(t, 2*off.sAfter, on.sAfter, 1e-9)
	// The medium copy was re-based at the rescue with strength min(1, s + 0.3), τ 28 days.
	var str, tau float64
	require.NoError(t, b.cfg.Pool.QueryRow(ctxT(t), `SELECT initial_strength, tau_seconds FROM zb.triple_copy
		WHERE tenant_id = 'stc' AND memory_id = $1 AND copy = 'medium'`, s.weak).Scan(&str, &tau))
	require.InDelta(t, 28*24*3600.0, tau, 1e-6)
	var before float64
	require.NoError(t, b.cfg.Pool.QueryRow(ctxT(t), `SELECT (detail->>'strength_before')::float8 FROM zb.audit_event
		WHERE tenant_id = 'stc' AND action = 'memory.stc_rescue'`).Scan(&before))
	require.InDelta(t, math.Min(1, before+0.3), str, 1e-9)

	// Off: no tag, no rescue. Late donor (45 min > 30 min window): tagged, not rescued.
	require.Zero(t, off.tags)
	require.Zero(t, off.rescued)
	require.Equal(t, 1, late.tags)
	require.Zero(t, late.rescued)

	// The measured effect 14 days after the donor's recall.
	require.Greater(t, on.r14, off.r14+0.2, "retrievability on %.3f vs off %.3f", on.r14, off.r14)
	require.Greater(t, on.str14, off.str14+0.2, "triple-copy strength on %.3f vs off %.3f", on.str14, off.str14)
	require.InDelta(t, late.r14, off.r14, 0.05, "a donor outside the window changes nothing")
	t.Logf("14 days after: retrievability on %.3f off %.3f late %.3f; strength on %.3f off %.3f; stability %.2f → %.2f days",
		on.r14, off.r14, late.r14, on.str14, off.str14, off.sAfter, on.sAfter)

	// An unrelated strong fact never rescues: the Hermes fact shares no entity.
	require.NotEqual(t, s.other, *tags[0].RescuedBy)
}

func TestSTCRescueByDerive(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{true, false} {
		b := setup(t, nil)
		ctx := ctxT(t)
		pool := b.cfg.Pool
		tenant := "stcd"
		weak := insertMem(t, pool, tenant, memSpec{content: "The Apollo budget review was postponed", created: t0, stability: 7})
		strong := insertMem(t, pool, tenant, memSpec{content: "The Apollo budget grew by a third this year", created: t0.Add(20 * time.Minute), stability: 7})
		far := insertMem(t, pool, tenant, memSpec{content: "The Apollo office moved to the third floor", created: t0.Add(3 * time.Hour), stability: 7})
		execSQL(t, pool, `UPDATE zb.memory SET confidence = CASE id WHEN $2 THEN 0.2 ELSE 0.9 END WHERE tenant_id = $1`, tenant, weak)
		if !on {
			require.NoError(t, b.co.SetAlgorithm(ctx, tenant, "stc_rescue", false))
		}
		b.clock.Set(t0.Add(4 * time.Hour))
		rep, err := b.co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, MemoryIDs: []int64{weak, strong, far}}, nil)
		require.NoError(t, err)
		require.Len(t, rep.Derived, 3)
		tags, err := b.co.STCTags(ctx, tenant, 0)
		require.NoError(t, err)
		if !on {
			require.Empty(t, tags)
			var s float64
			require.NoError(t, pool.QueryRow(ctx, `SELECT stability FROM zb.memory WHERE id = $1`, weak).Scan(&s))
			require.InDelta(t, 7, s, 1e-9)
			continue
		}
		require.Len(t, tags, 1, "only the weak memory is tagged")
		require.Equal(t, weak, tags[0].MemoryID)
		require.Equal(t, t0, tags[0].TaggedAt.UTC(), "tagged at its formation")
		require.NotNil(t, tags[0].RescuedBy)
		require.Equal(t, strong, *tags[0].RescuedBy, "formed 20 min later: inside the window; the one 3 h later is not")
		var s float64
		require.NoError(t, pool.QueryRow(ctx, `SELECT stability FROM zb.memory WHERE id = $1`, weak).Scan(&s))
		require.InDelta(t, 14, s, 1e-9, "7-day stability doubled")

		// Idempotent: deriving or sweeping again changes nothing.
		before := tenantState(t, pool, tenant)
		_, err = b.co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, MemoryIDs: []int64{weak, strong, far}}, nil)
		require.NoError(t, err)
		require.Equal(t, before["memory"], tenantState(t, pool, tenant)["memory"])
		require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = $1 AND action = 'memory.stc_rescue'`, tenant))
	}
}

func TestSTCRescueBySleep(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{true, false} {
		b := setup(t, nil)
		ctx := ctxT(t)
		pool := b.cfg.Pool
		tenant := "stcs"
		b.clock.Set(t0)
		w, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "The Orion migration plan has a gap in step four", Layer: coordinator.LayerSemantic})
		require.NoError(t, err)
		d, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "The Orion migration was signed off by the architects", Layer: coordinator.LayerSemantic})
		require.NoError(t, err)
		_, err = b.co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, Pending: true}, nil)
		require.NoError(t, err)
		if !on {
			require.NoError(t, b.co.SetAlgorithm(ctx, tenant, "stc_rescue", false))
		}
		// The weak memory's confidence falls only after both were activated (e.g. contradicting
		// evidence), so neither the store nor the recall pass could tag it: sleep does.
		b.clock.Set(t0.Add(time.Hour))
		_, err = b.co.Recall(ctx, tenant, "gap in step four", &coordinator.RecallOpts{K: 1})
		require.NoError(t, err)
		b.clock.Add(5 * time.Minute)
		_, err = b.co.Recall(ctx, tenant, "signed off by the architects", &coordinator.RecallOpts{K: 1})
		require.NoError(t, err)
		execSQL(t, pool, `UPDATE zb.memory SET confidence = CASE id WHEN $2 THEN 0.35 ELSE 0.75 END WHERE tenant_id = $1`, tenant, w.ID)
		require.Zero(t, queryInt(t, pool, `SELECT count(*) FROM zb.stc_tag WHERE tenant_id = $1`, tenant))

		b.clock.Set(t0.Add(6 * time.Hour))
		_, err = b.co.Sleep(ctx, tenant, &coordinator.SleepOpts{Trigger: "manual", Seed: 7}, nil)
		require.NoError(t, err)
		tags, err := b.co.STCTags(ctx, tenant, 0)
		require.NoError(t, err)
		if !on {
			require.Empty(t, tags)
			continue
		}
		require.Len(t, tags, 1)
		require.Equal(t, w.ID, tags[0].MemoryID)
		require.Equal(t, t0.Add(time.Hour), tags[0].TaggedAt.UTC(), "tagged at its last activation")
		require.NotNil(t, tags[0].RescuedBy)
		require.Equal(t, d.ID, *tags[0].RescuedBy)
		require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = $1 AND action = 'memory.stc_sweep'`, tenant))
		// A second sleep finds nothing new.
		b.clock.Add(time.Hour)
		_, err = b.co.Sleep(ctx, tenant, &coordinator.SleepOpts{Trigger: "manual", Seed: 7}, nil)
		require.NoError(t, err)
		require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = $1 AND action = 'memory.stc_rescue'`, tenant))
	}
}
