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
	BenchSystemsDefault = "bm25,flat,zenbrain,zenbrain-nolife"
)

// benchSummary is the JSON output of 'zbctl bench locomo --json'.
type benchSummary struct {
	Out     string              `json:"out"`
	Seconds float64             `json:"seconds"`
	Results []benchSummaryEntry `json:"results"`
}

type benchSummaryEntry struct {
	Mode     locomo.Mode         `json:"mode"`
	System   string              `json:"system"`
	All      locomo.GroupMetrics `json:"all"`
	Cat1to4  locomo.GroupMetrics `json:"categories_1_4"`
	Queries  int                 `json:"queries"`
	SearchMs float64             `json:"search_mean_millis"`
}

func (a *app) benchCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "bench", Short: "Run benchmarks"}
	var mode, systems, out string
	var embedded bool
	var k int
	loc := &cobra.Command{
		Use:   "locomo [FILE]",
		Short: "Run the LoCoMo retrieval benchmark (bm25, flat and zenbrain, per conversation and pooled)",
		Long: `Run the LoCoMo retrieval benchmark on FILE (default: shared/data/locomo/locomo-dev.json found
upwards from the working directory, or ZB_LOCOMO_FILE) and write results.json, results.md and
recall5.png to --out. The zenbrain systems run on the database (ZB_DATABASE_URL or the dev
cluster), in tenants named "<system>:<tenant>" that are reset first; with --embedded a
throwaway local cluster is started and removed afterwards. A progress bar goes to stderr.

Systems: bm25 (lexical only), flat (vector only, hash embedder), zenbrain (coordinator recall
with the lifecycle between sessions), zenbrain-nolife (the same with the lifecycle off).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.benchLocomo(cmd.Context(), args, locomo.Mode(mode), systems, out, embedded, k)
		},
	}
	loc.Flags().StringVar(&mode, "mode", "both", "protocol: per-conversation, pool or both")
	loc.Flags().StringVar(&systems, "systems", BenchSystemsDefault, "comma-separated systems: bm25, flat, zenbrain, zenbrain-nolife")
	loc.Flags().StringVar(&out, "out", BenchOutDefault, "results directory")
	loc.Flags().BoolVar(&embedded, "embedded", false, "start a throwaway local PostgreSQL cluster for the run")
	intRangeVar(loc.Flags(), &k, "k", locomo.KDefault, locomo.KMin, locomo.KMax, fmt.Sprintf("hits requested per question (%d..%d)", locomo.KMin, locomo.KMax))
	cmd.AddCommand(loc)
	cmd.AddCommand(a.benchEvalCmds()...)
	return cmd
}

func (a *app) benchLocomo(ctx context.Context, args []string, mode locomo.Mode, systems, out string, embedded bool, k int) error {
	if mode == "pool" {
		mode = locomo.SharedPool
	}
	if _, err := mode.Modes(); err != nil {
		return exitError{code: 2, err: err}
	}
	names, err := parseSystems(systems)
	if err != nil {
		return exitError{code: 2, err: err}
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
	var pool *pgxpool.Pool
	needDB := false
	for _, n := range names {
		needDB = needDB || strings.HasPrefix(n, zbsystem.NameDefault)
	}
	if needDB {
		var done func()
		if pool, done, err = a.benchPool(ctx, embedded); err != nil {
			return err
		}
		defer done()
	}
	var syss []locomo.System
	for i := 0; i < len(names); i++ {
		n := names[i]
		switch n {
		case "bm25", "flat":
			bl, err := locomo.Baselines()
			if err != nil {
				return err
			}
			for _, b := range bl {
				if b.Name() == n {
					syss = append(syss, b)
				}
			}
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
			}
			s, err := zbsystem.New(cfg)
			if err != nil {
				return err
			}
			syss = append(syss, s)
		}
	}
	var progress io.Writer
	if !a.json {
		progress = a.stderr
	}
	rep, err := locomo.Run(ctx, ds, syss, locomo.Options{
		Mode: mode, K: k, Progress: progress,
		PlainProgress: !isTerminal(a.stderr),
	})
	if err != nil {
		return err
	}
	if err := locomo.WriteResults(out, rep); err != nil {
		return err
	}
	if a.json {
		sum := benchSummary{Out: out, Seconds: rep.Seconds}
		for _, r := range rep.Results {
			all, _ := r.Group(locomo.GroupAll)
			c14, _ := r.Group(locomo.Group1to4)
			sum.Results = append(sum.Results, benchSummaryEntry{
				Mode: r.Mode, System: r.System, All: all, Cat1to4: c14,
				Queries: r.Queries, SearchMs: r.SearchMeanMillis,
			})
		}
		return a.printJSON(sum)
	}
	fmt.Fprintf(a.stdout, "%-17s %-16s %6s %6s %6s %6s %7s\n", "mode", "system", "R@5", "R@10", "P@5", "MRR", "NDCG@5")
	for _, r := range rep.Results {
		g, _ := r.Group(locomo.GroupAll)
		fmt.Fprintf(a.stdout, "%-17s %-16s %6.3f %6.3f %6.3f %6.3f %7.3f\n", r.Mode, r.System, g.Recall5, g.Recall10, g.P5, g.MRR, g.NDCG5)
	}
	fmt.Fprintf(a.stdout, "wrote %s, %s and %s to %s in %.0f s\n", locomo.ResultsJSON, locomo.ResultsMarkdown, locomo.ResultsChart, out, rep.Seconds)
	return nil
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
		switch n {
		case "bm25", "flat", zbsystem.NameDefault, zbsystem.NameLifecycleOff:
		default:
			return nil, fmt.Errorf("unknown system %q: want bm25, flat, %s or %s", n, zbsystem.NameDefault, zbsystem.NameLifecycleOff)
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
