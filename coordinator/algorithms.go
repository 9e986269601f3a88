package coordinator

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/db"
)

// Algorithm describes one switchable mechanism of the ablation registry.
type Algorithm struct {
	// ID is the stable identifier stored in zb.algorithm_switch.
	ID string `json:"id"`
	// Description says what switching it off removes.
	Description string `json:"description"`
	// Enabled is the tenant's setting (a tenant without a row has every mechanism on).
	Enabled bool `json:"enabled"`
}

// algorithms lists the mechanisms in DESIGN.md §6 order with what switching each off does.
var algorithms = []Algorithm{
	{ID: "decay", Description: "forgetting model: retrievability in ranking, fade times, archiving"},
	{ID: "two_factor_hebbian", Description: "Two-Factor synaptic edges: co-activation learning and the recall boost"},
	{ID: "vmpfc_fsrs", Description: "context-coupled review intervals (FSRS runs uncoupled)"},
	{ID: "sim_selection_sleep", Description: "Simulation-Selection sleep (LTP/LTD, associations, promotions)"},
	{ID: "bayesian_confidence", Description: "Beta confidence evidence and propagation"},
	{ID: "query_routing", Description: "query classes and layer weights in fusion (all weights 1)"},
	{ID: "imad_debate", Description: "selective debate when a fact contradicts two or more"},
	{ID: "spectral_health", Description: "Fiedler value of the knowledge graph in sleep runs"},
	{ID: "compositional_context", Description: "cross-context composition"},
	{ID: "ib_budget", Description: "information-bottleneck archiving and context budgeting"},
	{ID: "dual_process", Description: "schema consolidation in sleep"},
	{ID: "hyperagent", Description: "metacognitive parameter adjustments"},
	{ID: "neuromodulator", Description: "neuromodulator levels in priority and sleep tags"},
	{ID: "reconsolidation", Description: "edits of labile memories by new information"},
	{ID: "triple_copy", Description: "fast, medium and deep copies"},
	{ID: "priority_map", Description: "priority scores at store"},
	{ID: "stability_protector", Description: "locks against overwriting established memories"},
	{ID: "metacog_monitor", Description: "bias and efficiency monitoring"},
	{ID: "stc_rescue", Description: "synaptic tagging and capture rescue"},
	{ID: "gwt", Description: "global-workspace context assembly"},
	{ID: "prospective", Description: "prospective intentions"},
	{ID: "curiosity", Description: "knowledge-gap detection"},
}

// Algorithms returns the ablation registry with the tenant's settings, in DESIGN.md §6 order.
func (c *Coordinator) Algorithms(ctx context.Context, tenant string) ([]Algorithm, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	sw, err := tenantRead(ctx, c, tenant, func(q *db.Queries) (switchSet, error) { return c.switches(ctx, q, tenant) })
	if err != nil {
		return nil, interpretError("listing algorithm switches", err)
	}
	out := slices.Clone(algorithms)
	for i := range out {
		out[i].Enabled = sw.enabled(out[i].ID)
	}
	return out, nil
}

// SetAlgorithm switches a mechanism on or off for a tenant (creating the tenant if needed) and
// writes an audit event. An unknown id gives ErrInvalidInput listing the known ones.
func (c *Coordinator) SetAlgorithm(ctx context.Context, tenant, id string, enabled bool) error {
	if err := checkTenant(tenant); err != nil {
		return err
	}
	if !slices.ContainsFunc(algorithms, func(a Algorithm) bool { return a.ID == id }) {
		ids := make([]string, len(algorithms))
		for i, a := range algorithms {
			ids[i] = a.ID
		}
		return fmt.Errorf("%w: unknown algorithm %q (known: %v)", ErrInvalidInput, truncate(id, 60), ids)
	}
	if err := c.gateAlgorithm(ctx, tenant, id, enabled); err != nil {
		return err
	}
	now := c.clock.Now()
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		if err := q.TenantEnsure(ctx, db.TenantEnsureParams{ID: tenant, Name: tenant}); err != nil {
			return err
		}
		if err := q.AlgorithmSwitchSet(ctx, db.AlgorithmSwitchSetParams{
			TenantID: tenant, Algorithm: id, Enabled: enabled,
			Now: now, UpdatedBy: c.cfg.Actor,
		}); err != nil {
			return err
		}
		return c.audit(ctx, q, tenant, "algorithm.switch", nil, now, map[string]any{"algorithm": id, "enabled": enabled})
	})
	if err != nil {
		return interpretError("switching algorithm "+id, err)
	}
	return nil
}
