package coordinator

import (
	"cmp"
	"context"
	"encoding/json"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/algorithms/curiosity"
	"github.com/zenbrain/zb/algorithms/spectral"
	"github.com/zenbrain/zb/db"
)

// Parameters of Health.
const (
	// HealthSleepRuns is the number of recent sleep runs of the spectral trend.
	HealthSleepRuns = 10
	// HealthMetacogWindow is how far back metacognitive events are read.
	HealthMetacogWindow = 30 * 24 * time.Hour
	// HealthTopics is the number of knowledge gaps reported (the largest).
	HealthTopics = 20
)

// SpectralPoint is the entity graph's λ₂ around one sleep run.
type SpectralPoint struct {
	RunID         int64     `json:"run_id"`
	At            time.Time `json:"at"`
	Trigger       string    `json:"trigger"`
	FiedlerBefore *float64  `json:"fiedler_before,omitempty"`
	FiedlerAfter  *float64  `json:"fiedler_after,omitempty"`
	Edges         *int32    `json:"edges,omitempty"`
	Memories      *int32    `json:"memories,omitempty"`
}

// SpectralHealth is the knowledge graph's connectivity [spectral_health].
type SpectralHealth struct {
	// Enabled reports whether spectral_health is on for the tenant (off: nothing computed).
	Enabled bool `json:"enabled"`
	// Fiedler is λ₂ of the normalized Laplacian of the entity graph now; Fragmented flags
	// λ₂ < Threshold (spectral.FragmentationThresholdDefault).
	Fiedler    float64 `json:"fiedler"`
	Fragmented bool    `json:"fragmented"`
	Threshold  float64 `json:"threshold"`
	// Trend is λ₂ around the last HealthSleepRuns sleep runs, oldest first.
	Trend []SpectralPoint `json:"trend"`
	// Slope is the least-squares slope of λ₂ after each run, per run (0 with fewer than two);
	// Direction is "rising", "falling" or "flat" (|slope| < 1e-4), "" without a trend.
	Slope     float64 `json:"slope"`
	Direction string  `json:"direction"`
}

// MetacogEntry is one metacognitive event.
type MetacogEntry struct {
	ID     int64           `json:"id"`
	Kind   string          `json:"kind"`
	Value  float64         `json:"value"`
	Alert  bool            `json:"alert"`
	Detail json.RawMessage `json:"detail"`
	At     time.Time       `json:"at"`
}

// MetacogHealth is what the metacognitive monitor recorded [metacog_monitor].
type MetacogHealth struct {
	// Events is the number of events in the window (HealthMetacogWindow).
	Events int `json:"events"`
	// Alerts are the events flagged as alerts, newest first.
	Alerts []MetacogEntry `json:"alerts"`
	// Latest is the newest event of each kind, by kind.
	Latest []MetacogEntry `json:"latest"`
}

// KnowledgeGaps is the curiosity engine's view of the query log [curiosity]: the
// HealthTopics largest gaps Coordinator.KnowledgeGaps reports.
type KnowledgeGaps struct {
	// Enabled reports whether curiosity is on for the tenant.
	Enabled bool `json:"enabled"`
	// Gaps are the scored topics (groups of queries by their index terms), largest gap first,
	// each with its learning progress and suggested action.
	Gaps []curiosity.Gap `json:"gaps"`
}

// HealthReport is a tenant's memory health.
type HealthReport struct {
	Tenant   string         `json:"tenant"`
	At       time.Time      `json:"at"`
	Spectral SpectralHealth `json:"spectral"`
	Metacog  MetacogHealth  `json:"metacog"`
	Gaps     KnowledgeGaps  `json:"gaps"`
}

// Health reports a tenant's memory health: the spectral λ₂ of its entity graph now and its trend
// over the recent sleep runs (zb.sleep_run), the metacognitive events and alerts of the last 30
// days (zb.metacog_event), and the knowledge gaps of KnowledgeGaps (algorithms/curiosity over the
// query log and the facts held per topic). It only reads; the gaps are read in a second
// transaction after the first snapshot.
func (c *Coordinator) Health(ctx context.Context, tenant string) (*HealthReport, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	now := c.clock.Now()
	rep := &HealthReport{
		Tenant: tenant, At: now,
		Spectral: SpectralHealth{Threshold: spectral.FragmentationThresholdDefault, Trend: []SpectralPoint{}},
		Metacog:  MetacogHealth{Alerts: []MetacogEntry{}, Latest: []MetacogEntry{}}, Gaps: KnowledgeGaps{Gaps: []curiosity.Gap{}},
	}
	// One read-only snapshot bound to the tenant.
	err := c.beginTenantTx(ctx, tenant, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		sw, err := c.switches(ctx, q, tenant)
		if err != nil {
			return interpretError("reading the tenant's switches", err)
		}

		// Spectral health.
		rep.Spectral.Enabled = sw.enabled("spectral_health")
		if rep.Spectral.Enabled {
			f, frag, err := c.fiedler(ctx, q, tenant, now)
			if err != nil {
				return interpretError("computing the Fiedler value", err)
			}
			rep.Spectral.Fiedler, rep.Spectral.Fragmented = f, frag
		}
		runs, err := q.AdminSleepRuns(ctx, db.AdminSleepRunsParams{TenantID: tenant, K: HealthSleepRuns})
		if err != nil {
			return interpretError("reading sleep runs", err)
		}
		var xs, ys []float64
		for i := len(runs) - 1; i >= 0; i-- {
			r := runs[i]
			rep.Spectral.Trend = append(rep.Spectral.Trend, SpectralPoint{
				RunID: r.ID, At: r.StartedAt, Trigger: r.Trigger,
				FiedlerBefore: r.FiedlerBefore, FiedlerAfter: r.FiedlerAfter, Edges: r.EdgesAfter, Memories: r.StorageAfter,
			})
			if r.FiedlerAfter != nil {
				xs, ys = append(xs, float64(len(xs))), append(ys, *r.FiedlerAfter)
			}
		}
		if len(ys) > 0 {
			rep.Spectral.Slope = slope(xs, ys)
			switch {
			case rep.Spectral.Slope > 1e-4:
				rep.Spectral.Direction = "rising"
			case rep.Spectral.Slope < -1e-4:
				rep.Spectral.Direction = "falling"
			default:
				rep.Spectral.Direction = "flat"
			}
		}

		// Metacognitive events.
		evs, err := q.AdminMetacogEvents(ctx, db.AdminMetacogEventsParams{TenantID: tenant, Since: now.Add(-HealthMetacogWindow), K: 1000})
		if err != nil {
			return interpretError("reading metacognitive events", err)
		}
		rep.Metacog.Events = len(evs)
		seen := map[string]bool{}
		for _, e := range evs {
			me := MetacogEntry{ID: e.ID, Kind: e.Kind, Value: e.Value, Alert: e.Alert, Detail: e.Detail, At: e.CreatedAt}
			if e.Alert {
				rep.Metacog.Alerts = append(rep.Metacog.Alerts, me)
			}
			if !seen[e.Kind] {
				seen[e.Kind] = true
				rep.Metacog.Latest = append(rep.Metacog.Latest, me)
			}
		}
		slices.SortFunc(rep.Metacog.Latest, func(a, b MetacogEntry) int { return cmp.Compare(a.Kind, b.Kind) })

		rep.Gaps.Enabled = sw.enabled("curiosity")
		return nil
	})
	if err != nil {
		return nil, err
	}
	if rep.Gaps.Enabled {
		gaps, err := c.KnowledgeGaps(ctx, tenant, HealthTopics)
		if err != nil {
			return nil, err
		}
		rep.Gaps.Gaps = gaps
	}
	return rep, nil
}

// slope returns the least-squares slope of ys over xs (0 for fewer than two points).
func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	if len(xs) < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 || math.IsNaN(d) {
		return 0
	}
	return (n*sxy - sx*sy) / d
}
