package coordinator_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
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
	old := insertMem(t, pool, tenant, memSpec{
		content: "Tom works at Siemens as an engineer in Munich.", created: t0.Add(-48 * time.Hour),
		stability: 7, embed: true, derived: true,
	})
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

// derivedState renders a tenant's derived rows without ids (contents name the memories), so two
// tenants with the same memories can be compared.
func derivedState(t *testing.T, pool *pgxpool.Pool, tenant string) map[string]string {
	t.Helper()
	queries := map[string]string{
		"memory": `SELECT m.content, m.layer, m.kind, m.status, m.valence, m.arousal, m.significance, m.priority, m.term_count,
			m.fade_at, m.derived_at IS NOT NULL AS derived, m.embedding IS NOT NULL AS embedded, m.conf_alpha, m.conf_beta,
			m.valid_to, s.content AS superseded_by, m.metadata ? 'hypothesis_group' AS hypothesis
			FROM zb.memory m LEFT JOIN zb.memory s ON s.id = m.superseded_by WHERE m.tenant_id = $1`,
		"mention": `SELECT m.content, e.normalized_name, e.type, mn.span_start, mn.span_end FROM zb.mention mn
			JOIN zb.memory m ON m.id = mn.memory_id JOIN zb.entity e ON e.id = mn.entity_id WHERE mn.tenant_id = $1`,
		"entity": `SELECT name, normalized_name, type, mention_count FROM zb.entity WHERE tenant_id = $1`,
		"edge": `SELECT a.normalized_name, b.normalized_name, e.relation, round(e.weight::numeric, 9), round(e.variance::numeric, 9),
			e.activation_count FROM zb.edge e JOIN zb.entity a ON a.id = e.source_id JOIN zb.entity b ON b.id = e.target_id
			WHERE e.tenant_id = $1`,
		"triple_copy": `SELECT m.content, c.copy, c.initial_strength, c.tau_seconds FROM zb.triple_copy c JOIN zb.memory m ON m.id = c.memory_id
			WHERE c.tenant_id = $1`,
		"review_state": `SELECT m.content, r.due FROM zb.review_state r JOIN zb.memory m ON m.id = r.memory_id WHERE r.tenant_id = $1`,
		"memory_link": `SELECT a.content, b.content, l.relation, l.weight FROM zb.memory_link l JOIN zb.memory a ON a.id = l.source_id
			JOIN zb.memory b ON b.id = l.target_id WHERE l.tenant_id = $1`,
		"evidence": `SELECT m.content, e.kind, e.weight, s.content FROM zb.confidence_evidence e JOIN zb.memory m ON m.id = e.memory_id
			LEFT JOIN zb.memory s ON s.id = e.source_memory_id WHERE e.tenant_id = $1`,
		"debate": `SELECT m.content, d.outcome, cardinality(d.contradicted) FROM zb.debate d JOIN zb.memory m ON m.id = d.memory_id
			WHERE d.tenant_id = $1`,
	}
	out := map[string]string{}
	for name, q := range queries {
		var s string
		require.NoError(t, pool.QueryRow(ctxT(t), `SELECT coalesce(json_agg(x ORDER BY x::text), '[]')::text FROM (`+q+`) x`, tenant).Scan(&s), name)
		out[name] = s
	}
	return out
}

// One Derive call over a batch writes exactly what deriving the same memories one call each, in
// id order, writes: shared entities, repeated co-occurrences, tags, copies, review states, and a
// chain of contradictions that ends in a debate (the batch reads its candidates again after the
// first contradiction).
func TestDeriveBatchMatchesSequential(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	base := " with her two cats and works as a nurse at the city hospital."
	specs := []memSpec{
		{content: "Caroline: I met Melanie Brooks in Berlin and we talked about painting.", stability: 7},
		{layer: "episodic", kind: "episode", content: "Melanie Brooks and Caroline walked through Berlin at night.", stability: 1},
		{layer: "episodic", kind: "episode", content: "I am so happy and grateful, this was the best day ever!", stability: 1},
		{layer: "procedural", kind: "skill", content: "To deploy, run make release and tag the commit.", stability: 7},
		{content: "Anna Schmidt lives in Berlin" + base, stability: 7},
		{content: "Anna Schmidt lives in Hamburg" + base, stability: 7},
		{content: "Anna Schmidt lives in Munich" + base, stability: 7},
		{content: "Melanie Brooks paints lakes in Berlin with Caroline.", stability: 7},
	}
	// The tenants' neuromodulator levels would differ (the sequential calls see the novelty of
	// the earlier ones in their priority scores): compare without it.
	for _, tn := range []string{"batch", "seq"} {
		require.NoError(t, b.co.SetAlgorithm(ctx, tn, "neuromodulator", false))
	}
	var seqIDs []int64
	for i, s := range specs {
		s.created = t0.Add(time.Duration(i-len(specs)) * time.Minute)
		insertMem(t, pool, "batch", s)
		seqIDs = append(seqIDs, insertMem(t, pool, "seq", s))
	}
	batch, err := b.co.Derive(ctx, jobs.DeriveArgs{TenantID: "batch", Pending: true}, nil)
	require.NoError(t, err)
	require.Len(t, batch.Derived, len(specs))
	var sum coordinator.DeriveReport
	for _, id := range seqIDs {
		r, err := b.co.Derive(ctx, jobs.DeriveArgs{TenantID: "seq", MemoryIDs: []int64{id}}, nil)
		require.NoError(t, err)
		require.Equal(t, []int64{id}, r.Derived)
		sum.Embedded, sum.Tagged, sum.Mentions, sum.Edges = sum.Embedded+r.Embedded, sum.Tagged+r.Tagged, sum.Mentions+r.Mentions, sum.Edges+r.Edges
		sum.TripleCopies, sum.ReviewStates = sum.TripleCopies+r.TripleCopies, sum.ReviewStates+r.ReviewStates
		sum.Contradictions, sum.Debates = sum.Contradictions+r.Contradictions, sum.Debates+r.Debates
	}
	require.Equal(t, []int{sum.Embedded, sum.Tagged, sum.Mentions, sum.Edges, sum.TripleCopies, sum.ReviewStates, sum.Contradictions, sum.Debates},
		[]int{batch.Embedded, batch.Tagged, batch.Mentions, batch.Edges, batch.TripleCopies, batch.ReviewStates, batch.Contradictions, batch.Debates})
	require.Equal(t, 3, batch.Contradictions, "Hamburg contradicts Berlin; Munich contradicts both")
	require.Equal(t, 1, batch.Debates)
	require.Equal(t, 3, queryInt(t, pool, `SELECT count(*) FROM zb.edge WHERE tenant_id = 'batch' AND activation_count = 3`),
		"Caroline, Melanie Brooks and Berlin co-occur in three memories of the batch")
	require.Equal(t, derivedState(t, pool, "seq"), derivedState(t, pool, "batch"))
}

// A reconsolidation changes a memory only to exactly the content its event logs, and rollback
// restores the row byte for byte — over texts with brackets, quotes, ellipses, dashes, emoji,
// several scripts and repeated phrases, each updated by a restatement with a new bracketed
// prefix (the shape that once left "(again]" in a memory).
func TestReconsolidationWritesWhatItLogs(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	texts := []string{
		"Jon: Appreciate your advice… it means a lot!",
		"Caroline: Researching adoption agencies — it's been a dream (for years).",
		`Melanie: "We painted a sunrise" and then "we painted it again".`,
		"Jürgen: Er sagte „ja“ und dann »nein« — typisch für ihn!",
		"Tim: My brother (the older one) moved to Zürich; he loves it there :)",
		"Gina: The support group was 🌈 amazing [photo: a rainbow flag] honestly.",
		"Nate: The slides, the slides, the slides {room B} at ten.",
		"Aiko: 「東京」に行きました。とても楽しかった！",
	}
	for i, text := range texts {
		tenant := fmt.Sprintf("recon-text-%d", i)
		old := insertMem(t, pool, tenant, memSpec{
			content: fmt.Sprintf("[a%d] %s", i, text), created: t0.Add(-48 * time.Hour), stability: 7, embed: true, derived: true,
		})
		execSQL(t, pool, `INSERT INTO zb.lability_window (tenant_id, memory_id, opened_at, closes_at) VALUES ($1, $2, $3, $4)`,
			tenant, old, t0.Add(-2*time.Minute), t0.Add(8*time.Minute))
		rowOf := func() string {
			var s string
			require.NoError(t, pool.QueryRow(ctx, `SELECT (to_jsonb(m) - 'content_tsv')::text FROM zb.memory m WHERE id = $1`, old).Scan(&s))
			return s
		}
		before := rowOf()
		trigger := fmt.Sprintf("[b%d] (again) %s", i, text)
		n := insertMem(t, pool, tenant, memSpec{content: trigger, created: t0, stability: 7, embed: true})
		rep, err := b.co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, MemoryIDs: []int64{n}}, nil)
		require.NoError(t, err)
		require.Equal(t, 1, rep.Reconsolidations, text)
		var evID int64
		var mode, logged, content string
		require.NoError(t, pool.QueryRow(ctx, `SELECT e.id, e.mode::text, e.new_content, m.content FROM zb.reconsolidation_event e
			JOIN zb.memory m ON m.tenant_id = e.tenant_id AND m.id = e.memory_id WHERE e.tenant_id = $1`, tenant).Scan(&evID, &mode, &logged, &content))
		require.Equal(t, logged, content, "the memory holds exactly what the event logged (%s)", mode)
		if mode == "selective_edit" || mode == "integration" {
			require.Equal(t, trigger, content, "the restatement's bracketed prefix replaces the old one whole")
		}
		d, err := b.co.ReconsolidationEvent(ctx, tenant, evID)
		require.NoError(t, err)
		require.Equal(t, trigger, d.TriggerContent)
		require.Equal(t, logged, d.LoggedContent)
		require.NoError(t, b.co.Rollback(ctx, tenant, evID))
		require.Equal(t, before, rowOf(), "rollback restores the row byte for byte")
	}
}
