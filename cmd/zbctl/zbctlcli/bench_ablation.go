package zbctlcli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/algorithms/simstat"
	"github.com/zenbrain/zb/bench/ablation"
	"github.com/zenbrain/zb/bench/experiments"
	"github.com/zenbrain/zb/bench/locomo"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/embed"
	"github.com/zenbrain/zb/internal/pgcluster"
)

// BenchEvalOutDefault is the default results directory of 'zbctl bench ablation' and 'zbctl
// bench experiments'.
const BenchEvalOutDefault = "docs/evaluation"

// benchEvalFlags are the flags shared by 'bench ablation' and 'bench experiments'.
type benchEvalFlags struct {
	out      string
	seeds    string
	parallel int
	dim      int
	embedded bool
	plain    bool
}

func (f *benchEvalFlags) register(cmd *cobra.Command, seedsHelp string) {
	cmd.Flags().StringVar(&f.out, "out", BenchEvalOutDefault, "results directory")
	cmd.Flags().StringVar(&f.seeds, "seeds", "", seedsHelp)
	cmd.Flags().IntVar(&f.parallel, "parallel", ablation.ParallelDefault, "runs in flight (one tenant each)")
	cmd.Flags().IntVar(&f.dim, "dim", ablation.DimDefault, "embedding dimension of the benchmark database (hash embedder)")
	cmd.Flags().BoolVar(&f.embedded, "embedded", false, "start a throwaway local PostgreSQL cluster for the run")
	cmd.Flags().BoolVar(&f.plain, "plain-progress", false, "progress as one line per run instead of a bar (default when stderr is not a terminal)")
}

// benchEvalCmds returns 'bench ablation' and 'bench experiments'.
func (a *app) benchEvalCmds() []*cobra.Command {
	var af benchEvalFlags
	var workloads, arms, runLog string
	var qpd, evalQ, skipAfter int
	var reportOnly bool
	abl := &cobra.Command{
		Use:   "ablation",
		Short: "Run the real-algorithm ablation (every registry mechanism switched off in turn)",
		Long: `Run the real-algorithm ablation of issue 9: the harness's conditions (moderate, challenging,
stress and the integration cascade) with the harness's seeds, every run a tenant in a throwaway
database of its own driven through the coordinator on a virtual clock, with the mechanism under
test switched off through the ablation registry. Writes ablation.json, ablation.md and PNG charts
to --out.

The databases are created (and dropped afterwards) on the server of ZB_DATABASE_URL or the dev
cluster (the role must be allowed to CREATE DATABASE), or with --embedded on a throwaway local
cluster. By default the arms are full, one removal for each of the paper's fifteen mechanisms,
no-pma and bare (--arms harness; the cascade has its own 5): with --parallel 4
--skip-identical-after 1 that grid takes about 29 minutes on 2 idle cores, and --arms all (every
registry id, 25 arms) about 34. --workloads, --seeds and --arms select a part. Unless GOGC is
set, the benchmark runs with GOGC=400 (less garbage-collection work for about 100 MB more
memory).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.benchAblation(cmd.Context(), &af, workloads, arms, qpd, evalQ, runLog, skipAfter, reportOnly)
		},
	}
	af.register(abl, "comma-separated seeds (default: the harness's ten)")
	abl.Flags().StringVar(&workloads, "workloads", "moderate,challenging,stress,cascade", "comma-separated workloads")
	abl.Flags().StringVar(&arms, "arms", "harness", `comma-separated registry ids to remove one at a time ("harness": the paper's fifteen; "all": every registry id)`)
	abl.Flags().IntVar(&qpd, "queries-per-day", ablation.QueriesPerDayDefault, "recalls per simulated day")
	abl.Flags().IntVar(&evalQ, "eval-queries", ablation.EvalQueriesDefault, "queries scored per run (-1: all)")
	abl.Flags().StringVar(&runLog, "run-log", "", "JSON-lines file of finished runs: logged runs are not run again, new ones are appended (resume)")
	abl.Flags().BoolVar(&reportOnly, "report-only", false, "write the report from the runs in --run-log without running any")
	abl.Flags().IntVar(&skipAfter, "skip-identical-after", 0,
		"screening: stop running an arm after this many seeds if every run so far was identical to the full system's (0: run all)")

	var ef benchEvalFlags
	var only, locomoFile string
	exp := &cobra.Command{
		Use:   "experiments",
		Short: "Run the mechanism experiments (retention curves, sleep impact, triple copies, aging, LoCoMo without decay)",
		Long: `Run the paper's mechanism experiments on the real system (issue 9) and write experiments.json,
experiments.md and PNG charts to --out. The LoCoMo counterfactual reads --locomo (default:
shared/data/locomo/locomo-dev.json found upwards from the working directory, or ZB_LOCOMO_FILE;
"none" skips it). Database as for 'zbctl bench ablation'.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.benchExperiments(cmd.Context(), &ef, only, locomoFile)
		},
	}
	ef.register(exp, fmt.Sprintf("comma-separated seeds (default: the first %d of the harness's)", experiments.SeedsDefault))
	exp.Flags().StringVar(&only, "only", "", "comma-separated experiments: "+strings.Join(experiments.Names(), ", ")+" (default: all)")
	exp.Flags().StringVar(&locomoFile, "locomo", "", `LoCoMo file of the NoDecay counterfactual ("none" skips it)`)
	return []*cobra.Command{abl, exp}
}

func evalParseSeeds(s string) ([]uint32, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []uint32
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("bad seed %q: %w", f, err)
		}
		out = append(out, uint32(n))
	}
	return out, nil
}

func evalSplitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// benchGC sets the garbage collector's target to 400 % unless GOGC is set: the benchmark
// drivers allocate a lot of short-lived rows and spend ≈ 7 % of the machine's CPU less in the
// collector (measured on a 7-run ablation: 74 → 69 busy CPU-seconds) for ≈ 100 MB more memory.
func benchGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}

// benchDatabase creates the benchmark database on the configured server, or on a throwaway
// cluster with embedded, and returns it with a function that drops it (and the cluster).
func (a *app) benchDatabase(ctx context.Context, f *benchEvalFlags) (*ablation.Database, func(), error) {
	benchGC()
	admin := ""
	cleanup := func() {}
	if f.embedded {
		dir, err := os.MkdirTemp("", "zbctl-eval-")
		if err != nil {
			return nil, nil, err
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			_ = os.RemoveAll(dir)
			return nil, nil, err
		}
		cl, err := pgcluster.New(&pgcluster.Config{
			Dir: filepath.Join(dir, "pg"), AnyPort: true, Ephemeral: true,
			BinDir: a.env.PgBinDir, RunAsUser: a.env.PgUser, Database: "postgres",
			Settings: map[string]string{"max_connections": "100", "log_min_messages": "fatal"},
		})
		if err != nil {
			_ = os.RemoveAll(dir)
			return nil, nil, err
		}
		cleanup = func() {
			c, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_ = cl.Destroy(c)
			_ = os.RemoveAll(dir)
		}
		if err := cl.Init(ctx); err != nil {
			cleanup()
			return nil, nil, err
		}
		if err := cl.Start(ctx); err != nil {
			cleanup()
			return nil, nil, err
		}
		if admin, err = cl.URL(); err != nil {
			cleanup()
			return nil, nil, err
		}
	} else {
		var err error
		if admin, err = a.databaseURL(ctx); err != nil {
			return nil, nil, err
		}
	}
	d, err := ablation.OpenDatabase(ctx, admin, f.dim, int32(2*f.parallel+2))
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return d, func() { d.Close(); cleanup() }, nil
}

func (a *app) benchAblation(ctx context.Context, f *benchEvalFlags, workloads, arms string, qpd, evalQ int, runLog string,
	skipAfter int, reportOnly bool,
) error {
	if reportOnly && runLog == "" {
		return exitError{code: 2, err: fmt.Errorf("--report-only needs --run-log")}
	}
	seeds, err := evalParseSeeds(f.seeds)
	if err != nil {
		return exitError{code: 2, err: err}
	}
	var wls []ablation.Workload
	for _, n := range evalSplitList(workloads) {
		w, ok := ablation.WorkloadByName(n)
		if !ok {
			return exitError{code: 2, err: fmt.Errorf("unknown workload %q (moderate, challenging, stress, cascade)", n)}
		}
		wls = append(wls, w)
	}
	var armList []ablation.Arm
	if ids := evalSplitList(arms); len(ids) > 0 && !(len(ids) == 1 && ids[0] == "all") {
		if len(ids) == 1 && ids[0] == "harness" {
			ids = ablation.HarnessIDs
		}
		known := coordinator.AlgorithmIDs()
		armList = append(armList, ablation.Arm{Name: ablation.ArmFull})
		for _, id := range ids {
			if !evalContains(known, id) {
				return exitError{code: 2, err: fmt.Errorf("unknown algorithm %q (known: %s)", id, strings.Join(known, ", "))}
			}
			armList = append(armList, ablation.ArmRemove(id))
		}
		armList = append(armList, ablation.Arm{Name: ablation.ArmNoPMA, Disabled: ablation.PMAIDs}, ablation.BareArm())
	}
	var env *ablation.Env
	if reportOnly {
		emb, err := embed.New(&embed.Config{Provider: embed.ProviderHash, Dim: f.dim})
		if err != nil {
			return exitError{code: 2, err: err}
		}
		env = &ablation.Env{Embedder: emb}
	} else {
		d, done, err := a.benchDatabase(ctx, f)
		if err != nil {
			return err
		}
		defer done()
		env = d.Env
	}
	res, err := ablation.RunSuite(ctx, &ablation.SuiteConfig{
		Env: env, Workloads: wls, Seeds: seeds, Arms: armList,
		Parallel: f.parallel, QueriesPerDay: qpd, EvalQueries: evalQ, Progress: a.stderr,
		PlainProgress: f.plain || !isTerminal(a.stderr), RunLog: runLog, ReportOnly: reportOnly, SkipIdenticalAfter: skipAfter,
	})
	if err != nil {
		return err
	}
	if err := res.Write(f.out); err != nil {
		return err
	}
	if a.json {
		return a.printJSON(map[string]any{
			"out": f.out, "seconds": res.Seconds, "runs": len(res.Runs), "mechanisms": res.Mechanisms,
			"no_measurable_effect": res.NoEffect(),
		})
	}
	fmt.Fprintf(a.stdout, "%-24s %-12s %9s %9s %5s\n", "mechanism", "workload", "ΔQ", "p", "effect")
	for _, m := range res.Mechanisms {
		fmt.Fprintf(a.stdout, "%-24s %-12s %+8.2f%% %9.4f %5s\n", m.ID, m.Best, 100*m.DeltaQ, m.P, evalYesNo(m.Measurable))
	}
	fmt.Fprintf(a.stdout, "wrote %s, %s and charts to %s in %.0f s (%d runs)\n", ablation.ResultsJSON, ablation.ResultsMarkdown,
		f.out, res.Seconds, len(res.Runs))
	return nil
}

func (a *app) benchExperiments(ctx context.Context, f *benchEvalFlags, only, locomoFile string) error {
	seeds, err := evalParseSeeds(f.seeds)
	if err != nil {
		return exitError{code: 2, err: err}
	}
	if seeds == nil {
		seeds = simstat.Seeds[:experiments.SeedsDefault]
	}
	names := evalSplitList(only)
	for _, n := range names {
		if !evalContains(experiments.Names(), n) {
			return exitError{code: 2, err: fmt.Errorf("unknown experiment %q (known: %s)", n, strings.Join(experiments.Names(), ", "))}
		}
	}
	wantLoCoMo := len(names) == 0 || evalContains(names, experiments.NameLoCoMo)
	switch {
	case locomoFile == "none" || !wantLoCoMo:
		locomoFile = ""
	case locomoFile == "":
		if locomoFile, err = locomo.FindDataFile("."); err != nil {
			return exitError{code: 2, err: fmt.Errorf("no LoCoMo file given and none found (--locomo none skips it): %w", err)}
		}
	}
	d, done, err := a.benchDatabase(ctx, f)
	if err != nil {
		return err
	}
	defer done()
	if len(names) == 0 || evalContains(names, experiments.NameBeyond) {
		b, err := experiments.RunBeyond(ctx, d.Env, seeds, f.parallel)
		if err != nil {
			return err
		}
		if err := b.Write(f.out); err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "wrote %s and %s to %s in %.0f s\n", experiments.BeyondJSON, experiments.BeyondMarkdown, f.out, b.Seconds)
		if len(names) == 1 {
			return nil
		}
	}
	res, err := experiments.Run(ctx, &experiments.Config{
		Env: d.Env, Seeds: seeds, Parallel: f.parallel, Only: names,
		LoCoMoFile: locomoFile, Progress: a.stderr, PlainProgress: f.plain || !isTerminal(a.stderr),
		Checkpoint: func(r *experiments.Results) error { return r.Write(f.out) },
	})
	if err != nil {
		return err
	}
	if err := res.Write(f.out); err != nil {
		return err
	}
	if a.json {
		return a.printJSON(res)
	}
	fmt.Fprintf(a.stdout, "wrote %s, %s and charts to %s in %.0f s\n", experiments.ResultsJSON, experiments.ResultsMarkdown, f.out, res.Seconds)
	return nil
}

func evalContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func evalYesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
