package coordinator

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/internal/zbtest"
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

// pipeTx: Execs inside Later wait and go out, in order, with the next statement in one batch;
// their errors come back from the statement that sent them; QueryRow keeps pgx's ErrNoRows;
// an Exec outside Later returns its own tag; COPY and Flush send the queue; Rollback drops it.
func TestPipeTx(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg, err := pgx.ParseConfig(zbtest.DB(t, nil))
	require.NoError(t, err)
	sc := &sendCounter{}
	cfg.Tracer = sc
	conn, err := pgx.ConnectConfig(ctx, cfg)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `CREATE TEMP TABLE pt (i int PRIMARY KEY, v text)`)
	require.NoError(t, err)
	// queue queues one statement in pt.
	queue := func(pt *pipeTx, sql string) {
		t.Helper()
		require.NoError(t, pt.Later(func() error {
			_, err := pt.Exec(ctx, sql)
			return err
		}))
	}

	tx, err := conn.Begin(ctx)
	require.NoError(t, err)
	pt := newPipeTx(tx)
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
	var got []string
	rows, err := pt.Query(ctx, `SELECT v FROM pt ORDER BY i`)
	require.NoError(t, err)
	got, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, got, "the queued rows were written before the query, in order")
	require.Equal(t, before+1, sc.n.Load(), "three inserts and the query: one round trip")

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
	require.NoError(t, pt.Flush(ctx), "an empty queue sends nothing")
	require.NoError(t, tx.Commit(ctx))
	rows, err = conn.Query(ctx, `SELECT v FROM pt ORDER BY i`)
	require.NoError(t, err)
	got, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{"copied", "B!", "c2!", "flushed"}, got)

	// A queued statement's error comes back from the statement that sent it, and the
	// transaction is aborted as it would have been.
	tx, err = conn.Begin(ctx)
	require.NoError(t, err)
	pt = newPipeTx(tx)
	queue(pt, `INSERT INTO pt VALUES (1, 'duplicate')`)
	err = pt.QueryRow(ctx, `SELECT 1`).Scan(new(int))
	var pgErr *pgconn.PgError
	require.True(t, errors.As(err, &pgErr), "%v", err)
	require.Equal(t, "23505", pgErr.Code)
	require.Error(t, pt.QueryRow(ctx, `SELECT 1`).Scan(new(int)), "the transaction is aborted")
	require.NoError(t, pt.Rollback(ctx))

	// Rollback drops the queue.
	tx, err = conn.Begin(ctx)
	require.NoError(t, err)
	pt = newPipeTx(tx)
	queue(pt, `INSERT INTO pt VALUES (10, 'never')`)
	require.NoError(t, pt.Rollback(ctx))
	var count int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM pt WHERE i = 10`).Scan(&count))
	require.Zero(t, count)
}

// A plain store is four round trips (BEGIN with its prelude, the INSERT, the copies, audit row
// and derive job in one batch, COMMIT) and writes all of them; with triple_copy switched off
// the store writes no copies.
func TestStoreRoundTrips(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pcfg, err := pgxpool.ParseConfig(zbtest.DB(t, nil))
	require.NoError(t, err)
	sc := &sendCounter{}
	pcfg.ConnConfig.Tracer = sc
	pcfg.AfterConnect = dbconn.RegisterTypes
	pcfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	require.NoError(t, err)
	defer pool.Close()
	co, err := New(&Config{Pool: pool, DeferEmbedding: true})
	require.NoError(t, err)
	store := func(tenant, content string) int64 {
		before := sc.n.Load()
		res, err := co.Store(ctx, StoreInput{TenantID: tenant, Content: content, Layer: LayerSemantic})
		require.NoError(t, err)
		require.Equal(t, int64(4), sc.n.Load()-before, "round trips of a store")
		return res.ID
	}
	count := func(sql string, args ...any) int {
		var n int
		require.NoError(t, pool.QueryRow(ctx, sql, args...).Scan(&n))
		return n
	}
	// The first store also looks up what the pool caches (the server's version for River,
	// settings); the pool holds one connection so that both stores below find it warm.
	_, err = co.Store(ctx, StoreInput{TenantID: "rt", Content: "Warm-up: the first store.", Layer: LayerSemantic})
	require.NoError(t, err)
	id := store("rt", "Ada keeps her notes in a green binder.")
	require.Equal(t, 2, count(`SELECT count(*) FROM zb.triple_copy WHERE tenant_id = 'rt' AND memory_id = $1`, id))
	require.Equal(t, 1, count(`SELECT count(*) FROM zb.audit_event WHERE tenant_id = 'rt' AND memory_id = $1 AND action = 'memory.store'`, id))
	require.Equal(t, 1, count(`SELECT count(*) FROM river.river_job WHERE kind = 'zb_derive' AND args->'memory_ids' @> to_jsonb($1::bigint)`, id))

	require.NoError(t, co.SetAlgorithm(ctx, "rt-off", "triple_copy", false))
	id = store("rt-off", "Ada keeps her notes in a red binder.")
	require.Zero(t, count(`SELECT count(*) FROM zb.triple_copy WHERE tenant_id = 'rt-off' AND memory_id = $1`, id))
	require.Equal(t, 1, count(`SELECT count(*) FROM zb.audit_event WHERE tenant_id = 'rt-off' AND memory_id = $1`, id))
}
