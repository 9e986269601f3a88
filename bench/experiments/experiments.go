package experiments

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/zenbrain/zb/algorithms/forgetting"
	"github.com/zenbrain/zb/algorithms/simstat"
	"github.com/zenbrain/zb/bench/ablation"
	"github.com/zenbrain/zb/pma"
)

// Experiment names (Config.Only).
const (
	// NameRetention is the 30-day retention curves.
	NameRetention = "retention"
	// NameSleep is the sleep-impact experiment.
	NameSleep = "sleep"
	// NameTripleCopy is the triple-copy strength table.
	NameTripleCopy = "triple-copy"
	// NameAging is the long-horizon aging comparison.
	NameAging = "aging"
	// NameLoCoMo is the NoDecay counterfactual on LoCoMo.
	NameLoCoMo = "locomo"
)

// Names returns every experiment name in report order.
func Names() []string {
	return []string{NameRetention, NameSleep, NameTripleCopy, NameAging, NameLoCoMo, NameBeyond}
}

// SeedsDefault is the number of harness seeds the experiments use by default: all ten of
// simstat.Seeds (with five, the exact Wilcoxon p cannot fall below 2/32 = 0.0625).
const SeedsDefault = 10

// Config configures [Run]. Zero fields take their defaults.
type Config struct {
	// Env is the database and the embedder. Required.
	Env *ablation.Env
	// Seeds are the seeds of the synthetic experiments. Nil means the first SeedsDefault of
	// simstat.Seeds (all ten).
	Seeds []uint32
	// Parallel is the number of runs in flight. Defaults to ablation.ParallelDefault.
	Parallel int
	// Only restricts the experiments run (Names()); nil runs all.
	Only []string
	// LoCoMoFile is the LoCoMo data file of the NoDecay counterfactual; empty skips it.
	LoCoMoFile string
	// Progress receives progress bars (or with PlainProgress, lines); nil is silent.
	Progress      io.Writer
	PlainProgress bool
	// Checkpoint, when set, is called with the results so far after each experiment (to save
	// them before a long one starts).
	Checkpoint func(*Results) error
}

// Results are the figures of the mechanism experiments.
type Results struct {
	Started    time.Time          `json:"started"`
	Seconds    float64            `json:"seconds"`
	Machine    ablation.Machine   `json:"machine"`
	Seeds      []uint32           `json:"seeds"`
	Embedder   string             `json:"embedder"`
	Retention  *RetentionCurves   `json:"retention,omitempty"`
	Sleep      *SleepImpact       `json:"sleep,omitempty"`
	TripleCopy *TripleCopyTable   `json:"triple_copy,omitempty"`
	Aging      *Aging             `json:"aging,omitempty"`
	LoCoMo     *LoCoMoNoDecay     `json:"locomo,omitempty"`
	Durations  map[string]float64 `json:"durations_s"`
}

func (c *Config) wants(name string) bool { return c.Only == nil || slices.Contains(c.Only, name) }

// Run runs the selected experiments on the real coordinator.
func Run(ctx context.Context, cfg *Config) (*Results, error) {
	if cfg == nil || cfg.Env == nil || cfg.Env.Pool == nil || cfg.Env.Embedder == nil {
		return nil, errors.New("experiments: Config.Env with a pool and an embedder is required")
	}
	c := *cfg
	if c.Seeds == nil {
		c.Seeds = simstat.Seeds[:SeedsDefault]
	}
	c.Parallel = cmp.Or(c.Parallel, ablation.ParallelDefault)
	for _, n := range c.Only {
		if !slices.Contains(Names(), n) {
			return nil, fmt.Errorf("experiments: unknown experiment %q (known: %v)", n, Names())
		}
	}
	started := time.Now()
	res := &Results{
		Started: started.UTC(), Seeds: c.Seeds, Embedder: fmt.Sprintf("%s (dim %d)", c.Env.Embedder.Model(), c.Env.Embedder.Dim()),
		Machine:   ablation.Machine{GoOS: runtime.GOOS, GoArch: runtime.GOARCH, CPUs: runtime.NumCPU(), Store: "PostgreSQL"},
		Durations: map[string]float64{},
	}
	_ = c.Env.Pool.QueryRow(ctx, "SHOW server_version").Scan(&res.Machine.ServerVersion)
	step := func(name string, f func() error) error {
		if !c.wants(name) {
			return nil
		}
		t0 := time.Now()
		if err := f(); err != nil {
			return fmt.Errorf("experiment %s: %w", name, err)
		}
		res.Durations[name] = time.Since(t0).Seconds()
		return c.checkpoint(res, started)
	}
	var err error
	if err := step(NameRetention, func() error { res.Retention, err = retentionCurves(ctx, &c); return err }); err != nil {
		return nil, err
	}
	// The sleep experiment's full runs also give the triple-copy table.
	if c.wants(NameSleep) || c.wants(NameTripleCopy) {
		t0 := time.Now()
		si, tc, err := sleepImpact(ctx, &c)
		if err != nil {
			return nil, fmt.Errorf("experiment %s: %w", NameSleep, err)
		}
		if c.wants(NameSleep) {
			res.Sleep = si
			res.Durations[NameSleep] = time.Since(t0).Seconds()
		}
		if c.wants(NameTripleCopy) {
			res.TripleCopy = tc
		}
		if err := c.checkpoint(res, started); err != nil {
			return nil, err
		}
	}
	if err := step(NameAging, func() error { res.Aging, err = aging(ctx, &c); return err }); err != nil {
		return nil, err
	}
	if c.LoCoMoFile != "" {
		if err := step(NameLoCoMo, func() error { res.LoCoMo, err = locomoNoDecay(ctx, &c); return err }); err != nil {
			return nil, err
		}
	}
	res.Seconds = time.Since(started).Seconds()
	return res, nil
}

func (c *Config) checkpoint(res *Results, started time.Time) error {
	if c.Checkpoint == nil {
		return nil
	}
	res.Seconds = time.Since(started).Seconds()
	return c.Checkpoint(res)
}

func (c *Config) runAll(ctx context.Context, specs []ablation.RunSpec, label string) ([]*ablation.RunResult, error) {
	return ablation.RunAll(ctx, c.Env, specs, &ablation.RunAllOpts{
		Parallel: c.Parallel, Progress: c.Progress,
		PlainProgress: c.PlainProgress, Label: label,
	})
}

func mean(xs []float64) float64 {
	m, err := simstat.Mean(xs)
	if err != nil {
		return math.NaN()
	}
	return m
}

func wilcoxonP(x, y []float64) float64 {
	if slices.Equal(x, y) {
		return 1
	}
	r, err := simstat.WilcoxonSignedRank(x, y)
	if err != nil {
		return 1
	}
	return r.P
}

// ---- 1. Retention curves ----------------------------------------------------------------

// RetentionWorkload is the world of the retention curves: the moderate condition over 30 days.
var RetentionWorkload = ablation.Workload{Name: "retention-30d", Facts: 300, Queries: 100, Days: 30, BaseDecay: 0.15}

// RetentionCurve is one configuration's mean retention by day.
type RetentionCurve struct {
	Name string `json:"name"`
	// Description says which mechanisms and jobs run.
	Description string `json:"description"`
	// Days[i] is the mean retention after i days (Days[0] = 1 at storage).
	Days []float64 `json:"days"`
	// AURC is the area under the retention curve over the 30 days, divided by 30 (1 = no
	// forgetting), with the per-seed values' standard deviation.
	AURC   float64 `json:"aurc"`
	AURCSD float64 `json:"aurc_sd"`
	// P5 is the P@5 after 30 days.
	P5 float64 `json:"p5"`
	// Final is the retention after 30 days.
	Final float64 `json:"final"`
}

// RetentionCurves compares no decay, FSRS review only, exponential decay only and the full
// system over 30 days of the same traffic.
type RetentionCurves struct {
	Workload ablation.Workload `json:"workload"`
	Curves   []RetentionCurve  `json:"curves"`
}

func retentionCurves(ctx context.Context, c *Config) (*RetentionCurves, error) {
	bare := ablation.BareArm()
	type cfgT struct {
		name, desc string
		disabled   []string
		steps      ablation.Steps
	}
	cfgs := []cfgT{
		{"no decay", "decay switched off: R ≡ 1, nothing fades or is archived; everything else on", []string{"decay"}, ablation.Steps{}},
		{"FSRS review only", "forgetting model + FSRS reviews (uncoupled); every other mechanism off, no sleep", bare.Disabled, ablation.Steps{NoSleep: true}},
		{"exponential decay only", "forgetting model alone (a used recall still grows stability): no reviews, no sleep, every mechanism off", bare.Disabled, ablation.Steps{NoSleep: true, NoReview: true}},
		{"full", "every mechanism and every lifecycle job", nil, ablation.Steps{}},
	}
	var specs []ablation.RunSpec
	for _, seed := range c.Seeds {
		w, err := ablation.NewWorld(RetentionWorkload, seed)
		if err != nil {
			return nil, err
		}
		for i, cf := range cfgs {
			specs = append(specs, ablation.RunSpec{World: w, Arm: fmt.Sprintf("curve%d", i), Disabled: cf.disabled, Steps: cf.steps})
		}
	}
	runs, err := c.runAll(ctx, specs, "retention curves")
	if err != nil {
		return nil, err
	}
	out := &RetentionCurves{Workload: RetentionWorkload}
	for i, cf := range cfgs {
		rc := RetentionCurve{Name: cf.name, Description: cf.desc, Days: make([]float64, RetentionWorkload.Days+1)}
		var aurcs, p5s, finals []float64
		for s := range c.Seeds {
			r := runs[s*len(cfgs)+i]
			curve := append([]float64{1}, r.Timeline...)
			area := 0.0
			for d := 1; d < len(curve); d++ {
				area += (curve[d-1] + curve[d]) / 2
			}
			aurcs = append(aurcs, area/float64(len(curve)-1))
			for d, v := range curve {
				rc.Days[d] += v / float64(len(c.Seeds))
			}
			p5s, finals = append(p5s, r.P5), append(finals, r.Retention)
		}
		rc.AURC, rc.P5, rc.Final = mean(aurcs), mean(p5s), mean(finals)
		if len(aurcs) > 1 {
			rc.AURCSD, _ = simstat.SD(aurcs)
		}
		out.Curves = append(out.Curves, rc)
	}
	return out, nil
}

// ---- 2. Sleep impact and 3. triple copies -----------------------------------------------

// SleepWorkload is the sleep-impact world: 50 facts a day for 7 days (350 facts).
var SleepWorkload = ablation.Workload{Name: "sleep-7d", Facts: 350, FactsPerDay: 50, Queries: 100, Days: 7, BaseDecay: 0.15}

// SleepNightStats are one night's sleep figures, averaged over the seeds (full system).
type SleepNightStats struct {
	Day                 int     `json:"day"`
	Episodes            float64 `json:"episodes"`
	Selected            float64 `json:"selected"`
	LTP                 float64 `json:"ltp"`
	LTD                 float64 `json:"ltd"`
	NewAssociations     float64 `json:"new_associations"`
	Promotions          float64 `json:"promotions"`
	StabilityGrown      float64 `json:"stability_grown"`
	Schemas             float64 `json:"schemas"`
	Consolidated        float64 `json:"consolidated"`
	Archived            float64 `json:"archived"`
	MeanStabilityBefore float64 `json:"mean_stability_before"`
	MeanStabilityAfter  float64 `json:"mean_stability_after"`
	StorageBefore       float64 `json:"storage_before"`
	StorageAfter        float64 `json:"storage_after"`
	FiedlerAfter        float64 `json:"fiedler_after"`
}

// SleepArmStats are the end-of-run figures of one arm, averaged over the seeds.
type SleepArmStats struct {
	Arm           string  `json:"arm"`
	MeanStability float64 `json:"mean_stability"`
	Storage       float64 `json:"storage"`
	Retention     float64 `json:"retention"`
	P5            float64 `json:"p5"`
	Q             float64 `json:"q"`
}

// SleepImpact compares seven days with and without sleep (sim_selection_sleep and
// dual_process off) at 50 facts a day.
type SleepImpact struct {
	Workload ablation.Workload `json:"workload"`
	Nights   []SleepNightStats `json:"nights"`
	With     SleepArmStats     `json:"with_sleep"`
	Without  SleepArmStats     `json:"without_sleep"`
	// StabilityGain and StorageChange are with over without − 1; the p values are Wilcoxon
	// signed-rank over the seeds.
	StabilityGain  float64 `json:"stability_gain"`
	StabilityP     float64 `json:"stability_p"`
	StorageChange  float64 `json:"storage_change"`
	StorageP       float64 `json:"storage_p"`
	RetentionGain  float64 `json:"retention_gain"`
	RetentionP     float64 `json:"retention_p"`
	TotalLTP       float64 `json:"total_ltp"`
	TotalLTD       float64 `json:"total_ltd"`
	TotalNewAssocs float64 `json:"total_new_associations"`
}

// TripleCopyRow is the triple-copy strength at one age, averaged over the facts stored on day
// 0 of the sleep experiment's full runs.
type TripleCopyRow struct {
	Age string `json:"age"`
	// Hours is the age in hours.
	Hours float64 `json:"hours"`
	// Fast, Medium and Deep are the copies' strengths; Deep is over the promoted facts.
	Fast   float64 `json:"fast"`
	Medium float64 `json:"medium"`
	Deep   float64 `json:"deep"`
	// Promoted and NotPromoted are max(fast, medium, deep) of facts sleep promoted and of
	// those it did not.
	Promoted    float64 `json:"promoted"`
	NotPromoted float64 `json:"not_promoted"`
	// Ebbinghaus is e^(−t/1 day), the harness's baseline.
	Ebbinghaus float64 `json:"ebbinghaus"`
	// ForgettingModel is R of an unrehearsed neutral fact in our forgetting model at the
	// workload's stability (what recall multiplies by).
	ForgettingModel float64 `json:"forgetting_model"`
}

// TripleCopyTable is the strength of the stored triple copies (zb.triple_copy) over time.
type TripleCopyTable struct {
	Facts       int             `json:"facts"`
	PromotedPct float64         `json:"promoted_pct"`
	Rows        []TripleCopyRow `json:"rows"`
}

// tripleRow is one memory's copies read from zb.triple_copy.
type tripleRow struct {
	stored time.Time
	tc     pma.TripleCopy
}

func sleepImpact(ctx context.Context, c *Config) (*SleepImpact, *TripleCopyTable, error) {
	noSleep := []string{"sim_selection_sleep", "dual_process"}
	var specs []ablation.RunSpec
	triples := make([][]tripleRow, len(c.Seeds))
	for si, seed := range c.Seeds {
		w, err := ablation.NewWorld(SleepWorkload, seed)
		if err != nil {
			return nil, nil, err
		}
		specs = append(specs, ablation.RunSpec{
			World: w, Arm: "with-sleep", RecordSleeps: true,
			Inspect: func(ctx context.Context, pool *pgxpool.Pool, tenant string, _ time.Time) error {
				rows, err := readTriples(ctx, pool, tenant, ablation.Start.Add(24*time.Hour))
				triples[si] = rows
				return err
			},
		},
			ablation.RunSpec{World: w, Arm: "without-sleep", Disabled: noSleep, RecordSleeps: true})
	}
	runs, err := c.runAll(ctx, specs, "sleep impact")
	if err != nil {
		return nil, nil, err
	}
	out := &SleepImpact{Workload: SleepWorkload}
	n := float64(len(c.Seeds))
	out.Nights = make([]SleepNightStats, SleepWorkload.Days)
	var stW, stWo, sgW, sgWo, rW, rWo []float64
	for s := range c.Seeds {
		with, without := runs[2*s], runs[2*s+1]
		for _, nt := range with.Sleeps {
			if nt.Day < 0 || nt.Day >= len(out.Nights) {
				continue
			}
			x, r := &out.Nights[nt.Day], nt.Report
			x.Day = nt.Day
			x.Episodes += float64(r.Episodes) / n
			x.Selected += float64(r.Selected) / n
			x.LTP += float64(r.LTP) / n
			x.LTD += float64(r.LTD) / n
			x.NewAssociations += float64(r.NewAssociations) / n
			x.Promotions += float64(r.Promotions) / n
			x.StabilityGrown += float64(r.StabilityGrown) / n
			x.Schemas += float64(r.SchemasCreated) / n
			x.Consolidated += float64(r.Consolidated) / n
			x.Archived += float64(r.Archived) / n
			x.MeanStabilityBefore += r.MeanStabilityBefore / n
			x.MeanStabilityAfter += r.MeanStabilityAfter / n
			x.StorageBefore += float64(r.StorageBefore) / n
			x.StorageAfter += float64(r.StorageAfter) / n
			x.FiedlerAfter += r.FiedlerAfter / n
			out.TotalLTP += float64(r.LTP) / n
			out.TotalLTD += float64(r.LTD) / n
			out.TotalNewAssocs += float64(r.NewAssociations) / n
		}
		stW, stWo = append(stW, with.MeanStability), append(stWo, without.MeanStability)
		sgW, sgWo = append(sgW, float64(with.ActiveMemories)), append(sgWo, float64(without.ActiveMemories))
		rW, rWo = append(rW, with.Retention), append(rWo, without.Retention)
		for _, p := range []struct {
			dst *SleepArmStats
			r   *ablation.RunResult
		}{{&out.With, with}, {&out.Without, without}} {
			p.dst.MeanStability += p.r.MeanStability / n
			p.dst.Storage += float64(p.r.ActiveMemories) / n
			p.dst.Retention += p.r.Retention / n
			p.dst.P5 += p.r.P5 / n
			p.dst.Q += p.r.Q / n
		}
	}
	out.With.Arm, out.Without.Arm = "with sleep", "without sleep"
	out.StabilityGain, out.StabilityP = mean(stW)/mean(stWo)-1, wilcoxonP(stW, stWo)
	out.StorageChange, out.StorageP = mean(sgW)/mean(sgWo)-1, wilcoxonP(sgW, sgWo)
	out.RetentionGain, out.RetentionP = mean(rW)/mean(rWo)-1, wilcoxonP(rW, rWo)
	return out, tripleTable(triples), nil
}

// readTriples reads the triple copies of the memories stored before until (the day-0 facts).
func readTriples(ctx context.Context, pool *pgxpool.Pool, tenant string, until time.Time) ([]tripleRow, error) {
	rows, err := pool.Query(ctx, `SELECT m.id, m.created_at, t.copy, t.initial_strength, t.created_at
		FROM zb.memory m JOIN zb.triple_copy t ON t.tenant_id = m.tenant_id AND t.memory_id = m.id
		WHERE m.tenant_id = $1 AND m.created_at < $2 AND m.kind = 'fact' ORDER BY m.id`, tenant, until)
	if err != nil {
		return nil, fmt.Errorf("error reading triple copies: %w", err)
	}
	defer rows.Close()
	by := map[int64]*tripleRow{}
	var order []int64
	for rows.Next() {
		var id int64
		var stored, at time.Time
		var copy string
		var s float64
		if err := rows.Scan(&id, &stored, &copy, &s, &at); err != nil {
			return nil, fmt.Errorf("error reading triple copies: %w", err)
		}
		t := by[id]
		if t == nil {
			t = &tripleRow{stored: stored, tc: pma.TripleCopy{EventID: fmt.Sprint(id), StoredAt: stored}}
			by[id] = t
			order = append(order, id)
		}
		switch copy {
		case "fast":
			t.tc.FastStrength = s
		case "medium":
			t.tc.MediumStrength = s
		case "deep":
			t.tc.DeepStrength, t.tc.PromotedAt = s, at
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("error reading triple copies: %w", err)
	}
	out := make([]tripleRow, 0, len(order))
	for _, id := range order {
		out = append(out, *by[id])
	}
	return out, nil
}

// TripleCopyAges are the ages of the triple-copy table.
var TripleCopyAges = []struct {
	Label string
	D     time.Duration
}{
	{"1 h", time.Hour},
	{"6 h", 6 * time.Hour},
	{"1 d", 24 * time.Hour},
	{"3 d", 72 * time.Hour},
	{"7 d", 7 * 24 * time.Hour},
	{"14 d", 14 * 24 * time.Hour},
	{"30 d", 30 * 24 * time.Hour},
}

func tripleTable(perSeed [][]tripleRow) *TripleCopyTable {
	tcm, _ := pma.NewTripleCopyMemory(nil)
	out := &TripleCopyTable{}
	var all []tripleRow
	for _, rs := range perSeed {
		all = append(all, rs...)
	}
	out.Facts = len(all)
	promoted := 0
	for _, t := range all {
		if t.tc.Promoted() {
			promoted++
		}
	}
	if len(all) > 0 {
		out.PromotedPct = 100 * float64(promoted) / float64(len(all))
	}
	s := forgetting.Day.Seconds() / SleepWorkload.BaseDecay
	for _, a := range TripleCopyAges {
		row := TripleCopyRow{
			Age: a.Label, Hours: a.D.Hours(), Ebbinghaus: math.Exp(-a.D.Hours() / 24),
			ForgettingModel: math.Exp(-a.D.Seconds() / s),
		}
		var nP, nN int
		for _, t := range all {
			st := tcm.Strengths(t.tc, t.stored.Add(a.D))
			row.Fast += st.Fast
			row.Medium += st.Medium
			if t.tc.Promoted() {
				row.Deep += st.Deep
				row.Promoted += st.Strength
				nP++
			} else {
				row.NotPromoted += st.Strength
				nN++
			}
		}
		if len(all) > 0 {
			row.Fast /= float64(len(all))
			row.Medium /= float64(len(all))
		}
		if nP > 0 {
			row.Deep /= float64(nP)
			row.Promoted /= float64(nP)
		}
		if nN > 0 {
			row.NotPromoted /= float64(nN)
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}
