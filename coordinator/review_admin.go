package coordinator

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/algorithms/review"
	"github.com/zenbrain/zb/db"
)

// Operator access to FSRS reviews: the due list and explicit grades.

// DueReviewLimitDefault is the number of cards DueReviews returns when limit is 0.
const DueReviewLimitDefault = 20

// ParseGrade parses an FSRS grade: again, hard, good or easy (or 1 to 4).
func ParseGrade(s string) (review.Grade, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "again", "1":
		return review.Again, nil
	case "hard", "2":
		return review.Hard, nil
	case "good", "3":
		return review.Good, nil
	case "easy", "4":
		return review.Easy, nil
	}
	return 0, fmt.Errorf("%w: grade %q is not again, hard, good or easy", ErrInvalidInput, truncate(s, 20))
}

func gradeName(g review.Grade) string { return strings.ToLower(g.String()) }

func stateName(s int16) string { return strings.ToLower(review.State(s).String()) }

// DueReview is one FSRS card that is due.
type DueReview struct {
	MemoryID int64  `json:"memory_id"`
	Layer    Layer  `json:"layer"`
	Kind     string `json:"kind"`
	Content  string `json:"content"`
	// Due is when the card fell due; State its FSRS state (new, learning, review, relearning).
	Due   time.Time `json:"due"`
	State string    `json:"state"`
	// Stability (days) and Difficulty are the card's FSRS memory state.
	Stability  float64    `json:"stability"`
	Difficulty float64    `json:"difficulty"`
	Reps       int32      `json:"reps"`
	Lapses     int32      `json:"lapses"`
	LastReview *time.Time `json:"last_review,omitempty"`
}

// DueReviews returns up to limit (0: DueReviewLimitDefault, at most MaxLifecycleLimit) of a
// tenant's FSRS cards due now, earliest first, and the number of due cards in all.
func (c *Coordinator) DueReviews(ctx context.Context, tenant string, limit int) ([]DueReview, int64, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, 0, err
	}
	limit, err := checkLimit(limit, DueReviewLimitDefault)
	if err != nil {
		return nil, 0, err
	}
	now := c.clock.Now()
	var rows []db.AdminReviewDueListRow
	var total int64
	err = c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		var err error
		if rows, err = q.AdminReviewDueList(ctx, db.AdminReviewDueListParams{TenantID: tenant, Now: now, K: int32(limit)}); err != nil {
			return err
		}
		total, err = q.AdminReviewDueCount(ctx, db.AdminReviewDueCountParams{TenantID: tenant, Now: now})
		return err
	})
	if err != nil {
		return nil, 0, interpretError("listing due reviews", err)
	}
	out := make([]DueReview, 0, len(rows))
	for _, r := range rows {
		out = append(out, DueReview{
			MemoryID: r.MemoryID, Layer: Layer(r.Layer), Kind: r.Kind, Content: r.Content, Due: r.Due,
			State: stateName(r.State), Stability: r.Stability, Difficulty: r.Difficulty, Reps: r.Reps, Lapses: r.Lapses,
			LastReview: r.LastReview,
		})
	}
	return out, total, nil
}

// GradeResult is the outcome of one explicit review.
type GradeResult struct {
	MemoryID int64  `json:"memory_id"`
	Grade    string `json:"grade"`
	// StateBefore and State are the card's FSRS state before and after.
	StateBefore string `json:"state_before"`
	State       string `json:"state"`
	// Due is the next review; IntervalDays the interval applied (vmPFC multiplier included).
	Due          time.Time `json:"due"`
	IntervalDays float64   `json:"interval_days"`
	// Stability (days) and Difficulty are the card's new FSRS memory state.
	Stability  float64 `json:"stability"`
	Difficulty float64 `json:"difficulty"`
	Reps       int32   `json:"reps"`
	Lapses     int32   `json:"lapses"`
	// PredictionError and Multiplier are the vmPFC context prediction error and interval
	// multiplier, when a recall context exists (nil otherwise).
	PredictionError *float64 `json:"prediction_error,omitempty"`
	Multiplier      *float64 `json:"multiplier,omitempty"`
	// MemoryStability is the forgetting model's stability (days) after the review: a good or
	// easy grade counts as a successful recall and grows it. Nil for core memories.
	MemoryStability *float64 `json:"memory_stability,omitempty"`
	// Created reports that the memory had no FSRS card and one was created for this review.
	Created bool `json:"created"`
}

// GradeReview reviews one memory of tenant now with an explicit FSRS grade (again, hard, good or
// easy), whether or not it is due — the operator's or the user's judgement instead of the grade
// ReviewDue infers from use. It goes through the same machinery as ReviewDue: algorithms/review
// (go-fsrs) with the vmPFC context coupling [vmpfc_fsrs] when enabled, the card, a review_log
// row and, for good and easy, the grown forgetting-model stability and fade time; with an audit
// event "memory.review" and under the tenant's lifecycle lock, in one transaction. A memory
// without a card (e.g. an episode) gets a new card first. An unknown or inactive memory gives
// ErrNotFound.
func (c *Coordinator) GradeReview(ctx context.Context, tenant string, memoryID int64, grade review.Grade) (*GradeResult, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	if memoryID <= 0 {
		return nil, fmt.Errorf("%w: memory id must be positive, got %d", ErrInvalidInput, memoryID)
	}
	if !grade.Valid() {
		return nil, fmt.Errorf("%w: grade %d is not 1 (again) to 4 (easy)", ErrInvalidInput, grade)
	}
	now := c.clock.Now()
	res := &GradeResult{MemoryID: memoryID, Grade: gradeName(grade)}
	err := c.lifecycleTx(ctx, tenant, nil, func(tx pgx.Tx, q *db.Queries) error {
		st, err := q.AdminMemoryStatus(ctx, db.AdminMemoryStatusParams{TenantID: tenant, ID: memoryID})
		if err != nil {
			return fmt.Errorf("memory %d: %w", memoryID, err)
		}
		if st.Status != db.ZbMemoryStatusActive {
			return fmt.Errorf("memory %d is %s, only active memories are reviewed: %w", memoryID, st.Status, ErrNotFound)
		}
		n, err := q.LcReviewStateEnsure(ctx, db.LcReviewStateEnsureParams{
			TenantID: tenant, MemoryID: memoryID, Due: now,
			Accesses: st.AccessCount,
		})
		if err != nil {
			return err
		}
		res.Created = n > 0
		r, err := q.AdminReviewCardLock(ctx, db.AdminReviewCardLockParams{TenantID: tenant, MemoryID: memoryID})
		if err != nil {
			return err
		}
		sw, err := c.switches(ctx, q, tenant)
		if err != nil {
			return err
		}
		vmpfc := sw.enabled("vmpfc_fsrs")
		sched, err := review.NewScheduler(&review.Config{DisableShortTerm: true, VMPFC: review.VMPFCConfig{Disabled: !vmpfc}})
		if err != nil {
			return err
		}
		var ctxNow []float32
		if vmpfc {
			if ctxNow, err = q.LcRecentContext(ctx, db.LcRecentContextParams{TenantID: tenant, K: RecentContextRecalls}); err != nil {
				return err
			}
		}
		card := review.Card{
			Stability: r.CardStability, Difficulty: r.CardDifficulty, Due: r.Due, Reps: uint64(max(r.Reps, 0)),
			Lapses: uint64(max(r.Lapses, 0)), State: review.State(r.State), ElapsedDays: uint64(max(r.ElapsedDays, 0)),
			ScheduledDays: uint64(max(r.ScheduledDays, 0)),
		}
		if r.LastReview != nil {
			card.LastReview = *r.LastReview
		}
		var next review.Card
		var lg review.ReviewLog
		if ctxNow != nil {
			next, lg, err = sched.ReviewInContext(card, grade, now, r.ContextEmbedding, ctxNow)
		}
		if ctxNow == nil || err != nil {
			next, lg, err = sched.Review(card, grade, now)
		}
		if err != nil {
			return fmt.Errorf("error reviewing memory %d: %w", memoryID, err)
		}
		w := newReviewWrites(tenant, now, ctxNow, 1)
		w.card(memoryID, next, r.AccessCount)
		if ctxNow != nil {
			p := lcClamp(lg.PredictionError, 0, 2)
			res.PredictionError = &p
		}
		if lg.VMPFCApplied {
			m := lcClamp(lg.Multiplier, 0.3, 2)
			res.Multiplier = &m
		}
		interval := max(lg.Interval.Hours()/24, 0)
		w.log(memoryID, grade, r.State, interval, res.PredictionError, res.Multiplier)
		res.StateBefore, res.State = stateName(r.State), stateName(int16(next.State))
		res.Due, res.IntervalDays = next.Due, interval
		res.Stability, res.Difficulty, res.Reps, res.Lapses = next.Stability, next.Difficulty, int32(next.Reps), int32(next.Lapses)
		res.MemoryStability = r.Stability
		if tr, ok := lcTrace(r.Layer, r.Stability, r.Valence, r.Arousal, r.Significance, r.LastAccessedAt); ok &&
			(grade == review.Good || grade == review.Easy) {
			nt, err := c.forget.Review(tr, now)
			if err != nil {
				return err
			}
			s := w.grow(memoryID, nt, r.LastAccessedAt)
			res.MemoryStability = &s
		}
		if err := w.flush(ctx, q); err != nil {
			return err
		}
		return c.audit(ctx, q, tenant, "memory.review", &memoryID, now, map[string]any{
			"grade": res.Grade, "manual": true,
			"state_before": res.StateBefore, "state": res.State, "interval_days": interval, "created": res.Created,
		})
	})
	if err != nil {
		return nil, interpretError(fmt.Sprintf("grading memory %d", memoryID), err)
	}
	return res, nil
}
