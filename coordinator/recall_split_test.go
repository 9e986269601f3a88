package coordinator_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/coordinator"
)

// splitTenant stores n generated memories in three layers, two contexts, twenty sessions and
// n/40 days (so time ranges, contexts, neighbours and as-of all filter something).
func splitTenant(t *testing.T, co *coordinator.Coordinator, tenant string, n int) {
	t.Helper()
	sessions := make([]uuid.UUID, 20)
	for i := range sessions {
		sessions[i] = uuid.New()
	}
	layers := []coordinator.Layer{coordinator.LayerSemantic, coordinator.LayerEpisodic, coordinator.LayerProcedural}
	items := make([]coordinator.StoreInput, 0, n)
	for i := range n {
		at := t0.Add(-time.Duration(n-i) * 36 * time.Minute)
		it := coordinator.StoreInput{
			TenantID: tenant, Layer: layers[i%3], Context: []string{"work", "personal"}[i%2],
			Content:    fmt.Sprintf("%s repaired the %s %s in %s", hotName(i), hotWord(i/3), hotWord(i/7+2), hotPlace(i/5)),
			OccurredAt: &at,
		}
		if it.Layer == coordinator.LayerEpisodic {
			s := sessions[i%len(sessions)]
			it.SessionID = &s
		}
		items = append(items, it)
	}
	got, err := co.StoreBatch(ctxT(t), items)
	require.NoError(t, err)
	require.EqualValues(t, n, got)
}

// Recall in a tenant above Config.RecallSplitMinDocs reads its two halves at the same time on
// two connections and joins them (0026): the results are those of the one-statement path, for
// every kind of recall (k, layers, contexts, as-of, a time range, deep), and the candidate rows
// of zb.recall_candidates_join on the halves are zb.recall_candidates_model's, signal for
// signal. The first recall of a tenant, a tenant below the threshold, a query without terms,
// and a negative threshold take the one-statement path.
func TestRecallSplitSameResults(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *coordinator.Config) { c.RecallSplitMinDocs = 1000 })
	ctx := ctxT(t)
	one, err := coordinator.New(&coordinator.Config{Pool: b.cfg.Pool, Embedder: b.cfg.Embedder, Clock: b.clock, RecallSplitMinDocs: -1})
	require.NoError(t, err)
	const big, small = "split-big", "split-small"
	splitTenant(t, b.co, big, 1200)
	splitTenant(t, b.co, small, 300)
	// A second batch two hours later, which an as-of between the two leaves out.
	b.clock.Set(t0.Add(2 * time.Hour))
	later := make([]coordinator.StoreInput, 0, 100)
	for i := range 100 {
		later = append(later, coordinator.StoreInput{
			TenantID: big, Layer: coordinator.LayerSemantic,
			Content: fmt.Sprintf("%s repaired the %s window in %s", hotName(i+7), hotWord(i), hotPlace(i)),
		})
	}
	_, err = b.co.StoreBatch(ctx, later)
	require.NoError(t, err)
	b.clock.Set(t0.Add(24 * time.Hour))

	// The pool opens connections on demand: two idle ones for the halves.
	c1, err := b.cfg.Pool.Acquire(ctx)
	require.NoError(t, err)
	c2, err := b.cfg.Pool.Acquire(ctx)
	require.NoError(t, err)
	c1.Release()
	c2.Release()

	ro := func(o coordinator.RecallOpts) *coordinator.RecallOpts { o.ReadOnly = true; return &o }
	first, err := b.co.Recall(ctx, big, "who repaired the kettle", ro(coordinator.RecallOpts{}))
	require.NoError(t, err)
	require.False(t, first.Split, "a tenant's first recall: its size is not known yet")

	asOf := t0.Add(time.Hour)
	cases := []struct {
		q    string
		opts coordinator.RecallOpts
	}{
		{"who repaired the kettle", coordinator.RecallOpts{}},
		{"Greta repaired the lamp in Lyon", coordinator.RecallOpts{K: 3}},
		{"what did Hiro repair in Turku", coordinator.RecallOpts{Layers: []coordinator.Layer{coordinator.LayerEpisodic}}},
		{"the blue bicycle", coordinator.RecallOpts{Contexts: []string{"work"}}},
		{"who repaired the window", coordinator.RecallOpts{AsOf: &asOf}},
		{"what was repaired yesterday", coordinator.RecallOpts{}},
		{"Ines repaired the kettle", coordinator.RecallOpts{Deep: true, K: 20}},
	}
	for _, tc := range cases {
		want, err := one.Recall(ctx, big, tc.q, ro(tc.opts))
		require.NoError(t, err, tc.q)
		require.False(t, want.Split)
		got, err := b.co.Recall(ctx, big, tc.q, ro(tc.opts))
		require.NoError(t, err, tc.q)
		require.True(t, got.Split, "%q: a tenant of 1 200 memories above a threshold of 1 000, two idle connections", tc.q)
		require.NotEmpty(t, got.Results, tc.q)
		require.Equal(t, want.Candidates, got.Candidates, tc.q)
		require.Equal(t, want.Range, got.Range, tc.q)
		require.Equal(t, want.Results, got.Results, tc.q)
		// Timing: the split's parts, nested in the candidates' time, nested in the whole.
		tg, tw := got.Timing, want.Timing
		require.Positive(t, tg.VectorHalf, tc.q)
		require.Positive(t, tg.LexicalHalf, tc.q)
		require.Positive(t, tg.Join, tc.q)
		require.GreaterOrEqual(t, tg.Candidates, max(tg.VectorHalf, tg.LexicalHalf)+tg.Join, tc.q)
		require.GreaterOrEqual(t, tg.Total, tg.Embed+tg.Candidates+tg.Rank, tc.q)
		require.Zero(t, tg.SideEffects, "read-only")
		require.Zero(t, tw.VectorHalf+tw.LexicalHalf+tw.Join, "one statement has no parts")
		require.Positive(t, tw.Candidates)
		require.GreaterOrEqual(t, tw.Total, tw.Embed+tw.Candidates+tw.Rank, tc.q)
	}
	yesterday, err := b.co.Recall(ctx, big, "what was repaired yesterday", ro(coordinator.RecallOpts{}))
	require.NoError(t, err)
	require.NotNil(t, yesterday.Range, "the time-range case filters")

	for _, tenant := range []string{small, small} {
		r, err := b.co.Recall(ctx, tenant, "who repaired the kettle", ro(coordinator.RecallOpts{}))
		require.NoError(t, err)
		require.False(t, r.Split, "300 memories, under the threshold")
	}
	r, err := b.co.Recall(ctx, big, "!!!", ro(coordinator.RecallOpts{}))
	require.NoError(t, err)
	require.False(t, r.Split, "no terms: one half only")

	// A full recall through the split path writes its side effects.
	full, err := b.co.Recall(ctx, big, "who repaired the kettle", nil)
	require.NoError(t, err)
	require.True(t, full.Split)
	require.True(t, full.SideEffects)
	require.NotEmpty(t, full.Touched)
	require.Positive(t, full.Timing.SideEffects)
	require.GreaterOrEqual(t, full.Timing.Total, full.Timing.Embed+full.Timing.Candidates+full.Timing.Rank+full.Timing.SideEffects)

	// A canceled context fails both halves and leaks nothing (goleak in TestMain).
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = b.co.Recall(cctx, big, "who repaired the kettle", ro(coordinator.RecallOpts{}))
	require.ErrorIs(t, err, context.Canceled)

	// The SQL parts against the one function, row for row with every signal.
	layers := []string{"working", "short_term", "episodic", "semantic", "procedural", "core", "cross_context"}
	for _, tc := range cases {
		vs, err := b.cfg.Embedder.Embed(ctx, []string{tc.q})
		require.NoError(t, err)
		vec := vecLiteral(vs[0])
		terms := textproc.Terms(tc.q, textproc.DetectLang(tc.q))
		now := b.clock.Now()
		want := candidateRows(t, b, `SELECT * FROM zb.recall_candidates_model($1, $2::vector, $3, $4::zb.memory_layer[], 8, $5,
			NULL, NULL, NULL, NULL, $6, NULL)`, big, vec, terms, layers, now, tc.opts.Deep)
		got := candidateRows(t, b, `SELECT j.* FROM zb.recall_lexical_half($1, $3, $4::zb.memory_layer[], 8, $5, NULL, NULL, NULL, NULL, $6) h
			CROSS JOIN LATERAL zb.recall_candidates_join($1, $2::vector, h.terms, h.idf, h.sidf, $4::zb.memory_layer[], $5,
				NULL, NULL, NULL, NULL, $6, NULL,
				zb.recall_vector_half($1, $2::vector, $4::zb.memory_layer[], 8, $5, NULL, NULL, NULL, NULL, $6, NULL),
				h.ids, h.n, h.avgdl, h.total, h.sn, true) j`, big, vec, terms, layers, now, tc.opts.Deep)
		require.NotEmpty(t, want, tc.q)
		require.Equal(t, want, got, tc.q)
	}
}

// candidateRows runs a candidate query and returns its rows as text, ordered by id.
func candidateRows(t *testing.T, b *testBundle, sql string, args ...any) []string {
	t.Helper()
	rows, err := b.cfg.Pool.Query(ctxT(t), "SELECT x::text FROM ("+sql+") x ORDER BY x.id", args...)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return out
}

// The join's recheck (0026): halves read on other connections may name a memory that was
// consolidated or archived before the join ran. With p_recheck the join drops it; without (the
// one-statement path, where everything shares one snapshot) it would come back. Bad input —
// terms that are not the lexical half's, weights that do not match them, a session count under
// one — is refused with 22023 instead of being scored.
func TestRecallJoinRecheckAndBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	const ten = "split-recheck"
	splitTenant(t, b.co, ten, 400)
	layers := []string{"working", "short_term", "episodic", "semantic", "procedural", "core", "cross_context"}
	q := "who repaired the kettle in Lyon"
	vs, err := b.cfg.Embedder.Embed(ctx, []string{q})
	require.NoError(t, err)
	vec := vecLiteral(vs[0])
	terms := textproc.Terms(q, textproc.DetectLang(q))
	now := b.clock.Now()

	var n int64
	var avgdl, total, sn float64
	var lterms []string
	var idf, sidf []float64
	var lex, vecIDs []int64
	require.NoError(t, b.cfg.Pool.QueryRow(ctx, `SELECT h.n, h.avgdl, h.total, h.sn, h.terms, h.idf, h.sidf, h.ids,
		zb.recall_vector_half($1, $2::vector, $4::zb.memory_layer[], 8, $5, NULL, NULL, NULL, NULL, false, NULL)
		FROM zb.recall_lexical_half($1, $3, $4::zb.memory_layer[], 8, $5, NULL, NULL, NULL, NULL, false) h`,
		ten, vec, terms, layers, now).Scan(&n, &avgdl, &total, &sn, &lterms, &idf, &sidf, &lex, &vecIDs))
	require.EqualValues(t, 400, n)
	require.NotEmpty(t, lex)
	require.NotEmpty(t, vecIDs)
	require.True(t, slices.IsSorted(lterms))

	join := func(recheck bool, jterms []string, jidf, jsidf []float64, jsn float64) ([]int64, error) {
		rows, err := b.cfg.Pool.Query(ctx, `SELECT id FROM zb.recall_candidates_join($1, $2::vector, $3, $4, $5,
			$6::zb.memory_layer[], $7, NULL, NULL, NULL, NULL, false, NULL, $8, $9, $10, $11, $12, $13, $14) ORDER BY id`,
			ten, vec, jterms, jidf, jsidf, layers, now, vecIDs, lex, n, avgdl, total, jsn, recheck)
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, pgx.RowTo[int64])
	}
	before, err := join(true, lterms, idf, sidf, sn)
	require.NoError(t, err)
	require.Contains(t, before, lex[0])
	require.Contains(t, before, vecIDs[0])

	_, err = b.cfg.Pool.Exec(ctx, "UPDATE zb.memory SET status = 'archived' WHERE tenant_id = $1 AND id = ANY ($2)",
		ten, []int64{lex[0], vecIDs[0]})
	require.NoError(t, err)
	stale, err := join(false, lterms, idf, sidf, sn)
	require.NoError(t, err)
	require.Contains(t, stale, lex[0], "without the recheck the archived memory comes back")
	rechecked, err := join(true, lterms, idf, sidf, sn)
	require.NoError(t, err)
	require.NotContains(t, rechecked, lex[0])
	require.NotContains(t, rechecked, vecIDs[0])
	require.NotEmpty(t, rechecked)

	var pgErr *pgconn.PgError
	reversed := slices.Clone(lterms)
	slices.Reverse(reversed)
	for name, bad := range map[string]func() error{
		"unsorted terms": func() error { _, err := join(true, reversed, idf, sidf, sn); return err },
		"an idf short":   func() error { _, err := join(true, lterms, idf[1:], sidf, sn); return err },
		"a sidf short":   func() error { _, err := join(true, lterms, idf, sidf[1:], sn); return err },
		"repeated term": func() error {
			_, err := join(true, append([]string{lterms[0]}, lterms...), append([]float64{1}, idf...), append([]float64{1}, sidf...), sn)
			return err
		},
		"empty terms": func() error { _, err := join(true, []string{}, []float64{}, []float64{}, sn); return err },
		"no sessions": func() error { _, err := join(true, lterms, idf, sidf, 0); return err },
	} {
		err := bad()
		require.ErrorAs(t, err, &pgErr, name)
		require.Equal(t, "22023", pgErr.Code, name)
	}
}
