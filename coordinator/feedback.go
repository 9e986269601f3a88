package coordinator

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/db"
)

// FeedbackAlphaDefault is the TD(0) learning rate of usefulness feedback on a memory's value
// estimate (the same rate the sleep planner uses).
const FeedbackAlphaDefault = 0.2

// FeedbackResult reports what a feedback changed.
type FeedbackResult struct {
	// ValueEstimate is the memory's value after the TD(0) step.
	ValueEstimate float64 `json:"value_estimate"`
	// AccessCount is its access count after the feedback (a use counts as an access, which
	// the next FSRS review reads as a successful recall).
	AccessCount int32 `json:"access_count"`
	// RecallMarked reports that the latest recall which returned the memory was marked as
	// helpful or not (the metacognitive monitor's success signal).
	RecallMarked bool `json:"recall_marked"`
}

// Feedback grades a recalled memory as used (helpful) or not. It moves the memory's value
// estimate by TD(0) toward the reward (1 or 0) — the value the sleep planner's TAG reads —,
// counts a use as an access (the review job grades FSRS from use since the last review), marks
// the latest recall event that returned it (the metacognitive monitor's recall success), and
// writes an audit event, in one transaction. An unknown or erased memory gives ErrNotFound.
func (c *Coordinator) Feedback(ctx context.Context, tenant string, memoryID int64, used bool) (*FeedbackResult, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	if memoryID <= 0 {
		return nil, fmt.Errorf("%w: memory id must be positive, got %d", ErrInvalidInput, memoryID)
	}
	now := c.clock.Now()
	reward := 0.0
	if used {
		reward = 1
	}
	res := &FeedbackResult{}
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		row, err := q.FeedbackMemoryUpdate(ctx, db.FeedbackMemoryUpdateParams{
			Alpha: FeedbackAlphaDefault, Reward: reward, Used: used, Now: now, TenantID: tenant, ID: memoryID,
		})
		if err != nil {
			return err
		}
		res.ValueEstimate, res.AccessCount = row.ValueEstimate, row.AccessCount
		n, err := q.FeedbackRecallEventMark(ctx, db.FeedbackRecallEventMarkParams{Used: used, TenantID: tenant, ID: memoryID})
		if err != nil {
			return err
		}
		res.RecallMarked = n > 0
		if err := c.neuroOnFeedback(ctx, q, tenant, memoryID, used, now); err != nil {
			return err
		}
		return c.audit(ctx, q, tenant, "memory.feedback", &memoryID, now, map[string]any{"used": used})
	})
	if err != nil {
		return nil, interpretError(fmt.Sprintf("recording feedback on memory %d", memoryID), err)
	}
	return res, nil
}

// Forget erases one memory of a tenant with everything derived from it: Erase with
// ScopeMemory, the same erase as the SQL API's zb.forget (a tombstone with status erased and no
// content; see Erase). It reports whether the tenant had the memory, not yet erased.
func (c *Coordinator) Forget(ctx context.Context, tenant string, memoryID int64) (bool, error) {
	rep, err := c.Erase(ctx, tenant, ScopeMemory(memoryID), nil)
	if err != nil {
		return false, err
	}
	return rep.Memories > 0, nil
}

// CoreMemory is one core (identity) memory.
type CoreMemory struct {
	ID      int64  `json:"id"`
	Label   string `json:"label"`
	Content string `json:"content"`
}

// CoreMemories returns a tenant's active core memories in label order.
func (c *Coordinator) CoreMemories(ctx context.Context, tenant string) ([]CoreMemory, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	rows, err := tenantRead(ctx, c, tenant, func(q *db.Queries) ([]db.MemoryListCoreRow, error) { return q.MemoryListCore(ctx, tenant) })
	if err != nil {
		return nil, interpretError("listing core memories", err)
	}
	out := make([]CoreMemory, 0, len(rows))
	for _, r := range rows {
		m := CoreMemory{ID: r.ID, Content: r.Content}
		if r.CoreLabel != nil {
			m.Label = *r.CoreLabel
		}
		out = append(out, m)
	}
	return out, nil
}
