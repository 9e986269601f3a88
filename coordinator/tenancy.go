package coordinator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/zenbrain/zb/db"
)

// Tenancy. Row-level security keys every tenant table on zb.current_tenant(): the tenant
// zb.bind_tenant bound the transaction to (transaction-local; a session-level zb.tenant_id is an
// error). A transaction that binds none sees nothing as zb_app, and every tenant as zb_worker or
// zb_admin. Every transaction of the coordinator that
// acts for one tenant goes through beginTenant, whose BEGIN binds it (a one-statement read may
// go through pipelinedRead instead); cross-tenant sweeps (Tenants, UnderivedTenants,
// IdleSessions) run unbound and so need an operator role.

// Errors of tenancy and governance, returned wrapped. Match them with errors.Is.
var (
	// ErrForbidden is returned when the database refuses an operation to the connection's role
	// (insufficient_privilege), e.g. zb_app writing another tenant's rows, changing the audit
	// trail or a governance setting.
	ErrForbidden = errors.New("forbidden for this role or tenant")
	// ErrConsentRequired is returned when a tenant whose settings require consent has no active
	// consent for storing memories (ConsentPurposeMemory) in the memory's context. Nothing is
	// written.
	ErrConsentRequired = fmt.Errorf("%w: consent required", ErrForbidden)
	// ErrApprovalRequired is returned when an operation the tenant's settings put behind an
	// approval is attempted without an approved request. The error is an *ApprovalRequiredError
	// when a request was queued.
	ErrApprovalRequired = errors.New("approval required")
	// ErrSelfApproval is returned when the actor who requested an approval tries to approve it:
	// another operator must (separation of duties; SQLSTATE ZB003 in the database). It wraps
	// ErrForbidden.
	ErrSelfApproval = fmt.Errorf("%w: the requester of an approval cannot approve it", ErrForbidden)
)

// SQLSTATEs raised by migration 0012.
const (
	sqlStateConsentRequired  = "ZB001"
	sqlStateApprovalRequired = "ZB002"
	sqlStateSelfApproval     = "ZB003"
)

// txBeginner is what pgx.BeginTxFunc needs: a pool, a pooled connection or a connection.
type txBeginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// beginTenant runs fn in one transaction of the coordinator's pool bound to tenant
// (zb.bind_tenant, which row-level security keys on). Errors the
// governance layer raises are mapped to ErrConsentRequired, ErrApprovalRequired and
// ErrForbidden (the database error stays in the chain).
func (c *Coordinator) beginTenant(ctx context.Context, tenant string, fn func(tx pgx.Tx) error) error {
	return c.beginTenantOn(ctx, c.pool, tenant, fn)
}

// beginTenantOn is beginTenant on a given pool or connection. An empty tenant leaves the
// transaction unbound (multi-tenant batches and sweeps: operator roles only).
func (c *Coordinator) beginTenantOn(ctx context.Context, conn txBeginner, tenant string, fn func(tx pgx.Tx) error) error {
	return governanceError(pgx.BeginTxFunc(ctx, conn, boundBegin(pgx.TxOptions{}, tenant), fn))
}

// beginTenantTx is beginTenant with transaction options (e.g. a repeatable-read snapshot).
func (c *Coordinator) beginTenantTx(ctx context.Context, tenant string, opts pgx.TxOptions, fn func(tx pgx.Tx) error) error {
	return governanceError(pgx.BeginTxFunc(ctx, c.pool, boundBegin(opts, tenant), fn))
}

// txPrelude is what a write transaction sets up before its first statement: a lock timeout
// (none when zero) and the tenant's row (zb.tenant, created when missing). It travels with
// BEGIN, in the same round trip (see boundBegin).
type txPrelude struct {
	lockTimeout  time.Duration
	ensureTenant bool
}

// statements returns the prelude's statements for tenant, with literals only.
func (p txPrelude) statements(tenant string) []string {
	var out []string
	if p.lockTimeout > 0 {
		out = append(out, fmt.Sprintf("SELECT set_config('lock_timeout', '%dms', true)", max(1, p.lockTimeout.Milliseconds())))
	}
	if p.ensureTenant && tenant != "" {
		out = append(out, "INSERT INTO zb.tenant (id, name) VALUES ("+quoteLiteral(tenant)+", '') ON CONFLICT (id) DO NOTHING")
	}
	return out
}

// beginTenantPrelude is beginTenant with a prelude sent in BEGIN's round trip: a store's
// transaction went BEGIN, lock timeout, tenant row, then its statements — two round trips fewer
// now.
func (c *Coordinator) beginTenantPrelude(ctx context.Context, tenant string, pre txPrelude, fn func(tx pgx.Tx) error) error {
	return governanceError(pgx.BeginTxFunc(ctx, c.pool, boundBegin(pgx.TxOptions{}, tenant, pre.statements(tenant)...), fn))
}

// boundBegin returns transaction options whose BEGIN also binds the transaction to tenant, in
// the same round trip: BEGIN [options]; SELECT zb.bind_tenant(tenant) as one
// simple-protocol query (pgx runs a statement without arguments that way), followed by the
// statements of extra (literals only). A separate binding statement cost a round trip per
// transaction — a quarter of a one-statement read. The tenant travels as a literal
// (quoteLiteral); with no tenant and no extra the options are returned unchanged.
func boundBegin(opts pgx.TxOptions, tenant string, extra ...string) pgx.TxOptions {
	if tenant == "" && len(extra) == 0 {
		return opts
	}
	var b strings.Builder
	b.WriteString("BEGIN")
	if opts.IsoLevel != "" {
		b.WriteString(" ISOLATION LEVEL " + string(opts.IsoLevel))
	}
	if opts.AccessMode != "" {
		b.WriteString(" " + string(opts.AccessMode))
	}
	if opts.DeferrableMode != "" {
		b.WriteString(" " + string(opts.DeferrableMode))
	}
	if tenant != "" {
		b.WriteString("; SELECT zb.bind_tenant(" + quoteLiteral(tenant) + ")")
	}
	for _, e := range extra {
		b.WriteString("; " + e)
	}
	return pgx.TxOptions{BeginQuery: b.String(), CommitQuery: opts.CommitQuery}
}

// quoteLiteral quotes s as an SQL string literal that reads the same whatever
// standard_conforming_strings is (PostgreSQL's quote_literal: quotes doubled, and with a
// backslash an E” literal with backslashes doubled).
func quoteLiteral(s string) string {
	s = strings.ReplaceAll(s, "'", "''")
	if strings.Contains(s, `\`) {
		return "E'" + strings.ReplaceAll(s, `\`, `\\`) + "'"
	}
	return "'" + s + "'"
}

// bindSQL binds the implicit transaction of a pipeline to a tenant: the row-level security
// policies key on zb.current_tenant(), which counts only a binding made by zb.bind_tenant in the
// same transaction (boundBegin makes the same call in a transaction's BEGIN).
const bindSQL = "SELECT zb.bind_tenant($1::text)"

// pipelined is a db.DBTX that runs each statement in an implicit transaction of its own bound
// to a tenant: the binding and the statement go out as one pipelined batch with one Sync, so a
// one-statement read costs one round trip instead of four (BEGIN, bind, statement, COMMIT).
// PostgreSQL runs the messages before a Sync as one implicit transaction, so the binding
// (set_config with is_local) holds for the statement and ends with it. Only for reads of one
// statement: two statements through it are two transactions. COPY and batches are refused.
type pipelined struct {
	pool   *pgxpool.Pool
	tenant string
}

var errNotPipelined = errors.New("coordinator: COPY and batches need a transaction (beginTenant), not a pipelined read")

func (p pipelined) send(ctx context.Context, sql string, args []any) pgx.BatchResults {
	b := &pgx.Batch{}
	b.Queue(bindSQL, p.tenant)
	b.Queue(sql, args...)
	return p.pool.SendBatch(ctx, b)
}

func (p pipelined) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	br := p.send(ctx, sql, args)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return pgconn.CommandTag{}, err
	}
	return br.Exec()
}

func (p pipelined) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	br := p.send(ctx, sql, args)
	if _, err := br.Exec(); err != nil {
		_ = br.Close()
		return nil, err
	}
	return batchRows(br)
}

func (p pipelined) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	rows, err := p.Query(ctx, sql, args...)
	return pipelinedRow{rows: rows, err: err}
}

func (pipelined) CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error) {
	return 0, errNotPipelined
}

func (pipelined) SendBatch(context.Context, *pgx.Batch) pgx.BatchResults {
	return errBatchResults{err: errNotPipelined}
}

// batchRows returns the rows of br's next statement, which close br when closed.
func batchRows(br pgx.BatchResults) (pgx.Rows, error) {
	rows, err := br.Query()
	if err != nil {
		_ = br.Close()
		return nil, err
	}
	return &pipelinedRows{Rows: rows, br: br}, nil
}

// pipelinedRows are the rows of a pipelined statement; closing them (or reading past the last)
// also reads the batch to its end, which releases the pooled connection.
type pipelinedRows struct {
	pgx.Rows
	br     pgx.BatchResults
	err    error
	closed bool
}

func (r *pipelinedRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.Close()
	return false
}

func (r *pipelinedRows) Close() {
	if r.closed {
		return
	}
	r.closed = true
	r.Rows.Close()
	if err := r.br.Close(); err != nil && r.err == nil {
		r.err = err
	}
}

func (r *pipelinedRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}

// pipelinedRow is QueryRow's row: the first row of the rows, as pgx's QueryRow reads it.
type pipelinedRow struct {
	rows pgx.Rows
	err  error
}

func (r pipelinedRow) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
}

// errBatchResults answers every call of a batch that was not sent with err.
type errBatchResults struct{ err error }

func (e errBatchResults) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, e.err }
func (e errBatchResults) Query() (pgx.Rows, error)         { return nil, e.err }
func (e errBatchResults) QueryRow() pgx.Row                { return pipelinedRow{err: e.err} }
func (e errBatchResults) Close() error                     { return e.err }
func (errBatchResults) Tx() pgx.Tx                         { return nil }

// pipelinedRead runs one read statement of tenant's rows in one round trip (see pipelined).
func pipelinedRead[T any](ctx context.Context, c *Coordinator, tenant string, fn func(q *db.Queries) (T, error)) (T, error) {
	out, err := fn(db.New(pipelined{pool: c.pool, tenant: tenant}))
	return out, governanceError(err)
}

// tenantRead runs one read of tenant's rows in a transaction bound to it and returns its result.
func tenantRead[T any](ctx context.Context, c *Coordinator, tenant string, fn func(q *db.Queries) (T, error)) (T, error) {
	var out T
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		var err error
		out, err = fn(c.q.WithTx(tx))
		return err
	})
	return out, err
}

// soleTenant returns the only tenant of a list, or "" when it holds several (or none).
func soleTenant(tenants []string) string {
	if len(tenants) == 1 {
		return tenants[0]
	}
	return ""
}

// governanceError maps the governance layer's database errors to the coordinator's sentinels,
// keeping the original error in the chain.
func governanceError(err error) error {
	if err == nil {
		return nil
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return err
	}
	switch pgErr.Code {
	case sqlStateConsentRequired:
		return fmt.Errorf("%w: %w", ErrConsentRequired, err)
	case sqlStateApprovalRequired:
		return fmt.Errorf("%w: %w", ErrApprovalRequired, err)
	case sqlStateSelfApproval:
		return fmt.Errorf("%w: %w", ErrSelfApproval, err)
	case pgerrcode.InsufficientPrivilege:
		return fmt.Errorf("%w: %w", ErrForbidden, err)
	}
	return err
}

// insertMemories bulk-loads rows through COPY, or — when row-level security applies to the
// connection's role, for which PostgreSQL refuses COPY FROM (zb_app, or an owner under forced
// security) — through one pipelined batch of INSERTs. It returns the number of rows written.
func insertMemories(ctx context.Context, q *db.Queries, rows []db.MemoryInsertManyParams) (int64, error) {
	rls, err := q.TenantRowSecurityActive(ctx)
	if err != nil {
		return 0, err
	}
	if !rls {
		return q.MemoryInsertMany(ctx, rows)
	}
	params := make([]db.MemoryInsertBatchParams, len(rows))
	for i, r := range rows {
		params[i] = db.MemoryInsertBatchParams{
			TenantID: r.TenantID, Context: r.Context, Layer: string(r.Layer), Kind: r.Kind, Content: r.Content,
			SessionID: r.SessionID, ExternalID: r.ExternalID, Subject: r.Subject, Attribute: r.Attribute,
			OccurredAt: r.OccurredAt, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, LastAccessedAt: r.LastAccessedAt,
			SourceIDs: r.SourceIDs, Metadata: r.Metadata, Valence: r.Valence, Arousal: r.Arousal,
			Significance: r.Significance, Importance: r.Importance, Priority: r.Priority, Stability: r.Stability,
			FadeAt: r.FadeAt, AiGenerated: r.AiGenerated, Terms: r.Terms, TermCount: r.TermCount,
			EventFrom: r.EventFrom, EventTo: r.EventTo, ValidFrom: r.ValidFrom, Embedding: r.Embedding,
			EmbeddingModel: r.EmbeddingModel,
		}
	}
	var n int64
	var first error
	br := q.MemoryInsertBatch(ctx, params)
	br.Exec(func(_ int, err error) {
		if err == nil {
			n++
		} else if first == nil {
			first = err
		}
	})
	if err := br.Close(); err != nil && first == nil {
		first = err
	}
	return n, first
}
