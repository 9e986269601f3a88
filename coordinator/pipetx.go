package coordinator

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pipeTx is a transaction in which writes whose results nobody reads can wait for the next
// statement: inside Later, Exec queues its statement instead of running it, and the queue goes
// out in one pipelined batch with the next statement that runs (a query, an Exec outside
// Later, a COPY, a nested transaction) or at Flush. A store wrote its triple copies, its audit
// row and its derive job in three round trips; through a pipeTx they are one.
//
// The queued statements run before the statement they travel with, in the order queued, in
// the same transaction: the outcome is that of running them one by one. An error of a queued
// statement is returned by the statement or Flush that sent it (the transaction is then
// aborted, as it would have been). A queued Exec returns an empty command tag, so Later is
// only for statements whose tag is not read (sqlc :exec queries).
type pipeTx struct {
	pgx.Tx
	queue    *pgx.Batch
	deferred bool
}

func newPipeTx(tx pgx.Tx) *pipeTx { return &pipeTx{Tx: tx} }

// Later runs fn with the transaction's Execs queued.
func (t *pipeTx) Later(fn func() error) error {
	t.deferred = true
	defer func() { t.deferred = false }()
	return fn()
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
	t.queue.Queue(sql, args...)
	return t.sendQueue(ctx, 1)
}

// sendQueue sends the queue and reads and checks the results of all but its last keep
// statements; the results are positioned at the first of those.
func (t *pipeTx) sendQueue(ctx context.Context, keep int) (pgx.BatchResults, error) {
	b := t.queue
	t.queue = nil
	br := t.Tx.SendBatch(ctx, b)
	for range b.Len() - keep {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return nil, err
		}
	}
	return br, nil
}

func (t *pipeTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if t.deferred {
		if t.queue == nil {
			t.queue = &pgx.Batch{}
		}
		t.queue.Queue(sql, args...)
		return pgconn.CommandTag{}, nil
	}
	if t.queue == nil {
		return t.Tx.Exec(ctx, sql, args...)
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
	if t.queue == nil {
		return t.Tx.Query(ctx, sql, args...)
	}
	br, err := t.send(ctx, sql, args)
	if err != nil {
		return nil, err
	}
	return batchRows(br)
}

func (t *pipeTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if t.queue == nil {
		return t.Tx.QueryRow(ctx, sql, args...)
	}
	rows, err := t.Query(ctx, sql, args...)
	return pipelinedRow{rows: rows, err: err}
}

func (t *pipeTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	if err := t.Flush(ctx); err != nil {
		return 0, err
	}
	return t.Tx.CopyFrom(ctx, table, columns, src)
}

func (t *pipeTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if err := t.Flush(ctx); err != nil {
		return errBatchResults{err: err}
	}
	return t.Tx.SendBatch(ctx, b)
}

func (t *pipeTx) Begin(ctx context.Context) (pgx.Tx, error) {
	if err := t.Flush(ctx); err != nil {
		return nil, err
	}
	return t.Tx.Begin(ctx)
}

func (t *pipeTx) Commit(ctx context.Context) error {
	if err := t.Flush(ctx); err != nil {
		return err
	}
	return t.Tx.Commit(ctx)
}

func (t *pipeTx) Rollback(ctx context.Context) error {
	t.queue = nil
	return t.Tx.Rollback(ctx)
}
