package coordinator

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
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
	// HealthRecalls is the number of recent recalls the knowledge-gap analysis reads (the
	// curiosity engine's window).
	HealthRecalls = curiosity.WindowDefault
	// HealthTopResults is the number of results per recall whose entities define its topics.
	HealthTopResults = 3
	// HealthTopics caps the topics scored (the most asked about).
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

// KnowledgeGaps is the curiosity engine's view of the recall log [curiosity].
//
// zenbrain logs a hash of each query, not its text, so a recall's topics are the entities its
// best HealthTopResults results mention; a recall that returned nothing, or nothing that
// mentions an entity, cannot be placed and counts as Unplaced.
type KnowledgeGaps struct {
	// Enabled reports whether curiosity is on for the tenant.
	Enabled bool `json:"enabled"`
	// Recalls is the number of recalls read; Unplaced those without a topic, of which Empty
	// returned nothing at all.
	Recalls  int `json:"recalls"`
	Unplaced int `json:"unplaced"`
	Empty    int `json:"empty"`
	// Gaps are the scored topics (entities), highest gap first, with the suggested action.
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
// days (zb.metacog_event), and knowledge gaps scored by algorithms/curiosity over the recall log
// (zb.recall_event) and the facts held per topic. It only reads.
func (c *Coordinator) Health(ctx context.Context, tenant string) (*HealthReport, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	now := c.clock.Now()
	rep := &HealthReport{Tenant: tenant, At: now,
		Spectral: SpectralHealth{Threshold: spectral.FragmentationThresholdDefault, Trend: []SpectralPoint{}},
		Metacog:  MetacogHealth{Alerts: []MetacogEntry{}, Latest: []MetacogEntry{}}, Gaps: KnowledgeGaps{Gaps: []curiosity.Gap{}}}
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
			rep.Spectral.Trend = append(rep.Spectral.Trend, SpectralPoint{RunID: r.ID, At: r.StartedAt, Trigger: r.Trigger,
				FiedlerBefore: r.FiedlerBefore, FiedlerAfter: r.FiedlerAfter, Edges: r.EdgesAfter, Memories: r.StorageAfter})
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

		// Knowledge gaps.
		rep.Gaps.Enabled = sw.enabled("curiosity")
		if rep.Gaps.Enabled {
			if err := c.gaps(ctx, q, tenant, &rep.Gaps); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

func (c *Coordinator) gaps(ctx context.Context, q *db.Queries, tenant string, out *KnowledgeGaps) error {
	recalls, err := q.AdminRecallLog(ctx, db.AdminRecallLogParams{TenantID: tenant, K: HealthRecalls})
	if err != nil {
		return interpretError("reading the recall log", err)
	}
	out.Recalls = len(recalls)
	var memIDs []int64
	for _, r := range recalls {
		memIDs = append(memIDs, r.ResultIDs[:min(len(r.ResultIDs), HealthTopResults)]...)
	}
	slices.Sort(memIDs)
	memIDs = slices.Compact(memIDs)
	names, err := q.AdminMentionNames(ctx, db.AdminMentionNamesParams{TenantID: tenant, MemoryIds: nonNil(memIDs)})
	if err != nil {
		return interpretError("reading mentioned entities", err)
	}
	entsOf := map[int64][]int64{}
	nameOf := map[int64]string{}
	for _, n := range names {
		entsOf[n.MemoryID] = append(entsOf[n.MemoryID], n.EntityID)
		nameOf[n.EntityID] = n.Name
	}
	queries := make([]curiosity.Query, len(recalls))
	topicQueries := map[int64][]int{}
	for i, r := range recalls {
		top := 0.0
		if r.TopScore != nil {
			top = clamp(*r.TopScore, 0, 1)
		}
		queries[i] = curiosity.Query{At: r.CreatedAt, Success: r.Success != nil && *r.Success, TopScore: top}
		placed := map[int64]bool{}
		for _, m := range r.ResultIDs[:min(len(r.ResultIDs), HealthTopResults)] {
			for _, e := range entsOf[m] {
				if !placed[e] {
					placed[e] = true
					topicQueries[e] = append(topicQueries[e], i)
				}
			}
		}
		if len(placed) == 0 {
			out.Unplaced++
			if len(r.ResultIDs) == 0 {
				out.Empty++
			}
		}
	}
	ents := make([]int64, 0, len(topicQueries))
	for e := range topicQueries {
		ents = append(ents, e)
	}
	slices.SortFunc(ents, func(a, b int64) int {
		return cmp.Or(cmp.Compare(len(topicQueries[b]), len(topicQueries[a])), cmp.Compare(a, b))
	})
	if len(ents) > HealthTopics {
		ents = ents[:HealthTopics]
	}
	if len(ents) == 0 {
		return nil
	}
	facts, err := q.AdminEntityFacts(ctx, db.AdminEntityFactsParams{TenantID: tenant, EntityIds: ents})
	if err != nil {
		return interpretError("counting facts per entity", err)
	}
	factOf := map[int64]db.AdminEntityFactsRow{}
	for _, f := range facts {
		factOf[f.EntityID] = f
	}
	topics := make([]curiosity.Topic, 0, len(ents))
	stats := make([]curiosity.Stats, 0, len(ents))
	for _, e := range ents {
		topics = append(topics, curiosity.Topic{ID: "e:" + strconv.FormatInt(e, 10), Label: nameOf[e], Queries: topicQueries[e]})
		f := factOf[e]
		stats = append(stats, curiosity.Stats{Facts: int(f.Facts), MeanConfidence: clamp(f.MeanConfidence, 0, 1)})
	}
	gaps, err := curiosity.Score(queries, topics, stats, nil)
	if err != nil {
		return fmt.Errorf("error scoring knowledge gaps: %w", err)
	}
	out.Gaps = gaps
	return nil
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
