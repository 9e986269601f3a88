package coordinator

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/algorithms/forgetting"
	"github.com/zenbrain/zb/db"
)

// TxHook runs inside an entry point's transaction just before it commits; the worker passes
// river.JobCompleteTx through it so a job's effects and its completion commit together. Nil is
// allowed. An error from the hook rolls the whole transaction back.
type TxHook func(ctx context.Context, tx pgx.Tx) error

// Limits of the lifecycle entry points.
const (
	// DeriveMaxPerCall caps the memories one Derive call handles: a Pending sweep takes the
	// oldest DeriveMaxPerCall underived memories and reports More when some are left, and an
	// explicit MemoryIDs list longer than this is an input error.
	DeriveMaxPerCall = 500
	// DecayLimitDefault is the limit of DecayDue when the caller passes 0.
	DecayLimitDefault = 1000
	// ReviewLimitDefault is the limit of ReviewDue when the caller passes 0.
	ReviewLimitDefault = 500
	// MaxLifecycleLimit is the largest limit DecayDue and ReviewDue accept.
	MaxLifecycleLimit = 100000
	// RecentContextRecalls is how many of a tenant's latest recalls define its recent recall
	// context: the mean embedding of the memories they returned (vmPFC PE in ReviewDue, the
	// IB embedding variance in DecayDue).
	RecentContextRecalls = 50
	// PropagateMaxHops is how far Propagate follows memory links from the given memories.
	PropagateMaxHops = 3
	// PropagateMaxNodes caps the memories of one propagation subgraph (nearest first).
	PropagateMaxNodes = 2000
)

// lifecycleTx runs fn in one transaction, then hook, then commits. Any error rolls back.
func (c *Coordinator) lifecycleTx(ctx context.Context, tenant string, hook TxHook, fn func(tx pgx.Tx, q *db.Queries) error) error {
	return c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		// Lifecycle writes of one tenant serialize on a transaction-level advisory lock: derive,
		// propagate, decay, review, consolidate, sleep and rollback touch overlapping rows
		// (memories, entities, edges, links) in data-dependent order, and would otherwise
		// deadlock. Store and recall never take this lock.
		if err := q.LcTenantLock(ctx, tenant); err != nil {
			return err
		}
		if err := fn(tx, q); err != nil {
			return err
		}
		if hook != nil {
			if err := hook(ctx, tx); err != nil {
				return fmt.Errorf("error in transaction hook: %w", err)
			}
		}
		return nil
	})
}

// Tenants returns every tenant id in order (the worker fans periodic jobs out per tenant).
func (c *Coordinator) Tenants(ctx context.Context) ([]string, error) {
	ts, err := c.q.LcTenants(ctx)
	if err != nil {
		return nil, interpretError("listing tenants", err)
	}
	return nonNil(ts), nil
}

// UnderivedTenants returns up to limit tenants (1 ≤ limit ≤ 100000) having memories whose
// derived_at is NULL, in id order: the worker's sweep for rows inserted with plain SQL. It
// probes derive's queue (zb.memory_underived) once per tenant (a loose index scan), so its
// cost does not grow with the number of underived rows.
func (c *Coordinator) UnderivedTenants(ctx context.Context, limit int) ([]string, error) {
	if limit < 1 || limit > 100000 {
		return nil, fmt.Errorf("%w: limit must be in [1, 100000], got %d", ErrInvalidInput, limit)
	}
	ts, err := c.q.LcUnderivedTenants(ctx, int32(limit))
	if err != nil {
		return nil, interpretError("listing tenants with underived memories", err)
	}
	return nonNil(ts), nil
}

// lcTrace builds the forgetting trace of a stored memory; false for core (nil stability) or
// invalid state.
func lcTrace(layer db.ZbMemoryLayer, stability *float64, v, a, s float32, last time.Time) (forgetting.Trace, bool) {
	if stability == nil || !(*stability > 0) {
		return forgetting.Trace{}, false
	}
	mEmo, err := forgetting.EmotionalMultiplier(lcClamp(float64(v), -1, 1), lcClamp(float64(a), 0, 1), lcClamp(float64(s), 0, 1))
	if err != nil {
		mEmo = 1
	}
	tr := forgetting.Trace{
		Layer: forgetting.Layer(layer), Stability: time.Duration(*stability * float64(forgetting.Day)),
		EmotionalMultiplier: mEmo, LastAccess: last,
	}
	return tr, tr.Validate() == nil
}

// lcFadeAt returns the predicted time R falls to the archive threshold, or nil (never).
func lcFadeAt(tr forgetting.Trace) *time.Time {
	fa, ok, err := tr.FadeAt(forgetting.ArchiveThreshold)
	if err != nil || !ok {
		return nil
	}
	return &fa
}

func lcClamp(x, lo, hi float64) float64 {
	if math.IsNaN(x) {
		return lo
	}
	return math.Max(lo, math.Min(hi, x))
}

func mid(id int64) string { return "m:" + strconv.FormatInt(id, 10) }
func eid(id int64) string { return "e:" + strconv.FormatInt(id, 10) }

// parseID parses "m:12" or "e:12" (or a bare number) into 12.
func parseID(s string) (int64, bool) {
	if len(s) > 2 && s[1] == ':' {
		s = s[2:]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("{}")
	}
	return b
}

func (c *Coordinator) audit(ctx context.Context, q *db.Queries, tenant, action string, memID *int64, now time.Time, detail any) error {
	return q.AuditEventInsert(ctx, db.AuditEventInsertParams{
		TenantID: tenant, At: now, Actor: c.cfg.Actor,
		Action: action, MemoryID: memID, Detail: mustJSON(detail),
	})
}

func checkLimit(limit, def int) (int, error) {
	if limit == 0 {
		return def, nil
	}
	if limit < 0 || limit > MaxLifecycleLimit {
		return 0, fmt.Errorf("%w: limit must be in [0, %d], got %d", ErrInvalidInput, MaxLifecycleLimit, limit)
	}
	return limit, nil
}
