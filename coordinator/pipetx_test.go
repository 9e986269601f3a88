package coordinator

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/internal/zbtest"
	"github.com/zenbrain/zb/jobs"
)

// sendCounter counts what a connection sends: each query sent alone and each batch is one
// round trip.
type sendCounter struct{ n atomic.Int64 }

func (s *sendCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	s.n.Add(1)
	return ctx
}
func (s *sendCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (s *sendCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	s.n.Add(1)
	return ctx
}
func (s *sendCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (s *sendCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// queueExec queues one statement in pt (Later).
func queueExec(t *testing.T, ctx context.Context, pt *pipeTx, sql string, args ...any) {
	t.Helper()
	require.NoError(t, pt.Later(func() error {
		_, err := pt.Exec(ctx, sql, args...)
		return err
	}))
}

// column returns the single column of sql's rows, read through pool.
func column[T any](t *testing.T, ctx context.Context, pool *pgxpool.Pool, sql string) []T {
	t.Helper()
	rows, err := pool.Query(ctx, sql)
	require.NoError(t, err)
	got, err := pgx.CollectRows(rows, pgx.RowTo[T])
	require.NoError(t, err)
	return got
}

// pipeTx: Execs inside Later wait and go out, in order, with the next statement in one batch
// (BEGIN with the first); their errors come back from the statement that sent them; QueryRow
// keeps pgx's ErrNoRows; an Exec outside Later returns its own tag; COPY and Flush send the
// queue; an error drops the queue and rolls back.
func TestPipeTx(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sc := &sendCounter{}
	co, pool := countingCoordinator(t, ctx, sc, Config{})
	_, err := pool.Exec(ctx, `CREATE TABLE pt (i int PRIMARY KEY, v text)`)
	require.NoError(t, err)
	queue := func(pt *pipeTx, sql string) { queueExec(t, ctx, pt, sql) }
	values := func() []string { return column[string](t, ctx, pool, `SELECT v FROM pt ORDER BY i`) }

	require.NoError(t, co.pipelinedTx(ctx, "", txPrelude{}, func(pt *pipeTx) error {
		before := sc.n.Load()
		require.NoError(t, pt.Later(func() error {
			for i, v := range []string{"a", "b", "c"} {
				tag, err := pt.Exec(ctx, `INSERT INTO pt VALUES ($1, $2)`, i, v)
				require.NoError(t, err)
				require.Equal(t, pgconn.CommandTag{}, tag, "a queued Exec has no tag yet")
			}
			return nil
		}))
		require.Equal(t, before, sc.n.Load(), "nothing is sent while queued")
		rows, err := pt.Query(ctx, `SELECT v FROM pt ORDER BY i`)
		require.NoError(t, err)
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		require.Equal(t, []string{"a", "b", "c"}, got, "the queued rows were written before the query, in order")
		require.Equal(t, before+1, sc.n.Load(), "BEGIN, three inserts and the query: one round trip")

		// QueryRow after a queue: a row, and ErrNoRows for none.
		queue(pt, `UPDATE pt SET v = 'B' WHERE i = 1`)
		var v string
		require.NoError(t, pt.QueryRow(ctx, `SELECT v FROM pt WHERE i = 1`).Scan(&v))
		require.Equal(t, "B", v)
		queue(pt, `DELETE FROM pt WHERE i = 2`)
		require.ErrorIs(t, pt.QueryRow(ctx, `SELECT v FROM pt WHERE i = 2`).Scan(&v), pgx.ErrNoRows)

		// An Exec outside Later sends the queue with it and returns its own tag.
		queue(pt, `INSERT INTO pt VALUES (2, 'c2')`)
		n := sc.n.Load()
		tag, err := pt.Exec(ctx, `UPDATE pt SET v = v || '!'`)
		require.NoError(t, err)
		require.Equal(t, int64(3), tag.RowsAffected())
		require.Equal(t, n+1, sc.n.Load())

		// COPY sends the queue first; Flush sends what is left.
		queue(pt, `DELETE FROM pt WHERE i = 0`)
		copied, err := pt.CopyFrom(ctx, pgx.Identifier{"pt"}, []string{"i", "v"}, pgx.CopyFromRows([][]any{{0, "copied"}}))
		require.NoError(t, err, "the queued delete ran before the copy of the same key")
		require.Equal(t, int64(1), copied)
		queue(pt, `INSERT INTO pt VALUES (9, 'flushed')`)
		require.NoError(t, pt.Flush(ctx))
		n = sc.n.Load()
		require.NoError(t, pt.Flush(ctx))
		require.Equal(t, n, sc.n.Load(), "an empty queue sends nothing")
		return nil
	}))
	require.Equal(t, []string{"copied", "B!", "c2!", "flushed"}, values())

	// A queued statement's error comes back from the statement that sent it, and the
	// transaction is aborted as it would have been.
	err = co.pipelinedTx(ctx, "", txPrelude{}, func(pt *pipeTx) error {
		queue(pt, `INSERT INTO pt VALUES (1, 'duplicate')`)
		err := pt.QueryRow(ctx, `SELECT 1`).Scan(new(int))
		var pgErr *pgconn.PgError
		require.True(t, errors.As(err, &pgErr), "%v", err)
		require.Equal(t, "23505", pgErr.Code)
		require.Error(t, pt.QueryRow(ctx, `SELECT 1`).Scan(new(int)), "the transaction is aborted")
		return err
	})
	require.Error(t, err)

	// An error before anything was sent drops the queue: nothing is sent at all.
	n := sc.n.Load()
	boom := errors.New("boom")
	require.ErrorIs(t, co.pipelinedTx(ctx, "", txPrelude{}, func(pt *pipeTx) error {
		queue(pt, `INSERT INTO pt VALUES (10, 'never')`)
		return boom
	}), boom)
	require.Equal(t, n, sc.n.Load())
	require.Equal(t, []string{"copied", "B!", "c2!", "flushed"}, values())
}

// A plain store is one round trip (BEGIN with its prelude, the INSERT with its triple copies,
// procedure and audit row, COMMIT) and writes all of them; its derivation is queued by the memory
// table's triggers (zb.memory_underived, and a notification to the worker at COMMIT), not by a
// River job of its own. With triple_copy switched off the store writes no copies. A store that
// fails (here: a tenant that requires consent and has none) writes nothing and leaves the
// connection idle for the next one. Working memory, whose evictions are known only after its
// INSERT and placement, writes its audit row with COMMIT.
func TestStoreRoundTrips(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sc := &sendCounter{}
	co, pool := countingCoordinator(t, ctx, sc, Config{DeferEmbedding: true})
	listener, err := pgx.Connect(ctx, pool.Config().ConnConfig.ConnString())
	require.NoError(t, err)
	defer listener.Close(ctx)
	_, err = listener.Exec(ctx, "LISTEN zb_memory_inserted")
	require.NoError(t, err)
	storeIn := func(in StoreInput, trips int64) int64 {
		before := sc.n.Load()
		res, err := co.Store(ctx, in)
		require.NoError(t, err)
		if trips > 0 {
			require.Equal(t, trips, sc.n.Load()-before, "round trips of a store")
		} else {
			require.Greater(t, sc.n.Load()-before, int64(1), "round trips of a store that reads after its INSERT")
		}
		n, err := listener.WaitForNotification(ctx)
		require.NoError(t, err)
		require.Empty(t, n.Payload, "the worker is notified, without the tenant (any login may listen)")
		return res.ID
	}
	store := func(tenant, content string) int64 {
		return storeIn(StoreInput{TenantID: tenant, Content: content, Layer: LayerSemantic}, 1)
	}
	count := func(sql string, args ...any) int {
		var n int
		require.NoError(t, pool.QueryRow(ctx, sql, args...).Scan(&n))
		return n
	}
	// The first store also looks up what the pool caches (the server's version for River,
	// settings); the pool holds one connection so that the stores below find it warm.
	_, err = co.Store(ctx, StoreInput{TenantID: "rt", Content: "Warm-up: the first store.", Layer: LayerSemantic})
	require.NoError(t, err)
	_, err = listener.WaitForNotification(ctx)
	require.NoError(t, err)
	id := store("rt", "Ada keeps her notes in a green binder.")
	green := id
	require.Equal(t, 2, count(`SELECT count(*) FROM zb.triple_copy WHERE tenant_id = 'rt' AND memory_id = $1`, id))
	var detail map[string]any
	require.NoError(t, pool.QueryRow(ctx, `SELECT detail FROM zb.audit_event
		WHERE tenant_id = 'rt' AND memory_id = $1 AND action = 'memory.store' AND actor = $2`, id, co.cfg.Actor).Scan(&detail))
	require.Equal(t, "semantic", detail["layer"])
	require.EqualValues(t, len("Ada keeps her notes in a green binder."), detail["bytes"])
	require.Zero(t, count(`SELECT count(*) FROM zb.procedure WHERE tenant_id = 'rt' AND memory_id = $1`, id))
	require.Equal(t, 1, count(`SELECT count(*) FROM zb.memory_underived WHERE tenant_id = 'rt' AND memory_id = $1`, id))
	require.Zero(t, count(`SELECT count(*) FROM river.river_job WHERE kind = 'zb_derive'`), "no job per store")

	// A procedure is written by the same statement.
	id = storeIn(StoreInput{
		TenantID: "rt", Content: "To restart the printer, hold the power button.", Layer: LayerProcedural,
		Skill: &Skill{Trigger: "printer frozen", Steps: []string{"hold power", "wait"}},
	}, 1)
	var trigger string
	var steps []string
	require.NoError(t, pool.QueryRow(ctx, `SELECT trigger_text, steps FROM zb.procedure WHERE tenant_id = 'rt' AND memory_id = $1`, id).Scan(&trigger, &steps))
	require.Equal(t, "printer frozen", trigger)
	require.Equal(t, []string{"hold power", "wait"}, steps)
	require.Equal(t, 2, count(`SELECT count(*) FROM zb.triple_copy WHERE tenant_id = 'rt' AND memory_id = $1`, id))

	// Working memory: the INSERT, its placement among the session's items, then the audit row
	// with COMMIT.
	sess := uuid.New()
	id = storeIn(StoreInput{TenantID: "rt", Content: "Now drafting the reply to Bo.", Layer: LayerWorking, SessionID: &sess}, 0)
	require.Equal(t, 1, count(`SELECT count(*) FROM zb.audit_event WHERE tenant_id = 'rt' AND memory_id = $1 AND action = 'memory.store'`, id))
	require.Equal(t, 2, count(`SELECT count(*) FROM zb.triple_copy WHERE tenant_id = 'rt' AND memory_id = $1`, id))

	require.NoError(t, co.SetAlgorithm(ctx, "rt-off", "triple_copy", false))
	id = store("rt-off", "Ada keeps her notes in a red binder.")
	require.Zero(t, count(`SELECT count(*) FROM zb.triple_copy WHERE tenant_id = 'rt-off' AND memory_id = $1`, id))
	require.Equal(t, 1, count(`SELECT count(*) FROM zb.audit_event WHERE tenant_id = 'rt-off' AND memory_id = $1`, id))

	// A failing store (its INSERT's consent check raises) writes nothing, and the connection
	// is left idle: the next store on it succeeds.
	_, err = pool.Exec(ctx, `INSERT INTO zb.tenant (id, name, settings) VALUES ('rt-consent', '', '{"consent_required": true}')`)
	require.NoError(t, err)
	before := sc.n.Load()
	_, err = co.Store(ctx, StoreInput{TenantID: "rt-consent", Content: "A quiet afternoon in the garden with Bo.", Layer: LayerSemantic})
	require.Error(t, err)
	require.Contains(t, err.Error(), "requires consent")
	require.Equal(t, int64(2), sc.n.Load()-before, "the failed round trip and the ROLLBACK")
	for _, table := range []string{"zb.memory", "zb.triple_copy", "zb.audit_event", "zb.memory_underived"} {
		require.Zero(t, count(`SELECT count(*) FROM `+table+` WHERE tenant_id = 'rt-consent'`), table)
	}
	store("rt", "Ada keeps her notes in a blue binder.")

	// The derivation the pending sweep runs derives it (and takes it off the queue).
	rep, err := co.Derive(ctx, jobs.DeriveArgs{TenantID: "rt", Pending: true}, nil)
	require.NoError(t, err)
	require.Contains(t, rep.Derived, green)
	require.Zero(t, count(`SELECT count(*) FROM zb.memory_underived WHERE tenant_id = 'rt'`))
}

// countingCoordinator returns a coordinator with cfg on a one-connection pool whose sends sc
// counts, and the pool.
func countingCoordinator(t *testing.T, ctx context.Context, sc *sendCounter, cfg Config) (*Coordinator, *pgxpool.Pool) {
	t.Helper()
	pcfg, err := pgxpool.ParseConfig(zbtest.DB(t, nil))
	require.NoError(t, err)
	pcfg.ConnConfig.Tracer = sc
	pcfg.AfterConnect = dbconn.RegisterTypes
	pcfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	cfg.Pool = pool
	co, err := New(&cfg)
	require.NoError(t, err)
	return co, pool
}

// A pipelined transaction sends BEGIN (binding and prelude) with its first statement and
// COMMIT with its last queued ones: writes only are one round trip, a read and writes two, and
// nothing at all sends nothing. Errors of queued statements, of COMMIT itself (a deferred
// constraint) and of fn roll everything back and leave the connection idle.
func TestPipelinedTx(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sc := &sendCounter{}
	co, pool := countingCoordinator(t, ctx, sc, Config{})
	_, err := pool.Exec(ctx, `CREATE TABLE ptx (i int PRIMARY KEY, v text,
		d int, CONSTRAINT ptx_d UNIQUE (d) DEFERRABLE INITIALLY DEFERRED)`)
	require.NoError(t, err)
	pre := txPrelude{lockTimeout: 50 * time.Millisecond}
	insert := func(pt *pipeTx, i int, d any) { queueExec(t, ctx, pt, `INSERT INTO ptx VALUES ($1, 'v', $2)`, i, d) }
	rowsIn := func() []int { return column[int](t, ctx, pool, `SELECT i FROM ptx ORDER BY i`) }
	idle := func() {
		t.Helper()
		c, err := pool.Acquire(ctx)
		require.NoError(t, err)
		defer c.Release()
		require.Equal(t, byte('I'), c.Conn().PgConn().TxStatus(), "the connection went back idle")
	}

	before := sc.n.Load()
	require.NoError(t, co.pipelinedTx(ctx, "pt", pre, func(pt *pipeTx) error {
		insert(pt, 1, nil)
		insert(pt, 2, nil)
		return nil
	}))
	require.Equal(t, before+1, sc.n.Load(), "BEGIN, two inserts and COMMIT: one round trip")
	require.Equal(t, []int{1, 2}, rowsIn())

	before = sc.n.Load()
	require.NoError(t, co.pipelinedTx(ctx, "pt", pre, func(pt *pipeTx) error {
		insert(pt, 3, nil)
		var tenant, timeout string
		if err := pt.QueryRow(ctx, `SELECT current_setting('zb.tenant_id'), current_setting('lock_timeout')`).Scan(&tenant, &timeout); err != nil {
			return err
		}
		require.Equal(t, "pt", tenant, "the binding travels with BEGIN")
		require.Equal(t, "50ms", timeout, "so does the prelude")
		insert(pt, 4, nil)
		return nil
	}))
	require.Equal(t, before+2, sc.n.Load(), "a read between writes: two round trips")
	require.Equal(t, []int{1, 2, 3, 4}, rowsIn())

	before = sc.n.Load()
	require.NoError(t, co.pipelinedTx(ctx, "pt", pre, func(*pipeTx) error { return nil }))
	require.Equal(t, before, sc.n.Load(), "no statement: nothing sent")

	// A queued statement that fails at COMMIT's batch: nothing of the transaction stays.
	err = co.pipelinedTx(ctx, "pt", pre, func(pt *pipeTx) error {
		insert(pt, 5, nil)
		insert(pt, 1, nil) // duplicate key
		return nil
	})
	var pgErr *pgconn.PgError
	require.True(t, errors.As(err, &pgErr), "%v", err)
	require.Equal(t, "23505", pgErr.Code)
	require.Equal(t, []int{1, 2, 3, 4}, rowsIn())
	idle()

	// COMMIT's own error (a deferred unique constraint checked at commit).
	err = co.pipelinedTx(ctx, "pt", pre, func(pt *pipeTx) error {
		insert(pt, 6, 7)
		insert(pt, 8, 7)
		return nil
	})
	require.True(t, errors.As(err, &pgErr), "%v", err)
	require.Equal(t, "23505", pgErr.Code)
	require.Equal(t, "ptx_d", pgErr.ConstraintName)
	require.Equal(t, []int{1, 2, 3, 4}, rowsIn())
	idle()

	// fn's error after a statement went out rolls back what the server began.
	boom := errors.New("boom")
	err = co.pipelinedTx(ctx, "pt", pre, func(pt *pipeTx) error {
		if _, err := pt.Exec(ctx, `INSERT INTO ptx VALUES (9, 'v', NULL)`); err != nil {
			return err
		}
		_, err := pt.Begin(ctx)
		require.ErrorIs(t, err, errNoSavepoints)
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Equal(t, []int{1, 2, 3, 4}, rowsIn())
	idle()

	// Nothing runs after the end.
	require.NoError(t, co.pipelinedTx(ctx, "pt", pre, func(pt *pipeTx) error {
		insert(pt, 10, nil)
		require.NoError(t, pt.Commit(ctx))
		_, err := pt.Exec(ctx, `INSERT INTO ptx VALUES (11, 'v', NULL)`)
		require.ErrorIs(t, err, errEnded)
		return nil
	}))
	require.Equal(t, []int{1, 2, 3, 4, 10}, rowsIn())
	idle()

	// Final: the statement goes with BEGIN, what is queued and COMMIT, in one round trip; its
	// row is read after COMMIT; nothing runs after it.
	before = sc.n.Load()
	var got int
	require.NoError(t, co.pipelinedTx(ctx, "pt", pre, func(pt *pipeTx) error {
		insert(pt, 12, nil)
		if err := pt.Final(func() error {
			return pt.QueryRow(ctx, `INSERT INTO ptx VALUES (13, 'v', NULL) RETURNING i + 100`).Scan(&got)
		}); err != nil {
			return err
		}
		_, err := pt.Exec(ctx, `INSERT INTO ptx VALUES (14, 'v', NULL)`)
		require.ErrorIs(t, err, errEnded)
		require.ErrorIs(t, pt.Final(func() error { return nil }), errEnded)
		return nil
	}))
	require.Equal(t, before+1, sc.n.Load(), "BEGIN, the queued insert, the final one and COMMIT: one round trip")
	require.Equal(t, 113, got)
	require.Equal(t, []int{1, 2, 3, 4, 10, 12, 13}, rowsIn())
	idle()

	// The final statement's error: nothing of the transaction stays.
	err = co.pipelinedTx(ctx, "pt", pre, func(pt *pipeTx) error {
		insert(pt, 15, nil)
		return pt.Final(func() error {
			_, err := pt.Exec(ctx, `INSERT INTO ptx VALUES (1, 'v', NULL)`) // duplicate key
			return err
		})
	})
	require.True(t, errors.As(err, &pgErr), "%v", err)
	require.Equal(t, "23505", pgErr.Code)
	require.Equal(t, []int{1, 2, 3, 4, 10, 12, 13}, rowsIn())
	idle()

	// COMMIT's error comes back from the final statement's row.
	err = co.pipelinedTx(ctx, "pt", pre, func(pt *pipeTx) error {
		insert(pt, 16, 20)
		return pt.Final(func() error {
			return pt.QueryRow(ctx, `INSERT INTO ptx VALUES (17, 'v', 20) RETURNING i`).Scan(&got)
		})
	})
	require.True(t, errors.As(err, &pgErr), "%v", err)
	require.Equal(t, "ptx_d", pgErr.ConstraintName)
	require.Equal(t, []int{1, 2, 3, 4, 10, 12, 13}, rowsIn())
	idle()

	// A Final that sends nothing is an error, and the transaction is rolled back.
	err = co.pipelinedTx(ctx, "pt", pre, func(pt *pipeTx) error {
		insert(pt, 18, nil)
		return pt.Final(func() error { return nil })
	})
	require.ErrorContains(t, err, "Final sent no statement")
	require.Equal(t, []int{1, 2, 3, 4, 10, 12, 13}, rowsIn())
	idle()
}

// A full recall is its read plus two round trips of side effects (BEGIN with the recall event
// and RecallApply, which also locks the co-occurrence edges among the recalled memories'
// entities; the edge writes and the audit row with COMMIT), and all of them are written: access,
// lability window, recall event with its query terms, audit row, Hebbian edges (created by the
// first recall, strengthened by the next). Without co-activation (two_factor_hebbian off) there
// are no edge writes; a pending cue intention adds its read; stc_rescue off tags nothing.
func TestRecallRoundTrips(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sc := &sendCounter{}
	co, pool := countingCoordinator(t, ctx, sc, Config{})
	count := func(sql string, args ...any) int {
		t.Helper()
		var n int
		require.NoError(t, pool.QueryRow(ctx, sql, args...).Scan(&n))
		return n
	}
	const ten = "rr"
	for _, c := range []string{
		"Alice met Bob in Paris to talk about the garden.", "Bob and Alice planted tomatoes in the garden.",
		"Carol repaired the old bicycle.",
	} {
		_, err := co.Store(ctx, StoreInput{TenantID: ten, Content: c, Layer: LayerEpisodic})
		require.NoError(t, err)
	}
	_, err := co.Derive(ctx, jobs.DeriveArgs{TenantID: ten, Pending: true}, nil)
	require.NoError(t, err)
	require.Positive(t, count(`SELECT count(*) FROM zb.mention WHERE tenant_id = $1`, ten))
	// Weak memories get tagged by recall: confidence below the tag threshold (0.4).
	_, err = pool.Exec(ctx, `UPDATE zb.memory SET confidence = 0.2 WHERE tenant_id = $1`, ten)
	require.NoError(t, err)
	_, err = co.Recall(ctx, ten, "warm up", &RecallOpts{ReadOnly: true})
	require.NoError(t, err)

	recall := func(query string) (*RecallResult, int64) {
		t.Helper()
		before := sc.n.Load()
		res, err := co.Recall(ctx, ten, query, &RecallOpts{K: 5})
		require.NoError(t, err)
		require.True(t, res.SideEffects)
		return res, sc.n.Load() - before
	}
	res, trips := recall("What did Alice and Bob do in the garden?")
	require.NotEmpty(t, res.Touched)
	require.Equal(t, int64(1+2+2), trips, "read; BEGIN+apply with the edge lock; edges+audit+COMMIT; open tags and their donors (the weak memories were tagged)")
	require.Equal(t, len(res.Touched), count(`SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND access_count = 1`, ten))
	require.Equal(t, len(res.Touched), count(`SELECT count(*) FROM zb.lability_window WHERE tenant_id = $1`, ten))
	require.Equal(t, len(res.Touched), count(`SELECT count(*) FROM zb.stc_tag WHERE tenant_id = $1 AND rescued_at IS NULL`, ten))
	require.Equal(t, 1, count(`SELECT count(*) FROM zb.recall_event WHERE tenant_id = $1 AND 'garden' = ANY (query_terms)`, ten))
	require.Equal(t, 1, count(`SELECT count(*) FROM zb.audit_event WHERE tenant_id = $1 AND action = 'memory.recall'`, ten))
	require.Positive(t, count(`SELECT count(*) FROM zb.edge WHERE tenant_id = $1 AND relation = 'co_occurs' AND activation_count >= 1`, ten))
	edges := count(`SELECT count(*) FROM zb.edge WHERE tenant_id = $1 AND relation = 'co_occurs'`, ten)
	activations := count(`SELECT sum(activation_count) FROM zb.edge WHERE tenant_id = $1 AND relation = 'co_occurs'`, ten)

	// Strong memories: no tag is set or open, so tag capture is skipped.
	_, err = pool.Exec(ctx, `UPDATE zb.memory SET confidence = 0.9 WHERE tenant_id = $1`, ten)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `DELETE FROM zb.stc_tag WHERE tenant_id = $1`, ten)
	require.NoError(t, err)
	_, trips = recall("What did Alice and Bob do in the garden?")
	require.Equal(t, int64(1+2), trips, "read; BEGIN+apply with the edge lock; edges+audit+COMMIT")
	require.Equal(t, edges, count(`SELECT count(*) FROM zb.edge WHERE tenant_id = $1 AND relation = 'co_occurs'`, ten))
	require.Equal(t, activations+edges, count(`SELECT sum(activation_count) FROM zb.edge WHERE tenant_id = $1 AND relation = 'co_occurs'`, ten),
		"the second recall of the same memories activated each of their edges once more")

	// An edge another transaction holds (a sleep run, say) is skipped, without waiting; the
	// others are strengthened.
	other, err := pgx.Connect(ctx, pool.Config().ConnConfig.ConnString())
	require.NoError(t, err)
	defer other.Close(ctx)
	held, err := other.Begin(ctx)
	require.NoError(t, err)
	var heldID int64
	var heldCount int
	require.NoError(t, held.QueryRow(ctx, `SELECT id, activation_count FROM zb.edge WHERE tenant_id = $1 AND relation = 'co_occurs'
		ORDER BY id LIMIT 1 FOR UPDATE`, ten).Scan(&heldID, &heldCount))
	activations = count(`SELECT sum(activation_count) FROM zb.edge WHERE tenant_id = $1 AND relation = 'co_occurs'`, ten)
	recall("What did Alice and Bob do in the garden?")
	require.NoError(t, held.Rollback(ctx))
	require.Equal(t, heldCount, count(`SELECT activation_count FROM zb.edge WHERE id = $1`, heldID), "the held edge is left alone")
	require.Equal(t, activations+edges-1, count(`SELECT sum(activation_count) FROM zb.edge WHERE tenant_id = $1 AND relation = 'co_occurs'`, ten))
	require.Zero(t, count(`SELECT count(*) FROM zb.stc_tag WHERE tenant_id = $1`, ten))

	require.NoError(t, co.SetAlgorithm(ctx, ten, "two_factor_hebbian", false))
	_, trips = recall("What did Alice and Bob do in the garden?")
	require.Equal(t, int64(1+2), trips, "no co-activation: no edge lock")

	// A pending cue intention is read (and fires when the query matches it).
	_, err = co.AddIntention(ctx, ten, IntentionInput{Content: "ask about the tomatoes", Cue: "tomatoes"})
	require.NoError(t, err)
	_, trips = recall("Where are the tomatoes?")
	require.Equal(t, int64(1+5), trips, "pending cues read; the intention fired and its audit row; COMMIT")
	require.Equal(t, 1, count(`SELECT count(*) FROM zb.prospective_intention WHERE tenant_id = $1 AND status = 'fired' AND fired_source = 'recall'`, ten))
	_, trips = recall("Where are the tomatoes?")
	require.Equal(t, int64(1+2), trips, "no pending cue left")

	require.NoError(t, co.SetAlgorithm(ctx, ten, "curiosity", false))
	recall("Where is the bicycle?")
	require.Equal(t, 1, count(`SELECT count(*) FROM zb.recall_event WHERE tenant_id = $1 AND query_terms IS NULL`, ten),
		"curiosity off: no query terms logged")
}
