package coordinator_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

func TestDerivePlainSQLRows(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	const tenant = "derive"
	a := insertMem(t, pool, tenant, memSpec{content: "Caroline: I met Melanie Brooks in Berlin and we talked about painting.", created: t0, stability: 7})
	e := insertMem(t, pool, tenant, memSpec{layer: "episodic", kind: "episode", content: "I am so happy and grateful, this was the best day ever!", created: t0, stability: 1})
	p := insertMem(t, pool, tenant, memSpec{layer: "procedural", kind: "skill", content: "To deploy, run make release and tag the commit.", created: t0, stability: 7})

	tenants, err := b.co.UnderivedTenants(ctx, 10)
	require.NoError(t, err)
	require.Equal(t, []string{tenant}, tenants)

	hookCalled := false
	rep, err := b.co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, Pending: true}, func(ctx context.Context, tx pgx.Tx) error {
		hookCalled = true
		_, err := tx.Exec(ctx, `INSERT INTO zb.metacog_event (tenant_id, kind, value, created_at) VALUES ($1, 'hook', 1, now())`, tenant)
		return err
	})
	require.NoError(t, err)
	require.True(t, hookCalled)
	require.Equal(t, []int64{a, e, p}, rep.Derived)
	require.Equal(t, 3, rep.Embedded)
	require.Equal(t, 3, rep.Terms)
	require.Equal(t, 1, rep.Tagged, "only the emotional episode has a non-neutral tag")
	require.Equal(t, 6, rep.TripleCopies)
	require.Equal(t, 2, rep.ReviewStates, "semantic and procedural memories get FSRS review state")
	require.Equal(t, 3, rep.Mentions)
	require.Equal(t, 3, rep.Edges, "three entities of one memory: three co_occurs edges")
	require.False(t, rep.More)
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.metacog_event WHERE tenant_id = $1 AND kind = 'hook'`, tenant))

	require.Equal(t, 0, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND (derived_at IS NULL OR embedding IS NULL OR term_count = 0)`, tenant))
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE id = $1 AND valence > 0.3 AND fade_at > $2`, e, t0.Add(24*time.Hour)))
	require.Equal(t, 3, queryInt(t, pool, `SELECT count(*) FROM zb.edge WHERE tenant_id = $1 AND relation = 'co_occurs' AND weight > 0 AND activation_count = 1`, tenant))
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.entity WHERE tenant_id = $1 AND normalized_name = 'caroline' AND type = 'person'`, tenant))
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.entity WHERE tenant_id = $1 AND normalized_name = 'berlin' AND type = 'place'`, tenant))
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.review_state WHERE tenant_id = $1 AND memory_id = $2 AND due > $3`, tenant, a, t0))
	tenants, err = b.co.UnderivedTenants(ctx, 10)
	require.NoError(t, err)
	require.Empty(t, tenants)

	// Idempotent: a second run (explicit ids and a sweep) changes nothing.
	before := tenantState(t, pool, tenant)
	rep, err = b.co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, MemoryIDs: []int64{a, e, p}, Pending: true}, nil)
	require.NoError(t, err)
	require.Empty(t, rep.Derived)
	require.Equal(t, 3, rep.Skipped)
	require.Equal(t, before, tenantState(t, pool, tenant))
}

func TestDeriveContradictionsDebateAndPropagation(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	const tenant = "debate"
	base := " with her two cats and works as a nurse at the city hospital."
	o1 := insertMem(t, pool, tenant, memSpec{content: "Anna Schmidt lives in Berlin" + base, created: t0.Add(-time.Hour), stability: 7, embed: true, derived: true})
	o2 := insertMem(t, pool, tenant, memSpec{content: "Anna Schmidt lives in Hamburg" + base, created: t0.Add(-time.Hour), stability: 7, embed: true, derived: true})
	n := insertMem(t, pool, tenant, memSpec{content: "Anna Schmidt lives in Munich" + base, created: t0, stability: 7, embed: true})

	rep, err := b.co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, MemoryIDs: []int64{n}}, nil)
	require.NoError(t, err)
	require.Equal(t, []int64{n}, rep.Derived)
	require.Equal(t, 2, rep.Contradictions)
	require.Equal(t, 1, rep.Debates)
	require.Equal(t, 2, queryInt(t, pool, `SELECT count(*) FROM zb.memory_link WHERE tenant_id = $1 AND source_id = $2 AND relation = 'contradicts'`, tenant, n))
	require.Equal(t, 2, queryInt(t, pool, `SELECT count(*) FROM zb.confidence_evidence WHERE tenant_id = $1 AND kind = 'contradict' AND source_memory_id = $2`, tenant, n))
	require.Equal(t, 2, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE id IN ($1, $2) AND conf_beta = 2`, o1, o2))
	var outcome string
	require.NoError(t, pool.QueryRow(ctx, `SELECT outcome FROM zb.debate WHERE tenant_id = $1 AND memory_id = $2`, tenant, n).Scan(&outcome))
	// Equal recency, confidence 0.5 against 1/3 after the contradiction, reliability 0.8 each:
	// the challenger leads by 0.3·(0.5 − 1/3) = 0.05 < 0.10, so both are kept as hypotheses.
	require.Equal(t, "keep_both", outcome)
	require.Equal(t, 3, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND kind = 'hypothesis' AND metadata ? 'hypothesis_group'`, tenant))
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM river.river_job WHERE kind = 'zb_propagate'`))

	// Propagation over the contradicts links lowers all three confidences and logs evidence.
	prep, err := b.co.Propagate(ctx, tenant, []int64{n}, nil)
	require.NoError(t, err)
	require.Equal(t, 3, prep.Nodes)
	require.Equal(t, 2, prep.Links)
	require.Equal(t, 3, prep.Updated)
	require.Equal(t, 3, queryInt(t, pool, `SELECT count(*) FROM zb.confidence_evidence WHERE tenant_id = $1 AND kind = 'propagated'`, tenant))
	var cn, c1 float64
	require.NoError(t, pool.QueryRow(ctx, `SELECT (SELECT confidence FROM zb.memory WHERE id = $1), (SELECT confidence FROM zb.memory WHERE id = $2)`, n, o1).Scan(&cn, &c1))
	require.Less(t, cn, 0.5)
	require.Less(t, c1, 1.0/3)
	before := tenantState(t, pool, tenant)
	prep, err = b.co.Propagate(ctx, tenant, []int64{n}, nil)
	require.NoError(t, err)
	require.Zero(t, prep.Updated)
	require.Equal(t, before, tenantState(t, pool, tenant))
}

func TestDeriveReconsolidationRollback(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	const tenant = "recon"
	old := insertMem(t, pool, tenant, memSpec{content: "Tom works at Siemens as an engineer in Munich.", created: t0.Add(-48 * time.Hour),
		stability: 7, embed: true, derived: true})
	// A recall opened old's lability window two minutes ago.
	execSQL(t, pool, `INSERT INTO zb.lability_window (tenant_id, memory_id, opened_at, closes_at) VALUES ($1, $2, $3, $4)`,
		tenant, old, t0.Add(-2*time.Minute), t0.Add(8*time.Minute))
	rowOf := func() string {
		var s string
		require.NoError(t, pool.QueryRow(ctx, `SELECT (to_jsonb(m) - 'content_tsv')::text FROM zb.memory m WHERE id = $1`, old).Scan(&s))
		return s
	}
	before := rowOf()
	n := insertMem(t, pool, tenant, memSpec{content: "Tom works at Siemens as a manager in Munich.", created: t0, stability: 7, embed: true})
	rep, err := b.co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, MemoryIDs: []int64{n}}, nil)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Reconsolidations)
	var evID int64
	var mode string
	var trigger int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT id, mode::text, trigger_id FROM zb.reconsolidation_event WHERE tenant_id = $1 AND memory_id = $2`,
		tenant, old).Scan(&evID, &mode, &trigger))
	require.Equal(t, n, trigger)
	var content string
	require.NoError(t, pool.QueryRow(ctx, `SELECT content FROM zb.memory WHERE id = $1`, old).Scan(&content))
	// Raw PE = token Jaccard distance 1 − 7/11 ≈ 0.36 (an engineer / a manager) lies in the
	// integration band [0.3, 0.7): MergeText updates the matching sentence in place.
	require.Equal(t, "integration", mode)
	require.Equal(t, "Tom works at Siemens as a manager in Munich.", content)
	require.NotEqual(t, before, rowOf())
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE id = $1 AND embedding IS NULL AND derived_at IS NULL`, old))
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM river.river_job WHERE kind = 'zb_derive' AND args->'memory_ids' = $1::jsonb`, "["+itoa(old)+"]"))

	// Rollback restores the row exactly, and a second rollback changes nothing.
	b.clock.Add(time.Minute)
	require.NoError(t, b.co.Rollback(ctx, tenant, evID))
	require.Equal(t, before, rowOf())
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.reconsolidation_event WHERE id = $1 AND rolled_back_at IS NOT NULL`, evID))
	require.NoError(t, b.co.Rollback(ctx, tenant, evID))
	require.Equal(t, before, rowOf())
	require.ErrorIs(t, b.co.Rollback(ctx, tenant, evID+100), coordinator.ErrNotFound)
}

func itoa(n int64) string { return fmtInt(n) }
