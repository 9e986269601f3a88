package coordinator

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pipeTx is a pipelined transaction (made by pipelinedTx): nothing goes to the server until a
// statement needs an answer. Its BEGIN (with the tenant binding and the prelude) waits in a
// queue and travels with the first statement; inside Later, Exec queues its statement instead
// of running it, and the queue goes out in one pipelined batch with the next statement that
// runs (a query, an Exec outside Later, a COPY) or at Flush; COMMIT travels with the statements
// still queued at the end. A transaction that reads once and queues its writes is two round
// trips from BEGIN to COMMIT instead of four; a store wrote its triple copies, audit row and
// derive job in three round trips of their own.
//
// The queued statements run before the statement they travel with, in the order queued, in
// the same transaction: the outcome is that of running them one by one. An error of a queued
// statement is returned by the statement, Flush or Commit that sent it (the transaction is
// then aborted, as it would have been). A queued Exec returns an empty command tag, so Later is
// only for statements whose tag is not read (sqlc :exec queries). There are no savepoints.
type pipeTx struct {
	conn     *pgx.Conn // the connection, held for the transaction
	queue    *pgx.Batch
	deferred bool
	final    bool // the next statement sent is the last: COMMIT goes with it
	ended    bool // committed or rolled back
	beginLen int  // statements of BEGIN still queued (0 once sent)
}

var (
	// errNoSavepoints is returned by Begin: a pipelined transaction has no savepoints.
	errNoSavepoints = errors.New("coordinator: a pipelined transaction has no savepoints (nested Begin)")
	// errEnded is returned for a statement after the transaction's end: it would run outside
	// the transaction.
	errEnded = errors.New("coordinator: statement after the end of a pipelined transaction")
)

var _ pgx.Tx = (*pipeTx)(nil)

// Later runs fn with the transaction's Execs queued.
func (t *pipeTx) Later(fn func() error) error {
	t.deferred = true
	defer func() { t.deferred = false }()
	return fn()
}

// Final runs fn with the next statement that goes to the server sent as the transaction's
// last: COMMIT travels with it (and with whatever is queued), so that a transaction whose only
// read is its last statement is one round trip from BEGIN to COMMIT. The statement's error, or
// COMMIT's, is returned by the statement (for a query, when its rows are read or closed); the
// transaction has ended when fn returns, and a statement after that is refused (errEnded).
// Final returns an error if fn sent no statement or the transaction did not commit.
func (t *pipeTx) Final(fn func() error) error {
	if t.ended {
		return errEnded
	}
	t.final = true
	defer func() { t.final = false }()
	if err := fn(); err != nil {
		return err
	}
	if !t.ended {
		return errors.New("coordinator: Final sent no statement")
	}
	if st := t.conn.PgConn().TxStatus(); st != 'I' {
		return fmt.Errorf("coordinator: the pipelined transaction did not commit (status %q)", st)
	}
	return nil
}

// Flush sends the queued statements, if any, and returns the first error among them.
func (t *pipeTx) Flush(ctx context.Context) error {
	if t.queue == nil {
		return nil
	}
	br, err := t.sendQueue(ctx, 0)
	if err != nil {
		return err
	}
	return br.Close()
}

// send queues sql after the waiting statements, sends them all and returns the results
// positioned at sql's.
func (t *pipeTx) send(ctx context.Context, sql string, args []any) (pgx.BatchResults, error) {
	if t.ended {
		return nil, errEnded
	}
	if t.queue == nil {
		t.queue = &pgx.Batch{}
	}
	t.queue.Queue(sql, args...)
	if t.final {
		t.queue.Queue("commit")
		t.ended = true
		return t.sendQueue(ctx, 2)
	}
	return t.sendQueue(ctx, 1)
}

// sendQueue sends the queue and reads and checks the results of all but its last keep
// statements; the results are positioned at the first of those.
func (t *pipeTx) sendQueue(ctx context.Context, keep int) (pgx.BatchResults, error) {
	b := t.queue
	t.queue, t.beginLen = nil, 0
	br := t.conn.SendBatch(ctx, b)
	for range b.Len() - keep {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return nil, err
		}
	}
	return br, nil
}

func (t *pipeTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if t.ended {
		return pgconn.CommandTag{}, errEnded
	}
	if t.deferred {
		if t.queue == nil {
			t.queue = &pgx.Batch{}
		}
		t.queue.Queue(sql, args...)
		return pgconn.CommandTag{}, nil
	}
	if t.queue == nil && !t.final {
		return t.conn.Exec(ctx, sql, args...)
	}
	br, err := t.send(ctx, sql, args)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag, err
}

func (t *pipeTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if t.ended {
		return nil, errEnded
	}
	if t.queue == nil && !t.final {
		return t.conn.Query(ctx, sql, args...)
	}
	br, err := t.send(ctx, sql, args)
	if err != nil {
		return nil, err
	}
	return batchRows(br)
}

func (t *pipeTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if t.queue == nil && !t.ended && !t.final {
		return t.conn.QueryRow(ctx, sql, args...)
	}
	rows, err := t.Query(ctx, sql, args...)
	return pipelinedRow{rows: rows, err: err}
}

func (t *pipeTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	if t.ended {
		return 0, errEnded
	}
	if err := t.Flush(ctx); err != nil {
		return 0, err
	}
	return t.conn.CopyFrom(ctx, table, columns, src)
}

func (t *pipeTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if t.ended {
		return errBatchResults{err: errEnded}
	}
	if err := t.Flush(ctx); err != nil {
		return errBatchResults{err: err}
	}
	return t.conn.SendBatch(ctx, b)
}

func (t *pipeTx) Begin(context.Context) (pgx.Tx, error) { return nil, errNoSavepoints }

// Commit sends what is queued with COMMIT in one batch (nothing at all when no statement was
// ever queued).
func (t *pipeTx) Commit(ctx context.Context) error {
	if t.ended {
		return nil
	}
	t.ended = true
	if t.queue == nil {
		t.queue = &pgx.Batch{}
	} else if t.queue.Len() == t.beginLen {
		return nil // nothing but BEGIN was ever queued: nothing to send
	}
	t.queue.Queue("commit")
	br, err := t.sendQueue(ctx, 1)
	if err != nil {
		return err
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err == nil && tag.String() == "ROLLBACK" {
		err = pgx.ErrTxCommitRollback
	}
	return err
}

// Rollback drops what is queued and rolls back what the server began.
func (t *pipeTx) Rollback(ctx context.Context) error {
	t.queue, t.ended = nil, true
	if t.conn.PgConn().TxStatus() == 'I' {
		return nil
	}
	_, err := t.conn.Exec(ctx, "rollback")
	return err
}

func (t *pipeTx) Conn() *pgx.Conn { return t.conn }

// LargeObjects is not supported: zenbrain stores no large objects.
func (t *pipeTx) LargeObjects() pgx.LargeObjects {
	panic("coordinator: large objects need a pgx transaction, not a pipelined one")
}

func (t *pipeTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	if err := t.Flush(ctx); err != nil {
		return nil, err
	}
	return t.conn.Prepare(ctx, name, sql)
}

// pipelinedTx runs fn in a pipelined transaction (see pipeTx) on a pooled connection, bound to
// tenant with the prelude's statements, and commits it when fn returns nil: its BEGIN travels
// with the first statement and its COMMIT with the last. fn's error, or a failed commit, rolls
// everything back (a connection whose transaction could not be ended is closed by the pool).
func (c *Coordinator) pipelinedTx(ctx context.Context, tenant string, pre txPrelude, fn func(pt *pipeTx) error) (err error) {
	conn, err := c.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	pt := &pipeTx{conn: conn.Conn(), queue: &pgx.Batch{}}
	pt.queue.Queue("begin")
	if tenant != "" {
		pt.queue.Queue(bindSQL, tenant)
	}
	pre.queue(pt.queue, tenant)
	pt.beginLen = pt.queue.Len()
	defer func() {
		if !pt.ended || err != nil {
			_ = pt.Rollback(ctx)
		}
	}()
	if err := fn(pt); err != nil {
		return governanceError(err)
	}
	return governanceError(pt.Commit(ctx))
}

// queue queues the prelude's statements for tenant in b, with the tenant as a parameter (one
// prepared statement for all tenants).
func (p txPrelude) queue(b *pgx.Batch, tenant string) {
	if p.lockTimeout > 0 {
		b.Queue("SELECT set_config('lock_timeout', $1::text, true)", fmt.Sprintf("%dms", max(1, p.lockTimeout.Milliseconds())))
	}
	if p.ensureTenant && tenant != "" {
		b.Queue("INSERT INTO zb.tenant (id, name) VALUES ($1, '') ON CONFLICT (id) DO NOTHING", tenant)
	}
}
