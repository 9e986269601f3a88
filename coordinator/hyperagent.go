package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/algorithms/budget"
	"github.com/zenbrain/zb/algorithms/hyperagent"
	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/pma"
)

// HyperagentBounds are the parameters the metacognitive HyperAgent [hyperagent] tunes, with
// their bounds: only those a code path reads. retrieval_diversity (default 0.3, in [0, 1], at
// most 0.1 per entry) scales the redundancy penalty λ of the context assembly (see
// RedundancyPenaltyFor). The other parameters of algorithms/hyperagent (review_aggressiveness,
// decay_floor, recency_weight, exploration) are read by nothing yet, so they are not tuned.
func HyperagentBounds() map[hyperagent.Param]hyperagent.Bounds {
	b := hyperagent.DefaultBounds()
	return map[hyperagent.Param]hyperagent.Bounds{hyperagent.ParamRetrievalDiversity: b[hyperagent.ParamRetrievalDiversity]}
}

// RedundancyPenaltyFor returns the redundancy penalty λ of Context's budget.Select (plain
// assembly) and workspace modules for a retrieval diversity d: λ = budget.RedundancyPenaltyDefault
// · d / 0.3, so the default diversity gives the default λ (1) and a diversity of 0 no penalty.
func RedundancyPenaltyFor(d float64) float64 {
	return budget.RedundancyPenaltyDefault * math.Max(d, 0) / hyperagent.DefaultParams().RetrievalDiversity
}

// lambdaArg maps λ to the Select/workspace configuration value (−1 means 0 there).
func lambdaArg(l float64) float64 {
	if l <= 0 {
		return -1
	}
	return l
}

// HyperagentReport says what the HyperAgent did in one sleep run.
type HyperagentReport struct {
	// Signals are the monitor's readings it acted on.
	Signals hyperagent.Signals `json:"signals"`
	// Adjustments are the parameter changes applied, each logged in zb.hyperagent_adjustment
	// (ids in AdjustmentIDs) and audited as hyperagent.adjust.
	Adjustments   []hyperagent.Adjustment `json:"adjustments"`
	AdjustmentIDs []int64                 `json:"adjustment_ids"`
	// Note explains a run without adjustments.
	Note string `json:"note,omitempty"`
}

// hyperagentParams returns the tenant's parameters: the defaults with the tuned values of
// zb.tenant_parameter. With hyperagent switched off they are the defaults.
func hyperagentParams(ctx context.Context, q *db.Queries, sw switchSet, tenant string) (hyperagent.Params, error) {
	p := hyperagent.DefaultParams()
	if !sw.enabled("hyperagent") {
		return p, nil
	}
	rows, err := q.McParams(ctx, tenant)
	if err != nil {
		return p, fmt.Errorf("error reading tuned parameters: %w", err)
	}
	for _, r := range rows {
		if _, ok := p.Get(hyperagent.Param(r.Name)); ok {
			p = setParam(p, hyperagent.Param(r.Name), r.Value)
		}
	}
	return p, nil
}

func setParam(p hyperagent.Params, name hyperagent.Param, v float64) hyperagent.Params {
	out, err := hyperagent.Apply(p, hyperagent.Entry{Adjustments: []hyperagent.Adjustment{{Param: name, From: mustGet(p, name), To: v}}})
	if err != nil {
		return p
	}
	return out
}

func mustGet(p hyperagent.Params, name hyperagent.Param) float64 {
	v, _ := p.Get(name)
	return v
}

// hyperagentStep runs the HyperAgent after the metacognitive monitor recorded this sleep run's
// signals (written > 0 events at now): the signals (recency bias, retrieval efficiency; samples =
// the recalls they rest on) go to hyperagent.Propose with the tenant's current parameters, the
// adjustments of the last 24 hours (daily budget of 3 entries) and HyperagentBounds; each
// adjustment is written to zb.tenant_parameter, logged in zb.hyperagent_adjustment and audited
// (hyperagent.adjust). Nothing happens with hyperagent off, or when the monitor wrote nothing
// (so a re-run on unchanged logs changes nothing).
func (c *Coordinator) hyperagentStep(ctx context.Context, q *db.Queries, tenant string, sw switchSet, now time.Time,
	written int,
) (*HyperagentReport, error) {
	if !sw.enabled("hyperagent") || written == 0 {
		return nil, nil
	}
	evs, err := q.McMetacogAt(ctx, db.McMetacogAtParams{TenantID: tenant, Now: now})
	if err != nil {
		return nil, fmt.Errorf("error reading the monitor's signals: %w", err)
	}
	var sig hyperagent.Signals
	sig.RetrievalEfficiency = 1 // no reading: no rule fires
	for _, e := range evs {
		switch e.Kind {
		case pma.AlertRecencyBias:
			sig.RecencyBias = lcClamp(e.Value, 0, 1)
		case MetacogRetrievalEfficiency:
			sig.RetrievalEfficiency = lcClamp(e.Value, 0, 1)
			var d struct {
				Basis struct {
					Recalls int `json:"recalls"`
				} `json:"basis"`
			}
			if json.Unmarshal(e.Detail, &d) == nil {
				sig.Samples = max(d.Basis.Recalls, 0)
			}
		}
	}
	params, err := hyperagentParams(ctx, q, sw, tenant)
	if err != nil {
		return nil, err
	}
	recent, err := q.McAdjustmentsSince(ctx, db.McAdjustmentsSinceParams{TenantID: tenant, Since: now.Add(-24 * time.Hour)})
	if err != nil {
		return nil, fmt.Errorf("error reading recent adjustments: %w", err)
	}
	var history []hyperagent.Entry
	for _, r := range recent { // one entry per run (applied_at)
		if n := len(history); n == 0 || !history[n-1].At.Equal(r.AppliedAt) {
			history = append(history, hyperagent.Entry{At: r.AppliedAt})
		}
		h := &history[len(history)-1]
		h.Adjustments = append(h.Adjustments, hyperagent.Adjustment{Param: hyperagent.Param(r.Parameter), From: r.OldValue, To: r.NewValue})
	}
	bounds := HyperagentBounds()
	e, err := hyperagent.Propose(sig, params, history, now, &hyperagent.Config{Bounds: bounds})
	if err != nil {
		return nil, err
	}
	rep := &HyperagentReport{Signals: sig, Adjustments: nonNil(e.Adjustments), AdjustmentIDs: []int64{}, Note: e.Note}
	for _, a := range e.Adjustments {
		b := bounds[a.Param]
		if err := q.McParamSet(ctx, db.McParamSetParams{
			TenantID: tenant, Name: string(a.Param), Value: a.To, MinValue: b.Min,
			MaxValue: b.Max, Now: now,
		}); err != nil {
			return nil, fmt.Errorf("error writing parameter %s: %w", a.Param, err)
		}
		id, err := q.McAdjustmentInsert(ctx, db.McAdjustmentInsertParams{
			TenantID: tenant, Parameter: string(a.Param),
			OldValue: a.From, NewValue: a.To, Reason: a.Reason, Signals: mustJSON(sig), Now: now,
		})
		if err != nil {
			return nil, fmt.Errorf("error logging adjustment of %s: %w", a.Param, err)
		}
		rep.AdjustmentIDs = append(rep.AdjustmentIDs, id)
		if err := c.audit(ctx, q, tenant, "hyperagent.adjust", nil, now, map[string]any{
			"id": id, "param": a.Param,
			"from": a.From, "to": a.To, "reason": a.Reason, "risk": e.Risk,
		}); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// RevertHyperagentAdjustment undoes one HyperAgent adjustment of tenant [hyperagent]: the
// parameter goes back to the adjustment's old value, the adjustment is marked reverted and the
// revert is audited (hyperagent.revert), in one transaction. It returns ErrNotFound for an
// unknown id, and ErrConflict when the adjustment was already reverted or the parameter no
// longer holds the value it set (a later adjustment changed it: revert that one first).
func (c *Coordinator) RevertHyperagentAdjustment(ctx context.Context, tenant string, id int64) error {
	if err := checkTenant(tenant); err != nil {
		return err
	}
	now := c.clock.Now()
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		a, err := q.McAdjustmentLock(ctx, db.McAdjustmentLockParams{TenantID: tenant, ID: id})
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: hyperagent adjustment %d", ErrNotFound, id)
		}
		if err != nil {
			return err
		}
		if a.RevertedAt != nil {
			return fmt.Errorf("%w: hyperagent adjustment %d was already reverted", ErrConflict, id)
		}
		cur := hyperagent.DefaultParams()
		rows, err := q.McParams(ctx, tenant)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if _, ok := cur.Get(hyperagent.Param(r.Name)); ok {
				cur = setParam(cur, hyperagent.Param(r.Name), r.Value)
			}
		}
		entry := hyperagent.Entry{
			ID: fmt.Sprint(id), At: a.AppliedAt,
			Adjustments: []hyperagent.Adjustment{{Param: hyperagent.Param(a.Parameter), From: a.OldValue, To: a.NewValue}},
		}
		back, err := hyperagent.Revert(cur, entry)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrConflict, err)
		}
		b, ok := HyperagentBounds()[hyperagent.Param(a.Parameter)]
		if !ok {
			b = hyperagent.DefaultBounds()[hyperagent.Param(a.Parameter)]
		}
		v, _ := back.Get(hyperagent.Param(a.Parameter))
		if err := q.McParamSet(ctx, db.McParamSetParams{
			TenantID: tenant, Name: a.Parameter, Value: v, MinValue: b.Min, MaxValue: b.Max,
			Now: now,
		}); err != nil {
			return err
		}
		if err := q.McAdjustmentReverted(ctx, db.McAdjustmentRevertedParams{TenantID: tenant, ID: id, Now: now}); err != nil {
			return err
		}
		return c.audit(ctx, q, tenant, "hyperagent.revert", nil, now, map[string]any{
			"id": id, "param": a.Parameter,
			"from": a.NewValue, "to": a.OldValue,
		})
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrConflict) {
			return err
		}
		return interpretError("reverting a hyperagent adjustment", err)
	}
	return nil
}
