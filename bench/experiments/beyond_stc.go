package experiments

import (
	"context"
	"fmt"
	"time"

	"github.com/zenbrain/zb/bench/ablation"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

// STC experiment parameters: how many facts are held weakly, the confidences that make a memory
// weak (tagged, < 0.4) and a strong donor (> 0.7), and the horizon at which retrievability is read.
const (
	STCPairs          = 8
	STCWeakConf       = 0.3
	STCStrongConf     = 0.8
	STCHorizon        = 14 * 24 * time.Hour
	stcTenantPrefix   = "beyond-stc"
	stcDeriveMaxLoops = 100
)

// stcRun is one tenant of the tagging-and-capture measure.
type stcRun struct {
	// r14 is the mean retrievability of the weak facts STCHorizon after their storage;
	// rescued the fraction of them that were rescued.
	r14, rescued float64
}

// stcOne plays synaptic tagging and capture on the world of seed: the facts are stored at once;
// for up to STCPairs people with two or more facts, the first fact is held weakly (confidence
// STCWeakConf: an uncertain statement) and the second strongly (STCStrongConf); then derive
// runs as the worker would. Formation is an activation, so each weak fact is tagged and, with
// stc_rescue on, captured by the strong fact about the same person formed in the same window.
// It returns the weak facts' mean retrievability after STCHorizon (zb.memory_live, the SQL twin
// of the forgetting model) and the fraction rescued. With on false the mechanism is switched off.
func stcOne(ctx context.Context, env *ablation.Env, seed uint32, on bool) (stcRun, error) {
	var r stcRun
	w, err := ablation.NewWorld(BeyondWorkload, seed)
	if err != nil {
		return r, err
	}
	tenant := fmt.Sprintf("%s:%d:%t", stcTenantPrefix, seed, on)
	reset := func(ctx context.Context) error {
		if _, err := env.Pool.Exec(ctx, "DELETE FROM river.river_job WHERE args ->> 'tenant_id' = $1", tenant); err != nil {
			return err
		}
		_, err := env.Pool.Exec(ctx, "DELETE FROM zb.tenant WHERE id = $1", tenant)
		return err
	}
	if err := reset(ctx); err != nil {
		return r, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		_ = reset(cctx)
	}()
	clk := &ablation.Clock{}
	start := ablation.Start.Add(8 * time.Hour)
	clk.Set(start)
	co, err := coordinator.New(&coordinator.Config{
		Pool: env.Pool, Embedder: env.Embedder, Clock: clk,
		Forgetting: ablation.StabilityFor(BeyondWorkload.BaseDecay), Actor: "bench-beyond",
	})
	if err != nil {
		return r, err
	}
	if !on {
		if err := co.SetAlgorithm(ctx, tenant, "stc_rescue", false); err != nil {
			return r, err
		}
	}
	var items []coordinator.StoreInput
	byPerson := map[string][]string{}
	var order []string
	for _, f := range w.Facts {
		items = append(items, coordinator.StoreInput{
			TenantID: tenant, Content: f.Text, Layer: coordinator.LayerSemantic,
			Kind: "fact", ExternalID: f.Key,
		})
		if _, ok := byPerson[f.Person]; !ok {
			order = append(order, f.Person)
		}
		byPerson[f.Person] = append(byPerson[f.Person], f.Key)
	}
	var weak, strong []string
	for _, p := range order {
		if keys := byPerson[p]; len(keys) >= 2 && len(weak) < STCPairs {
			weak, strong = append(weak, keys[0]), append(strong, keys[1])
		}
	}
	if len(weak) == 0 {
		return r, fmt.Errorf("stc: seed %d: no person with two facts", seed)
	}
	if _, err := co.StoreBatch(ctx, items); err != nil {
		return r, fmt.Errorf("stc: storing: %w", err)
	}
	// The confidences of uncertain and of well-attested statements (the store has no
	// per-statement confidence input; evidence would set them the same way).
	if _, err := env.Pool.Exec(ctx, `UPDATE zb.memory SET confidence = CASE WHEN external_id = ANY($2::text[]) THEN $3::float8 ELSE $4::float8 END
		WHERE tenant_id = $1 AND external_id = ANY($2::text[] || $5::text[])`, tenant, weak, STCWeakConf, STCStrongConf, strong); err != nil {
		return r, fmt.Errorf("stc: setting confidences: %w", err)
	}
	for range stcDeriveMaxLoops {
		d, err := co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, Pending: true}, nil)
		if err != nil {
			return r, fmt.Errorf("stc: deriving: %w", err)
		}
		if !d.More || len(d.Derived) == 0 {
			break
		}
	}
	var rescued int
	if err := env.Pool.QueryRow(ctx, `SELECT avg(l.retrievability), count(t.rescued_at)
		FROM zb.memory_live($3) l JOIN zb.memory m ON m.tenant_id = l.tenant_id AND m.id = l.id
		LEFT JOIN zb.stc_tag t ON t.tenant_id = m.tenant_id AND t.memory_id = m.id
		WHERE l.tenant_id = $1 AND m.external_id = ANY($2)`, tenant, weak, start.Add(STCHorizon)).Scan(&r.r14, &rescued); err != nil {
		return r, fmt.Errorf("stc: reading retrievability: %w", err)
	}
	r.rescued = ratioOf(rescued, len(weak))
	return r, nil
}
