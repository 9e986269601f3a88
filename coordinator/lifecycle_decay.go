package coordinator

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/algorithms/budget"
	"github.com/zenbrain/zb/algorithms/forgetting"
	"github.com/zenbrain/zb/algorithms/hebbian"
	"github.com/zenbrain/zb/db"
)

// DecayRecheckMin is the least time DecayDue pushes the fade time of a memory it keeps into the
// future, so a kept memory is not examined again on every run.
const DecayRecheckMin = 24 * time.Hour

// DecayReport counts what one DecayDue call examined and wrote.
type DecayReport struct {
	// Disabled reports that the tenant switched decay off: nothing was examined.
	Disabled bool `json:"disabled,omitempty"`
	// Examined is the number of memories read: exactly the active memories whose fade_at had
	// passed (at most the limit).
	Examined int `json:"examined"`
	// Archived lists the memories archived (R < 0.1 and carried or not worth keeping).
	Archived []int64 `json:"archived"`
	// ArchivedCarried counts the archived memories carried by a consolidated memory;
	// ArchivedBudget those the IB budget judged not worth keeping.
	ArchivedCarried int `json:"archived_carried"`
	ArchivedBudget  int `json:"archived_budget"`
	// ProtectedByCopy lists the faded memories (R < 0.1) kept because their triple-copy strength
	// is at least CopyProtectThreshold [triple_copy]; they are among Rescheduled.
	ProtectedByCopy []int64 `json:"protected_by_copy,omitempty"`
	// Rescheduled counts memories kept whose fade_at moved to the next predicted crossing.
	Rescheduled int `json:"rescheduled"`
	// EdgesDecayed counts edges touching the examined memories' entities whose importance-gated
	// decay was written; EdgesPruned those removed below the prune threshold.
	EdgesDecayed int `json:"edges_decayed"`
	EdgesPruned  int `json:"edges_pruned"`
	// More reports that the limit was reached: more memories may have faded.
	More bool `json:"more"`
}

// DecayDue processes up to limit (0: DecayLimitDefault) active memories of tenant whose
// predicted fade time has passed, found through the (tenant_id, fade_at) index (never a scan of
// the tenant's memories; rows another transaction holds are skipped). For each, with R its
// retrievability now:
//
//   - R < 0.1 and it is carried: an active AI-generated or schema memory lists it among its
//     sources and states its text as it is (a fact copied from a turn; an episode or schema that
//     contains or summarizes it does not carry it, since recall would then deliver a coarser
//     memory in its place); or, for a derived memory that carries nothing itself, the IB budget
//     [ib_budget] judges it not worth keeping (budget.Decide with its accesses, confidence, days
//     since access, length, entity count and embedding variance against the tenant's recent
//     recall context) → archived: it leaves default recall and stays reachable through
//     provenance and deep recall. What a caller stored is never archived by the budget: it is
//     the precise trace a question may need (DESIGN.md §1.7);
//   - otherwise it is kept and its fade_at moves to the next predicted crossing: the fade time
//     itself when R is still ≥ 0.1 (its stability grew), else the next time R falls by another
//     factor of 10 (R = 0.01, 0.001, ...), and at least DecayRecheckMin from now;
//   - core memories never decay: their fade_at is cleared;
//   - a memory whose triple-copy strength is at least CopyProtectThreshold (a deep copy promoted
//     by sleep) is still retrievable through its copies and is kept whatever R [triple_copy];
//     with triple_copy switched off the copies are ignored.
//
// Then the Two-Factor edges touching the entities of the examined memories get their
// importance-gated decay written (w·exp(−r/(1 + 0.1·I)·Δt)) and those below 0.05 are pruned
// [two_factor_hebbian]. A tenant with decay switched off [decay] is left alone. Everything and
// hook commit in one transaction; a second call at the same time finds nothing to do.
//
// The cost grows with the faded rows, not with the tenant: one statement locks and reads the
// faded rows (with, per row, one probe of the source_ids GIN index for "carried" and the count of
// its mentions), one writes every decision (archives with their review states, new fade times),
// and two more read and write the edges of the examined memories' entities (only when they
// mention any). DecayDue also writes the tenant's neuromodulator state at now from its recent
// events (the periodic neuromodulator tick; see Neuromodulator), whether decay is on or not.
func (c *Coordinator) DecayDue(ctx context.Context, tenant string, limit int, hook TxHook) (*DecayReport, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	limit, err := checkLimit(limit, DecayLimitDefault)
	if err != nil {
		return nil, err
	}
	now := c.clock.Now()
	rep := &DecayReport{Archived: []int64{}}
	err = c.lifecycleTx(ctx, tenant, hook, func(tx pgx.Tx, q *db.Queries) error {
		if err := c.retainInTx(ctx, q, tenant); err != nil {
			return err
		}
		sw, neuro, err := c.lifecyclePreamble(ctx, q, tenant, now)
		if err != nil {
			return err
		}
		// The neuromodulator tick: the state at now from the tenant's recent events.
		if err := c.neuroRecord(ctx, q, tenant, sw, now, nil, neuro); err != nil {
			return err
		}
		if !sw.enabled("decay") {
			rep.Disabled = true
			return nil
		}
		rows, err := q.LcDecayCandidates(ctx, db.LcDecayCandidatesParams{TenantID: tenant, Now: now, K: int32(limit)})
		if err != nil {
			return err
		}
		rep.Examined, rep.More = len(rows), len(rows) == limit
		if len(rows) == 0 {
			return nil
		}
		// Triple copy [triple_copy]: the memories whose trace has faded below the archive
		// threshold but whose copies are still retrievable (a promoted deep copy) are kept.
		var faded []int64
		for _, r := range rows {
			if r.Stability == nil || r.Layer == db.ZbMemoryLayerCore {
				continue
			}
			if tr, ok := lcTrace(r.Layer, r.Stability, r.Valence, r.Arousal, r.Significance, r.LastAccessedAt); ok {
				if R, _ := tr.Retrievability(now); R < forgetting.ArchiveThreshold {
					faded = append(faded, r.ID)
				}
			}
		}
		protected, err := copyProtected(ctx, q, sw, tenant, faded, now)
		if err != nil {
			return err
		}
		var recent []float64
		recentRead := false
		var ap db.LcDecayApplyParams
		var archive, touched []int64
		for _, r := range rows {
			if r.Entities > 0 {
				touched = append(touched, r.ID)
			}
			if r.Stability == nil || r.Layer == db.ZbMemoryLayerCore {
				ap.Ids, ap.Archive = append(ap.Ids, r.ID), append(ap.Archive, false)
				ap.FadeNull, ap.FadeAts = append(ap.FadeNull, true), append(ap.FadeAts, now)
				continue
			}
			tr, ok := lcTrace(r.Layer, r.Stability, r.Valence, r.Arousal, r.Significance, r.LastAccessedAt)
			if !ok {
				continue
			}
			R, _ := tr.Retrievability(now)
			if _, ok := protected[r.ID]; ok && R < forgetting.ArchiveThreshold {
				rep.ProtectedByCopy = append(rep.ProtectedByCopy, r.ID)
			} else if R < forgetting.ArchiveThreshold {
				if r.Carried {
					archive = append(archive, r.ID)
					ap.Ids, ap.Archive = append(ap.Ids, r.ID), append(ap.Archive, true)
					ap.FadeNull, ap.FadeAts = append(ap.FadeNull, false), append(ap.FadeAts, now)
					rep.ArchivedCarried++
					continue
				}
				// A memory that carries consolidated sources is where their content lives, and
				// what a caller stored is the trace a question may need: the budget archives
				// neither, or forgetting would lose knowledge (DESIGN.md §1.7, §6). It compresses
				// derived memories that carry nothing.
				if sw.enabled("ib_budget") && r.AiGenerated && r.Carries == 0 {
					// The recent recall context only matters for an embedded memory.
					if !recentRead && r.Embedding != nil {
						v, err := q.LcRecentContext(ctx, db.LcRecentContextParams{TenantID: tenant, K: RecentContextRecalls})
						if err != nil {
							return err
						}
						recent, recentRead = f64(v), true
					}
					variance := budget.EmbeddingVarianceUnknown
					if r.Embedding != nil && recent != nil {
						if v, err := budget.EmbeddingVariance(f64(r.Embedding.Slice()), [][]float64{recent}); err == nil {
							variance = v
						}
					}
					dec, err := budget.Decide(budget.Item{
						Context: r.Context, Retrievals: int(r.AccessCount),
						Confidence: lcClamp(r.Confidence, 0, 1), DaysSinceAccess: budget.DaysSince(r.LastAccessedAt, now),
						Length: utf8.RuneCountInString(r.Content), Entities: int(r.Entities), EmbeddingVariance: variance,
					}, nil)
					if err == nil && dec.Action == budget.ActionCompress {
						archive = append(archive, r.ID)
						ap.Ids, ap.Archive = append(ap.Ids, r.ID), append(ap.Archive, true)
						ap.FadeNull, ap.FadeAts = append(ap.FadeNull, false), append(ap.FadeAts, now)
						rep.ArchivedBudget++
						continue
					}
				}
			}
			ap.Ids, ap.Archive = append(ap.Ids, r.ID), append(ap.Archive, false)
			ap.FadeNull, ap.FadeAts = append(ap.FadeNull, false), append(ap.FadeAts, nextCrossing(tr, now))
		}
		if len(ap.Ids) > 0 {
			ap.TenantID, ap.Now, ap.ArchiveIds = tenant, now, nonNil(archive)
			n, err := q.LcDecayApply(ctx, ap)
			if err != nil {
				return err
			}
			if int(n.Archived) != len(archive) {
				return fmt.Errorf("decay archived %d of %d locked memories", n.Archived, len(archive))
			}
			rep.Archived, rep.Rescheduled = archive, int(n.Rescheduled)
		}
		if sw.enabled("two_factor_hebbian") && len(touched) > 0 {
			if err := c.decayEdges(ctx, q, tenant, touched, now, rep); err != nil {
				return err
			}
		}
		if len(archive) > 0 {
			return c.audit(ctx, q, tenant, "memory.archive", nil, now, map[string]any{
				"ids":     archive,
				"carried": rep.ArchivedCarried, "budget": rep.ArchivedBudget, "by": "decay",
			})
		}
		return nil
	})
	if err != nil {
		return nil, interpretError("decaying memories", err)
	}
	return rep, nil
}

// nextCrossing returns the next time after now at which R of tr crosses the archive threshold
// or one of its powers (0.1, 0.01, 0.001, ...), at least DecayRecheckMin after now.
func nextCrossing(tr forgetting.Trace, now time.Time) time.Time {
	sEff, err := tr.EffectiveStability()
	floor := now.Add(DecayRecheckMin)
	if err != nil || sEff <= 0 || sEff == forgetting.Never {
		return floor
	}
	step := sEff.Seconds() * math.Ln10
	elapsed := max(now.Sub(tr.LastAccess).Seconds(), 0)
	k := math.Floor(elapsed/step) + 1
	secs := k * step
	if secs > 200*365*24*3600 {
		return floor.Add(365 * 24 * time.Hour)
	}
	t := tr.LastAccess.Add(time.Duration(secs * float64(time.Second)))
	if t.Before(floor) {
		return floor
	}
	return t
}

// decayEdges writes the importance-gated decay of the edges touching the memories' entities and
// prunes those below the threshold.
func (c *Coordinator) decayEdges(ctx context.Context, q *db.Queries, tenant string, memIDs []int64, now time.Time, rep *DecayReport) error {
	ments, err := q.LcMentionsOf(ctx, db.LcMentionsOfParams{TenantID: tenant, MemoryIds: memIDs})
	if err != nil || len(ments) == 0 {
		return err
	}
	var ents []int64
	for _, m := range ments {
		if !slices.Contains(ents, m.EntityID) {
			ents = append(ents, m.EntityID)
		}
	}
	edges, err := q.LcEdgesTouchingLock(ctx, db.LcEdgesTouchingLockParams{TenantID: tenant, EntityIds: ents})
	if err != nil {
		return err
	}
	var prune, upd []int64
	var ws []float64
	var ats []time.Time
	for _, e := range edges {
		he := hebbian.Edge{Weight: e.Weight, Variance: e.Variance, ActivationCount: int(e.ActivationCount), LastActivated: e.LastActivatedAt}
		if c.hebb.Prunable(he, now) {
			prune = append(prune, e.ID)
			continue
		}
		if w := c.hebb.WeightAt(he, now); now.After(e.LastActivatedAt) && w < e.Weight {
			upd, ws, ats = append(upd, e.ID), append(ws, w), append(ats, now)
		}
	}
	if len(upd) > 0 || len(prune) > 0 {
		n, err := q.LcEdgeDecayApply(ctx, db.LcEdgeDecayApplyParams{
			TenantID: tenant, Ids: nonNil(upd), Weights: nonNil(ws),
			ActivatedAt: nonNil(ats), PruneIds: nonNil(prune),
		})
		if err != nil {
			return err
		}
		rep.EdgesDecayed, rep.EdgesPruned = int(n.Decayed), int(n.Pruned)
	}
	return nil
}

func f64(v []float32) []float64 {
	if v == nil {
		return nil
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
