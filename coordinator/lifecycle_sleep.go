package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/algorithms/budget"
	"github.com/zenbrain/zb/algorithms/consolidation"
	"github.com/zenbrain/zb/algorithms/forgetting"
	"github.com/zenbrain/zb/algorithms/hebbian"
	"github.com/zenbrain/zb/algorithms/sleep"
	"github.com/zenbrain/zb/algorithms/spectral"
	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/jobs"
	"github.com/zenbrain/zb/pma"
)

// Parameters of Sleep.
const (
	// SleepLookback is how far back the first sleep of a tenant looks for recent episodes; later
	// sleeps take the memories with activity since the previous run.
	SleepLookback = 7 * 24 * time.Hour
	// SleepMaxEpisodes is the default cap on the episodes of one run (SleepOpts.MaxEpisodes): a
	// tenant with more activity in its sleep window is covered by several runs (rounds), each
	// taking the next episodes after a cursor, until the window is exhausted.
	SleepMaxEpisodes = 2000
	// SleepRewardSaturation is the number of recalls since the last run at which an episode's
	// usefulness reward r = min(1, recalls/SleepRewardSaturation) saturates.
	SleepRewardSaturation = 3
	// SleepSpectralMaxEdges caps the entity edges (strongest first) of the spectral health
	// analysis; spectral.Analyze samples graphs above 500 nodes by BFS.
	SleepSpectralMaxEdges = 20000
)

// SleepOpts are the options of Sleep.
type SleepOpts struct {
	// Trigger is "schedule" (default), "manual" or "benchmark" (recorded in zb.sleep_run).
	Trigger string
	// Seed seeds the counterfactual generation; 0 derives it from the run's time.
	Seed int64
	// MaxEpisodes caps the episodes of this run. Defaults to SleepMaxEpisodes; at most 100000.
	MaxEpisodes int
	// Round numbers the runs of one sleep window (0: the request; a run that leaves episodes
	// of its window for later enqueues the next round). It is recorded in the run's details.
	Round int
}

// SleepReport is what one Sleep run did; the same figures are in its zb.sleep_run row.
type SleepReport struct {
	// RunID is the zb.sleep_run row (0 when the run was skipped or disabled).
	RunID int64 `json:"run_id"`
	// Skipped reports that no memory had activity since the previous run: nothing changed.
	Skipped bool `json:"skipped,omitempty"`
	// WindowFrom and WindowTo bound the activity times of the run's sleep window (from
	// exclusive); Round is SleepOpts.Round.
	WindowFrom time.Time `json:"window_from"`
	WindowTo   time.Time `json:"window_to"`
	Round      int       `json:"round"`
	// More reports that the window has more episodes than this run took: the next run (a job
	// of the next round, enqueued in this run's transaction) continues after this run's last
	// episode.
	More bool `json:"more,omitempty"`
	// Disabled reports that sim_selection_sleep and dual_process are both off for the tenant.
	Disabled bool `json:"disabled,omitempty"`
	// MetacogEvents is the number of metacognitive events recorded: every sleep run first
	// assesses the recall log with the metacognitive monitor [metacog_monitor] (0 when the
	// log did not change since the last assessment; see metacog.go).
	MetacogEvents int `json:"metacog_events,omitempty"`
	// Hyperagent reports the HyperAgent's adjustments after the monitor's signals [hyperagent];
	// nil with it off or when the monitor recorded nothing new.
	Hyperagent *HyperagentReport `json:"hyperagent,omitempty"`
	// Seed is the planner's seed.
	Seed uint32 `json:"seed"`
	// Episodes is the number of recent real episodes; Counterfactuals the generated candidates.
	Episodes        int `json:"episodes"`
	Counterfactuals int `json:"counterfactuals"`
	// Selected counts candidates with TAG ≥ 0.5.
	Selected int `json:"selected"`
	// LTP and LTD count the edges potentiated and depressed.
	LTP int `json:"ltp"`
	LTD int `json:"ltd"`
	// NewAssociations counts association links created from selected counterfactuals.
	NewAssociations int `json:"new_associations"`
	// Pruned counts edges and association links removed below the prune threshold.
	Pruned int `json:"pruned"`
	// StabilityGrown counts episodes whose stability grew; Promotions the deep copies written.
	StabilityGrown int `json:"stability_grown"`
	Promotions     int `json:"promotions"`
	// Archived counts faded, unselected episodes archived (carried or not worth keeping).
	Archived int `json:"archived"`
	// ProtectedByCopy counts the archive candidates kept because their triple-copy strength is at
	// least CopyProtectThreshold [triple_copy].
	ProtectedByCopy int `json:"protected_by_copy,omitempty"`
	// SchemasCreated counts schema memories; Consolidated the episodes they were formed from.
	SchemasCreated int `json:"schemas_created"`
	Consolidated   int `json:"consolidated"`
	// MeanStabilityBefore and MeanStabilityAfter are over the run's episodes, in days.
	MeanStabilityBefore float64 `json:"mean_stability_before"`
	MeanStabilityAfter  float64 `json:"mean_stability_after"`
	// StorageBefore and StorageAfter count the tenant's active memories.
	StorageBefore int `json:"storage_before"`
	StorageAfter  int `json:"storage_after"`
	// EdgesBefore and EdgesAfter count entity edges plus association links.
	EdgesBefore int `json:"edges_before"`
	EdgesAfter  int `json:"edges_after"`
	// FiedlerBefore and FiedlerAfter are λ₂ of the entity graph (spectral_health); Fragmented
	// flags λ₂ < 0.01 after the run.
	FiedlerBefore float64 `json:"fiedler_before"`
	FiedlerAfter  float64 `json:"fiedler_after"`
	Fragmented    bool    `json:"fragmented"`
}

type sleepEdge struct {
	entity    bool
	id        int64 // entity edge id
	src, dst  int64 // link ends
	he        hebbian.Edge
	weightNow float64
	relation  string
	newWeight float64 // damped, unclipped: decides pruning
	stored    float64 // the weight written (entity edges: ApplyDelta's clipped result)
	touched   bool
}

// Sleep runs one Simulation-Selection sleep for tenant in one transaction with hook, under a
// transaction-level advisory lock per tenant (two sleeps never overlap; the second waits):
//
//  1. The episodes are the tenant's active, decaying memories with activity (store or used
//     recall) in the run's sleep window: from the end of the previous window (SleepLookback
//     before now for the first) to now. They are taken newest first (by id, walking the
//     tenant's primary key down, so the rounds of a window read each memory at most once), at
//     most SleepOpts.MaxEpisodes per run; when more are left, the run records a cursor (its
//     last episode's id, and its activity time for information), reports More and enqueues
//     the next round (jobs.SleepArgs.Round), and the next run continues the same window after the cursor, so
//     every episode of the window is considered by exactly one run (a row another transaction
//     holds at that moment is skipped). A window is closed when a run finds it exhausted.
//     No episode → Skipped, nothing written (so a second run at once is a no-op).
//  2. sleep.NewPlan [sim_selection_sleep] gets per episode its value estimate, its reward (recalls
//     since the previous run, r = min(1, n/SleepRewardSaturation)), its retrievability, its
//     entities (N = min(1, 0.2·entities)), its emotion (with neuromodulator on), its stability,
//     faded = R < 0.1, and its successor in its session; the edges are the entity edges among
//     their entities (decayed weight now) and the association links among them.
//  3. The plan is applied: value estimates; LTP/LTD deltas through hebbian.Model.ApplyDelta on
//     entity edges (EWC-damped, two_factor_hebbian) and directly on association links; new
//     association links (relation 'associated', origin 'sleep') for selected counterfactuals;
//     stability growth and new fade times; deep-copy promotions [triple_copy]; archives of
//     faded, unselected episodes that are carried by a consolidated memory or not worth keeping
//     [ib_budget]; pruning of touched edges whose weight ends below 0.05.
//  4. Dual-process consolidation [dual_process]: the run's active episodic memories are
//     clustered (oldest first, in chunks of consolidation.MaxEpisodesDefault) and every cluster
//     becomes a schema memory with the union of their sources; the members stay active (a
//     schema adds a compact statement, it never hides the episodes it was formed from). A derive
//     job is enqueued for the schemas.
//  5. Spectral health [spectral_health]: λ₂ of the entity graph before and after.
//
// Before the episodes are read, the run that opens a window runs the tagging-and-capture sweep
// [stc_rescue] over the activity since the previous sweep; the rounds continuing a window skip
// it (it reads the tenant's memories by activity time, so once per window keeps a window's cost
// proportional to its episodes), and the run records the sweep's time in its details
// (stc_swept_at).
//
// A zb.sleep_run row records the figures of the changes made (the report's figures).
func (c *Coordinator) Sleep(ctx context.Context, tenant string, opts *SleepOpts, hook TxHook) (*SleepReport, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	o := SleepOpts{}
	if opts != nil {
		o = *opts
	}
	if o.Trigger == "" {
		o.Trigger = "schedule"
	}
	if o.Trigger != "schedule" && o.Trigger != "manual" && o.Trigger != "benchmark" {
		return nil, fmt.Errorf("%w: sleep trigger %q (schedule, manual or benchmark)", ErrInvalidInput, truncate(o.Trigger, 40))
	}
	if o.MaxEpisodes == 0 {
		o.MaxEpisodes = SleepMaxEpisodes
	}
	if o.MaxEpisodes < 1 || o.MaxEpisodes > 100000 || o.Round < 0 {
		return nil, fmt.Errorf("%w: sleep MaxEpisodes must be in [1, 100000] and Round non-negative, got %d and %d",
			ErrInvalidInput, o.MaxEpisodes, o.Round)
	}
	now := c.clock.Now()
	rep := &SleepReport{}
	seed := uint32(o.Seed) ^ uint32(uint64(o.Seed)>>32)
	if o.Seed == 0 {
		h := fnv.New32a()
		_, _ = h.Write([]byte(tenant + now.UTC().Format(time.RFC3339Nano)))
		seed = h.Sum32()
	}
	rep.Seed = seed
	err := c.lifecycleTx(ctx, tenant, hook, func(tx pgx.Tx, q *db.Queries) error {
		if err := q.LcSleepLock(ctx, tenant); err != nil {
			return err
		}
		sw, neuro, err := c.lifecyclePreamble(ctx, q, tenant, now)
		if err != nil {
			return err
		}
		w, err := c.sleepWindow(ctx, q, tenant, now)
		if err != nil {
			return err
		}
		// The tagging-and-capture sweep reads the memories activated since the previous sweep
		// (from the activation log, 0027, or the tenant for a span older than its horizon), so it
		// runs once per window, in the run that opens it; the rounds that continue a window skip
		// it. The log is pruned there too.
		sweptAt := w.sweptAt
		if !w.continuing {
			if err := c.sleepHook(ctx, q, tenant, sw, w.sweptAt, now); err != nil { // stc_rescue sweep
				return err
			}
			sweptAt = now
		}
		if rep.MetacogEvents, err = c.metacogAssess(ctx, q, tenant, sw, now); err != nil { // metacog.go
			return err
		}
		if rep.Hyperagent, err = c.hyperagentStep(ctx, q, tenant, sw, now, rep.MetacogEvents); err != nil { // hyperagent.go
			return err
		}
		if !sw.enabled("sim_selection_sleep") && !sw.enabled("dual_process") {
			rep.Disabled = true
			return nil
		}
		since := w.from
		// One row more than the run takes tells whether the window has more.
		eps, err := q.LcSleepEpisodes(ctx, db.LcSleepEpisodesParams{
			TenantID: tenant, Since: w.from, Until: w.to,
			CursorID: w.cursorID, K: int32(o.MaxEpisodes + 1),
		})
		if err != nil {
			return err
		}
		if len(eps) == 0 && w.continuing {
			// The window is exhausted (its last rows moved on): the next one starts now.
			w = sleepWin{from: w.to, to: now, cursorAt: now, cursorID: math.MaxInt64}
			since = w.from
			if eps, err = q.LcSleepEpisodes(ctx, db.LcSleepEpisodesParams{
				TenantID: tenant, Since: w.from, Until: w.to,
				CursorID: w.cursorID, K: int32(o.MaxEpisodes + 1),
			}); err != nil {
				return err
			}
		}
		rep.WindowFrom, rep.WindowTo, rep.Round = w.from, w.to, o.Round
		if len(eps) == 0 {
			rep.Skipped = true
			return nil
		}
		if err := c.neuroRecord(ctx, q, tenant, sw, now, nil, neuro); err != nil {
			return err
		}
		if rep.More = len(eps) > o.MaxEpisodes; rep.More {
			eps = eps[:o.MaxEpisodes]
		}
		if rep.StorageBefore, err = cnt(q.LcCountActive(ctx, tenant)); err != nil {
			return err
		}
		if rep.EdgesBefore, err = cnt(q.LcCountGraph(ctx, tenant)); err != nil {
			return err
		}
		if sw.enabled("spectral_health") {
			if rep.FiedlerBefore, _, err = c.fiedler(ctx, q, tenant, now); err != nil {
				return err
			}
		}
		ss := &sleeper{c: c, ctx: ctx, tx: tx, q: q, sw: sw, tenant: tenant, now: now, since: since, rep: rep}
		for _, e := range eps {
			ss.ids = append(ss.ids, e.ID)
		}
		if sw.enabled("sim_selection_sleep") {
			if err := ss.simulate(eps, seed); err != nil {
				return err
			}
		} else {
			rep.Episodes = len(eps)
			for _, e := range eps {
				rep.MeanStabilityBefore += *e.Stability / float64(len(eps))
			}
			rep.MeanStabilityAfter = rep.MeanStabilityBefore
		}
		if sw.enabled("dual_process") {
			if err := ss.schemas(); err != nil {
				return err
			}
		}
		if rep.StorageAfter, err = cnt(q.LcCountActive(ctx, tenant)); err != nil {
			return err
		}
		if rep.EdgesAfter, err = cnt(q.LcCountGraph(ctx, tenant)); err != nil {
			return err
		}
		var fb, fa *float64
		if sw.enabled("spectral_health") {
			if rep.FiedlerAfter, rep.Fragmented, err = c.fiedler(ctx, q, tenant, now); err != nil {
				return err
			}
			fb, fa = &rep.FiedlerBefore, &rep.FiedlerAfter
		}
		msb, msa := rep.MeanStabilityBefore, rep.MeanStabilityAfter
		details := map[string]any{
			"since": since, "seed": seed, "stability_grown": rep.StabilityGrown,
			"consolidated": rep.Consolidated, "fragmented": rep.Fragmented, "schemas": ss.schemaIDs, "archived_ids": ss.archived,
			"window_from": w.from, "window_to": w.to, "round": o.Round, "stc_swept_at": sweptAt,
		}
		if rep.More {
			last := eps[len(eps)-1]
			details["cursor_at"], details["cursor_id"] = last.LastAccessedAt, last.ID
			if _, err := c.river.InsertTx(ctx, tx, jobs.SleepArgs{TenantID: tenant, Trigger: o.Trigger, Round: o.Round + 1},
				jobs.LifecycleInsertOpts()); err != nil {
				return fmt.Errorf("error enqueuing the next sleep round: %w", err)
			}
		}
		id, err := q.LcSleepRunInsert(ctx, db.LcSleepRunInsertParams{
			TenantID: tenant, Trigger: o.Trigger, Seed: int64(seed), Now: now,
			Episodes: int32(rep.Episodes), Counterfactuals: int32(rep.Counterfactuals), Selected: int32(rep.Selected),
			Ltp: int32(rep.LTP), Ltd: int32(rep.LTD), NewAssociations: int32(rep.NewAssociations), Pruned: int32(rep.Pruned),
			Archived: int32(rep.Archived), Promotions: int32(rep.Promotions), Schemas: int32(rep.SchemasCreated),
			MeanStabilityBefore: &msb, MeanStabilityAfter: &msa, StorageBefore: int32(rep.StorageBefore),
			StorageAfter: int32(rep.StorageAfter), EdgesBefore: int32(rep.EdgesBefore), EdgesAfter: int32(rep.EdgesAfter),
			FiedlerBefore: fb, FiedlerAfter: fa, Details: mustJSON(details),
		})
		if err != nil {
			return err
		}
		rep.RunID = id
		return c.audit(ctx, q, tenant, "memory.sleep", nil, now, rep)
	})
	if err != nil {
		return nil, interpretError("sleeping", err)
	}
	return rep, nil
}

func cnt(n int32, err error) (int, error) { return int(n), err }

func isNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

type sleeper struct {
	c         *Coordinator
	ctx       context.Context
	tx        pgx.Tx
	q         *db.Queries
	sw        switchSet
	tenant    string
	now       time.Time
	since     time.Time
	rep       *SleepReport
	archived  []int64
	schemaIDs []int64
	ids       []int64 // the run's episodes
}

// sleepWin is a run's sleep window: activity in (from, to], ids below cursorID (cursorAt, the
// activity time of the cursor's memory, is recorded for information). sweptAt is the time of the
// previous tagging-and-capture sweep (zero before the first run).
type sleepWin struct {
	from, to   time.Time
	cursorAt   time.Time
	cursorID   int64
	continuing bool
	sweptAt    time.Time
}

// sleepWindow returns the window of a run at now: the previous run's window after its cursor
// when it left one, else the activity since the end of the previous window (its start for runs
// recorded without a window; SleepLookback for the first run).
func (c *Coordinator) sleepWindow(ctx context.Context, q *db.Queries, tenant string, now time.Time) (sleepWin, error) {
	w := sleepWin{from: now.Add(-SleepLookback), to: now, cursorAt: now, cursorID: math.MaxInt64}
	last, err := q.LcLastSleepRun(ctx, tenant)
	switch {
	case isNoRows(err):
		return w, nil
	case err != nil:
		return w, err
	}
	var d struct {
		WindowFrom *time.Time `json:"window_from"`
		WindowTo   *time.Time `json:"window_to"`
		CursorAt   *time.Time `json:"cursor_at"`
		CursorID   *int64     `json:"cursor_id"`
		SweptAt    *time.Time `json:"stc_swept_at"`
	}
	_ = json.Unmarshal(last.Details, &d)               // details of older runs have no window: their start ends it
	w.from, w.sweptAt = last.StartedAt, last.StartedAt // runs before 4 December 2026 swept every time
	if d.WindowTo != nil {
		w.from = *d.WindowTo
	}
	if d.SweptAt != nil {
		w.sweptAt = *d.SweptAt
	}
	if d.WindowFrom != nil && d.WindowTo != nil && d.CursorAt != nil && d.CursorID != nil {
		return sleepWin{
			from: *d.WindowFrom, to: *d.WindowTo, cursorAt: *d.CursorAt, cursorID: *d.CursorID, continuing: true,
			sweptAt: w.sweptAt,
		}, nil
	}
	return w, nil
}

func (s *sleeper) simulate(rows []db.LcSleepEpisodesRow, seed uint32) error {
	ctx, q, c, rep := s.ctx, s.q, s.c, s.rep
	ids := make([]int64, len(rows))
	byID := map[int64]*db.LcSleepEpisodesRow{}
	for i := range rows {
		ids[i] = rows[i].ID
		byID[rows[i].ID] = &rows[i]
	}
	ments, err := q.LcMentionsOf(ctx, db.LcMentionsOfParams{TenantID: s.tenant, MemoryIds: ids})
	if err != nil {
		return err
	}
	entsOf := map[int64][]string{}
	var allEnts []int64
	for _, m := range ments {
		entsOf[m.MemoryID] = append(entsOf[m.MemoryID], eid(m.EntityID))
		if !slices.Contains(allEnts, m.EntityID) {
			allEnts = append(allEnts, m.EntityID)
		}
	}
	recalls, err := q.LcRecallCounts(ctx, db.LcRecallCountsParams{TenantID: s.tenant, Since: s.since, Now: s.now, MemoryIds: ids})
	if err != nil {
		return err
	}
	reward := map[int64]float64{}
	for _, r := range recalls {
		reward[r.MemoryID] = min(1, float64(r.N)/SleepRewardSaturation)
	}
	// Successor in the same session, by time.
	next := map[int64]string{}
	bySession := map[string][]*db.LcSleepEpisodesRow{}
	for i := range rows {
		if rows[i].SessionID != nil {
			k := rows[i].SessionID.String()
			bySession[k] = append(bySession[k], &rows[i])
		}
	}
	for _, list := range bySession {
		slices.SortFunc(list, func(a, b *db.LcSleepEpisodesRow) int {
			if c := coalesceTime(a.OccurredAt, a.CreatedAt).Compare(coalesceTime(b.OccurredAt, b.CreatedAt)); c != 0 {
				return c
			}
			return int(a.ID - b.ID)
		})
		for i := 0; i+1 < len(list); i++ {
			next[list[i].ID] = mid(list[i+1].ID)
		}
	}
	in := sleep.Input{}
	traces := map[int64]forgetting.Trace{}
	faded := map[int64]bool{}
	for _, r := range rows {
		tr, ok := lcTrace(r.Layer, r.Stability, r.Valence, r.Arousal, r.Significance, r.LastAccessedAt)
		R := 1.0
		if ok {
			traces[r.ID] = tr
			R, _ = tr.Retrievability(s.now)
		}
		faded[r.ID] = R < forgetting.ArchiveThreshold
		rep.MeanStabilityBefore += *r.Stability / float64(len(rows))
		in.Episodes = append(in.Episodes, sleep.Episode{
			ID: mid(r.ID), Value: lcClamp(r.ValueEstimate, 0, 1e6), Reward: reward[r.ID],
			Retrievability: lcClamp(R, 0, 1), Related: len(entsOf[r.ID]), EntityIDs: entsOf[r.ID],
			Valence: lcClamp(float64(r.Valence), -1, 1), Arousal: lcClamp(float64(r.Arousal), 0, 1), Stability: *r.Stability,
			Faded: faded[r.ID], NextID: next[r.ID],
		})
	}
	// Edges: entity edges among the episodes' entities and association links among them.
	edges := map[sleep.EdgeKey]*sleepEdge{}
	key := func(a, b string) sleep.EdgeKey {
		if b < a {
			a, b = b, a
		}
		return sleep.EdgeKey{A: a, B: b}
	}
	if len(allEnts) >= 2 {
		ents, err := q.LcEdgesAmongLock(ctx, db.LcEdgesAmongLockParams{TenantID: s.tenant, EntityIds: allEnts})
		if err != nil {
			return err
		}
		for _, e := range ents {
			he := hebbian.Edge{Weight: e.Weight, Variance: e.Variance, ActivationCount: int(e.ActivationCount), LastActivated: e.LastActivatedAt}
			k := key(eid(e.SourceID), eid(e.TargetID))
			w := c.hebb.WeightAt(he, s.now)
			if old, ok := edges[k]; ok && old.weightNow >= w {
				continue // two relations between the same entities: the planner sees the stronger
			}
			edges[k] = &sleepEdge{entity: true, id: e.ID, he: he, weightNow: w, newWeight: w}
		}
	}
	links, err := q.LcLinksAmongLock(ctx, db.LcLinksAmongLockParams{TenantID: s.tenant, Relation: string(db.ZbEdgeRelationAssociated), Ids: ids})
	if err != nil {
		return err
	}
	for _, l := range links {
		edges[key(mid(l.SourceID), mid(l.TargetID))] = &sleepEdge{
			src: l.SourceID, dst: l.TargetID, weightNow: l.Weight,
			newWeight: l.Weight, relation: string(l.Relation),
		}
	}
	keys := make([]sleep.EdgeKey, 0, len(edges))
	for k := range edges {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b sleep.EdgeKey) int { return strings.Compare(a.A+"|"+a.B, b.A+"|"+b.B) })
	for _, k := range keys {
		in.Edges = append(in.Edges, sleep.Edge{A: k.A, B: k.B, Weight: edges[k].weightNow})
	}
	plan, err := sleep.NewPlan(in, &sleep.Params{Neuromodulation: s.sw.enabled("neuromodulator")}, seed)
	if err != nil {
		return err
	}
	rep.Episodes, rep.Counterfactuals, rep.Selected = plan.Summary.Real, plan.Summary.Counterfactual, plan.Summary.Selected

	// Values.
	var vIDs []int64
	var vals []float64
	for _, u := range plan.ValueUpdates {
		id, ok := parseID(u.ID)
		if r := byID[id]; ok && r != nil && lcClamp(u.After, -1e6, 1e6) != r.ValueEstimate {
			// Only changed values are written: an update rewrites every index entry of the row
			// (the embedding's HNSW entry included) unless PostgreSQL can keep it on its page.
			vIDs, vals = append(vIDs, id), append(vals, lcClamp(u.After, -1e6, 1e6))
		}
	}
	if len(vIDs) > 0 {
		if err := q.LcSetValues(ctx, db.LcSetValuesParams{TenantID: s.tenant, Ids: vIDs, Values: vals}); err != nil {
			return err
		}
	}
	// Plasticity.
	hebbOn := s.sw.enabled("two_factor_hebbian")
	for _, d := range plan.EdgeDeltas {
		e := edges[sleep.EdgeKey{A: d.A, B: d.B}]
		if e == nil {
			continue
		}
		e.touched = true
		if e.entity && hebbOn {
			// The stored weight is hebbian's ApplyDelta (EWC-damped, clipped to [0.05, 10]); the
			// prune decision uses the damped weight before the clip, so an LTD that takes a young
			// edge below 0.05 prunes it while EWC protects a mature one.
			ne, err := c.hebb.ApplyDelta(e.he, d.Delta, s.now)
			if err != nil {
				return err
			}
			e.newWeight, e.stored = e.weightNow+c.hebb.Damp(e.he, d.Delta), ne.Weight
		} else {
			e.newWeight = lcClamp(e.weightNow+d.Delta, 0, 10)
			e.stored = e.newWeight
		}
		if d.Kind == sleep.LTP {
			rep.LTP++
		} else {
			rep.LTD++
		}
	}
	prune := hebbian.PruneThresholdDefault
	var upIDs, pruneIDs []int64
	var upW []float64
	var upAt []time.Time
	for _, k := range keys {
		e := edges[k]
		switch {
		case e.newWeight < prune && (e.touched || e.weightNow < prune):
			if e.entity {
				pruneIDs = append(pruneIDs, e.id)
			} else {
				n, err := q.LcLinkDelete(ctx, db.LcLinkDeleteParams{TenantID: s.tenant, SourceID: e.src, TargetID: e.dst, Relation: e.relation})
				if err != nil {
					return err
				}
				rep.Pruned += int(n)
			}
		case e.touched && e.entity:
			upIDs, upW, upAt = append(upIDs, e.id), append(upW, lcClamp(e.stored, 0, 10)), append(upAt, s.now)
		case e.touched:
			if err := q.LcLinkSetWeight(ctx, db.LcLinkSetWeightParams{
				TenantID: s.tenant, SourceID: e.src, TargetID: e.dst,
				Relation: e.relation, Weight: lcClamp(e.newWeight, 0, 10),
			}); err != nil {
				return err
			}
		}
	}
	if len(upIDs) > 0 {
		if err := q.LcEdgeSetWeights(ctx, db.LcEdgeSetWeightsParams{TenantID: s.tenant, Ids: upIDs, Weights: upW, ActivatedAt: upAt}); err != nil {
			return err
		}
	}
	if len(pruneIDs) > 0 {
		n, err := q.LcEdgeDelete(ctx, db.LcEdgeDeleteParams{TenantID: s.tenant, Ids: pruneIDs})
		if err != nil {
			return err
		}
		rep.Pruned += int(n)
	}
	for _, ne := range plan.NewEdges {
		a, okA := parseID(ne.A)
		b, okB := parseID(ne.B)
		if !okA || !okB || a == b {
			continue
		}
		n, err := q.LcLinkInsert(ctx, db.LcLinkInsertParams{
			TenantID: s.tenant, SourceID: min(a, b), TargetID: max(a, b),
			Relation: string(db.ZbEdgeRelationAssociated), Weight: lcClamp(ne.Weight, 0, 10), Origin: "sleep", Now: s.now,
		})
		if err != nil {
			return err
		}
		rep.NewAssociations += int(n)
	}
	// Stability growth.
	newStab := map[int64]float64{}
	var sIDs []int64
	var sVals []float64
	var sFades []time.Time
	for _, u := range plan.StabilityUpdates {
		id, ok := parseID(u.ID)
		r := byID[id]
		if !ok || r == nil || !(u.After > *r.Stability) {
			continue
		}
		st := lcClamp(u.After, 1e-6, 1e6-1)
		newStab[id] = st
		fade := s.now.Add(DecayRecheckMin)
		if tr, ok := lcTrace(r.Layer, &st, r.Valence, r.Arousal, r.Significance, r.LastAccessedAt); ok {
			if f := lcFadeAt(tr); f != nil {
				fade = *f
			}
		}
		sIDs, sVals, sFades = append(sIDs, id), append(sVals, st), append(sFades, fade)
	}
	if len(sIDs) > 0 {
		if err := q.LcSetStability(ctx, db.LcSetStabilityParams{TenantID: s.tenant, Ids: sIDs, Stabilities: sVals, FadeAts: sFades}); err != nil {
			return err
		}
		rep.StabilityGrown = len(sIDs)
	}
	for _, r := range rows {
		st := *r.Stability
		if v, ok := newStab[r.ID]; ok {
			st = v
		}
		rep.MeanStabilityAfter += st / float64(len(rows))
	}
	// Deep-copy promotions.
	if s.sw.enabled("triple_copy") {
		tau := (&pma.TripleCopyConfig{}).WithDefaults().TauDeep.Seconds()
		for _, p := range plan.Promotions {
			id, ok := parseID(p.ID)
			if !ok {
				continue
			}
			if _, err := q.LcDeepCopyUpsert(ctx, db.LcDeepCopyUpsertParams{
				TenantID: s.tenant, MemoryID: id,
				Strength: lcClamp(p.TAG, 0.01, 1), TauSeconds: tau, Now: s.now,
			}); err != nil {
				return err
			}
			rep.Promotions++
		}
	}
	// Archives: faded, unselected, and carried or not worth keeping.
	var cand []int64
	for _, a := range plan.Archives {
		if id, ok := parseID(a); ok {
			cand = append(cand, id)
		}
	}
	if len(cand) > 0 {
		carried, err := q.LcCarried(ctx, db.LcCarriedParams{TenantID: s.tenant, Ids: cand})
		if err != nil {
			return err
		}
		// A memory still retrievable through its triple copies is never archived [triple_copy].
		protected, err := copyProtected(s.ctx, q, s.sw, s.tenant, cand, s.now)
		if err != nil {
			return err
		}
		for _, id := range cand {
			r := byID[id]
			if _, ok := protected[id]; ok {
				rep.ProtectedByCopy++
				continue
			}
			keep := !slices.Contains(carried, id)
			// The budget archives only derived memories that carry nothing (see DecayDue).
			if keep && s.sw.enabled("ib_budget") && r.AiGenerated && r.Carries == 0 {
				dec, err := budget.Decide(budget.Item{
					Context: r.Context, Retrievals: int(r.AccessCount), Confidence: lcClamp(r.Confidence, 0, 1),
					DaysSinceAccess: budget.DaysSince(r.LastAccessedAt, s.now), Length: utf8.RuneCountInString(r.Content),
					Entities: len(entsOf[id]), EmbeddingVariance: budget.EmbeddingVarianceUnknown,
				}, nil)
				keep = err != nil || dec.Action == budget.ActionKeep
			}
			if !keep {
				s.archived = append(s.archived, id)
			}
		}
		if len(s.archived) > 0 {
			n, err := q.LcArchive(ctx, db.LcArchiveParams{TenantID: s.tenant, Ids: s.archived, Now: s.now})
			if err != nil {
				return err
			}
			rep.Archived = int(n)
		}
	}
	return nil
}

// schemas runs dual-process consolidation over the run's active episodic memories, oldest
// first, in chunks of consolidation.MaxEpisodesDefault.
func (s *sleeper) schemas() error {
	rows, err := s.q.LcSchemaCandidates(s.ctx, db.LcSchemaCandidatesParams{TenantID: s.tenant, Ids: nonNil(s.ids)})
	if err != nil {
		return err
	}
	rows = slices.DeleteFunc(rows, func(r db.LcSchemaCandidatesRow) bool { return slices.Contains(s.archived, r.ID) || r.Embedding == nil })
	for start := 0; start < len(rows); start += consolidation.MaxEpisodesDefault {
		if err := s.schemaChunk(rows[start:min(start+consolidation.MaxEpisodesDefault, len(rows))]); err != nil {
			return err
		}
	}
	if len(s.schemaIDs) == 0 {
		return nil
	}
	return s.c.enqueueDerive(s.ctx, s.tx, jobs.DeriveArgs{TenantID: s.tenant, MemoryIDs: s.schemaIDs})
}

// schemaChunk clusters one chunk of candidates per context into schemas and consolidates their
// members.
func (s *sleeper) schemaChunk(rows []db.LcSchemaCandidatesRow) error {
	byCtx := map[string][]consolidation.Episode{}
	emb := map[string]db.LcSchemaCandidatesRow{}
	var ctxs []string
	for _, r := range rows {
		id := fmt.Sprint(r.ID)
		emb[id] = r
		if _, ok := byCtx[r.Context]; !ok {
			ctxs = append(ctxs, r.Context)
		}
		byCtx[r.Context] = append(byCtx[r.Context], consolidation.Episode{
			ID: id, Text: r.Content, Embedding: f64(r.Embedding),
			Entities: entityNames(r.Content), OccurredAt: coalesceTime(r.OccurredAt, r.CreatedAt), SourceIDs: int64Strings(r.SourceIDs),
		})
	}
	slices.Sort(ctxs)
	var members, created []int64
	for _, cx := range ctxs {
		ids, err := s.c.writeSchemas(s.ctx, s.q, s.tenant, s.now, cx, nil, byCtx[cx], func(id string) ([]float32, *string) {
			r := emb[id]
			return r.Embedding, r.EmbeddingModel
		})
		if err != nil {
			return err
		}
		created = append(created, ids...)
	}
	if len(created) == 0 {
		return nil
	}
	// The members of the new schemas are their sources that are candidates of this chunk.
	for _, id := range created {
		m, err := s.q.LcMemoryLockOne(s.ctx, db.LcMemoryLockOneParams{TenantID: s.tenant, ID: id})
		if err != nil {
			return err
		}
		for _, src := range m.SourceIDs {
			if _, ok := emb[fmt.Sprint(src)]; ok && !slices.Contains(members, src) {
				members = append(members, src)
			}
		}
	}
	s.schemaIDs = append(s.schemaIDs, created...)
	s.rep.SchemasCreated, s.rep.Consolidated = s.rep.SchemasCreated+len(created), s.rep.Consolidated+len(members)
	return nil
}

// fiedler returns λ₂ of the tenant's entity graph (decayed weights now) and the fragmentation flag.
func (c *Coordinator) fiedler(ctx context.Context, q *db.Queries, tenant string, now time.Time) (float64, bool, error) {
	rows, err := q.LcEntityGraph(ctx, db.LcEntityGraphParams{TenantID: tenant, K: SleepSpectralMaxEdges})
	if err != nil {
		return 0, false, err
	}
	edges := make([]spectral.Edge, 0, len(rows))
	for _, r := range rows {
		w := c.hebb.WeightAt(hebbian.Edge{Weight: r.Weight, Variance: r.Variance, ActivationCount: int(r.ActivationCount), LastActivated: r.LastActivatedAt}, now)
		edges = append(edges, spectral.Edge{A: eid(r.SourceID), B: eid(r.TargetID), Weight: w})
	}
	rp, err := spectral.Analyze(nil, edges, nil)
	if err != nil {
		return 0, false, nil // a numerical failure must not fail the sleep; λ₂ is reported as 0
	}
	return max(rp.Fiedler, 0), rp.Fragmented, nil
}
