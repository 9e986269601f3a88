package coordinator

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/jobs"
)

// Session is a conversation or task session.
type Session struct {
	// TenantID and ID identify the session.
	TenantID string    `json:"tenant_id"`
	ID       uuid.UUID `json:"id"`
	// Context is its domain.
	Context string `json:"context"`
	// StartedAt, LastActivityAt and EndedAt (nil while open) are its times.
	StartedAt      time.Time  `json:"started_at"`
	LastActivityAt time.Time  `json:"last_activity_at"`
	EndedAt        *time.Time `json:"ended_at,omitempty"`
	// ConsolidatedAt is when its short-term memories were consolidated.
	ConsolidatedAt *time.Time `json:"consolidated_at,omitempty"`
}

func sessionFromRow(r db.ZbSession) Session {
	return Session{
		TenantID: r.TenantID, ID: r.ID, Context: r.Context, StartedAt: r.StartedAt,
		LastActivityAt: r.LastActivityAt, EndedAt: r.EndedAt, ConsolidatedAt: r.ConsolidatedAt,
	}
}

// StartSession opens a new session for a tenant (created on first use) in a context (empty:
// DefaultContext) and returns its id.
func (c *Coordinator) StartSession(ctx context.Context, tenant, context_ string) (uuid.UUID, error) {
	if err := checkTenant(tenant); err != nil {
		return uuid.Nil, err
	}
	cx := cmp.Or(context_, DefaultContext)
	if err := checkContext(cx); err != nil {
		return uuid.Nil, err
	}
	id := uuid.New()
	err := c.TouchSession(ctx, tenant, id, cx)
	return id, err
}

// TouchSession records activity in a session, creating it (and the tenant) when needed.
func (c *Coordinator) TouchSession(ctx context.Context, tenant string, id uuid.UUID, context_ string) error {
	if err := checkTenant(tenant); err != nil {
		return err
	}
	cx := cmp.Or(context_, DefaultContext)
	if err := checkContext(cx); err != nil {
		return err
	}
	now := c.clock.Now()
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		if err := q.TenantEnsure(ctx, db.TenantEnsureParams{ID: tenant}); err != nil {
			return err
		}
		return q.SessionTouch(ctx, db.SessionTouchParams{TenantID: tenant, ID: id, Context: cx, Now: now})
	})
	return interpretError("touching session", err)
}

// EndSession ends a session and enqueues its consolidation (jobs.ConsolidateArgs) in the same
// transaction. Ending an ended session returns it unchanged and enqueues nothing new (the job
// is unique by args). An unknown session gives ErrNotFound.
func (c *Coordinator) EndSession(ctx context.Context, tenant string, id uuid.UUID) (*Session, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	now := c.clock.Now()
	var out Session
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		row, err := c.q.WithTx(tx).SessionEnd(ctx, db.SessionEndParams{TenantID: tenant, ID: id, Now: now})
		if err != nil {
			return err
		}
		out = sessionFromRow(row)
		_, err = c.river.InsertTx(ctx, tx, jobs.ConsolidateArgs{TenantID: tenant, SessionID: id.String()},
			jobs.LifecycleInsertOpts())
		if err != nil {
			return fmt.Errorf("error enqueuing consolidation: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, interpretError("ending session", err)
	}
	return &out, nil
}

// IdleSessions returns up to limit open sessions of every tenant whose lifecycle the worker runs
// (see SetLifecycle) without activity for at least idle, oldest first: the worker ends them
// (EndSession) to consolidate them.
func (c *Coordinator) IdleSessions(ctx context.Context, idle time.Duration, limit int) ([]Session, error) {
	return c.idleSessions(ctx, "", idle, limit)
}

// TenantIdleSessions is IdleSessions for one tenant, whatever its lifecycle setting: a caller
// that drives a tenant's lifecycle itself finds the sessions to end here.
func (c *Coordinator) TenantIdleSessions(ctx context.Context, tenant string, idle time.Duration, limit int) ([]Session, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	return c.idleSessions(ctx, tenant, idle, limit)
}

func (c *Coordinator) idleSessions(ctx context.Context, tenant string, idle time.Duration, limit int) ([]Session, error) {
	if idle <= 0 || limit < 1 || limit > 100000 {
		return nil, fmt.Errorf("%w: idle must be positive and limit in [1, 100000]", ErrInvalidInput)
	}
	before := c.clock.Now().Add(-idle)
	var rows []db.ZbSession
	var err error
	if tenant == "" {
		rows, err = c.q.SessionListIdle(ctx, db.SessionListIdleParams{IdleBefore: before, K: int32(limit)})
	} else {
		rows, err = tenantRead(ctx, c, tenant, func(q *db.Queries) ([]db.ZbSession, error) {
			return q.SessionListIdleTenant(ctx, db.SessionListIdleTenantParams{TenantID: tenant, IdleBefore: before, K: int32(limit)})
		})
	}
	if err != nil {
		return nil, interpretError("listing idle sessions", err)
	}
	out := make([]Session, len(rows))
	for i, r := range rows {
		out[i] = sessionFromRow(r)
	}
	return out, nil
}
