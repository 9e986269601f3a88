package coordinator_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/internal/zbtest"
)

type lexicalOut struct {
	idf, sidf []float64
	ids       []int64
}

// zb.lexical_topk (the zb_lexical extension, 0032) returns what the SQL lexical half returns, to
// the bit: idf, sidf and per layer the top k, for repeated and absent terms, subsets of layers
// (a NULL one matches nothing), k from 0 to past the matches, superseded postings, recall's
// filters (contexts, a time range with core memories exempt, an as-of time, all at once), with
// dead index entries of deleted memories and another transaction's uncommitted memories present
// (pages not all-visible: the heap decides), and again after VACUUM (index-only).
func TestLexicalCompiledExact(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx, pool := ctxT(t), b.cfg.Pool
	zbtest.RequireZbLexical(t, pool)
	const ten = "lexc"

	sessions := make([]uuid.UUID, 7)
	for i := range sessions {
		s, err := b.co.StartSession(ctx, ten, "work")
		require.NoError(t, err)
		sessions[i] = s
	}
	items := lexTenantItems(ten, 1500, sessions)
	// Core memories (exempt from the time range) with the common words.
	for i := range 4 {
		_, err := b.co.Store(ctx, coordinator.StoreInput{
			TenantID: ten, Layer: coordinator.LayerCore, CoreLabel: fmt.Sprintf("core-%d", i),
			Content: fmt.Sprintf("%s repaired the %s %s in %s", hotName(i), hotWord(0), hotWord(2), hotPlace(0)),
		})
		require.NoError(t, err)
	}
	b.storeAll(t, ctx, items)
	// Superseded postings, archived memories (their postings go) and deleted ones (dead entries
	// until vacuum).
	execSQL(t, pool, `UPDATE zb.memory SET valid_to = $2 WHERE tenant_id = $1 AND id % 13 = 0`, ten, t0.Add(time.Hour))
	execSQL(t, pool, `UPDATE zb.memory SET status = 'archived' WHERE tenant_id = $1 AND id % 17 = 0`, ten)
	execSQL(t, pool, `DELETE FROM zb.memory WHERE tenant_id = $1 AND id % 19 = 0`, ten)
	// Another transaction's memories, never committed (rolled back below, or at cleanup).
	other, err := pool.Begin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = other.Rollback(context.Background()) })
	_, err = other.Exec(ctx, `SELECT zb.remember($1, $2, 'semantic') FROM generate_series(1, 50)`,
		ten, fmt.Sprintf("%s repaired the %s %s in %s", hotName(0), hotWord(0), hotWord(2), hotPlace(0)))
	require.NoError(t, err)
	var pending int
	require.NoError(t, other.QueryRow(ctx, `SELECT count(*) FROM zb.memory_posting p JOIN zb.memory m ON m.tenant_id = p.tenant_id
		AND m.id = p.memory_id WHERE m.tenant_id = $1 AND m.xmin::text = txid_current()::text`, ten).Scan(&pending))
	require.Positive(t, pending, "the uncommitted memories have postings")

	var n int64
	var avgdl float64
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*), avg(term_count) FROM zb.memory WHERE tenant_id = $1 AND status = 'active'`,
		ten).Scan(&n, &avgdl))
	var common []string
	require.NoError(t, pool.QueryRow(ctx, `SELECT array_agg(t ORDER BY t) FROM (
		SELECT term AS t FROM zb.memory_posting WHERE tenant_id = $1 GROUP BY term ORDER BY count(*) DESC, term LIMIT 8) x`,
		ten).Scan(&common))
	require.Len(t, common, 8)

	var coreTerms []string
	require.NoError(t, pool.QueryRow(ctx, `SELECT array_agg(DISTINCT t ORDER BY t) FROM zb.memory, unnest(terms) t
		WHERE tenant_id = $1 AND core_label = 'core-0'`, ten).Scan(&coreTerms))
	require.NotEmpty(t, coreTerms)
	type lexCase struct {
		name           string
		terms          []string
		layers         []string
		k              int
		at             time.Time
		from, to, asOf *time.Time
		contexts       []string
	}
	from, to := t0.Add(-30*24*time.Hour), t0.Add(-10*24*time.Hour)
	asOf := t0.Add(30 * time.Minute)
	all := []string{"working", "short_term", "episodic", "semantic", "procedural", "core", "cross_context"}
	cases := []lexCase{
		{"four common terms", common[:4], all, 10, t0, nil, nil, nil, nil},
		{"eight terms, k 50", common, all, 50, t0, nil, nil, nil, nil},
		{"one term, k 1", common[2:3], all, 1, t0, nil, nil, nil, nil},
		{"past the superseded end", common[1:5], all, 10, t0.Add(2 * time.Hour), nil, nil, nil, nil},
		{"repeated and absent terms", []string{common[0], "zzabsent", common[3], common[0]}, all, 7, t0, nil, nil, nil, nil},
		{"two layers, one NULL", common[:3], []string{"episodic", "", "procedural", "episodic"}, 5, t0, nil, nil, nil, nil},
		{"k 0", common[:3], all, 0, t0, nil, nil, nil, nil},
		{"k past every match", common[5:7], all, 100000, t0, nil, nil, nil, nil},
		{"no terms", []string{}, all, 10, t0, nil, nil, nil, nil},
		{"contexts", common[:4], all, 10, t0, nil, nil, nil, []string{"home"}},
		{"contexts, one unknown and a NULL", common[:4], all, 10, t0, nil, nil, nil, []string{"nowhere", "", "work"}},
		{"time range, core exempt", common[:5], all, 10, t0, &from, &to, nil, nil},
		{"from only, k 50", common[:3], all, 50, t0, &from, nil, nil, nil},
		{"to only", common[2:6], all, 10, t0, nil, &to, nil, nil},
		{"as of, before the superseded end", common[1:5], all, 10, t0, nil, nil, &asOf, nil},
		{"everything at once", common, all, 20, t0, &from, &to, &asOf, []string{"work"}},
		// The core memories were stored at t0, after the range: only their exemption returns them.
		{"time range, the core layer", coreTerms, []string{"core"}, 10, t0, &from, &to, nil, nil},
	}
	compiled := func(c lexCase) lexicalOut {
		t.Helper()
		var o lexicalOut
		require.NoError(t, pool.QueryRow(ctx, `SELECT idf, sidf, ids FROM zb.lexical_topk($1, $2, $3, 7, $4,
			(SELECT array_agg(nullif(u, '')::zb.memory_layer ORDER BY o) FROM unnest($5::text[]) WITH ORDINALITY x(u, o)),
			$6, $7, $8, $9, $10, (SELECT array_agg(nullif(u, '') ORDER BY o) FROM unnest($11::text[]) WITH ORDINALITY x(u, o)))`,
			ten, c.terms, n, avgdl, c.layers, c.k, c.at, c.from, c.to, c.asOf, c.contexts).Scan(&o.idf, &o.sidf, &o.ids))
		return o
	}
	viaSQL := func(c lexCase, minDocs string) lexicalOut {
		t.Helper()
		conn, err := pool.Acquire(ctx)
		require.NoError(t, err)
		defer conn.Release()
		_, err = conn.Exec(ctx, "SELECT set_config('zb.lexical_merge_min_docs', $1, false)", minDocs)
		require.NoError(t, err)
		defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), "RESET zb.lexical_merge_min_docs") }()
		var o lexicalOut
		require.NoError(t, conn.QueryRow(ctx, `SELECT idf, sidf, ids FROM zb.recall_lexical_postings_sql($1, $2, $3, 7, $4,
			(SELECT array_agg(nullif(u, '')::zb.memory_layer ORDER BY o) FROM unnest($5::text[]) WITH ORDINALITY x(u, o)),
			$6, $7, $8, $9, $10, (SELECT array_agg(nullif(u, '') ORDER BY o) FROM unnest($11::text[]) WITH ORDINALITY x(u, o)))`,
			ten, c.terms, n, avgdl, c.layers, c.k, c.at, c.from, c.to, c.asOf, c.contexts).Scan(&o.idf, &o.sidf, &o.ids))
		return o
	}
	check := func(phase string) {
		t.Helper()
		for _, c := range cases {
			got := compiled(c)
			for _, way := range []struct{ name, minDocs string }{{"hash", "1000000000"}, {"merge", "0"}} {
				want := viaSQL(c, way.minDocs)
				require.Equal(t, want.idf, got.idf, "%s, %s: idf against the SQL %s", phase, c.name, way.name)
				require.Equal(t, want.sidf, got.sidf, "%s, %s: sidf against the SQL %s", phase, c.name, way.name)
				require.Equal(t, want.ids, got.ids, "%s, %s: candidates against the SQL %s", phase, c.name, way.name)
			}
			if c.k > 0 && len(c.terms) > 0 && c.terms[0] != "zzabsent" {
				require.NotEmpty(t, got.ids, "%s, %s", phase, c.name)
			}
		}
	}
	check("dead and uncommitted entries")
	require.NoError(t, other.Rollback(ctx))
	execSQL(t, pool, `VACUUM (ANALYZE) zb.memory_posting`)
	var visible int
	require.NoError(t, pool.QueryRow(ctx, `SELECT relallvisible FROM pg_class WHERE oid = 'zb.memory_posting'::regclass`).Scan(&visible))
	require.Positive(t, visible, "VACUUM marked pages all-visible: the index-only reads are exercised")
	check("after VACUUM")

	// The dispatcher: an unfiltered call takes the compiled function, a filtered one the SQL
	// function, and zb.lexical_scorer = 'sql' keeps every call in SQL; the results are the same.
	calls := func(scorer string, contexts []string) (lexicalOut, int64) {
		t.Helper()
		tx, err := pool.Begin(ctx)
		require.NoError(t, err)
		defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
		_, err = tx.Exec(ctx, `SELECT set_config('track_functions', 'all', true), set_config('zb.lexical_scorer', $1, true)`, scorer)
		require.NoError(t, err)
		before := zbtest.FunctionCalls(t, tx, "zb", "lexical_topk")
		var o lexicalOut
		require.NoError(t, tx.QueryRow(ctx, `SELECT idf, sidf, ids FROM zb.recall_lexical_postings($1, $2, $3, 7, $4,
			$5::zb.memory_layer[], 10, $6, NULL, NULL, NULL, $7)`, ten, common[:4], n, avgdl, all, t0, contexts).Scan(&o.idf, &o.sidf, &o.ids))
		return o, zbtest.FunctionCalls(t, tx, "zb", "lexical_topk") - before
	}
	for _, scorer := range []string{"auto", "compiled"} {
		got, c := calls(scorer, nil)
		require.EqualValues(t, 1, c, "%s: the unfiltered half runs compiled", scorer)
		want, c := calls("sql", nil)
		require.Zero(t, c, "sql: never compiled")
		require.Equal(t, want, got)
		got, c = calls(scorer, []string{"work"})
		require.EqualValues(t, 1, c, "%s: a contexts-filtered half runs compiled too", scorer)
		want, _ = calls("sql", []string{"work"})
		require.Equal(t, want, got)
	}
	var scorer string
	require.NoError(t, pool.QueryRow(ctx, `SELECT zb.lexical_scorer()`).Scan(&scorer))
	require.Equal(t, "compiled", scorer)
	_, err = pool.Exec(ctx, `SELECT set_config('zb.lexical_scorer', 'fast', false), zb.lexical_scorer()`)
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, "22023", pgErr.Code, pgErr.Message)
	require.Contains(t, pgErr.Message, "auto, sql or compiled")
}

// Recall gives the same memories, scores and signals with the compiled lexical half as with the
// SQL one (a pool whose connections set zb.lexical_scorer = 'sql'), for questions in every
// class.
func TestRecallCompiledLexicalSame(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx, pool := ctxT(t), b.cfg.Pool
	zbtest.RequireZbLexical(t, pool)
	const ten = "lexr"
	items := lexTenantItems(ten, 1200, nil)
	b.storeAll(t, ctx, items)

	sqlPool := zbtest.PoolWithParams(t, pool, map[string]string{"zb.lexical_scorer": "sql"})
	sqlCo, err := coordinator.New(&coordinator.Config{Pool: sqlPool, Embedder: b.cfg.Embedder, Clock: b.clock})
	require.NoError(t, err)

	for _, q := range []string{
		"who repaired the bicycle in " + hotPlace(3) + "?",
		"what did " + hotName(5) + " repair in " + hotPlace(8) + "?",
		"how to repair the " + hotWord(4) + " " + hotWord(9),
		hotName(1) + " " + hotWord(2) + " " + hotPlace(2),
	} {
		opts := &coordinator.RecallOpts{K: 8, ReadOnly: true}
		got, err := b.co.Recall(ctx, ten, q, opts)
		require.NoError(t, err)
		want, err := sqlCo.Recall(ctx, ten, q, opts)
		require.NoError(t, err)
		require.NotEmpty(t, want.Results, q)
		require.Equal(t, want.Results, got.Results, q)
	}
}

// lexTenantItems are n generated memories of tenant ten in three layers, from a small vocabulary
// (every term in many memories); with sessions, three of four memories belong to one of them.
func lexTenantItems(ten string, n int, sessions []uuid.UUID) []coordinator.StoreInput {
	layers := []coordinator.Layer{coordinator.LayerSemantic, coordinator.LayerEpisodic, coordinator.LayerProcedural}
	items := make([]coordinator.StoreInput, 0, n)
	for i := range n {
		occ := t0.Add(-time.Duration(i) * 40 * time.Minute)
		in := coordinator.StoreInput{
			TenantID: ten, Layer: layers[i%3], OccurredAt: &occ, Context: []string{"work", "home"}[i%2],
			Content: fmt.Sprintf("%s repaired the %s %s in %s with the %s", hotName(i), hotWord(i/3), hotWord(i/7+2), hotPlace(i/5), hotWord(i/11)),
		}
		if len(sessions) > 0 && i%4 != 0 {
			in.SessionID = &sessions[(i/9)%len(sessions)]
		}
		items = append(items, in)
	}
	return items
}
