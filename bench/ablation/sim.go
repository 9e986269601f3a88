package ablation

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/zenbrain/zb/algorithms/forgetting"
	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

// Start is the virtual time of day 0, 00:00 UTC. Each simulated day d runs from Start + d days:
// facts are stored at 08:00, episodes at 09:00, recall traffic from 10:00, revisions at 15:00
// and the nightly lifecycle at 23:00. Measurements run on the next morning at 08:00; the
// evaluation on the morning after the last day (Start + Days days, 08:00).
var Start = time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)

// Hours of the simulated day.
const (
	episodeHour   = 9
	trafficHour   = 10
	revisionHour  = 15
	lifecycleHour = 23
)

// StabilityFor maps a workload's base decay per day r onto the forgetting model: the
// reference harness multiplies an unrehearsed fact's strength by e^(−r) per day, our model
// gives R(t) = e^(−t/S) after t days, so a neutral semantic fact gets the initial stability
// S = 1/r days (R after one day = e^(−r), exactly the harness's daily factor). The short
// layers keep DESIGN.md §6's ratio of 1 to 7 days: episodic and short-term memories start at
// S/7. Emotional content then lasts up to three times longer (m_emo), as the model defines.
func StabilityFor(baseDecay float64) *forgetting.Params {
	long := time.Duration(float64(forgetting.Day) / baseDecay)
	return &forgetting.Params{LongStability: long, ShortStability: long / 7}
}

// Steps chooses which lifecycle jobs the nightly run calls (all of them for the ablation; the
// mechanism experiments switch some off).
type Steps struct {
	// NoReview skips ReviewDue (no FSRS reviews).
	NoReview bool `json:"no_review,omitempty"`
	// NoSleep skips Sleep.
	NoSleep bool `json:"no_sleep,omitempty"`
	// NoDecayJob skips DecayDue (no archiving, no edge decay); retrievability still decays.
	NoDecayJob bool `json:"no_decay_job,omitempty"`
	// NoTraffic skips the daily recall traffic and the revisions' trigger recalls.
	NoTraffic bool `json:"no_traffic,omitempty"`
	// NoFeedback skips the usefulness feedback after traffic recalls.
	NoFeedback bool `json:"no_feedback,omitempty"`
}

// RunSpec is one simulated run: a world, the mechanisms switched off and the lifecycle steps.
type RunSpec struct {
	// World is the generated content.
	World *World
	// Arm names the configuration in reports ("full", "-decay", "bare", ...).
	Arm string
	// Disabled are the ablation registry ids switched off for the run's tenant.
	Disabled []string
	// Steps chooses the lifecycle jobs.
	Steps Steps
	// Checkpoints are numbers of elapsed days (1..Days) after which P@5 is also measured, on
	// that morning (retention is measured every morning).
	Checkpoints []int
	// Tenant is the run's tenant id; empty derives one from the workload, seed and arm.
	Tenant string
	// Keep leaves the tenant's rows in the database after the run (for inspection).
	Keep bool
	// RecordSleeps keeps every sleep run's report in RunResult.Sleeps.
	RecordSleeps bool
	// Inspect, when set, is called after the run with the tenant's rows still in place (before
	// they are deleted), at the evaluation time.
	Inspect func(ctx context.Context, pool *pgxpool.Pool, tenant string, now time.Time) error
}

// SleepNight is one nightly sleep run's report.
type SleepNight struct {
	Day int `json:"day"`
	// Report is the coordinator's report of the run.
	Report coordinator.SleepReport `json:"report"`
}

// Counters sum what the coordinator reported over a run: each field adds up the figure of
// the same name of DeriveReport (derived, entities, reconsolidations, contradictions,
// debates), PropagateReport (updated), ReviewReport (reviewed, good + easy, vmPFC applied),
// DecayReport and SleepReport (archived), SleepReport (runs, selected, LTP, LTD, new
// associations, promotions, stability grown, schemas, consolidated), and the traffic's
// recalls and feedback calls.
type Counters struct {
	Derived          int `json:"derived"`
	Entities         int `json:"entities"`
	Reconsolidations int `json:"reconsolidations"`
	Contradictions   int `json:"contradictions"`
	Debates          int `json:"debates"`
	Propagated       int `json:"propagated"`
	Reviews          int `json:"reviews"`
	ReviewsGood      int `json:"reviews_good_easy"`
	VMPFCApplied     int `json:"vmpfc_applied"`
	Archived         int `json:"archived"`
	SleepRuns        int `json:"sleep_runs"`
	Selected         int `json:"sleep_selected"`
	LTP              int `json:"ltp"`
	LTD              int `json:"ltd"`
	NewAssociations  int `json:"new_associations"`
	Promotions       int `json:"promotions"`
	StabilityGrown   int `json:"stability_grown"`
	Schemas          int `json:"schemas"`
	Consolidated     int `json:"consolidated"`
	Recalls          int `json:"recalls"`
	Feedback         int `json:"feedback"`
	// FiedlerFirst and FiedlerLast are λ₂ of the entity graph after the first and the last
	// sleep run (spectral_health; 0 when it is off).
	FiedlerFirst float64 `json:"fiedler_first"`
	FiedlerLast  float64 `json:"fiedler_last"`
}

// Checkpoint is the state measured on the morning after Day days: retention, P@5 and NDCG@5.
type Checkpoint struct {
	Day       int     `json:"day"`
	Retention float64 `json:"retention"`
	P5        float64 `json:"p5"`
	NDCG5     float64 `json:"ndcg5"`
}

// RunResult is the outcome of one run.
type RunResult struct {
	Workload string   `json:"workload"`
	Seed     uint32   `json:"seed"`
	Arm      string   `json:"arm"`
	Disabled []string `json:"disabled,omitempty"`
	// Retention is the mean retrievability of the current units at the end (see Measure).
	Retention float64 `json:"retention"`
	// RetentionEmotional and RetentionNeutral split it over emotional and neutral facts.
	RetentionEmotional float64 `json:"retention_emotional"`
	RetentionNeutral   float64 `json:"retention_neutral"`
	// P5 is the harness's P@5 (|top 5 ∩ relevant| / min(5, |relevant|)) and NDCG5 the binary
	// NDCG@5, averaged over the evaluation queries.
	P5    float64 `json:"p5"`
	NDCG5 float64 `json:"ndcg5"`
	// Q is Retention × P5.
	Q float64 `json:"q"`
	// Timeline is the retention on the morning after each day: Timeline[i] after i+1 days.
	Timeline []float64 `json:"timeline"`
	// Checkpoints are the P@5 measurements of RunSpec.Checkpoints.
	Checkpoints []Checkpoint `json:"checkpoints,omitempty"`
	// ActiveMemories is the number of active memories at the end (storage).
	ActiveMemories int `json:"active_memories"`
	// MeanStability is the mean stability (days) of the active decaying memories at the end.
	MeanStability float64 `json:"mean_stability"`
	// Sleeps are the nightly sleep reports (RunSpec.RecordSleeps).
	Sleeps   []SleepNight `json:"sleeps,omitempty"`
	Counters Counters     `json:"counters"`
	Seconds  float64      `json:"seconds"`
	// StepSeconds is the wall time spent per step (store, derive, recall, feedback, decay,
	// review, sleep, measure, evaluate, analyze).
	StepSeconds map[string]float64 `json:"step_seconds"`
}

// Clock is a settable virtual clock for the coordinator.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// Env is what runs share: the database pool and the embedder.
type Env struct {
	// Pool is a pool on a migrated zenbrain database.
	Pool *pgxpool.Pool
	// Embedder embeds facts and queries (the offline hash embedder of the database's dimension).
	Embedder coordinator.Embedder

	// fresh, when set, makes a database of its own for one run (a copy of a migrated template).
	fresh func(ctx context.Context) (*Env, func(), error)

	tablesOnce sync.Once
	tables     []string
	tablesErr  error
}

// timed adds the time since t0 to step.
func (s *sim) timed(step string, t0 time.Time) { s.res.StepSeconds[step] += time.Since(t0).Seconds() }

// sim is one run in progress.
type sim struct {
	env    *Env
	spec   RunSpec
	w      *World
	co     *coordinator.Coordinator
	clock  *Clock
	tenant string
	res    *RunResult
	// ids maps unit keys to the memory ids stored for them.
	ids map[string]int64
}

// ErrBadSpec is returned for a run specification that cannot run.
var ErrBadSpec = errors.New("ablation: invalid run specification")

// Run simulates one run through the coordinator and returns its figures. With an Env from
// OpenDatabase (and not spec.Keep) the run has a database of its own, a copy of the migrated
// template, dropped afterwards; otherwise it runs in env's database and the tenant's rows and
// queued jobs are deleted afterwards unless spec.Keep.
func Run(ctx context.Context, env *Env, spec RunSpec) (*RunResult, error) {
	if env == nil || env.Pool == nil || env.Embedder == nil || spec.World == nil {
		return nil, fmt.Errorf("%w: Env.Pool, Env.Embedder and RunSpec.World are required", ErrBadSpec)
	}
	w := spec.World
	for _, d := range spec.Checkpoints {
		if d < 1 || d > w.Workload.Days {
			return nil, fmt.Errorf("%w: checkpoint day %d outside 1..%d", ErrBadSpec, d, w.Workload.Days)
		}
	}
	// A database of its own when env can make one (OpenDatabase's): the run starts from the
	// same empty database whatever ran before or beside it, and nothing has to be cleaned up.
	own := env.fresh != nil && !spec.Keep
	if own {
		renv, done, err := env.fresh(ctx)
		if err != nil {
			return nil, err
		}
		defer done()
		env = renv
	}
	started := time.Now()
	tenant := spec.Tenant
	if tenant == "" {
		tenant = fmt.Sprintf("ablation:%s:%d:%s", w.Workload.Name, w.Seed, spec.Arm)
	}
	clk := &Clock{t: Start}
	co, err := coordinator.New(&coordinator.Config{
		Pool: env.Pool, Embedder: env.Embedder, Clock: clk,
		Forgetting: StabilityFor(w.Workload.BaseDecay), Actor: "bench-ablation",
	})
	if err != nil {
		return nil, fmt.Errorf("error creating the coordinator: %w", err)
	}
	s := &sim{
		env: env, spec: spec, w: w, co: co, clock: clk, tenant: tenant, ids: map[string]int64{},
		res: &RunResult{
			Workload: w.Workload.Name, Seed: w.Seed, Arm: spec.Arm, Disabled: slices.Clone(spec.Disabled),
			StepSeconds: map[string]float64{},
		},
	}
	if !own {
		if err := s.reset(ctx); err != nil {
			return nil, err
		}
	}
	if !own && !spec.Keep {
		defer func() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			_ = s.reset(cctx)
		}()
	}
	if err := s.run(ctx); err != nil {
		return nil, fmt.Errorf("run %s/%d/%s: %w", w.Workload.Name, w.Seed, spec.Arm, err)
	}
	if spec.Inspect != nil {
		if err := spec.Inspect(ctx, env.Pool, tenant, clk.Now()); err != nil {
			return nil, fmt.Errorf("run %s/%d/%s: inspecting: %w", w.Workload.Name, w.Seed, spec.Arm, err)
		}
	}
	s.res.Seconds = time.Since(started).Seconds()
	return s.res, nil
}

// reset deletes the tenant (cascading to its rows) and its queued River jobs.
//
// As a superuser it deletes the tenant's rows table by table with triggers off
// (session_replication_role = replica): the cascade from zb.tenant runs a foreign-key trigger per
// deleted row and referencing table — ≈ 20 000 single-row statements for a stress run's tenant,
// 0.3 s a run in a parallel grid — where one set-based DELETE per table does the same. Every
// table of schema zb with a tenant_id column is emptied of the tenant, so no row is left to
// reference a deleted one. Other roles take the cascade.
func (s *sim) reset(ctx context.Context) error {
	if _, err := s.env.Pool.Exec(ctx, "DELETE FROM river.river_job WHERE args ->> 'tenant_id' = $1", s.tenant); err != nil {
		return fmt.Errorf("error deleting the River jobs of %s: %w", s.tenant, err)
	}
	tables, err := s.env.tenantTables(ctx)
	if err != nil {
		return err
	}
	if len(tables) > 0 {
		err := pgx.BeginFunc(ctx, s.env.Pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
				return err
			}
			for _, t := range tables {
				if _, err := tx.Exec(ctx, "DELETE FROM "+t+" WHERE tenant_id = $1", s.tenant); err != nil {
					return err
				}
			}
			_, err := tx.Exec(ctx, "DELETE FROM zb.tenant WHERE id = $1", s.tenant)
			return err
		})
		if err != nil {
			return fmt.Errorf("error deleting tenant %s: %w", s.tenant, err)
		}
		return nil
	}
	if _, err := s.env.Pool.Exec(ctx, "DELETE FROM zb.tenant WHERE id = $1", s.tenant); err != nil {
		return fmt.Errorf("error deleting tenant %s: %w", s.tenant, err)
	}
	return nil
}

// tenantTables returns, for a superuser, the tables of schema zb with a tenant_id column (quoted,
// children before parents: zb.memory last), and nothing for other roles. Read once per Env.
func (e *Env) tenantTables(ctx context.Context) ([]string, error) {
	e.tablesOnce.Do(func() {
		var super bool
		if e.tablesErr = e.Pool.QueryRow(ctx, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&super); e.tablesErr != nil || !super {
			return
		}
		rows, err := e.Pool.Query(ctx, `SELECT format('%I.%I', n.nspname, c.relname)
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid
			WHERE n.nspname = 'zb' AND c.relkind IN ('r', 'p') AND a.attname = 'tenant_id' AND NOT a.attisdropped
			ORDER BY c.relname = 'memory', c.relname`)
		if err != nil {
			e.tablesErr = err
			return
		}
		e.tables, e.tablesErr = pgx.CollectRows(rows, pgx.RowTo[string])
	})
	if e.tablesErr != nil {
		return nil, fmt.Errorf("error listing the tenant tables: %w", e.tablesErr)
	}
	return e.tables, nil
}

func at(day, hour, minute int) time.Time {
	return Start.Add(time.Duration(day)*forgetting.Day + time.Duration(hour)*time.Hour + time.Duration(minute)*time.Minute)
}

func (s *sim) run(ctx context.Context) error {
	w := s.w
	for _, id := range s.spec.Disabled {
		if err := s.co.SetAlgorithm(ctx, s.tenant, id, false); err != nil {
			return err
		}
	}
	checkpoints := map[int]bool{}
	for _, d := range s.spec.Checkpoints {
		checkpoints[d] = true
	}
	for d := 0; d < w.Workload.Days; d++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.day(ctx, d); err != nil {
			return fmt.Errorf("day %d: %w", d, err)
		}
		if d == 0 {
			if err := s.analyze(ctx); err != nil {
				return err
			}
		}
		// The morning after day d: d+1 days have passed.
		morning := at(d+1, episodeHour-1, 0)
		s.clock.Set(morning)
		st, err := s.measure(ctx, morning, d)
		if err != nil {
			return err
		}
		s.res.Timeline = append(s.res.Timeline, st.retention)
		final := d == w.Workload.Days-1
		if !checkpoints[d+1] && !final {
			continue
		}
		cp, err := s.evaluate(ctx, morning, d, st)
		if err != nil {
			return err
		}
		if checkpoints[d+1] {
			s.res.Checkpoints = append(s.res.Checkpoints, cp)
		}
		if final {
			s.res.Retention, s.res.P5, s.res.NDCG5 = cp.Retention, cp.P5, cp.NDCG5
			s.res.Q = cp.Retention * cp.P5
			s.res.RetentionEmotional, s.res.RetentionNeutral = st.emotional, st.neutral
			s.res.ActiveMemories, s.res.MeanStability = st.active, st.meanStability
		}
	}
	return nil
}

// analyzedTables are the tables a run fills whose planner statistics analyze refreshes.
const analyzedTables = "zb.memory, zb.memory_fade, zb.review_state, zb.mention, zb.edge, zb.recall_event"

// analyze refreshes the planner statistics of the tables the run fills, after the first day.
// A live system's autovacuum does this a minute or so after a tenant's bulk load; the virtual
// clock runs sixty days in seconds, and the runs' tenants come and go, so without it the
// statistics never know the running tenants (a tenant missing from them is
// estimated at one row, and primary-key lookups lose to scans of the whole tenant: the review
// candidates took 31 ms a call in a parallel grid against 3.6 ms alone). It changes plans, not
// results. A role that does not own the tables only gets warnings.
func (s *sim) analyze(ctx context.Context) error {
	defer s.timed("analyze", time.Now())
	// A sample of 3 000 rows (statistics target 10) is plenty to know the running tenants; the
	// default 30 000 made each call cost 0.75 s in a parallel grid.
	err := pgx.BeginFunc(ctx, s.env.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL default_statistics_target = 10"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "ANALYZE "+analyzedTables)
		return err
	})
	if err != nil {
		return fmt.Errorf("error analyzing: %w", err)
	}
	return nil
}

// day runs simulated day d: its episodes, recall traffic, revisions and the nightly lifecycle.
func (s *sim) day(ctx context.Context, d int) error {
	w := s.w
	// 08:00: the day's facts (all of them on day 0 unless they arrive daily).
	var items []coordinator.StoreInput
	for _, f := range w.Facts {
		if f.Day == d {
			items = append(items, coordinator.StoreInput{
				TenantID: s.tenant, Content: f.Text, Layer: coordinator.LayerSemantic,
				Kind: "fact", ExternalID: f.Key,
			})
		}
	}
	if len(items) > 0 {
		s.clock.Set(at(d, episodeHour-1, 0))
		t0 := time.Now()
		if _, err := s.co.StoreBatch(ctx, items); err != nil {
			return fmt.Errorf("error storing the facts: %w", err)
		}
		s.timed("store", t0)
		if err := s.derive(ctx); err != nil {
			return err
		}
	}
	var eps []coordinator.StoreInput
	for _, e := range w.Episodes {
		if e.Day == d {
			occ := at(d, episodeHour, 0)
			eps = append(eps, coordinator.StoreInput{
				TenantID: s.tenant, Content: e.Text, Layer: coordinator.LayerEpisodic,
				Kind: "episode", ExternalID: e.Key, OccurredAt: &occ,
			})
		}
	}
	if len(eps) > 0 {
		s.clock.Set(at(d, episodeHour, 0))
		t0 := time.Now()
		if _, err := s.co.StoreBatch(ctx, eps); err != nil {
			return fmt.Errorf("error storing episodes: %w", err)
		}
		s.timed("store", t0)
		if err := s.derive(ctx); err != nil {
			return err
		}
	}
	if !s.spec.Steps.NoTraffic {
		for i, qi := range w.Traffic[d] {
			s.clock.Set(at(d, trafficHour, 5*i))
			if err := s.ask(ctx, qi, d-1); err != nil {
				return err
			}
		}
	}
	// Revisions: the old fact is recalled (it becomes labile), two minutes later the new value
	// arrives.
	n := 0
	for _, f := range w.Facts {
		if f.Revision == nil || f.Revision.Day != d {
			continue
		}
		if !s.spec.Steps.NoTraffic {
			s.clock.Set(at(d, revisionHour, 10*n))
			if err := s.ask(ctx, f.Revision.Query, d-1); err != nil {
				return err
			}
		}
		s.clock.Set(at(d, revisionHour, 10*n+2))
		t0 := time.Now()
		if _, err := s.co.Store(ctx, coordinator.StoreInput{
			TenantID: s.tenant, Content: f.Revision.Text,
			Layer: coordinator.LayerSemantic, Kind: "fact", ExternalID: f.Revision.Key,
		}); err != nil {
			return fmt.Errorf("error storing revision %s: %w", f.Revision.Key, err)
		}
		s.timed("store", t0)
		if err := s.derive(ctx); err != nil {
			return err
		}
		n++
	}
	s.clock.Set(at(d, lifecycleHour, 0))
	return s.lifecycle(ctx, d)
}

// ask recalls query qi with side effects (the agent's traffic) and reports the results that
// answer it as used (Feedback), as an agent does with the memories it used. The targets are
// the versions current at the end of day asOf.
func (s *sim) ask(ctx context.Context, qi, asOf int) error {
	q := s.w.Queries[qi]
	t0 := time.Now()
	res, err := s.co.Recall(ctx, s.tenant, q.Text, &coordinator.RecallOpts{K: 5})
	if err != nil {
		return fmt.Errorf("error recalling %q: %w", q.Text, err)
	}
	s.timed("recall", t0)
	defer s.timed("feedback", time.Now())
	s.res.Counters.Recalls++
	if s.spec.Steps.NoFeedback {
		return nil
	}
	targets := map[string]bool{}
	for _, t := range q.Targets {
		targets[s.w.Current(t, max(asOf, 0))] = true
	}
	for _, r := range res.Results {
		if !s.carriesAny(r.Content, r.Provenance.ExternalID, targets) {
			continue
		}
		if _, err := s.co.Feedback(ctx, s.tenant, r.ID, true); err != nil {
			if errors.Is(err, coordinator.ErrNotFound) {
				continue
			}
			return fmt.Errorf("error recording feedback: %w", err)
		}
		s.res.Counters.Feedback++
	}
	return nil
}

// carriesAny reports whether a memory with this content and external id carries one of the
// target units (its own key, or a target's value phrase in its content). Traffic uses it on
// the recall result alone (an agent sees the text); the evaluation also follows provenance.
func (s *sim) carriesAny(content, ext string, targets map[string]bool) bool {
	if targets[ext] {
		return true
	}
	for _, u := range s.units(content) {
		if targets[u] {
			return true
		}
	}
	return false
}

// units returns the unit keys whose value phrase occurs in content.
func (s *sim) units(content string) []string {
	idx := s.valueIndex()
	toks := textproc.Tokens(content)
	var out []string
	for i := 0; i+1 < len(toks); i++ {
		if k, ok := idx[toks[i]+" "+toks[i+1]]; ok && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

var valueIndexes sync.Map // *World → map[string]string

// valueIndex maps each unit's value phrase (lower case) to its key.
func (s *sim) valueIndex() map[string]string {
	if v, ok := valueIndexes.Load(s.w); ok {
		return v.(map[string]string)
	}
	m := map[string]string{}
	for _, f := range s.w.Facts {
		m[strings.ToLower(f.Value)] = f.Key
		if f.Revision != nil {
			m[strings.ToLower(f.Revision.Value)] = f.Revision.Key
		}
	}
	for _, e := range s.w.Episodes {
		m[strings.ToLower(e.Value)] = e.Key
	}
	v, _ := valueIndexes.LoadOrStore(s.w, m)
	return v.(map[string]string)
}

// derive runs the derive jobs the worker would run after a store (all pending memories), then
// the propagation jobs they enqueued, and marks the tenant's queued derive jobs done.
func (s *sim) derive(ctx context.Context) error {
	defer s.timed("derive", time.Now())
	for i := 0; i < 1000; i++ {
		r, err := s.co.Derive(ctx, jobs.DeriveArgs{TenantID: s.tenant, Pending: true}, nil)
		if err != nil {
			return fmt.Errorf("error deriving: %w", err)
		}
		c := &s.res.Counters
		c.Derived += len(r.Derived)
		c.Entities += r.Entities
		c.Reconsolidations += r.Reconsolidations
		c.Contradictions += r.Contradictions
		c.Debates += r.Debates
		if !r.More || len(r.Derived) == 0 {
			break
		}
	}
	return s.drainJobs(ctx)
}

// drainJobs works the tenant's queued propagation jobs through Propagate (as the worker does)
// and removes the tenant's queued jobs, whose work the simulation has done.
func (s *sim) drainJobs(ctx context.Context) error {
	rows, err := s.env.Pool.Query(ctx, `SELECT args FROM river.river_job WHERE kind = $1 AND args ->> 'tenant_id' = $2
		AND state IN ('available', 'scheduled', 'retryable') ORDER BY id`, jobs.KindPropagate, s.tenant)
	if err != nil {
		return fmt.Errorf("error reading queued propagation jobs: %w", err)
	}
	var batches [][]int64
	for rows.Next() {
		var a jobs.PropagateArgs
		if err := rows.Scan(&a); err != nil {
			rows.Close()
			return fmt.Errorf("error reading a propagation job: %w", err)
		}
		batches = append(batches, a.MemoryIDs)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("error reading queued propagation jobs: %w", err)
	}
	for _, ids := range batches {
		if len(ids) > coordinator.PropagateMaxNodes {
			ids = ids[:coordinator.PropagateMaxNodes]
		}
		r, err := s.co.Propagate(ctx, s.tenant, ids, nil)
		if err != nil {
			return fmt.Errorf("error propagating: %w", err)
		}
		s.res.Counters.Propagated += r.Updated
	}
	if _, err := s.env.Pool.Exec(ctx, "DELETE FROM river.river_job WHERE args ->> 'tenant_id' = $1", s.tenant); err != nil {
		return fmt.Errorf("error removing the done jobs: %w", err)
	}
	return nil
}

// lifecycle is the nightly work of the worker for the tenant, through the coordinator's entry
// points in the order of zbsystem.CoordinatorLifecycle: derive (and propagation), decay,
// reviews, one Simulation-Selection sleep (seeded per seed and day, so every arm of a seed
// sees the same draws), and derive again for the schemas sleep created.
func (s *sim) lifecycle(ctx context.Context, d int) error {
	if err := s.derive(ctx); err != nil {
		return err
	}
	c := &s.res.Counters
	if !s.spec.Steps.NoDecayJob {
		t0 := time.Now()
		for i := 0; i < 100; i++ {
			r, err := s.co.DecayDue(ctx, s.tenant, 0, nil)
			if err != nil {
				return fmt.Errorf("error running decay: %w", err)
			}
			c.Archived += len(r.Archived)
			if !r.More {
				break
			}
		}
		s.timed("decay", t0)
	}
	if !s.spec.Steps.NoReview {
		t0 := time.Now()
		for i := 0; i < 100; i++ {
			r, err := s.co.ReviewDue(ctx, s.tenant, 0, nil)
			if err != nil {
				return fmt.Errorf("error running reviews: %w", err)
			}
			c.Reviews += r.Reviewed
			c.ReviewsGood += r.Good + r.Easy
			c.VMPFCApplied += r.VMPFCApplied
			if !r.More {
				break
			}
		}
		s.timed("review", t0)
	}
	if !s.spec.Steps.NoSleep {
		t0 := time.Now()
		h := fnv.New64a()
		fmt.Fprintf(h, "%s/%d/%d", s.w.Workload.Name, s.w.Seed, d)
		r, err := s.co.Sleep(ctx, s.tenant, &coordinator.SleepOpts{Trigger: "benchmark", Seed: int64(h.Sum64() >> 1)}, nil)
		if err != nil {
			return fmt.Errorf("error running sleep: %w", err)
		}
		if s.spec.RecordSleeps {
			s.res.Sleeps = append(s.res.Sleeps, SleepNight{Day: d, Report: *r})
		}
		if r.RunID > 0 {
			c.SleepRuns++
			if c.SleepRuns == 1 {
				c.FiedlerFirst = r.FiedlerAfter
			}
			c.FiedlerLast = r.FiedlerAfter
		}
		c.Selected += r.Selected
		c.LTP += r.LTP
		c.LTD += r.LTD
		c.NewAssociations += r.NewAssociations
		c.Promotions += r.Promotions
		c.StabilityGrown += r.StabilityGrown
		c.Schemas += r.SchemasCreated
		c.Consolidated += r.Consolidated
		c.Archived += r.Archived
		s.timed("sleep", t0)
		if err := s.derive(ctx); err != nil {
			return err
		}
	}
	return nil
}

// memState is one memory as the measurement reads it.
type memState struct {
	id        int64
	ext       string
	status    string
	layer     string
	content   string
	sources   []int64
	stability *float64
	last      time.Time
	v, a, sig float32
}

// state is the measured state of the tenant at one time.
type state struct {
	retention, emotional, neutral float64
	active                        int
	meanStability                 float64
	// carriers maps each unit to the retrievability of its best active carrier.
	unitR map[string]float64
	// unitsOf maps memory ids to the units they carry.
	unitsOf map[int64][]string
}

// measure reads the tenant's memories and computes, for every unit current at the end of day
// asOf, the retrievability of its best carrier now. A memory carries a unit when it is the
// unit's own memory (external id), when its content holds the unit's value phrase, or when one
// of its sources carries it (provenance, followed recursively: a schema carries the episodes
// it consolidated). Only active memories are in default recall, so only they count; archived
// and consolidated memories carry nothing themselves. R is the forgetting model's
// retrievability (1 for core, and 1 for every memory when decay is switched off: the system
// then forgets nothing).
func (s *sim) measure(ctx context.Context, now time.Time, asOf int) (*state, error) {
	defer s.timed("measure", time.Now())
	rows, err := s.env.Pool.Query(ctx, `SELECT id, coalesce(external_id, ''), status::text, layer::text, content, source_ids,
		stability, last_accessed_at, valence, arousal, significance FROM zb.memory WHERE tenant_id = $1 AND status <> 'erased'
		ORDER BY id`, s.tenant)
	if err != nil {
		return nil, fmt.Errorf("error reading memories: %w", err)
	}
	var ms []memState
	for rows.Next() {
		var m memState
		if err := rows.Scan(&m.id, &m.ext, &m.status, &m.layer, &m.content, &m.sources, &m.stability, &m.last, &m.v, &m.a, &m.sig); err != nil {
			rows.Close()
			return nil, fmt.Errorf("error reading memories: %w", err)
		}
		ms = append(ms, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("error reading memories: %w", err)
	}
	decayOff := slices.Contains(s.spec.Disabled, "decay")
	byID := make(map[int64]*memState, len(ms))
	for i := range ms {
		byID[ms[i].id] = &ms[i]
	}
	st := &state{unitR: map[string]float64{}, unitsOf: map[int64][]string{}}
	var carried func(id int64, depth int) []string
	carried = func(id int64, depth int) []string {
		if u, ok := st.unitsOf[id]; ok {
			return u
		}
		m := byID[id]
		if m == nil || depth > 8 {
			return nil
		}
		st.unitsOf[id] = nil // cycle guard
		var u []string
		if m.ext != "" {
			u = append(u, m.ext)
		}
		for _, k := range s.units(m.content) {
			if !slices.Contains(u, k) {
				u = append(u, k)
			}
		}
		for _, src := range m.sources {
			for _, k := range carried(src, depth+1) {
				if !slices.Contains(u, k) {
					u = append(u, k)
				}
			}
		}
		st.unitsOf[id] = u
		return u
	}
	nStab := 0
	for i := range ms {
		m := &ms[i]
		units := carried(m.id, 0)
		if m.status != "active" {
			continue
		}
		st.active++
		if m.stability != nil {
			st.meanStability += *m.stability
			nStab++
		}
		r := 1.0
		if !decayOff {
			r = retrievability(m, now)
		}
		for _, u := range units {
			st.unitR[u] = math.Max(st.unitR[u], r)
		}
	}
	st.meanStability = ratio(st.meanStability, nStab)
	var sum, se, sn float64
	var n, ne, nn int
	for _, u := range s.w.Units(asOf) {
		r := st.unitR[u]
		sum, n = sum+r, n+1
		if strings.HasPrefix(u, "f") {
			if s.w.Emotional(u) {
				se, ne = se+r, ne+1
			} else {
				sn, nn = sn+r, nn+1
			}
		}
	}
	st.retention, st.emotional, st.neutral = ratio(sum, n), ratio(se, ne), ratio(sn, nn)
	return st, nil
}

func ratio(a float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return a / float64(n)
}

// retrievability is R(now) of the forgetting model from a memory's stored state (1 for core).
func retrievability(m *memState, now time.Time) float64 {
	if m.stability == nil || !(*m.stability > 0) {
		return 1
	}
	clamp := func(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }
	mEmo, err := forgetting.EmotionalMultiplier(clamp(float64(m.v), -1, 1), clamp(float64(m.a), 0, 1), clamp(float64(m.sig), 0, 1))
	if err != nil {
		mEmo = 1
	}
	tr := forgetting.Trace{
		Layer: forgetting.Layer(m.layer), Stability: time.Duration(*m.stability * float64(forgetting.Day)),
		EmotionalMultiplier: mEmo, LastAccess: m.last,
	}
	r, err := tr.Retrievability(now)
	if err != nil {
		return 0
	}
	return r
}

// evaluate scores the evaluation queries read-only at now against the versions current at the
// end of day asOf: P@5 as the harness defines it (distinct relevant units among the top 5 over
// min(5, |relevant|)) and binary NDCG@5. A result answers for the units it carries (st).
func (s *sim) evaluate(ctx context.Context, now time.Time, asOf int, st *state) (Checkpoint, error) {
	defer s.timed("evaluate", time.Now())
	s.clock.Set(now)
	var p5, ndcg float64
	n := 0
	for _, qi := range s.w.Eval {
		q := s.w.Queries[qi]
		if q.FromDay > asOf {
			continue
		}
		res, err := s.co.Recall(ctx, s.tenant, q.Text, &coordinator.RecallOpts{K: 5, ReadOnly: true})
		if err != nil {
			return Checkpoint{}, fmt.Errorf("error recalling %q: %w", q.Text, err)
		}
		rel := map[string]bool{}
		for _, t := range q.Targets {
			rel[s.w.Current(t, asOf)] = true
		}
		found := map[string]bool{}
		dcg := 0.0
		for i, r := range res.Results {
			gain := 0.0
			for _, u := range st.unitsOf[r.ID] {
				if rel[u] && !found[u] {
					found[u], gain = true, 1
				}
			}
			dcg += gain / math.Log2(float64(i)+2)
		}
		ideal := 0.0
		for i := 0; i < min(5, len(rel)); i++ {
			ideal += 1 / math.Log2(float64(i)+2)
		}
		p5 += float64(len(found)) / float64(min(5, len(rel)))
		ndcg += math.Min(1, dcg/ideal)
		n++
	}
	return Checkpoint{Day: asOf + 1, Retention: st.retention, P5: ratio(p5, n), NDCG5: ratio(ndcg, n)}, nil
}
