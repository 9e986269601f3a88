package coordinator_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/forgetting"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/jobs"
)

func TestDecayDueTouchesOnlyFaded(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	const tenant = "decay"
	past, future := ptrTime(t0.Add(-time.Hour)), ptrTime(t0.Add(30*24*time.Hour))
	// 300 memories that have not faded.
	for i := 0; i < 300; i++ {
		insertMem(t, pool, tenant, memSpec{content: "ordinary note number " + itoa(int64(i)), created: t0.Add(-time.Hour), stability: 7, fadeAt: future, derived: true})
	}
	old := t0.Add(-60 * 24 * time.Hour)
	// carried: faded, and a fact derived from it states its text as it is → archived.
	carried := insertMem(t, pool, tenant, memSpec{layer: "episodic", kind: "episode", content: "Melanie painted a lake.", created: old, stability: 1, fadeAt: past, derived: true})
	insertMem(t, pool, tenant, memSpec{kind: "fact", content: "Melanie painted a lake.", created: t0, stability: 7, fadeAt: future, sources: []int64{carried}, ai: true, derived: true})
	// unused: faded, never accessed for 60 days → the IB budget compresses it → archived.
	unused := insertMem(t, pool, tenant, memSpec{layer: "episodic", kind: "episode", content: "Caroline mentioned Anna and Tom at lunch.", created: old, stability: 1, fadeAt: past, derived: true, ai: true})
	// used: faded, but recalled 10 times 3 days ago → kept, fade_at pushed to the next crossing.
	used := insertMem(t, pool, tenant, memSpec{
		layer: "episodic", kind: "episode", content: "The wifi password is hunter2.", created: old,
		lastAccess: t0.Add(-72 * time.Hour), stability: 0.5, fadeAt: past, accessCount: 10, derived: true,
	})
	execSQL(t, pool, `UPDATE zb.memory SET confidence = 1 WHERE id = $1`, used)
	// stale: its fade_at passed but its stability grew since (R ≥ 0.1) → rescheduled to its real fade time.
	stale := insertMem(t, pool, tenant, memSpec{content: "Jon likes jazz.", created: t0.Add(-24 * time.Hour), stability: 30, fadeAt: past, derived: true})
	// Entities and edges of the faded memories: a weak old edge (pruned), a strong one (decayed).
	var e1, e2, e3, e4 int64
	for _, p := range []struct {
		name string
		dst  *int64
	}{{"anna", &e1}, {"tom", &e2}, {"caroline", &e3}, {"other", &e4}} {
		require.NoError(t, pool.QueryRow(ctx, `INSERT INTO zb.entity (tenant_id, name, normalized_name, created_at, updated_at) VALUES ($1, $2, $2, $3, $3) RETURNING id`,
			tenant, p.name, t0).Scan(p.dst))
	}
	execSQL(t, pool, `INSERT INTO zb.mention (tenant_id, memory_id, entity_id) VALUES ($1, $2, $3), ($1, $2, $4)`, tenant, unused, e1, e2)
	execSQL(t, pool, `INSERT INTO zb.edge (tenant_id, source_id, target_id, weight, variance, activation_count, created_at, last_activated_at)
		VALUES ($1, $2, $3, 0.06, 1, 1, $5, $5), ($1, $2, $4, 5, 0.5, 3, $6, $6), ($1, $4, $7, 2, 1, 1, $6, $6)`,
		tenant, e1, e2, e3, old, t0.Add(-10*24*time.Hour), e4)
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.edge WHERE tenant_id = $1 AND weight = 2`, tenant))

	// The candidate query is served by the schedule's (tenant_id, fade_at) index.
	execSQL(t, pool, `ANALYZE zb.memory, zb.memory_fade`)
	var plan strings.Builder
	rows, err := pool.Query(ctx, `EXPLAIN SELECT memory_id FROM zb.memory_fade WHERE tenant_id = $1 AND fade_at <= $2
		ORDER BY fade_at, memory_id LIMIT 1000`, tenant, t0)
	require.NoError(t, err)
	for rows.Next() {
		var line string
		require.NoError(t, rows.Scan(&line))
		plan.WriteString(line + "\n")
	}
	require.NoError(t, rows.Err())
	require.Contains(t, plan.String(), "memory_fade_due_idx", plan.String())

	untouched := func() string {
		var s string
		require.NoError(t, pool.QueryRow(ctx, `SELECT string_agg((to_jsonb(m) - 'content_tsv')::text, '|' ORDER BY id) FROM zb.memory m
			WHERE tenant_id = $1 AND id NOT IN ($2, $3, $4, $5)`, tenant, carried, unused, used, stale).Scan(&s))
		return s
	}
	beforeOthers := untouched()
	// Count the zb.memory rows the decay transaction reads. A 305-row table is small enough for
	// the planner to prefer sequential scans, so the count runs with them disabled: it shows
	// that every access has an index path bounded by the faded rows.
	u := pool.Config().ConnString()
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	ipool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: u + sep + "enable_seqscan=off", MaxConns: 2})
	require.NoError(t, err)
	t.Cleanup(ipool.Close)
	cfg := *b.cfg
	cfg.Pool = ipool
	ico, err := coordinator.New(&cfg)
	require.NoError(t, err)
	var rowsRead, seqScans int64
	rep, err := ico.DecayDue(ctx, tenant, 0, func(ctx context.Context, tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT seq_tup_read + coalesce(idx_tup_fetch, 0), seq_scan FROM pg_stat_xact_user_tables
			WHERE schemaname = 'zb' AND relname = 'memory'`).Scan(&rowsRead, &seqScans)
	})
	require.NoError(t, err)
	require.Zero(t, seqScans)
	// Each faded row is read by the candidate scan and by the update; the carried probe finds
	// the one schema that carries one of them; nothing else of the 305 rows is read.
	require.LessOrEqual(t, rowsRead, int64(2*rep.Examined+1), "rows read")
	// 305 memories in the tenant, 4 faded: exactly those 4 are examined.
	require.Equal(t, 305, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE tenant_id = $1`, tenant))
	require.Equal(t, 4, rep.Examined)
	require.ElementsMatch(t, []int64{carried, unused}, rep.Archived)
	require.Equal(t, 1, rep.ArchivedCarried)
	require.Equal(t, 1, rep.ArchivedBudget)
	require.Equal(t, 2, rep.Rescheduled)
	require.Equal(t, 1, rep.EdgesPruned, "the 0.06 edge decayed for 60 days is below 0.05")
	require.Equal(t, 1, rep.EdgesDecayed)
	require.Equal(t, beforeOthers, untouched(), "memories that had not faded are not touched")
	require.Equal(t, 2, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE id IN ($1, $2) AND status = 'archived'`, carried, unused))
	require.Equal(t, 2, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE id IN ($1, $2) AND status = 'active' AND fade_at > $3`, used, stale, t0))
	// Importance-gated decay over 10 days: I = 1/0.5 = 2, r_eff = 0.02/(1 + 0.1·2) per day.
	var w float64
	require.NoError(t, pool.QueryRow(ctx, `SELECT weight FROM zb.edge WHERE tenant_id = $1 AND source_id = $2 AND target_id = $3`, tenant, e1, e3).Scan(&w))
	require.InDelta(t, 5*math.Exp(-0.02/1.2*10), w, 1e-9)
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.edge WHERE tenant_id = $1 AND weight = 2`, tenant), "an edge of other entities is left alone")

	// Idempotent: the second run finds nothing.
	before := tenantState(t, pool, tenant)
	rep, err = b.co.DecayDue(ctx, tenant, 0, nil)
	require.NoError(t, err)
	require.Zero(t, rep.Examined)
	require.Equal(t, before, tenantState(t, pool, tenant))
}

func TestReviewDue(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	const tenant = "review"
	r1, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "The project deadline is in March.", Layer: coordinator.LayerSemantic})
	require.NoError(t, err)
	r2, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "Ramen place on Fifth Street is good.", Layer: coordinator.LayerSemantic})
	require.NoError(t, err)
	drep, err := b.co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, MemoryIDs: []int64{r1.ID, r2.ID}}, nil)
	require.NoError(t, err)
	require.Equal(t, 2, drep.ReviewStates)
	// Nothing is due yet.
	rep, err := b.co.ReviewDue(ctx, tenant, 0, nil)
	require.NoError(t, err)
	require.Zero(t, rep.Reviewed)

	// Five days later: r1 was used twice (a recall returned it), r2 never.
	b.clock.Add(5 * 24 * time.Hour)
	execSQL(t, pool, `UPDATE zb.memory SET access_count = access_count + 2 WHERE id = $1`, r1.ID)
	execSQL(t, pool, `INSERT INTO zb.recall_event (tenant_id, query_hash, query_class, result_ids, created_at) VALUES ($1, 'x', 'general', $2, $3)`,
		tenant, []int64{r1.ID}, b.clock.Now())
	var s1 float64
	require.NoError(t, pool.QueryRow(ctx, `SELECT stability FROM zb.memory WHERE id = $1`, r1.ID).Scan(&s1))
	rep, err = b.co.ReviewDue(ctx, tenant, 0, nil)
	require.NoError(t, err)
	require.Equal(t, 2, rep.Reviewed)
	require.Equal(t, 1, rep.Good)
	require.Equal(t, 1, rep.Hard, "unused, R = exp(−5/(7·m_emo)) ≥ 0.5 for the positive text: Hard")
	require.Equal(t, 1, rep.Strengthened)
	var s1After float64
	var v, ar, sg float64
	require.NoError(t, pool.QueryRow(ctx, `SELECT stability, valence, arousal, significance FROM zb.memory WHERE id = $1`, r1.ID).Scan(&s1After, &v, &ar, &sg))
	// Review growth at R = exp(−5 d/(S·m_emo)): min(3, 1 + 0.3 + 2·(1 − R)).
	mEmo, err := forgetting.EmotionalMultiplier(v, ar, sg)
	require.NoError(t, err)
	R := math.Exp(-5 / (s1 * mEmo))
	require.InDelta(t, min(3, 1.3+2*(1-R))*s1, s1After, 1e-6*s1)
	require.Greater(t, s1After, 1.3*s1)
	require.Equal(t, 2, queryInt(t, pool, `SELECT count(*) FROM zb.review_log WHERE tenant_id = $1 AND vmpfc_pe IS NOT NULL`, tenant))
	require.Equal(t, 2, queryInt(t, pool, `SELECT count(*) FROM zb.review_state WHERE tenant_id = $1 AND due > $2 AND context_embedding IS NOT NULL`, tenant, b.clock.Now()))
	before := tenantState(t, pool, tenant)
	rep, err = b.co.ReviewDue(ctx, tenant, 0, nil)
	require.NoError(t, err)
	require.Zero(t, rep.Reviewed)
	require.Equal(t, before, tenantState(t, pool, tenant))

	// Without vmPFC coupling the batch writes no PE or multiplier (NULL, not NaN) and leaves the
	// cards' context embedding as it was; a batch of 3 writes 3 cards and 3 log rows.
	const plain = "review-plain"
	require.NoError(t, b.co.SetAlgorithm(ctx, plain, "vmpfc_fsrs", false))
	var ids []int64
	for _, txt := range []string{"The boat is moored in Kiel.", "Anna plays the cello.", "The key is under the blue pot."} {
		r, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: plain, Content: txt, Layer: coordinator.LayerSemantic})
		require.NoError(t, err)
		ids = append(ids, r.ID)
	}
	_, err = b.co.Derive(ctx, jobs.DeriveArgs{TenantID: plain, MemoryIDs: ids}, nil)
	require.NoError(t, err)
	b.clock.Add(6 * 24 * time.Hour)
	rep, err = b.co.ReviewDue(ctx, plain, 0, nil)
	require.NoError(t, err)
	require.Equal(t, 3, rep.Reviewed)
	require.Zero(t, rep.VMPFCApplied)
	require.Equal(t, 3, queryInt(t, pool, `SELECT count(*) FROM zb.review_log WHERE tenant_id = $1 AND vmpfc_pe IS NULL AND multiplier IS NULL
		AND interval_days > 0`, plain))
	require.Equal(t, 3, queryInt(t, pool, `SELECT count(*) FROM zb.review_state WHERE tenant_id = $1 AND context_embedding IS NULL
		AND last_review = $2 AND due > $2`, plain, b.clock.Now()))
}

func TestConsolidateSession(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	const tenant = "consolidate"
	sess, err := b.co.StartSession(ctx, tenant, "")
	require.NoError(t, err)
	var turns []int64
	for i, text := range []string{
		"Caroline: I went to the LGBTQ support group yesterday.",
		"Melanie: That sounds great, how was the support group?",
		"Caroline: The support group was really inspiring.",
		"Melanie: My favourite color is blue.", // one hour later: a new episode
		"Caroline: Blue is nice.",
	} {
		if i == 3 {
			b.clock.Add(time.Hour)
		}
		b.clock.Add(time.Minute)
		r, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: text, SessionID: &sess})
		require.NoError(t, err)
		require.Equal(t, coordinator.LayerShortTerm, r.Layer)
		turns = append(turns, r.ID)
	}
	rep, err := b.co.Consolidate(ctx, tenant, sess, nil)
	require.NoError(t, err)
	require.Equal(t, 5, rep.Turns)
	require.Len(t, rep.Episodes, 2, "the one-hour pause splits the session into two episodes")
	require.Len(t, rep.Facts, 1, "'My favourite color is blue' states a fact")
	require.Equal(t, 5, rep.Consolidated)
	var src []int64
	var from, to time.Time
	require.NoError(t, pool.QueryRow(ctx, `SELECT source_ids, event_from, event_to FROM zb.memory WHERE id = $1 AND layer = 'episodic' AND ai_generated`,
		rep.Episodes[0]).Scan(&src, &from, &to))
	require.Equal(t, turns[:3], src)
	require.True(t, to.After(from))
	// The turns stay active at their own granularity, moved to the episodic layer.
	require.Equal(t, 5, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE id = ANY($1) AND status = 'active' AND layer = 'episodic'`, turns))
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.session WHERE id = $1 AND consolidated_at IS NOT NULL`, sess))
	// Every turn stays reachable through the provenance of an active memory.
	require.Equal(t, 5, queryInt(t, pool, `SELECT count(DISTINCT s) FROM zb.memory m, unnest(m.source_ids) s WHERE m.tenant_id = $1 AND m.status = 'active' AND s = ANY($2)`, tenant, turns))
	for _, s := range rep.Schemas {
		require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE id = $1 AND kind = 'schema' AND cardinality(source_ids) >= 2`, s))
	}

	before := tenantState(t, pool, tenant)
	rep, err = b.co.Consolidate(ctx, tenant, sess, nil)
	require.NoError(t, err)
	require.True(t, rep.AlreadyConsolidated)
	require.Equal(t, before, tenantState(t, pool, tenant))
	_, err = b.co.Consolidate(ctx, tenant, uuid.New(), nil)
	require.ErrorIs(t, err, coordinator.ErrNotFound)

	// A late turn stored into the consolidated session reopens it: the idle sweep finds it and
	// consolidation takes the late turn (only it), so no turn stays short-term forever.
	b.clock.Add(time.Hour)
	late, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "Melanie: One more thing, I adopted a cat!", SessionID: &sess})
	require.NoError(t, err)
	require.Equal(t, coordinator.LayerShortTerm, late.Layer)
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.session WHERE id = $1 AND ended_at IS NULL`, sess))
	b.clock.Add(2 * time.Hour)
	idle, err := b.co.IdleSessions(ctx, time.Hour, 100)
	require.NoError(t, err)
	require.Len(t, idle, 1)
	require.Equal(t, sess, idle[0].ID)
	rep, err = b.co.Consolidate(ctx, tenant, sess, nil)
	require.NoError(t, err)
	require.False(t, rep.AlreadyConsolidated)
	require.Equal(t, 1, rep.Turns, "only the late turn")
	require.Len(t, rep.Episodes, 1)
	require.Equal(t, "active episodic", queryString(t, pool, `SELECT status::text || ' ' || layer::text FROM zb.memory WHERE id = $1`, late.ID))
	require.Zero(t, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND layer = 'short_term' AND status = 'active'`, tenant))
	rep, err = b.co.Consolidate(ctx, tenant, sess, nil)
	require.NoError(t, err)
	require.True(t, rep.AlreadyConsolidated)
}

// The budget never archives a faded memory that carries consolidated sources: it is where their
// content lives, and archiving it would lose knowledge (DESIGN.md §6: forgetting reorders and
// retires; it does not lose knowledge a user expects to keep).
func TestDecayDueKeepsCarriers(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	const tenant = "carriers"
	past := ptrTime(t0.Add(-time.Hour))
	old := t0.Add(-60 * 24 * time.Hour)
	turn := insertMem(t, pool, tenant, memSpec{
		layer: "short_term", kind: "interaction", content: "Caroline: I went to the support group yesterday.",
		created: old, stability: 1, fadeAt: past, derived: true,
	})
	execSQL(t, pool, `UPDATE zb.memory SET status = 'consolidated' WHERE id = $1`, turn)
	carrier := insertMem(t, pool, tenant, memSpec{
		layer: "episodic", kind: "episode", content: "Caroline went to the support group.",
		created: old, stability: 1, fadeAt: past, sources: []int64{turn}, derived: true,
	})
	plain := insertMem(t, pool, tenant, memSpec{
		layer: "episodic", kind: "episode", content: "Caroline mentioned Anna at lunch.",
		created: old, stability: 1, fadeAt: past, derived: true, ai: true,
	})
	// What a caller stored is the trace a question may need: the budget never archives it.
	mine := insertMem(t, pool, tenant, memSpec{
		layer: "episodic", kind: "interaction", content: "Caroline: Anna joined us at lunch.",
		created: old, stability: 1, fadeAt: past, derived: true,
	})
	rep, err := b.co.DecayDue(ctx, tenant, 0, nil)
	require.NoError(t, err)
	require.Equal(t, []int64{plain}, rep.Archived, "the derived non-carrier is archived by the budget")
	require.Equal(t, "active", queryString(t, pool, `SELECT status::text FROM zb.memory WHERE id = $1`, mine))
	require.Equal(t, "active", queryString(t, pool, `SELECT status::text FROM zb.memory WHERE id = $1`, carrier))
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE id = $1 AND fade_at > $2`, carrier, t0),
		"the carrier is rescheduled to its next crossing")
}

// A tenant whose lifecycle is manual is left out of every worker sweep (tenant fan-out, idle
// sessions, underived memories); its caller still finds its idle sessions.
func TestLifecycleManualLeavesWorkerSweeps(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	sess := map[string]uuid.UUID{"lc-manual": uuid.New(), "lc-worker": uuid.New()}
	for tenant, id := range sess {
		_, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "Melanie: I painted a lake today.", SessionID: &id})
		require.NoError(t, err)
	}
	require.NoError(t, b.co.SetLifecycle(ctx, "lc-manual", coordinator.LifecycleManual))
	require.ErrorIs(t, b.co.SetLifecycle(ctx, "lc-manual", "sometimes"), coordinator.ErrInvalidInput)
	b.clock.Add(2 * time.Hour)

	tenants, err := b.co.Tenants(ctx)
	require.NoError(t, err)
	require.Contains(t, tenants, "lc-worker")
	require.NotContains(t, tenants, "lc-manual")
	underived, err := b.co.UnderivedTenants(ctx, 1000)
	require.NoError(t, err)
	require.Contains(t, underived, "lc-worker")
	require.NotContains(t, underived, "lc-manual")
	idle, err := b.co.IdleSessions(ctx, time.Hour, 1000)
	require.NoError(t, err)
	var idleTenants []string
	for _, s := range idle {
		idleTenants = append(idleTenants, s.TenantID)
	}
	require.Contains(t, idleTenants, "lc-worker")
	require.NotContains(t, idleTenants, "lc-manual")
	own, err := b.co.TenantIdleSessions(ctx, "lc-manual", time.Hour, 10)
	require.NoError(t, err)
	require.Len(t, own, 1)
	require.Equal(t, sess["lc-manual"], own[0].ID)

	// Back to the worker.
	require.NoError(t, b.co.SetLifecycle(ctx, "lc-manual", coordinator.LifecycleWorker))
	tenants, err = b.co.Tenants(ctx)
	require.NoError(t, err)
	require.Contains(t, tenants, "lc-manual")
}
