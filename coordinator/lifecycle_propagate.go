package coordinator

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/algorithms/bayes"
	"github.com/zenbrain/zb/db"
)

// PropagateTolerance is the smallest change of a memory's confidence that Propagate writes
// (with a 'propagated' evidence row); smaller changes are left alone, so a second run writes
// nothing.
const PropagateTolerance = 1e-9

// PropagateReport counts what one Propagate call wrote.
type PropagateReport struct {
	// Disabled reports that bayesian_confidence is off for the tenant.
	Disabled bool `json:"disabled,omitempty"`
	// Nodes and Links are the size of the subgraph propagated over.
	Nodes int `json:"nodes"`
	Links int `json:"links"`
	// Iterations is the number of sweeps run (at most 3).
	Iterations int `json:"iterations"`
	// Updated counts memories whose confidence changed (each with a 'propagated' evidence row).
	Updated int `json:"updated"`
}

// Propagate runs Bayesian confidence propagation [bayesian_confidence] over the memory_link
// subgraph around memoryIDs: the memories within PropagateMaxHops links (either direction; at
// most PropagateMaxNodes, nearest first) and the links among them. Each memory's own belief is
// its Beta(conf_alpha, conf_beta); bayes.Propagate spreads it over supports (+1), contradicts
// (−1), causes (0.8), requires (0.6), part_of (0.3) and similar_to (0.2) links (others carry
// nothing) for up to 3 damped sweeps. Every memory whose propagated confidence differs from its
// stored confidence by more than PropagateTolerance gets memory.confidence written and a
// 'propagated' evidence row (weight = the new confidence). One transaction with hook; running it
// again writes nothing.
func (c *Coordinator) Propagate(ctx context.Context, tenant string, memoryIDs []int64, hook TxHook) (*PropagateReport, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	if len(memoryIDs) > PropagateMaxNodes {
		return nil, fmt.Errorf("%w: %d memory ids, at most %d", ErrInvalidInput, len(memoryIDs), PropagateMaxNodes)
	}
	now := c.clock.Now()
	rep := &PropagateReport{}
	err := c.lifecycleTx(ctx, tenant, hook, func(tx pgx.Tx, q *db.Queries) error {
		sw, err := c.switches(ctx, q, tenant)
		if err != nil {
			return err
		}
		if !sw.enabled("bayesian_confidence") {
			rep.Disabled = true
			return nil
		}
		if len(memoryIDs) == 0 {
			return nil
		}
		hood, err := q.LcNeighbourhood(ctx, db.LcNeighbourhoodParams{TenantID: tenant, Ids: memoryIDs, MaxDepth: PropagateMaxHops, K: PropagateMaxNodes})
		if err != nil {
			return err
		}
		ids := make([]int64, len(hood))
		for i, h := range hood {
			ids[i] = h.ID
		}
		slices.Sort(ids)
		beliefs, err := q.LcBeliefsLock(ctx, db.LcBeliefsLockParams{TenantID: tenant, Ids: ids})
		if err != nil {
			return err
		}
		if len(beliefs) == 0 {
			return nil
		}
		known := map[int64]db.LcBeliefsLockRow{}
		facts := make([]bayes.Fact, len(beliefs))
		ids = ids[:0]
		for i, b := range beliefs {
			known[b.ID] = b
			ids = append(ids, b.ID)
			facts[i] = bayes.Fact{ID: fmt.Sprint(b.ID), Belief: bayes.Belief{Alpha: b.ConfAlpha, Beta: b.ConfBeta}}
		}
		links, err := q.LcLinksAmong(ctx, db.LcLinksAmongParams{TenantID: tenant, Ids: ids})
		if err != nil {
			return err
		}
		var bl []bayes.Link
		for _, l := range links {
			if _, ok := known[l.SourceID]; !ok {
				continue
			}
			if _, ok := known[l.TargetID]; !ok {
				continue
			}
			bl = append(bl, bayes.Link{
				From: fmt.Sprint(l.SourceID), To: fmt.Sprint(l.TargetID), Relation: bayes.Relation(l.Relation),
				Strength: lcClamp(l.Weight, 0, 1),
			})
		}
		rep.Nodes, rep.Links = len(facts), len(bl)
		res, err := bayes.Propagate(facts, bl, nil)
		if err != nil {
			return err
		}
		rep.Iterations = res.Iterations
		var upIDs []int64
		var confs []float64
		for _, f := range res.Facts {
			id, ok := parseID(f.ID)
			if !ok {
				continue
			}
			p := lcClamp(f.Propagated, 0, 1)
			if math.Abs(p-known[id].Confidence) <= PropagateTolerance {
				continue
			}
			upIDs, confs = append(upIDs, id), append(confs, p)
			if err := q.LcEvidenceInsert(ctx, db.LcEvidenceInsertParams{
				TenantID: tenant, MemoryID: id, Kind: "propagated",
				Weight: max(p, 1e-9), Source: "propagation", Now: now,
			}); err != nil {
				return err
			}
		}
		if len(upIDs) > 0 {
			if err := q.LcSetConfidence(ctx, db.LcSetConfidenceParams{TenantID: tenant, Ids: upIDs, Confidences: confs}); err != nil {
				return err
			}
		}
		rep.Updated = len(upIDs)
		return nil
	})
	if err != nil {
		return nil, interpretError("propagating confidence", err)
	}
	return rep, nil
}
