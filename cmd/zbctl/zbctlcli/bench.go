package zbctlcli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/bench/locomo"
	"github.com/zenbrain/zb/bench/locomo/zbsystem"
	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/internal/pgcluster"
	"github.com/zenbrain/zb/migrate"
)

// Bench defaults.
const (
	// BenchOutDefault is the default results directory of 'zbctl bench locomo'.
	BenchOutDefault = "bench-results/locomo"
	// BenchSystemsDefault are the systems measured by default.
	BenchSystemsDefault = "bm25,bm25-w4,bm25-w8,flat,zenbrain,zenbrain-nolife"
)

// benchSummary is the JSON output of 'zbctl bench locomo --json'.
type benchSummary struct {
	Out      string                 `json:"out"`
	Seconds  float64                `json:"seconds"`
	Results  []benchSummaryEntry    `json:"results"`
	Ablation *locomo.AblationReport `json:"ablation,omitempty"`
}

type benchSummaryEntry struct {
	Mode        locomo.Mode            `json:"mode"`
	System      string                 `json:"system"`
	Budgets     []locomo.BudgetFigures `json:"budgets"`
	All         locomo.GroupMetrics    `json:"all"`
	Cat1to4     locomo.GroupMetrics    `json:"categories_1_4"`
	Top5Sources float64                `json:"top5_sources"`
	Top5Chars   float64                `json:"top5_chars"`
	Queries     int                    `json:"queries"`
	SearchMs    float64                `json:"search_mean_millis"`
}

// benchLocomoFlags are the flags of 'zbctl bench locomo'.
type benchLocomoFlags struct {
	mode, systems, out     string
	ablate, conversations  string
	embedded, modeExplicit bool
	k                      int
}

func (a *app) benchCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "bench", Short: "Run benchmarks"}
	var f benchLocomoFlags
	loc := &cobra.Command{
		Use:   "locomo [FILE]",
		Short: "Run the LoCoMo retrieval benchmark (evidence within a context budget, and recall)",
		Long: `Run the LoCoMo retrieval benchmark on FILE (default: shared/data/locomo/locomo-dev.json found
upwards from the working directory, or ZB_LOCOMO_FILE) and write results.json, results.md and
recall5.png (strict credit at each budget beside Recall@5) to --out. The zenbrain systems run
on the database (ZB_DATABASE_URL or the dev cluster), in tenants named "<system>:<tenant>"
that are reset first; with --embedded a throwaway local cluster is started and removed
afterwards. A progress bar goes to stderr.

The headline is the evidence an agent receives within a context budget of 250, 1000 and 2000
estimated tokens: each system's --k hits are packed in rank order until the budget is full
(the last one cut), and an evidence turn counts (strict) only if its own text lies whole
inside what was delivered; lenient credit also counts every source of a hit delivered whole,
and for the zenbrain systems their own context block at that budget is credited strictly
too. Recall@k, P@5, MRR and NDCG@5 follow, with the mean size of a top-5 hit.

Systems: bm25 (lexical only, single turns), bm25-w4 and bm25-w8 (the same over non-overlapping
windows of 4 and 8 consecutive turns of one session), flat (vector only, hash embedder),
zenbrain (coordinator recall with the lifecycle between sessions), zenbrain-nolife (the same
with the lifecycle off). --conversations runs only the conversations with these sample_ids.

--ablate runs the mechanism ablation beside the usual results (per conversation only; it is the
default mode then): for each registry id given ("all": every one, see 'zbctl algorithms list'),
the zenbrain system with that mechanism switched off for its tenants ("zenbrain-no-<id>", one
progress bar each) is compared question by question with zenbrain, which must be among
--systems. ablation.json and ablation.md give, per mechanism, the mean change of the strict
credit at 250 and 1000 tokens and of the context block's at 250 (negative: less evidence
without it), with a two-sided Wilcoxon signed-rank test over questions, and whether the arm
was identical to the full system on every question.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.modeExplicit = cmd.Flags().Changed("mode")
			return a.benchLocomo(cmd.Context(), args, &f)
		},
	}
	loc.Flags().StringVar(&f.mode, "mode", "both", "protocol: per-conversation, pool or both")
	loc.Flags().StringVar(&f.systems, "systems", BenchSystemsDefault, "comma-separated systems: bm25, bm25-w4, bm25-w8, flat, zenbrain, zenbrain-nolife")
	loc.Flags().StringVar(&f.out, "out", BenchOutDefault, "results directory")
	loc.Flags().BoolVar(&f.embedded, "embedded", false, "start a throwaway local PostgreSQL cluster for the run")
	intRangeVar(loc.Flags(), &f.k, "k", locomo.KDefault, locomo.KMin, locomo.KMax, fmt.Sprintf("hits requested per question (%d..%d)", locomo.KMin, locomo.KMax))
	loc.Flags().StringVar(&f.ablate, "ablate", "", `registry ids to switch off one at a time against zenbrain, comma-separated, or "all"`)
	loc.Flags().StringVar(&f.conversations, "conversations", "", "comma-separated sample_ids to run (default: every conversation)")
	cmd.AddCommand(loc)
	cmd.AddCommand(a.benchEvalCmds()...)
	return cmd
}

func (a *app) benchLocomo(ctx context.Context, args []string, f *benchLocomoFlags) error {
	mode, out, k := locomo.Mode(f.mode), f.out, f.k
	if mode == "pool" {
		mode = locomo.SharedPool
	}
	if _, err := mode.Modes(); err != nil {
		return exitError{code: 2, err: err}
	}
	names, err := parseSystems(f.systems)
	if err != nil {
		return exitError{code: 2, err: err}
	}
	ablate, err := parseAblate(f.ablate)
	if err != nil {
		return exitError{code: 2, err: err}
	}
	if ablate != nil {
		if f.modeExplicit && mode != locomo.PerConversation {
			return exitError{code: 2, err: fmt.Errorf("--ablate runs per conversation only, not with --mode %s", f.mode)}
		}
		mode = locomo.PerConversation
		if !slices.Contains(names, zbsystem.NameDefault) {
			return exitError{code: 2, err: fmt.Errorf("--ablate compares with %s: add it to --systems", zbsystem.NameDefault)}
		}
	}
	file := ""
	if len(args) == 1 {
		file = args[0]
	} else if file, err = locomo.FindDataFile("."); err != nil {
		return exitError{code: 2, err: fmt.Errorf("no LoCoMo file given and none found: %w", err)}
	}
	ds, err := locomo.Load(file)
	if err != nil {
		return err
	}
	if ids := evalSplitList(f.conversations); len(ids) > 0 {
		if ds, err = ds.Select(ids); err != nil {
			return exitError{code: 2, err: err}
		}
	}
	var pool *pgxpool.Pool
	needDB := false
	for _, n := range names {
		needDB = needDB || strings.HasPrefix(n, zbsystem.NameDefault)
	}
	if needDB {
		var done func()
		if pool, done, err = a.benchPool(ctx, f.embedded); err != nil {
			return err
		}
		defer done()
	}
	baselines, err := locomo.Baselines()
	if err != nil {
		return err
	}
	var syss []locomo.System
	var fullCfg *zbsystem.Config
	for i := 0; i < len(names); i++ {
		n := names[i]
		switch n {
		case zbsystem.NameDefault, zbsystem.NameLifecycleOff:
			cfg := &zbsystem.Config{Pool: pool, Name: n}
			if n == zbsystem.NameDefault {
				if zbsystem.DefaultLifecycle == nil {
					fmt.Fprintf(a.stderr, "zbctl: %v; %s is not measured\n", zbsystem.ErrLifecycleUnavailable, n)
					if !slices.Contains(names, zbsystem.NameLifecycleOff) {
						names = append(names, zbsystem.NameLifecycleOff)
					}
					continue
				}
				cfg.Lifecycle = zbsystem.DefaultLifecycle
				fullCfg = cfg
			}
			s, err := zbsystem.New(cfg)
			if err != nil {
				return err
			}
			syss = append(syss, s)
		default:
			for _, b := range baselines {
				if b.Name() == n {
					syss = append(syss, b)
				}
			}
		}
	}
	var progress io.Writer
	if !a.json {
		progress = a.stderr
	}
	opts := locomo.Options{Mode: mode, K: k, Progress: progress, PlainProgress: !isTerminal(a.stderr), PerQuestion: ablate != nil}
	rep, err := locomo.Run(ctx, ds, syss, opts)
	if err != nil {
		return err
	}
	if err := locomo.WriteResults(out, rep); err != nil {
		return err
	}
	var abl *locomo.AblationReport
	if ablate != nil {
		if abl, err = benchAblate(ctx, ds, rep, fullCfg, ablate, opts); err != nil {
			return err
		}
		if err := locomo.WriteAblation(out, abl); err != nil {
			return err
		}
	}
	if a.json {
		sum := benchSummary{Out: out, Seconds: rep.Seconds, Ablation: abl}
		for _, r := range rep.Results {
			all, _ := r.Group(locomo.GroupAll)
			c14, _ := r.Group(locomo.Group1to4)
			sum.Results = append(sum.Results, benchSummaryEntry{
				Mode: r.Mode, System: r.System, Budgets: r.Budgets, All: all, Cat1to4: c14,
				Top5Sources: r.Top5Sources, Top5Chars: r.Top5Chars, Queries: r.Queries, SearchMs: r.SearchMeanMillis,
			})
		}
		return a.printJSON(sum)
	}
	fmt.Fprintf(a.stdout, "%-17s %-16s", "mode", "system")
	for _, t := range rep.Settings.Budgets {
		fmt.Fprintf(a.stdout, " %8s %8s", fmt.Sprintf("S@%d", t), fmt.Sprintf("ctx@%d", t))
	}
	fmt.Fprintf(a.stdout, " %6s %6s %6s %6s %7s %5s\n", "R@5", "R@10", "P@5", "MRR", "NDCG@5", "src@5")
	for _, r := range rep.Results {
		g, _ := r.Group(locomo.GroupAll)
		fmt.Fprintf(a.stdout, "%-17s %-16s", r.Mode, r.System)
		for _, f := range r.Budgets {
			c := "-"
			if f.ContextStrict != nil {
				c = fmt.Sprintf("%.3f", *f.ContextStrict)
			}
			fmt.Fprintf(a.stdout, " %8.3f %8s", f.Strict, c)
		}
		fmt.Fprintf(a.stdout, " %6.3f %6.3f %6.3f %6.3f %7.3f %5.2f\n", g.Recall5, g.Recall10, g.P5, g.MRR, g.NDCG5, r.Top5Sources)
	}
	fmt.Fprintf(a.stdout, "wrote %s, %s and %s to %s in %.0f s\n", locomo.ResultsJSON, locomo.ResultsMarkdown, locomo.ResultsChart, out, rep.Seconds)
	if abl != nil {
		a.printAblation(abl, out)
	}
	return nil
}

// benchSystems are the systems 'zbctl bench locomo' knows, in report order.
var benchSystems = []string{
	locomo.BM25NameDefault, locomo.BM25WindowName(locomo.BM25WindowSmall), locomo.BM25WindowName(locomo.BM25WindowLarge),
	locomo.FlatNameDefault, zbsystem.NameDefault, zbsystem.NameLifecycleOff,
}

// parseSystems splits and checks a comma-separated system list.
func parseSystems(s string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !slices.Contains(benchSystems, n) {
			return nil, fmt.Errorf("unknown system %q: want one of %s", n, strings.Join(benchSystems, ", "))
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no systems given")
	}
	return out, nil
}

// benchPool returns a pool on the configured database, or with embedded on a throwaway
// migrated cluster, and the function that releases it.
func (a *app) benchPool(ctx context.Context, embedded bool) (*pgxpool.Pool, func(), error) {
	benchGC()
	u := ""
	cleanup := func() {}
	if embedded {
		dir, err := os.MkdirTemp("", "zbctl-bench-")
		if err != nil {
			return nil, nil, err
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			return nil, nil, err
		}
		cl, err := pgcluster.New(&pgcluster.Config{
			Dir: filepath.Join(dir, "pg"), AnyPort: true, Ephemeral: true,
			BinDir: a.env.PgBinDir, RunAsUser: a.env.PgUser,
		})
		if err != nil {
			_ = os.RemoveAll(dir)
			return nil, nil, err
		}
		destroy := func() {
			c, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_ = cl.Destroy(c)
			_ = os.RemoveAll(dir)
		}
		if err := cl.Init(ctx); err != nil {
			destroy()
			return nil, nil, err
		}
		if err := cl.Start(ctx); err != nil {
			destroy()
			return nil, nil, err
		}
		if u, err = cl.URL(); err != nil {
			destroy()
			return nil, nil, err
		}
		if _, err := a.migrateUp(ctx, u, &migrate.Opts{}); err != nil {
			destroy()
			return nil, nil, err
		}
		cleanup = destroy
	} else {
		var err error
		if u, err = a.databaseURL(ctx); err != nil {
			return nil, nil, err
		}
	}
	pool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: u, ApplicationName: "zbctl bench", MaxConns: 4})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return pool, func() { pool.Close(); cleanup() }, nil
}
