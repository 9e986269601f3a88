package ablation

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/zenbrain/zb/algorithms/simstat"
	"github.com/zenbrain/zb/coordinator"
)

// Arm is one configuration of the ablation: the registry ids switched off.
type Arm struct {
	// Name identifies it: "full", "-<id>", "no-pma" or "bare".
	Name string `json:"name"`
	// Disabled are the ids switched off.
	Disabled []string `json:"disabled,omitempty"`
}

// Arm names.
const (
	// ArmFull is the system with every mechanism on.
	ArmFull = "full"
	// ArmNoPMA switches off the six PMA components (the harness's "No PMA" and the cascade's
	// "NeurIPS-only").
	ArmNoPMA = "no-pma"
	// ArmBare switches off every mechanism except the forgetting model itself: the workload's
	// base decay is the substrate the mechanisms act on, as in the harness, whose "no
	// algorithms" configuration still decays.
	ArmBare = "bare"
)

// PMAIDs are the six PMA components of DESIGN.md §6.
var PMAIDs = []string{"neuromodulator", "reconsolidation", "triple_copy", "priority_map", "stability_protector", "metacog_monitor"}

// HarnessIDs are the fifteen mechanisms the reference harness ablates (notes §7.3), as
// registry ids.
var HarnessIDs = []string{
	"two_factor_hebbian", "sim_selection_sleep", "vmpfc_fsrs", "ib_budget", "dual_process",
	"neuromodulator", "reconsolidation", "triple_copy", "priority_map", "stability_protector", "imad_debate",
	"spectral_health", "compositional_context", "hyperagent", "metacog_monitor",
}

// ArmRemove returns the arm without mechanism id.
func ArmRemove(id string) Arm { return Arm{Name: "-" + id, Disabled: []string{id}} }

// DefaultArms returns full, one removal per registry id, no-pma and bare.
func DefaultArms() []Arm {
	arms := []Arm{{Name: ArmFull}}
	for _, id := range coordinator.AlgorithmIDs() {
		arms = append(arms, ArmRemove(id))
	}
	return append(arms, Arm{Name: ArmNoPMA, Disabled: slices.Clone(PMAIDs)}, BareArm())
}

// BareArm switches off every registry id but decay.
func BareArm() Arm {
	var ids []string
	for _, id := range coordinator.AlgorithmIDs() {
		if id != "decay" {
			ids = append(ids, id)
		}
	}
	return Arm{Name: ArmBare, Disabled: ids}
}

// CascadeArms are the integration cascade's configurations: full, no-pma (the harness's
// "NeurIPS-only"), bare, without sleep and without the neuromodulator.
func CascadeArms() []Arm {
	return []Arm{
		{Name: ArmFull},
		{Name: ArmNoPMA, Disabled: slices.Clone(PMAIDs)},
		BareArm(),
		ArmRemove("sim_selection_sleep"), ArmRemove("neuromodulator"),
	}
}

// Suite defaults.
const (
	// ParallelDefault is the default number of runs in flight.
	ParallelDefault = 3
	// EvalQueriesDefault is the default number of queries scored at the end of a run.
	EvalQueriesDefault = 40
	// AlphaDefault is the significance level of the measurable-effect verdict.
	AlphaDefault = 0.05
	// MinEffectDefault is the smallest |ΔQ| counted as an effect (1 %).
	MinEffectDefault = 0.01
)

// SuiteConfig configures [RunSuite]. Zero fields take their defaults.
type SuiteConfig struct {
	// Env is the database and embedder. Required.
	Env *Env
	// Workloads are the conditions. Nil means Workloads(): moderate, challenging and stress with
	// DefaultArms, and the cascade with CascadeArms.
	Workloads []Workload
	// Seeds are the seeds. Nil means simstat.Seeds (the harness's ten).
	Seeds []uint32
	// Arms overrides the arms of every non-cascade workload. Nil means DefaultArms.
	Arms []Arm
	// Parallel is the number of runs in flight. Defaults to ParallelDefault.
	Parallel int
	// QueriesPerDay overrides every workload's recall traffic. 0 means QueriesPerDayDefault.
	QueriesPerDay int
	// EvalQueries caps the queries scored per run. 0 means EvalQueriesDefault; −1 scores all.
	EvalQueries int
	// Progress receives a progress bar (a terminal) or, with PlainProgress, one line per run.
	// Nil is silent.
	Progress io.Writer
	// PlainProgress writes plain progress lines instead of a bar (for log files).
	PlainProgress bool
	// Logger receives run errors and summaries. Defaults to a discarding logger.
	Logger *slog.Logger
	// RunLog is a JSON-lines file of finished runs: runs logged with the same settings are not
	// run again, new ones are appended as they finish. Empty keeps no log.
	RunLog string
	// ReportOnly aggregates the runs found in RunLog and runs nothing.
	ReportOnly bool
	// SkipIdenticalAfter, when positive, screens arms: an arm whose runs on the first
	// SkipIdenticalAfter seeds went through exactly the full system's states (every day's
	// retention, P@5, NDCG@5, storage, mean stability) in every workload is not run on the
	// later seeds, and is reported as identical on the seeds it ran. 0 runs everything.
	SkipIdenticalAfter int
}

// Results are the figures of one suite run.
type Results struct {
	Started  time.Time `json:"started"`
	Seconds  float64   `json:"seconds"`
	Machine  Machine   `json:"machine"`
	Settings Settings  `json:"settings"`
	// FromLog reports that the figures were rebuilt from a run log (ReportOnly): Started and
	// Seconds are the rebuild's, and each run's own time is its Seconds.
	FromLog bool `json:"from_log,omitempty"`
	// Runs are every run's figures, in workload, seed and arm order.
	Runs []RunResult `json:"runs"`
	// Summaries aggregate the runs per workload and arm.
	Summaries []ArmSummary `json:"summaries"`
	// Mechanisms give each registry id's verdict over the conditions.
	Mechanisms []MechanismVerdict `json:"mechanisms"`
	// Cascade holds the integration cascade's tests, when it ran.
	Cascade *CascadeSummary `json:"cascade,omitempty"`
}

// Machine describes where the suite ran.
type Machine struct {
	GoOS          string `json:"goos"`
	GoArch        string `json:"goarch"`
	CPUs          int    `json:"cpus"`
	ServerVersion string `json:"server_version,omitempty"`
	Store         string `json:"store"`
}

// Settings are the suite's parameters.
type Settings struct {
	Workloads     []Workload       `json:"workloads"`
	Seeds         []uint32         `json:"seeds"`
	Arms          map[string][]Arm `json:"arms"`
	Parallel      int              `json:"parallel"`
	EmbeddingDim  int              `json:"embedding_dim"`
	Embedder      string           `json:"embedder"`
	QueriesPerDay int              `json:"queries_per_day"`
	EvalQueries   int              `json:"eval_queries"`
	Alpha         float64          `json:"alpha"`
	MinEffect     float64          `json:"min_effect"`
	// SkipIdenticalAfter is the screening of SuiteConfig (0: none).
	SkipIdenticalAfter int `json:"skip_identical_after"`
}

// Stat is a mean with its sample standard deviation and seeded bootstrap 95 % CI.
type Stat struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	Low  float64 `json:"ci_low"`
	High float64 `json:"ci_high"`
}

// ArmSummary aggregates one arm of one workload over the seeds.
type ArmSummary struct {
	Workload  string `json:"workload"`
	Arm       string `json:"arm"`
	Seeds     int    `json:"seeds"`
	Retention Stat   `json:"retention"`
	P5        Stat   `json:"p5"`
	NDCG5     Stat   `json:"ndcg5"`
	Q         Stat   `json:"q"`
	// DeltaQ is (mean Q − mean Q of full) / mean Q of full; DeltaRetention and DeltaP5 the
	// same for retention and P@5.
	DeltaQ         float64 `json:"delta_q"`
	DeltaRetention float64 `json:"delta_retention"`
	DeltaP5        float64 `json:"delta_p5"`
	// P is the two-sided Wilcoxon signed-rank p of the per-seed Q against full (1 when every
	// difference is zero); Method says how it was computed.
	P      float64 `json:"p"`
	Method string  `json:"method,omitempty"`
	// PRetention and PP5 are the same test on retention and on P@5.
	PRetention float64 `json:"p_retention"`
	PP5        float64 `json:"p_p5"`
	// CohenD is Cohen's d of Q (this arm against full).
	CohenD float64 `json:"cohen_d"`
	// Skipped is the number of seeds not run (screened out as identical, or not run yet).
	Skipped int `json:"skipped,omitempty"`
	// Identical reports that every seed gave exactly full's Q, retention, P@5 and NDCG@5.
	Identical bool `json:"identical"`
	// Measurable reports |ΔQ| ≥ MinEffect with p ≤ Alpha.
	Measurable bool `json:"measurable"`
	// Seconds is the mean wall time of a run.
	Seconds float64 `json:"seconds"`
}

// MechanismVerdict is one registry id's result over the workloads.
type MechanismVerdict struct {
	ID string `json:"id"`
	// Harness reports whether the reference harness ablates it (one of its fifteen).
	Harness bool `json:"harness"`
	// Best is the workload with the largest |ΔQ| among the significant ones (else the largest
	// |ΔQ|), with its ΔQ, p and d.
	Best   string  `json:"best_workload"`
	DeltaQ float64 `json:"delta_q"`
	P      float64 `json:"p"`
	CohenD float64 `json:"cohen_d"`
	// Measurable reports a measurable effect on Q in at least one workload.
	Measurable bool `json:"measurable"`
	// Identical reports that its removal gave exactly the full system's figures in every run.
	Identical bool `json:"identical"`
}

// CascadeSummary holds the integration cascade's tests (notes §7.4) on the real system.
type CascadeSummary struct {
	// Days are the timeline checkpoints; Timeline maps arms to their mean retention there.
	Days     []int                `json:"days"`
	Timeline map[string][]float64 `json:"timeline"`
	// EmotionalFull and NeutralFull are the full system's retention of emotional and neutral
	// facts at the end, with the Wilcoxon p of the per-seed pairs.
	EmotionalFull float64 `json:"emotional_full"`
	NeutralFull   float64 `json:"neutral_full"`
	EmotionalP    float64 `json:"emotional_p"`
	// FullOverBare, FullOverNoPMA and SleepFactor are ratios of mean final retention (full
	// against bare, against no-pma, against without sleep), each with its Wilcoxon p.
	FullOverBare  float64 `json:"full_over_bare"`
	FullOverBareP float64 `json:"full_over_bare_p"`
	FullOverNoPMA float64 `json:"full_over_no_pma"`
	FullOverNoPMP float64 `json:"full_over_no_pma_p"`
	SleepFactor   float64 `json:"sleep_factor"`
	SleepP        float64 `json:"sleep_p"`
	// Day30FullOverNoNM is full's retention over the arm without neuromodulator after 30 days.
	Day30FullOverNoNM float64 `json:"day30_full_over_no_nm"`
	Day30NoNMP        float64 `json:"day30_no_nm_p"`
	// FiedlerDelta is the mean change of λ₂ from the first to the last sleep of full, with the
	// number of seeds where it rose.
	FiedlerDelta float64 `json:"fiedler_delta"`
	FiedlerRose  int     `json:"fiedler_rose"`
}

// RunSuite runs every (workload, seed, arm) through the real coordinator, Parallel at a time,
// each in a tenant of its own, seed by seed (so the runs finished at any time form complete
// seeds), and aggregates the figures. With RunLog it resumes: runs already logged with the same
// settings are taken from the log, new ones are appended as they finish.
func RunSuite(ctx context.Context, cfg *SuiteConfig) (*Results, error) {
	if cfg == nil || cfg.Env == nil || cfg.Env.Embedder == nil || (cfg.Env.Pool == nil && !cfg.ReportOnly) {
		return nil, fmt.Errorf("%w: SuiteConfig.Env with a pool (unless ReportOnly) and an embedder is required", ErrBadSpec)
	}
	c := *cfg
	if c.Workloads == nil {
		c.Workloads = Workloads()
	}
	if c.Seeds == nil {
		c.Seeds = simstat.Seeds
	}
	c.Parallel = cmp.Or(c.Parallel, ParallelDefault)
	c.EvalQueries = cmp.Or(c.EvalQueries, EvalQueriesDefault)
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Parallel < 1 || c.Parallel > 64 || len(c.Seeds) == 0 || len(c.Workloads) == 0 || c.SkipIdenticalAfter < 0 {
		return nil, fmt.Errorf("%w: Parallel must be in 1..64, SkipIdenticalAfter ≥ 0, with at least one seed and one workload", ErrBadSpec)
	}
	started := time.Now()
	res := &Results{
		Started: started.UTC(), Machine: Machine{
			GoOS: runtime.GOOS, GoArch: runtime.GOARCH, CPUs: runtime.NumCPU(),
			Store: "PostgreSQL (a database of its own per run, copied from a migrated template)",
		},
		Settings: Settings{
			Seeds: c.Seeds, Arms: map[string][]Arm{}, Parallel: c.Parallel, EmbeddingDim: c.Env.Embedder.Dim(),
			Embedder: c.Env.Embedder.Model(), QueriesPerDay: cmp.Or(c.QueriesPerDay, QueriesPerDayDefault),
			EvalQueries: c.EvalQueries, Alpha: AlphaDefault, MinEffect: MinEffectDefault, SkipIdenticalAfter: c.SkipIdenticalAfter,
		},
	}
	if c.Env.Pool != nil {
		_ = c.Env.Pool.QueryRow(ctx, "SHOW server_version").Scan(&res.Machine.ServerVersion)
	}
	res.FromLog = c.ReportOnly
	var wls []Workload
	for _, w := range c.Workloads {
		if c.QueriesPerDay > 0 {
			w.QueriesPerDay = c.QueriesPerDay
		}
		if c.EvalQueries > 0 {
			w.EvalQueries = c.EvalQueries
		}
		arms := c.Arms
		if w.Name == Cascade.Name {
			arms = CascadeArms()
		} else if arms == nil {
			arms = DefaultArms()
		}
		wls = append(wls, w)
		res.Settings.Workloads = append(res.Settings.Workloads, w)
		res.Settings.Arms[w.Name] = arms
	}
	// Seed-major order: every workload and arm of a seed before the next seed.
	var todo []suiteJob
	for si, seed := range c.Seeds {
		for _, w := range wls {
			world, err := NewWorld(w, seed)
			if err != nil {
				return nil, err
			}
			for _, a := range res.Settings.Arms[w.Name] {
				spec := RunSpec{World: world, Arm: a.Name, Disabled: a.Disabled}
				if w.Name == Cascade.Name {
					spec.Checkpoints = cascadeDays(w.Days)
				}
				todo = append(todo, suiteJob{spec: spec, seedIdx: si})
			}
		}
	}
	logged, err := readRunLog(c.RunLog, res.Settings)
	if err != nil {
		return nil, err
	}
	results, err := runSuiteJobs(ctx, &c, todo, logged, res.Settings)
	if err != nil {
		return nil, err
	}
	for _, r := range results {
		if r != nil {
			res.Runs = append(res.Runs, *r)
		}
	}
	if err := Aggregate(res); err != nil {
		return nil, err
	}
	res.Seconds = time.Since(started).Seconds()
	return res, nil
}

// suiteJob is one run of the suite.
type suiteJob struct {
	spec    RunSpec
	seedIdx int
}

func (j suiteJob) key() string {
	return fmt.Sprintf("%s/%d/%s", j.spec.World.Workload.Name, j.spec.World.Seed, j.spec.Arm)
}

// sameTrajectory reports whether two runs of one world went through the same states: the
// same retention every day and the same final P@5, NDCG@5, storage and mean stability (floats
// equal to a relative 1e-9: sums over rows may differ in their last bits).
func sameTrajectory(a, b *RunResult) bool {
	if a == nil || b == nil || len(a.Timeline) != len(b.Timeline) || a.ActiveMemories != b.ActiveMemories {
		return false
	}
	for i := range a.Timeline {
		if !near(a.Timeline[i], b.Timeline[i]) {
			return false
		}
	}
	return near(a.P5, b.P5) && near(a.NDCG5, b.NDCG5) && near(a.MeanStability, b.MeanStability) && near(a.Q, b.Q)
}

func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// runSuiteJobs runs todo in order with the suite's screening and run log.
func runSuiteJobs(ctx context.Context, c *SuiteConfig, todo []suiteJob, logged map[string]*RunResult, st Settings) ([]*RunResult, error) {
	results := make([]*RunResult, len(todo))
	done := make([]bool, len(todo))
	index := map[string]int{}
	for i, j := range todo {
		index[j.key()] = i
		if r := logged[j.key()]; r != nil {
			results[i], done[i] = r, true
		}
	}
	if c.ReportOnly {
		return results, nil
	}
	var logMu sync.Mutex
	var logF *os.File
	if c.RunLog != "" {
		f, err := os.OpenFile(c.RunLog, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, fmt.Errorf("error opening the run log: %w", err)
		}
		defer f.Close()
		logF = f
	}
	pending := 0
	for i := range todo {
		if !done[i] {
			pending++
		}
	}
	prog := newProgress(c.Progress, c.PlainProgress, pending, "ablation")
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		cond     = sync.NewCond(&mu)
		firstErr error
		next     int
		wg       sync.WaitGroup
	)
	// identicalSoFar waits for the first SkipIdenticalAfter seeds of arm (and of full) and
	// reports whether they were all the same trajectory as full. Called with mu held.
	identicalSoFar := func(arm string) bool {
		var deps []int
		for i, j := range todo {
			if j.seedIdx < c.SkipIdenticalAfter && (j.spec.Arm == arm || j.spec.Arm == ArmFull) {
				deps = append(deps, i)
			}
		}
		for {
			ready := true
			for _, d := range deps {
				ready = ready && done[d]
			}
			if ready || ctx.Err() != nil {
				break
			}
			cond.Wait()
		}
		n := 0
		for _, d := range deps {
			j := todo[d]
			if j.spec.Arm != arm {
				continue
			}
			n++
			full := index[fmt.Sprintf("%s/%d/%s", j.spec.World.Workload.Name, j.spec.World.Seed, ArmFull)]
			if !sameTrajectory(results[d], results[full]) {
				return false
			}
		}
		return n > 0
	}
	for range c.Parallel {
		wg.Go(func() {
			for {
				mu.Lock()
				for next < len(todo) && done[next] {
					next++
				}
				i := next
				next++
				if i >= len(todo) || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				j := todo[i]
				skip := c.SkipIdenticalAfter > 0 && j.seedIdx >= c.SkipIdenticalAfter && j.spec.Arm != ArmFull &&
					identicalSoFar(j.spec.Arm)
				mu.Unlock()
				var r *RunResult
				var err error
				if !skip {
					r, err = Run(ctx, c.Env, j.spec)
				}
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
					cancel()
					cond.Broadcast()
					mu.Unlock()
					return
				}
				results[i], done[i] = r, true
				cond.Broadcast()
				mu.Unlock()
				if r == nil {
					prog.skipped()
					continue
				}
				if logF != nil {
					if err := appendRunLog(&logMu, logF, j.key(), st, r); err != nil {
						c.Logger.Warn("error writing the run log", "error", err)
					}
				}
				prog.done(r)
			}
		})
	}
	wg.Wait()
	prog.finish()
	if firstErr != nil {
		return nil, firstErr
	}
	return results, ctx.Err()
}

// runLogLine is one line of the run log.
type runLogLine struct {
	Key      string     `json:"key"`
	Settings string     `json:"settings"`
	Run      *RunResult `json:"run"`
}

// settingsKey identifies the settings a logged run is valid for.
func settingsKey(st Settings, w Workload) string {
	return fmt.Sprintf("facts=%d queries=%d days=%d decay=%g qpd=%d eval=%d emb=%s", w.Facts, w.Queries, w.Days, w.BaseDecay,
		w.QueriesPerDay, w.EvalQueries, st.Embedder)
}

func workloadOf(st Settings, name string) Workload {
	for _, w := range st.Workloads {
		if w.Name == name {
			return w
		}
	}
	return Workload{}
}

func appendRunLog(mu *sync.Mutex, f *os.File, key string, st Settings, r *RunResult) error {
	b, err := json.Marshal(runLogLine{Key: key, Settings: settingsKey(st, workloadOf(st, r.Workload)), Run: r})
	if err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	_, err = f.Write(append(b, '\n'))
	return err
}

// readRunLog returns the logged runs whose settings match st, by key. A missing file is empty.
func readRunLog(path string, st Settings) (map[string]*RunResult, error) {
	out := map[string]*RunResult{}
	if path == "" {
		return out, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("error reading the run log: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var l runLogLine
		if err := json.Unmarshal([]byte(line), &l); err != nil || l.Run == nil {
			continue // a line cut by an interrupted write
		}
		if l.Settings == settingsKey(st, workloadOf(st, l.Run.Workload)) {
			out[l.Key] = l.Run
		}
	}
	return out, nil
}

// cascadeDays are the cascade timeline's checkpoints (notes §7.4) up to days.
func cascadeDays(days int) []int {
	var out []int
	for _, d := range []int{1, 3, 7, 14, 21, 30, 45, 60} {
		if d <= days {
			out = append(out, d)
		}
	}
	return out
}

// RunAllOpts are the options of [RunAll].
type RunAllOpts struct {
	// Parallel is the number of runs in flight. Defaults to ParallelDefault.
	Parallel int
	// Progress receives a progress bar, or with PlainProgress one line per finished run; nil is
	// silent.
	Progress      io.Writer
	PlainProgress bool
	// Label names the work in the progress output.
	Label string
}

// RunAll runs specs Parallel at a time (each in its own tenant) and returns their results in
// order. The first error cancels the rest and is returned.
func RunAll(ctx context.Context, env *Env, specs []RunSpec, opts *RunAllOpts) ([]*RunResult, error) {
	o := RunAllOpts{}
	if opts != nil {
		o = *opts
	}
	o.Parallel = cmp.Or(o.Parallel, ParallelDefault)
	o.Label = cmp.Or(o.Label, "runs")
	if o.Parallel < 1 || o.Parallel > 64 {
		return nil, fmt.Errorf("%w: Parallel must be in 1..64, got %d", ErrBadSpec, o.Parallel)
	}
	prog := newProgress(o.Progress, o.PlainProgress, len(specs), o.Label)
	results := make([]*RunResult, len(specs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		next     int
	)
	for range o.Parallel {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(specs) || ctx.Err() != nil {
					return
				}
				r, err := Run(ctx, env, specs[i])
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					return
				}
				results[i] = r
				prog.done(r)
			}
		})
	}
	wg.Wait()
	prog.finish()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return results, nil
}

// progress reports finished runs as a bar or as plain lines.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	plain bool
	bar   *progressbar.ProgressBar
	total int
	n     int
	start time.Time
}

func newProgress(w io.Writer, plain bool, total int, label string) *progress {
	p := &progress{w: w, label: label, plain: plain, total: total, start: time.Now()}
	if w != nil && !plain {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionSetDescription(label), progressbar.OptionOnCompletion(func() { _, _ = io.WriteString(w, "\n") }))
	}
	return p
}

func (p *progress) done(r *RunResult) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if p.bar != nil {
		_ = p.bar.Add(1)
		return
	}
	el := time.Since(p.start)
	eta := time.Duration(float64(el) / float64(p.n) * float64(p.total-p.n))
	fmt.Fprintf(p.w, "%s %d/%d %s seed %d %s: Q %.4f (retention %.4f, P@5 %.3f) in %.1f s; elapsed %s, eta %s\n",
		p.label, p.n, p.total, r.Workload, r.Seed, r.Arm, r.Q, r.Retention, r.P5, r.Seconds, el.Round(time.Second), eta.Round(time.Second))
}

func (p *progress) skipped() {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if p.bar != nil {
		_ = p.bar.Add(1)
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// stat summarizes xs.
func stat(xs []float64) Stat {
	m, _ := simstat.Mean(xs)
	s := Stat{Mean: m, Low: m, High: m}
	if len(xs) > 1 {
		s.SD, _ = simstat.SD(xs)
		if ci, err := simstat.BootstrapCI(xs, nil); err == nil {
			s.Low, s.High = ci.Lower, ci.Upper
		}
	}
	return s
}

// wilcoxon returns the two-sided p of paired x and y (1 when all differences are zero) and the
// method.
func wilcoxon(x, y []float64) (float64, string) {
	same := true
	for i := range x {
		same = same && x[i] == y[i]
	}
	if same {
		return 1, "identical"
	}
	r, err := simstat.WilcoxonSignedRank(x, y)
	if err != nil {
		return 1, "error"
	}
	return r.P, string(r.Method)
}

func mean(xs []float64) float64 {
	m, _ := simstat.Mean(xs)
	return m
}

func relChange(base, v float64) float64 {
	d, err := simstat.RelativeChange(base, v)
	if err != nil {
		if errors.Is(err, simstat.ErrZeroBase) && v == 0 {
			return 0
		}
		return math.NaN()
	}
	return d
}

// Aggregate fills r's Summaries, Mechanisms and Cascade from its Runs and Settings (RunSuite
// calls it; it is exported for results assembled elsewhere).
func Aggregate(r *Results) error {
	r.Summaries, r.Mechanisms, r.Cascade = nil, nil, nil
	type key = armKey
	by := map[key]map[uint32]*RunResult{}
	var order []key
	for i := range r.Runs {
		run := &r.Runs[i]
		k := key{run.Workload, run.Arm}
		if by[k] == nil {
			by[k] = map[uint32]*RunResult{}
			order = append(order, k)
		}
		by[k][run.Seed] = run
	}
	// series returns f over the seeds of k that also satisfy with (nil: all of k's seeds).
	series := func(k key, with map[uint32]*RunResult, f func(*RunResult) float64) []float64 {
		var out []float64
		for _, s := range r.Settings.Seeds {
			run := by[k][s]
			if run == nil || (with != nil && with[s] == nil) {
				continue
			}
			out = append(out, f(run))
		}
		return out
	}
	q := func(x *RunResult) float64 { return x.Q }
	ret := func(x *RunResult) float64 { return x.Retention }
	p5 := func(x *RunResult) float64 { return x.P5 }
	nd := func(x *RunResult) float64 { return x.NDCG5 }
	secs := func(x *RunResult) float64 { return x.Seconds }
	for _, k := range order {
		full := key{k.w, ArmFull}
		sum := ArmSummary{
			Workload: k.w, Arm: k.arm, Seeds: len(by[k]), Skipped: len(r.Settings.Seeds) - len(by[k]),
			Retention: stat(series(k, nil, ret)), P5: stat(series(k, nil, p5)), NDCG5: stat(series(k, nil, nd)),
			Q: stat(series(k, nil, q)), P: 1, PRetention: 1, PP5: 1,
		}
		sum.Seconds, _ = simstat.Mean(series(k, nil, secs))
		if k.arm != ArmFull && by[full] != nil {
			// Paired over the seeds both ran.
			aq, fq := series(k, by[full], q), series(full, by[k], q)
			if len(fq) == len(aq) && len(aq) > 0 {
				sum.DeltaQ = relChange(mean(fq), mean(aq))
				sum.DeltaRetention = relChange(mean(series(full, by[k], ret)), mean(series(k, by[full], ret)))
				sum.DeltaP5 = relChange(mean(series(full, by[k], p5)), mean(series(k, by[full], p5)))
				sum.P, sum.Method = wilcoxon(aq, fq)
				sum.PRetention, _ = wilcoxon(series(k, by[full], ret), series(full, by[k], ret))
				sum.PP5, _ = wilcoxon(series(k, by[full], p5), series(full, by[k], p5))
				if len(aq) > 1 {
					if d, err := simstat.CohenD(aq, fq); err == nil {
						sum.CohenD = d
					}
				}
				sum.Identical = true
				for _, s := range r.Settings.Seeds {
					if a, f := by[k][s], by[full][s]; a != nil && f != nil {
						sum.Identical = sum.Identical && sameTrajectory(a, f)
					}
				}
				sum.Measurable = math.Abs(sum.DeltaQ) >= MinEffectDefault && sum.P <= AlphaDefault
			}
		}
		r.Summaries = append(r.Summaries, sum)
	}
	// Verdicts per registry id.
	for _, id := range coordinator.AlgorithmIDs() {
		v := MechanismVerdict{ID: id, Harness: slices.Contains(HarnessIDs, id), Identical: true, P: 1}
		found := false
		for _, s := range r.Summaries {
			if s.Arm != "-"+id {
				continue
			}
			found = true
			v.Identical = v.Identical && s.Identical
			better := !found || v.Best == "" ||
				(s.Measurable && !v.Measurable) ||
				(s.Measurable == v.Measurable && math.Abs(s.DeltaQ) > math.Abs(v.DeltaQ))
			if better {
				v.Best, v.DeltaQ, v.P, v.CohenD = s.Workload, s.DeltaQ, s.P, s.CohenD
			}
			v.Measurable = v.Measurable || s.Measurable
		}
		if found {
			r.Mechanisms = append(r.Mechanisms, v)
		}
	}
	idx := runIndex{}
	for k, v := range by {
		if idx[k.w] == nil {
			idx[k.w] = map[string]map[uint32]*RunResult{}
		}
		idx[k.w][k.arm] = v
	}
	r.cascade(idx)
	return nil
}

// armKey identifies the runs of one arm of one workload.
type armKey struct{ w, arm string }

// runIndex maps workload → arm → seed → run.
type runIndex map[string]map[string]map[uint32]*RunResult

// cascade computes the integration cascade's tests when the cascade ran.
func (r *Results) cascade(idx runIndex) {
	runs := idx[Cascade.Name]
	if runs == nil || runs[ArmFull] == nil {
		return
	}
	days := 0
	for _, w := range r.Settings.Workloads {
		if w.Name == Cascade.Name {
			days = w.Days
		}
	}
	cs := &CascadeSummary{Days: cascadeDays(days), Timeline: map[string][]float64{}}
	seeds := r.Settings.Seeds
	get := func(arm string, f func(*RunResult) float64) []float64 {
		var out []float64
		for _, s := range seeds {
			if x := runs[arm][s]; x != nil {
				out = append(out, f(x))
			}
		}
		return out
	}
	for arm := range runs {
		var tl []float64
		for _, d := range cs.Days {
			tl = append(tl, mean(get(arm, func(x *RunResult) float64 { return x.Timeline[d-1] })))
		}
		cs.Timeline[arm] = tl
	}
	ret := func(x *RunResult) float64 { return x.Retention }
	fe, fn := get(ArmFull, func(x *RunResult) float64 { return x.RetentionEmotional }), get(ArmFull, func(x *RunResult) float64 { return x.RetentionNeutral })
	cs.EmotionalFull, cs.NeutralFull = mean(fe), mean(fn)
	cs.EmotionalP, _ = wilcoxon(fe, fn)
	ratioP := func(arm string, f func(*RunResult) float64) (float64, float64) {
		a, b := get(ArmFull, f), get(arm, f)
		if len(a) != len(b) || len(b) == 0 {
			return math.NaN(), 1
		}
		p, _ := wilcoxon(a, b)
		return mean(a) / mean(b), p
	}
	cs.FullOverBare, cs.FullOverBareP = ratioP(ArmBare, ret)
	cs.FullOverNoPMA, cs.FullOverNoPMP = ratioP(ArmNoPMA, ret)
	cs.SleepFactor, cs.SleepP = ratioP("-sim_selection_sleep", ret)
	if days >= 30 {
		cs.Day30FullOverNoNM, cs.Day30NoNMP = ratioP("-neuromodulator", func(x *RunResult) float64 { return x.Timeline[29] })
	}
	var fd []float64
	for _, s := range seeds {
		if x := runs[ArmFull][s]; x != nil {
			fd = append(fd, x.Counters.FiedlerLast-x.Counters.FiedlerFirst)
			if x.Counters.FiedlerLast > x.Counters.FiedlerFirst {
				cs.FiedlerRose++
			}
		}
	}
	cs.FiedlerDelta = mean(fd)
	r.Cascade = cs
}
