package coordinator

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/zenbrain/zb/db"
)

// Tenancy. Row-level security (migration 0011) keys every tenant table on the
// transaction-local setting zb.tenant_id: a transaction that does not set it sees nothing as
// zb_app, and every tenant as zb_worker or zb_admin. Every transaction of the coordinator that
// acts for one tenant goes through beginTenant, whose first statement binds it; cross-tenant
// sweeps (Tenants, UnderivedTenants, IdleSessions) run unbound and so need an operator role.

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

// txBeginner is what pgx.BeginFunc needs: a pool, a pooled connection or a connection.
type txBeginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// beginTenant runs fn in one transaction of the coordinator's pool bound to tenant (the
// transaction-local setting zb.tenant_id, which row-level security keys on). Errors the
// governance layer raises are mapped to ErrConsentRequired, ErrApprovalRequired and
// ErrForbidden (the database error stays in the chain).
func (c *Coordinator) beginTenant(ctx context.Context, tenant string, fn func(tx pgx.Tx) error) error {
	return c.beginTenantOn(ctx, c.pool, tenant, fn)
}

// beginTenantOn is beginTenant on a given pool or connection. An empty tenant leaves the
// transaction unbound (multi-tenant batches and sweeps: operator roles only).
func (c *Coordinator) beginTenantOn(ctx context.Context, conn txBeginner, tenant string, fn func(tx pgx.Tx) error) error {
	return governanceError(pgx.BeginFunc(ctx, conn, c.bound(ctx, tenant, fn)))
}

// beginTenantTx is beginTenant with transaction options (e.g. a repeatable-read snapshot).
func (c *Coordinator) beginTenantTx(ctx context.Context, tenant string, opts pgx.TxOptions, fn func(tx pgx.Tx) error) error {
	return governanceError(pgx.BeginTxFunc(ctx, c.pool, opts, c.bound(ctx, tenant, fn)))
}

// bound wraps fn so that it first binds the transaction to tenant (nothing when tenant is "").
func (c *Coordinator) bound(ctx context.Context, tenant string, fn func(tx pgx.Tx) error) func(tx pgx.Tx) error {
	return func(tx pgx.Tx) error {
		if tenant != "" {
			if err := c.q.WithTx(tx).TenantBind(ctx, tenant); err != nil {
				return fmt.Errorf("error binding the transaction to tenant %s: %w", tenant, err)
			}
		}
		return fn(tx)
	}
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
