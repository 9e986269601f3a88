package coordinator_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

// requirePostingsMirror checks that zb.memory_posting holds exactly one row per active memory
// of tenant and distinct term, with the term's frequency, the memory's length, layer, session
// and validity end, and returns how many rows that is.
func requirePostingsMirror(t *testing.T, pool *pgxpool.Pool, tenant string) int {
	t.Helper()
	var want, diff int
	require.NoError(t, pool.QueryRow(ctxT(t), `
		WITH m AS (SELECT m.id, u.t, m.layer, count(*) AS tf, m.term_count AS dl, m.session_id, m.valid_to
		           FROM zb.memory m CROSS JOIN LATERAL unnest(m.terms) u(t)
		           WHERE m.tenant_id = $1 AND m.status = 'active'
		           GROUP BY m.id, u.t, m.layer, m.term_count, m.session_id, m.valid_to),
		     p AS (SELECT memory_id AS id, term AS t, layer, tf, dl, session_id, valid_to FROM zb.memory_posting WHERE tenant_id = $1)
		SELECT (SELECT count(*) FROM m),
		       (SELECT count(*) FROM m FULL JOIN p USING (id, t)
		        WHERE m.id IS NULL OR p.id IS NULL OR m.layer <> p.layer OR m.tf <> p.tf OR m.dl <> p.dl
		           OR m.session_id IS DISTINCT FROM p.session_id OR m.valid_to IS DISTINCT FROM p.valid_to)`,
		tenant).Scan(&want, &diff))
	require.Zero(t, diff, "zb.memory_posting differs from the active memories' terms in %d rows", diff)
	return want
}

// Recall's postings (0018) are kept by triggers on zb.memory: every way a memory is written —
// INSERT (Store), COPY (StoreBatch), derive, recall, decay's archive, plain SQL changes of
// status, terms, layer, session and validity end, the deletion of a session, a plain DELETE of
// 250 memories (the delete trigger's one-pass branch), erase of a memory and of the tenant —
// leaves them equal to the active memories' terms.
func TestPostingsMirrorMemory(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx, pool := ctxT(t), b.cfg.Pool
	const ten = "postq"

	sess, err := b.co.StartSession(ctx, ten, "work")
	require.NoError(t, err)
	var items []coordinator.StoreInput
	for i := range 40 {
		in := coordinator.StoreInput{
			TenantID: ten, Layer: coordinator.LayerSemantic,
			Content: fmt.Sprintf("%s repaired the %s bicycle in %s near the %s bicycle shop", hotName(i), hotWord(i), hotPlace(i), hotWord(i+1)),
		}
		if i%2 == 1 {
			in.Layer = coordinator.LayerEpisodic
		}
		if i%4 == 0 {
			in.SessionID = &sess
		}
		items = append(items, in)
	}
	stored, err := b.co.StoreBatch(ctx, items) // COPY
	require.NoError(t, err)
	require.EqualValues(t, 40, stored)
	one, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: ten, Content: "Greta keeps the tandem keys in the blue drawer"})
	require.NoError(t, err)
	n := requirePostingsMirror(t, pool, ten)
	require.Greater(t, n, 41*5, "every memory has its distinct terms")
	var tf2 int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory_posting WHERE tenant_id = $1 AND term = 'bicycl' AND tf = 2`,
		ten).Scan(&tf2))
	require.Equal(t, 40, tf2, "a term twice in a memory is one posting with tf 2")

	_, err = b.co.Derive(ctx, jobs.DeriveArgs{TenantID: ten, Pending: true}, nil)
	require.NoError(t, err)
	require.Equal(t, n, requirePostingsMirror(t, pool, ten))
	_, err = b.co.Recall(ctx, ten, "who repaired the tandem bicycle?", &coordinator.RecallOpts{K: 5})
	require.NoError(t, err)
	require.Equal(t, n, requirePostingsMirror(t, pool, ten))

	// Decay months later: archived memories' postings go.
	b.clock.Add(200 * 24 * time.Hour)
	archived := 0
	for range 10 {
		rep, err := b.co.DecayDue(ctx, ten, 0, nil)
		require.NoError(t, err)
		archived += len(rep.Archived)
		if !rep.More {
			break
		}
	}
	after := requirePostingsMirror(t, pool, ten)
	if archived > 0 {
		require.Less(t, after, n)
	}

	// Plain SQL: status, terms, layer; then the session's deletion sets session_id NULL.
	var victim int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT id FROM zb.memory WHERE tenant_id = $1 AND status = 'active' AND id <> $2
		ORDER BY id DESC LIMIT 1`, ten, one.ID).Scan(&victim))
	execSQL(t, pool, `UPDATE zb.memory SET status = 'archived' WHERE tenant_id = $1 AND id = $2`, ten, victim)
	require.Less(t, requirePostingsMirror(t, pool, ten), after)
	execSQL(t, pool, `UPDATE zb.memory SET status = 'active' WHERE tenant_id = $1 AND id = $2`, ten, victim)
	require.Equal(t, after, requirePostingsMirror(t, pool, ten))
	execSQL(t, pool, `UPDATE zb.memory SET terms = terms || ARRAY['zebra', 'zebra'], term_count = term_count + 2
		WHERE tenant_id = $1 AND id = $2`, ten, victim)
	require.Equal(t, after+1, requirePostingsMirror(t, pool, ten))
	execSQL(t, pool, `UPDATE zb.memory SET layer = 'procedural' WHERE tenant_id = $1 AND id = $2`, ten, victim)
	require.Equal(t, after+1, requirePostingsMirror(t, pool, ten))
	execSQL(t, pool, `UPDATE zb.memory SET valid_to = coalesce(valid_from, created_at) + interval '1 day' WHERE tenant_id = $1 AND id = $2`, ten, victim)
	require.Equal(t, after+1, requirePostingsMirror(t, pool, ten))
	var ended int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory_posting WHERE tenant_id = $1 AND memory_id = $2 AND valid_to IS NOT NULL`,
		ten, victim).Scan(&ended))
	require.Positive(t, ended, "the validity end reached the postings")
	var withSession int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory_posting WHERE tenant_id = $1 AND session_id = $2`,
		ten, sess).Scan(&withSession))
	require.Positive(t, withSession)
	execSQL(t, pool, `DELETE FROM zb.session WHERE tenant_id = $1 AND id = $2`, ten, sess)
	require.Equal(t, after+1, requirePostingsMirror(t, pool, ten))
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory_posting WHERE tenant_id = $1 AND session_id IS NOT NULL`,
		ten).Scan(&withSession))
	require.Zero(t, withSession)

	// Erase one memory, then the tenant.
	_, err = b.co.Erase(ctx, ten, coordinator.ScopeMemory(victim), nil)
	require.NoError(t, err)
	require.Less(t, requirePostingsMirror(t, pool, ten), after)
	// More than 200 memories deleted in one statement take the trigger's one-pass branch.
	var more []coordinator.StoreInput
	for i := range 250 {
		more = append(more, coordinator.StoreInput{
			TenantID: ten, Layer: coordinator.LayerSemantic,
			Content: fmt.Sprintf("%s painted the %s fence in %s", hotName(i), hotWord(i), hotPlace(i)),
		})
	}
	_, err = b.co.StoreBatch(ctx, more)
	require.NoError(t, err)
	withMore := requirePostingsMirror(t, pool, ten)
	require.Greater(t, withMore, 250*4)
	execSQL(t, pool, `DELETE FROM zb.memory WHERE tenant_id = $1 AND content LIKE '% painted the %'`, ten)
	require.Less(t, requirePostingsMirror(t, pool, ten), withMore-250*4)
	_, err = b.co.Erase(ctx, ten, coordinator.ScopeTenant(), nil)
	require.NoError(t, err)
	require.Zero(t, requirePostingsMirror(t, pool, ten))
	var left int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory_posting WHERE tenant_id = $1`, ten).Scan(&left))
	require.Zero(t, left)
}

// zb.recall_lexical_postings (0018) ranks exactly: its document and session frequencies are the
// counts over the tenant's active memories, and per layer its candidates are the top k by
// zb.bm25_doc over every active memory that passes recall's filters — the validity end from the
// postings (the best 4·k+2 of every layer superseded), the others from zb.memory. Both ways are
// checked: the hash grouping (0019) and the merge in memory order (0024,
// zb.recall_lexical_merge), chosen with zb.lexical_merge_min_docs; and the merge falls back to
// the hash grouping for more than twelve distinct terms.
func TestLexicalPostingsExact(t *testing.T) {
	t.Parallel()
	for _, way := range []struct{ name, minDocs string }{{"hash", "1000000000"}, {"merge", "0"}} {
		t.Run(way.name, func(t *testing.T) {
			t.Parallel()
			lexicalPostingsExact(t, way.minDocs)
		})
	}
}

func lexicalPostingsExact(t *testing.T, minDocs string) {
	b := setup(t, nil)
	ctx := ctxT(t)
	const ten, k = "postx", 6
	// One connection with the way's setting for every call (and the checks, harmlessly).
	conn, err := b.cfg.Pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	_, err = conn.Exec(ctx, "SELECT set_config('zb.lexical_merge_min_docs', $1, false)", minDocs)
	require.NoError(t, err)
	defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), "RESET zb.lexical_merge_min_docs") }()
	pool := conn

	sessions := make([]uuid.UUID, 3)
	for i := range sessions {
		s, err := b.co.StartSession(ctx, ten, "work")
		require.NoError(t, err)
		sessions[i] = s
	}
	var items []coordinator.StoreInput
	layers := []coordinator.Layer{coordinator.LayerSemantic, coordinator.LayerEpisodic, coordinator.LayerProcedural}
	for i := range 300 {
		occ := t0.Add(-time.Duration(i) * 6 * time.Hour)
		in := coordinator.StoreInput{
			TenantID: ten, Layer: layers[i%3], OccurredAt: &occ, Context: []string{"work", "home"}[i%2],
			Content: fmt.Sprintf("%s repaired the %s %s in %s", hotName(i), hotWord(i/3), hotWord(i/7+2), hotPlace(i/5)),
		}
		if i%5 == 0 {
			in.SessionID = &sessions[i%3]
		}
		items = append(items, in)
	}
	_, err = b.co.StoreBatch(ctx, items)
	require.NoError(t, err)

	var docs int64
	var avgdl float64
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*), avg(term_count) FROM zb.memory WHERE tenant_id = $1 AND status = 'active'`,
		ten).Scan(&docs, &avgdl))
	terms := []string{}
	require.NoError(t, pool.QueryRow(ctx, `SELECT array_agg(DISTINCT t ORDER BY t) FROM (
		SELECT unnest(terms) t FROM zb.memory WHERE tenant_id = $1 AND id IN (SELECT min(id) FROM zb.memory WHERE tenant_id = $1)) x
		WHERE t <> 'repair'`, ten).Scan(&terms))
	require.GreaterOrEqual(t, len(terms), 3)
	allLayers := []string{"working", "short_term", "episodic", "semantic", "procedural", "core"}

	type filter struct {
		name     string
		now      time.Time
		from, to *time.Time
		contexts []string
	}
	from, to := t0.Add(-40*24*time.Hour), t0.Add(-20*24*time.Hour)
	run := func(f filter) []float64 {
		t.Helper()
		if f.now.IsZero() {
			f.now = t0
		}
		var idf, sidf []float64
		var ids []int64
		require.NoError(t, pool.QueryRow(ctx, `SELECT idf, sidf, ids FROM zb.recall_lexical_postings($1, $2, $3, 3, $4,
			$5::zb.memory_layer[], $6, $7, $8, $9, NULL, $10)`, ten, terms, docs, avgdl, allLayers, k, f.now, f.from, f.to, f.contexts).
			Scan(&idf, &sidf, &ids))
		// Frequencies: counted over the active memories.
		for i, term := range terms {
			var df, sdf float64
			require.NoError(t, pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT session_id) FROM zb.memory
				WHERE tenant_id = $1 AND status = 'active' AND $2 = ANY (terms)`, ten, term).Scan(&df, &sdf))
			require.InDelta(t, math.Log(1+(float64(docs)-df+0.5)/(df+0.5)), idf[i], 1e-12, "%s: idf of %s", f.name, term)
			require.InDelta(t, math.Log(1+(math.Max(3, sdf)-sdf+0.5)/(sdf+0.5)), sidf[i], 1e-12, "%s: sidf of %s", f.name, term)
		}
		rows, err := pool.Query(ctx, `SELECT id FROM (
			SELECT m.id, row_number() OVER (PARTITION BY m.layer
			           ORDER BY zb.bm25_doc(m.terms, m.term_count, $2, $3, $4) DESC, m.id) AS rn
			FROM zb.memory m
			WHERE m.tenant_id = $1 AND m.status = 'active' AND m.terms && $2
			  AND (m.valid_to IS NULL OR m.valid_to > $5)
			  AND ($7::text[] IS NULL OR m.context = ANY ($7))
			  AND ($6::timestamptz IS NULL OR coalesce(m.event_to, m.occurred_at + interval '1 microsecond') > $6)
			  AND ($8::timestamptz IS NULL OR coalesce(m.event_from, m.occurred_at) < $8)) x
			WHERE rn <= $9 ORDER BY id`, ten, terms, idf, avgdl, f.now, f.from, f.contexts, f.to, k)
		require.NoError(t, err)
		want, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		require.NoError(t, err)
		require.NotEmpty(t, want, f.name)
		require.Equal(t, want, ids, "%s: the exact per-layer top %d", f.name, k)
		return idf
	}
	idf := run(filter{name: "no filter"})
	run(filter{name: "contexts", contexts: []string{"home"}})
	run(filter{name: "time range", from: &from, to: &to})
	require.Equal(t, 3*k, func() int {
		var ids []int64
		require.NoError(t, pool.QueryRow(ctx, `SELECT ids FROM zb.recall_lexical_postings($1, $2, $3, 3, $4,
			$5::zb.memory_layer[], $6, $7, NULL, NULL, NULL, NULL)`, ten, terms, docs, avgdl, allLayers, k, t0).Scan(&ids))
		return len(ids)
	}(), "k per filled layer")

	// Superseded: the best 4·k+2 of every layer get a validity end before the recall's time.
	var matches int
	require.NoError(t, pool.QueryRow(ctx, `SELECT min(n) FROM (SELECT count(*) AS n FROM zb.memory
		WHERE tenant_id = $1 AND terms && $2 GROUP BY layer) x`, ten, terms).Scan(&matches))
	require.Greater(t, matches, 4*k+2+k, "every layer has more matches than the first pass reads")
	_, err = pool.Exec(ctx, `UPDATE zb.memory m SET valid_to = $3 FROM (
		SELECT m.id, row_number() OVER (PARTITION BY m.layer ORDER BY zb.bm25_doc(m.terms, m.term_count, $2, $5, $6) DESC, m.id) AS rn
		FROM zb.memory m WHERE m.tenant_id = $1 AND m.terms && $2) x
		WHERE m.tenant_id = $1 AND m.id = x.id AND x.rn <= $4`, ten, terms, t0.Add(time.Hour), 4*k+2, idf, avgdl)
	require.NoError(t, err)
	run(filter{name: "superseded best", now: t0.Add(2 * time.Hour)})
	require.True(t, slices.IsSorted(terms))

	// More than twelve distinct terms (the query's and ten that match nothing): the merge takes at
	// most twelve, so this is the hash grouping in both ways, still exact.
	long := slices.Clone(terms)
	for i := range 10 {
		long = append(long, fmt.Sprintf("zzabsent%02d", i))
	}
	require.Greater(t, len(long), 12)
	terms = long
	run(filter{name: "thirteen terms and more", now: t0.Add(2 * time.Hour)})

	// A repeated term counts once, at its first position (the weights are positional): the same
	// candidates as without the repeat, and the repeat's weight equals the first's.
	var once, twice []int64
	var idfTwice []float64
	short := terms[:3]
	require.NoError(t, pool.QueryRow(ctx, `SELECT ids FROM zb.recall_lexical_postings($1, $2, $3, 3, $4,
		$5::zb.memory_layer[], $6, $7, NULL, NULL, NULL, NULL)`, ten, short, docs, avgdl, allLayers, k, t0).Scan(&once))
	require.NoError(t, pool.QueryRow(ctx, `SELECT idf, ids FROM zb.recall_lexical_postings($1, $2, $3, 3, $4,
		$5::zb.memory_layer[], $6, $7, NULL, NULL, NULL, NULL)`, ten, append(slices.Clone(short), short[1]), docs, avgdl, allLayers, k, t0).
		Scan(&idfTwice, &twice))
	require.NotEmpty(t, once)
	require.Equal(t, once, twice)
	require.Equal(t, idfTwice[1], idfTwice[3])
}

// zb.recall_lexical_merge refuses more than twelve terms, or weights that do not match the
// terms, with SQLSTATE 22023, rather than dropping terms.
func TestLexicalMergeBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	many := make([]string, 13)
	w := make([]float64, 13)
	for i := range many {
		many[i], w[i] = fmt.Sprintf("t%02d", i), 1
	}
	for _, c := range []struct {
		terms []string
		w     []float64
	}{{many, w}, {many[:3], w[:2]}} {
		var ids []int64
		err := b.cfg.Pool.QueryRow(ctx, `SELECT zb.recall_lexical_merge('mergebad', $1, $2, 10,
			'{semantic}', 5, now(), NULL, NULL, NULL, NULL)`, c.terms, c.w).Scan(&ids)
		var pgErr *pgconn.PgError
		require.ErrorAs(t, err, &pgErr)
		require.Equal(t, "22023", pgErr.Code, pgErr.Message)
	}

	// A threshold that is not a whole number is refused by name, in recall too, and nothing else
	// on the connection changes.
	conn, err := b.cfg.Pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	for _, bad := range []string{"lots", "-1", "1e3", "99999999999999999999"} {
		_, err = conn.Exec(ctx, "SELECT set_config('zb.lexical_merge_min_docs', $1, false)", bad)
		require.NoError(t, err)
		var ids []int64
		err = conn.QueryRow(ctx, `SELECT ids FROM zb.recall_lexical_postings('mergebad', '{alpha}', 10, 1, 5,
			'{semantic}', 5, now(), NULL, NULL, NULL, NULL)`).Scan(&ids)
		var pgErr *pgconn.PgError
		require.ErrorAs(t, err, &pgErr, bad)
		require.Equal(t, "22023", pgErr.Code, pgErr.Message)
		require.Contains(t, pgErr.Message, "zb.lexical_merge_min_docs", bad)
	}
	_, err = conn.Exec(ctx, "SELECT set_config('zb.lexical_merge_min_docs', '5', false)")
	require.NoError(t, err)
	var ids []int64
	require.NoError(t, conn.QueryRow(ctx, `SELECT ids FROM zb.recall_lexical_postings('mergebad', '{alpha}', 10, 1, 5,
		'{semantic}', 5, now(), NULL, NULL, NULL, NULL)`).Scan(&ids))
	require.Empty(t, ids)
	_, err = conn.Exec(ctx, "RESET zb.lexical_merge_min_docs")
	require.NoError(t, err)
}
