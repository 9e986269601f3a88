package coordinator

import (
	"context"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/algorithms/forgetting"
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
		// The batch's writes are collected and applied in three round trips: the cards (one
		// primary-key UPDATE each, pipelined as one pgx batch), the log and the grown
		// stabilities (one set-based statement each), instead of two or three per card.
		var ctxVec = toVector(ctxNow)
		cards := make([]db.LcReviewWriteEachParams, 0, len(rows))
		logs := db.LcReviewLogInsertBatchParams{TenantID: tenant, Now: now}
		grown := db.LcMemoryForgettingBatchParams{TenantID: tenant}
		for _, r := range rows {
			card := review.Card{Stability: r.CardStability, Difficulty: r.CardDifficulty, Due: r.Due, Reps: uint64(max(r.Reps, 0)),
				Lapses: uint64(max(r.Lapses, 0)), State: review.State(r.State), ElapsedDays: uint64(max(r.ElapsedDays, 0)),
				ScheduledDays: uint64(max(r.ScheduledDays, 0))}
			if r.LastReview != nil {
				card.LastReview = *r.LastReview
			}
			tr, hasTrace := lcTrace(r.Layer, r.Stability, r.Valence, r.Arousal, r.Significance, r.LastAccessedAt)
			grade := inferGrade(int(r.AccessCount-r.AccessesAtReview), tr, hasTrace, now)
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
			cards = append(cards, db.LcReviewWriteEachParams{TenantID: tenant, MemoryID: r.MemoryID, Stability: next.Stability,
				Difficulty: lcClamp(next.Difficulty, 0, 10), Due: next.Due, Reps: int32(next.Reps), Lapses: int32(next.Lapses),
				State: int16(next.State), ElapsedDays: int32(next.ElapsedDays), ScheduledDays: int32(next.ScheduledDays), Now: now,
				SetContext: ctxNow != nil, Context: ctxVec, Accesses: r.AccessCount})
			pe, mult := math.NaN(), math.NaN()
			if ctxNow != nil {
				pe = lcClamp(lg.PredictionError, 0, 2)
			}
			if lg.VMPFCApplied {
				mult = lcClamp(lg.Multiplier, 0.3, 2)
				rep.VMPFCApplied++
			}
			logs.MemoryIds = append(logs.MemoryIds, r.MemoryID)
			logs.Grades = append(logs.Grades, int16(grade))
			logs.StatesBefore = append(logs.StatesBefore, r.State)
			logs.IntervalDays = append(logs.IntervalDays, max(lg.Interval.Hours()/24, 0))
			logs.Pes, logs.Multipliers = append(logs.Pes, pe), append(logs.Multipliers, mult)
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
				fade := lcFadeAt(nt)
				grown.Ids = append(grown.Ids, r.MemoryID)
				grown.Stabilities = append(grown.Stabilities, nt.Stability.Hours()/24)
				grown.LastAccessedAts = append(grown.LastAccessedAts, maxTime(nt.LastAccess, r.LastAccessedAt))
				grown.FadeNull = append(grown.FadeNull, fade == nil)
				if fade != nil {
					grown.FadeAts = append(grown.FadeAts, *fade)
				} else {
					grown.FadeAts = append(grown.FadeAts, now)
				}
				rep.Strengthened++
			}
		}
		var werr error
		q.LcReviewWriteEach(ctx, cards).Exec(func(_ int, err error) {
			if err != nil && werr == nil {
				werr = err
			}
		})
		if werr != nil {
			return werr
		}
		if _, err := q.LcReviewLogInsertBatch(ctx, logs); err != nil {
			return err
		}
		if len(grown.Ids) > 0 {
			if _, err := q.LcMemoryForgettingBatch(ctx, grown); err != nil {
				return err
			}
		}
		return c.audit(ctx, q, tenant, "memory.review", nil, now, rep)
	})
	if err != nil {
		return nil, interpretError("reviewing memories", err)
	}
	return rep, nil
}

// inferGrade infers a review grade from the uses since the last review (see ReviewDue).
func inferGrade(used int, tr forgetting.Trace, hasTrace bool, now time.Time) review.Grade {
	switch {
	case used >= ReviewEasyAccesses:
		return review.Easy
	case used > 0:
		return review.Good
	}
	R := 1.0
	if hasTrace {
		R, _ = tr.Retrievability(now)
	}
	if R >= ReviewHardRetrievability {
		return review.Hard
	}
	return review.Again
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
