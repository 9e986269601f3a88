package coordinator

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/algorithms/review"
	"github.com/zenbrain/zb/db"
)

// Grade inference of ReviewDue.
const (
	// ReviewEasyAccesses is the number of uses since the last review from which a review is
	// graded Easy (one use gives Good).
	ReviewEasyAccesses = 3
	// ReviewHardRetrievability is the forgetting-model retrievability from which an unused
	// memory is graded Hard rather than Again.
	ReviewHardRetrievability = 0.5
)

// ReviewReport counts what one ReviewDue call reviewed.
type ReviewReport struct {
	// Reviewed is the number of memories reviewed; Again, Hard, Good and Easy count the grades.
	Reviewed int `json:"reviewed"`
	Again    int `json:"again"`
	Hard     int `json:"hard"`
	Good     int `json:"good"`
	Easy     int `json:"easy"`
	// VMPFCApplied counts reviews whose interval the vmPFC multiplier changed.
	VMPFCApplied int `json:"vmpfc_applied"`
	// Strengthened counts memories whose forgetting-model stability grew (Good and Easy).
	Strengthened int `json:"strengthened"`
	// More reports that the limit was reached: more reviews may be due.
	More bool `json:"more"`
}

// ReviewDue runs up to limit (0: ReviewLimitDefault) FSRS reviews of tenant that are due
// (review_state.due ≤ now, through the (tenant_id, due) index; rows another transaction holds
// are skipped) with algorithms/review, which wraps go-fsrs (whole-day intervals, no minute
// learning steps). A memory system has no quiz, so the grade is inferred from use since the
// last review (or since the review state was created): used ReviewEasyAccesses times or more
// → Easy, used at least once (a used recall) → Good, never used → Hard while the forgetting
// model's retrievability is still ≥ ReviewHardRetrievability, else Again.
//
// vmPFC coupling [vmpfc_fsrs]: the context now is the tenant's recent recall context, the mean
// embedding of the memories its last RecentContextRecalls recalls returned (recall events keep
// result ids, not query embeddings); the PE is 1 − cos(context at the last review, context now)
// and scales the FSRS interval (review.Scheduler.ReviewInContext). The context now is stored
// as the card's context embedding. Without a recall history, or on a first review, the PE is the
// neutral 0.5 (multiplier 1).
//
// Each review writes the card, a review_log row (grade, state before, interval, PE and
// multiplier), and for Good and Easy the memory's grown stability (forgetting.Model.Review: the
// review counts as an access) and its new fade time. All of it and hook commit in one
// transaction; reviewed cards are due in the future, so a second call finds nothing.
func (c *Coordinator) ReviewDue(ctx context.Context, tenant string, limit int, hook TxHook) (*ReviewReport, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	limit, err := checkLimit(limit, ReviewLimitDefault)
	if err != nil {
		return nil, err
	}
	now := c.clock.Now()
	rep := &ReviewReport{}
	err = c.lifecycleTx(ctx, tenant, hook, func(tx pgx.Tx, q *db.Queries) error {
		sw, err := c.switches(ctx, q, tenant)
		if err != nil {
			return err
		}
		rows, err := q.LcReviewDue(ctx, db.LcReviewDueParams{TenantID: tenant, Now: now, K: int32(limit)})
		if err != nil {
			return err
		}
		rep.More = len(rows) == limit
		if len(rows) == 0 {
			return nil
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
		for _, r := range rows {
			card := review.Card{Stability: r.CardStability, Difficulty: r.CardDifficulty, Due: r.Due, Reps: uint64(max(r.Reps, 0)),
				Lapses: uint64(max(r.Lapses, 0)), State: review.State(r.State), ElapsedDays: uint64(max(r.ElapsedDays, 0)),
				ScheduledDays: uint64(max(r.ScheduledDays, 0))}
			if r.LastReview != nil {
				card.LastReview = *r.LastReview
			}
			tr, hasTrace := lcTrace(r.Layer, r.Stability, r.Valence, r.Arousal, r.Significance, r.LastAccessedAt)
			used := int(r.AccessCount - r.AccessesAtReview)
			var grade review.Grade
			switch {
			case used >= ReviewEasyAccesses:
				grade = review.Easy
			case used > 0:
				grade = review.Good
			default:
				R := 1.0
				if hasTrace {
					R, _ = tr.Retrievability(now)
				}
				grade = review.Again
				if R >= ReviewHardRetrievability {
					grade = review.Hard
				}
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
				return err
			}
			ctxStore := r.ContextEmbedding
			if ctxNow != nil {
				ctxStore = ctxNow
			}
			var ctxVec = toVector(ctxStore)
			if err := q.LcReviewWrite(ctx, db.LcReviewWriteParams{TenantID: tenant, MemoryID: r.MemoryID, Stability: next.Stability,
				Difficulty: lcClamp(next.Difficulty, 0, 10), Due: next.Due, Reps: int32(next.Reps), Lapses: int32(next.Lapses),
				State: int16(next.State), ElapsedDays: int32(next.ElapsedDays), ScheduledDays: int32(next.ScheduledDays), Now: now,
				ContextEmbedding: ctxVec, Accesses: r.AccessCount}); err != nil {
				return err
			}
			var pe, mult *float64
			if ctxNow != nil {
				p := lcClamp(lg.PredictionError, 0, 2)
				pe = &p
			}
			if lg.VMPFCApplied {
				m := lcClamp(lg.Multiplier, 0.3, 2)
				mult = &m
				rep.VMPFCApplied++
			}
			if err := q.LcReviewLogInsert(ctx, db.LcReviewLogInsertParams{TenantID: tenant, MemoryID: r.MemoryID, Grade: int16(grade),
				Now: now, StateBefore: r.State, IntervalDays: max(lg.Interval.Hours()/24, 0), VmpfcPe: pe, Multiplier: mult}); err != nil {
				return err
			}
			rep.Reviewed++
			switch grade {
			case review.Again:
				rep.Again++
			case review.Hard:
				rep.Hard++
			case review.Good:
				rep.Good++
			case review.Easy:
				rep.Easy++
			}
			if (grade == review.Good || grade == review.Easy) && hasTrace {
				nt, err := c.forget.Review(tr, now)
				if err != nil {
					return err
				}
				s := nt.Stability.Hours() / 24
				if err := q.LcMemoryForgetting(ctx, db.LcMemoryForgettingParams{TenantID: tenant, ID: r.MemoryID, Stability: &s,
					LastAccessedAt: maxTime(nt.LastAccess, r.LastAccessedAt), FadeAt: lcFadeAt(nt)}); err != nil {
					return err
				}
				rep.Strengthened++
			}
		}
		return c.audit(ctx, q, tenant, "memory.review", nil, now, rep)
	})
	if err != nil {
		return nil, interpretError("reviewing memories", err)
	}
	return rep, nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
