package coordinator

import (
	"cmp"
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
		w := newReviewWrites(tenant, now, ctxNow, len(rows))
		for _, r := range rows {
			card := review.Card{
				Stability: r.CardStability, Difficulty: r.CardDifficulty, Due: r.Due, Reps: uint64(max(r.Reps, 0)),
				Lapses: uint64(max(r.Lapses, 0)), State: review.State(r.State), ElapsedDays: uint64(max(r.ElapsedDays, 0)),
				ScheduledDays: uint64(max(r.ScheduledDays, 0)),
			}
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
			w.card(r.MemoryID, next, r.AccessCount)
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
			w.log(r.MemoryID, grade, r.State, max(lg.Interval.Hours()/24, 0), pe, mult)
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
				w.grow(r.MemoryID, nt, r.LastAccessedAt)
				rep.Strengthened++
			}
		}
		if err := w.flush(ctx, q); err != nil {
			return err
		}
		return c.audit(ctx, q, tenant, "memory.review", nil, now, rep)
	})
	if err != nil {
		return nil, interpretError("reviewing memories", err)
	}
	return rep, nil
}

// reviewWrites collects the writes of reviewed cards — the card, its review_log row and, for
// Good and Easy, the memory's grown forgetting-model stability — and applies them in three round
// trips (flush): the cards as one pipelined pgx batch of primary-key UPDATEs (a set-based
// UPDATE … FROM unnest was planned as a sequential scan of every tenant's cards), the log rows and
// the stabilities as one set-based statement each. ReviewDue and GradeReview share it.
type reviewWrites struct {
	tenant string
	now    time.Time
	ctxNow []float32
	cards  []db.LcReviewWriteEachParams
	logs   db.LcReviewLogInsertBatchParams
	grown  db.LcMemoryForgettingBatchParams
}

// newReviewWrites starts the writes of reviews at now. With ctxNow (the vmPFC context now) the
// cards' context embedding becomes it; without, the cards keep theirs.
func newReviewWrites(tenant string, now time.Time, ctxNow []float32, n int) *reviewWrites {
	return &reviewWrites{
		tenant: tenant, now: now, ctxNow: ctxNow, cards: make([]db.LcReviewWriteEachParams, 0, n),
		logs: db.LcReviewLogInsertBatchParams{TenantID: tenant, Now: now}, grown: db.LcMemoryForgettingBatchParams{TenantID: tenant},
	}
}

// card adds memoryID's new FSRS card; accesses is the memory's access count at the review.
func (w *reviewWrites) card(memoryID int64, next review.Card, accesses int32) {
	w.cards = append(w.cards, db.LcReviewWriteEachParams{
		TenantID: w.tenant, MemoryID: memoryID, Stability: next.Stability,
		Difficulty: lcClamp(next.Difficulty, 0, 10), Due: next.Due, Reps: int32(next.Reps), Lapses: int32(next.Lapses),
		State: int16(next.State), ElapsedDays: int32(next.ElapsedDays), ScheduledDays: int32(next.ScheduledDays), Now: w.now,
		SetContext: w.ctxNow != nil, Context: toVector(w.ctxNow), Accesses: accesses,
	})
}

// log adds a review_log row; a nil PE or multiplier is stored as NULL.
func (w *reviewWrites) log(memoryID int64, grade review.Grade, stateBefore int16, intervalDays float64, pe, mult *float64) {
	orNaN := func(x *float64) float64 {
		if x == nil {
			return math.NaN()
		}
		return *x
	}
	l := &w.logs
	l.MemoryIds, l.Grades = append(l.MemoryIds, memoryID), append(l.Grades, int16(grade))
	l.StatesBefore, l.IntervalDays = append(l.StatesBefore, stateBefore), append(l.IntervalDays, intervalDays)
	l.Pes, l.Multipliers = append(l.Pes, orNaN(pe)), append(l.Multipliers, orNaN(mult))
}

// grow adds memoryID's grown forgetting trace nt (the review counted as an access; the last
// access never moves back before lastAccessed) and returns its stability in days.
func (w *reviewWrites) grow(memoryID int64, nt forgetting.Trace, lastAccessed time.Time) float64 {
	s, fade := nt.Stability.Hours()/24, lcFadeAt(nt)
	g := &w.grown
	g.Ids, g.Stabilities = append(g.Ids, memoryID), append(g.Stabilities, s)
	g.LastAccessedAts = append(g.LastAccessedAts, maxTime(nt.LastAccess, lastAccessed))
	g.FadeNull, g.FadeAts = append(g.FadeNull, fade == nil), append(g.FadeAts, cmp.Or(derefTime(fade), w.now))
	return s
}

// flush writes everything collected.
func (w *reviewWrites) flush(ctx context.Context, q *db.Queries) error {
	var err error
	q.LcReviewWriteEach(ctx, w.cards).Exec(func(_ int, e error) { err = cmp.Or(err, e) })
	if err != nil {
		return err
	}
	if len(w.logs.MemoryIds) > 0 {
		if _, err := q.LcReviewLogInsertBatch(ctx, w.logs); err != nil {
			return err
		}
	}
	if len(w.grown.Ids) > 0 {
		if _, err := q.LcMemoryForgettingBatch(ctx, w.grown); err != nil {
			return err
		}
	}
	return nil
}

func derefTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
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
