package coordinator

import (
	"context"
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
//   - R < 0.1 and it is carried by a consolidated memory (it is among the source_ids of an
//     active AI-generated or schema memory), or — unless it carries consolidated sources itself —
//     the IB budget [ib_budget] judges it not worth
//     keeping (budget.Decide with its accesses, confidence, days since access, length, entity
//     count and embedding variance against the tenant's recent recall context) → archived: it
//     leaves default recall and stays reachable through provenance and deep recall;
//   - otherwise it is kept and its fade_at moves to the next predicted crossing: the fade time
//     itself when R is still ≥ 0.1 (its stability grew), else the next time R falls by another
//     factor of 10 (R = 0.01, 0.001, ...), and at least DecayRecheckMin from now;
//   - core memories never decay: their fade_at is cleared.
//
// Then the Two-Factor edges touching the entities of the examined memories get their
// importance-gated decay written (w·exp(−r/(1 + 0.1·I)·Δt)) and those below 0.05 are pruned
// [two_factor_hebbian]. A tenant with decay switched off [decay] is left alone. Everything and
// hook commit in one transaction; a second call at the same time finds nothing to do.
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
		sw, err := c.switches(ctx, q, tenant)
		if err != nil {
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
		ids := make([]int64, len(rows))
		for i, r := range rows {
			ids[i] = r.ID
		}
		carriedIDs, err := q.LcCarried(ctx, db.LcCarriedParams{TenantID: tenant, Ids: ids})
		if err != nil {
			return err
		}
		counts, err := q.LcMentionCounts(ctx, db.LcMentionCountsParams{TenantID: tenant, MemoryIds: ids})
		if err != nil {
			return err
		}
		nEnt := map[int64]int{}
		for _, cn := range counts {
			nEnt[cn.MemoryID] = int(cn.N)
		}
		var recent []float64
		if sw.enabled("ib_budget") {
			v, err := q.LcRecentContext(ctx, db.LcRecentContextParams{TenantID: tenant, K: RecentContextRecalls})
			if err != nil {
				return err
			}
			recent = f64(v)
		}
		var archive, fadeIDs []int64
		var fades []time.Time
		for _, r := range rows {
			if r.Stability == nil || r.Layer == db.ZbMemoryLayerCore {
				fadeIDs, fades = append(fadeIDs, r.ID), append(fades, time.Time{})
				continue
			}
			tr, ok := lcTrace(r.Layer, r.Stability, r.Valence, r.Arousal, r.Significance, r.LastAccessedAt)
			if !ok {
				continue
			}
			R, _ := tr.Retrievability(now)
			if R < forgetting.ArchiveThreshold {
				if slices.Contains(carriedIDs, r.ID) {
					archive = append(archive, r.ID)
					rep.ArchivedCarried++
					continue
				}
				// A memory that carries consolidated sources is where their content lives; the
				// budget never archives it, or forgetting would lose knowledge (DESIGN.md §6).
				if sw.enabled("ib_budget") && r.Carries == 0 {
					variance := budget.EmbeddingVarianceUnknown
					if r.Embedding != nil && recent != nil {
						if v, err := budget.EmbeddingVariance(f64(r.Embedding.Slice()), [][]float64{recent}); err == nil {
							variance = v
						}
					}
					dec, err := budget.Decide(budget.Item{Context: r.Context, Retrievals: int(r.AccessCount),
						Confidence: lcClamp(r.Confidence, 0, 1), DaysSinceAccess: budget.DaysSince(r.LastAccessedAt, now),
						Length: utf8.RuneCountInString(r.Content), Entities: nEnt[r.ID], EmbeddingVariance: variance}, nil)
					if err == nil && dec.Action == budget.ActionCompress {
						archive = append(archive, r.ID)
						rep.ArchivedBudget++
						continue
					}
				}
			}
			fadeIDs, fades = append(fadeIDs, r.ID), append(fades, nextCrossing(tr, now))
		}
		if len(archive) > 0 {
			if _, err := q.LcArchive(ctx, db.LcArchiveParams{TenantID: tenant, Ids: archive, Now: now}); err != nil {
				return err
			}
			rep.Archived = archive
		}
		if len(fadeIDs) > 0 {
			// A zero time clears fade_at (core memories).
			p := db.LcSetFadeAtParams{TenantID: tenant, Ids: fadeIDs, FadeAts: fades}
			if err := c.setFadeAt(ctx, q, p); err != nil {
				return err
			}
			rep.Rescheduled = len(fadeIDs)
		}
		if sw.enabled("two_factor_hebbian") {
			if err := c.decayEdges(ctx, q, tenant, ids, now, rep); err != nil {
				return err
			}
		}
		if len(archive) > 0 {
			return c.audit(ctx, q, tenant, "memory.archive", nil, now, map[string]any{"ids": archive,
				"carried": rep.ArchivedCarried, "budget": rep.ArchivedBudget, "by": "decay"})
		}
		return nil
	})
	if err != nil {
		return nil, interpretError("decaying memories", err)
	}
	return rep, nil
}

// setFadeAt writes fade times; zero times become NULL.
func (c *Coordinator) setFadeAt(ctx context.Context, q *db.Queries, p db.LcSetFadeAtParams) error {
	var clear []int64
	var ids []int64
	var fades []time.Time
	for i, f := range p.FadeAts {
		if f.IsZero() {
			clear = append(clear, p.Ids[i])
		} else {
			ids, fades = append(ids, p.Ids[i]), append(fades, f)
		}
	}
	if len(ids) > 0 {
		if err := q.LcSetFadeAt(ctx, db.LcSetFadeAtParams{TenantID: p.TenantID, Ids: ids, FadeAts: fades}); err != nil {
			return err
		}
	}
	if len(clear) > 0 {
		// Core memories: no fade time. LcSetStability cannot write NULL; use a tiny update.
		for _, id := range clear {
			if err := q.LcMemoryClearFade(ctx, db.LcMemoryClearFadeParams{TenantID: p.TenantID, ID: id}); err != nil {
				return err
			}
		}
	}
	return nil
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
	if len(upd) > 0 {
		if err := q.LcEdgeSetWeights(ctx, db.LcEdgeSetWeightsParams{TenantID: tenant, Ids: upd, Weights: ws, ActivatedAt: ats}); err != nil {
			return err
		}
		rep.EdgesDecayed = len(upd)
	}
	if len(prune) > 0 {
		n, err := q.LcEdgeDelete(ctx, db.LcEdgeDeleteParams{TenantID: tenant, Ids: prune})
		if err != nil {
			return err
		}
		rep.EdgesPruned = int(n)
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
