// Command zbperfbench runs zenbrain's performance benchmarks (package bench/perf) and writes
// results.json and results.md into a directory.
//
// Usage:
//
//	go run ./bench/perf/cmd/zbperfbench [-out DIR] [-quick] [-sizes 10000,100000] [-duration 60s] ...
//
// With ZB_DATABASE_URL set (a role that may CREATE DATABASE) it creates its databases on that
// server (pg_stat_statements then only works when that server preloads it); otherwise it starts
// a throwaway PostgreSQL cluster (internal/pgcluster, Ephemeral: fsync off) with
// shared_preload_libraries = pg_stat_statements and removes it at the end.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/zenbrain/zb/bench/perf"
	"github.com/zenbrain/zb/internal/pgcluster"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("zbperfbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "bench/perf/results", "directory of results.json and results.md")
	quick := fs.Bool("quick", false, "a quick run: 2k memories, 50 queries, 1k import rows, 10 s load (explicit flags win)")
	sizes := fs.String("sizes", "10000,100000", "memory counts of the recall benchmark (comma-separated; empty skips recall and load)")
	tenants := fs.Int("tenants", perf.TenantsDefault, "tenants of the multi-tenant layout")
	queries := fs.Int("queries", perf.QueriesDefault, "timed queries per recall figure")
	filtered := fs.Int("filtered-queries", perf.FilteredQueriesDefault, "queries per filtered-search setting")
	partialMax := fs.Int("partial-max", perf.PartialMaxDefault, "largest size at which partial per-layer HNSW indexes are measured (-1: never)")
	halfvecMax := fs.Int("halfvec-max", perf.HalfvecMaxDefault, "largest size at which recall's vector scan is also measured on a half-precision (halfvec) HNSW graph (-1: never)")
	importSize := fs.Int("import", perf.ImportSizeDefault, "rows of the import benchmark (-1 skips the write benchmarks)")
	batch := fs.Int("batch", perf.BatchSizeDefault, "rows per StoreBatch call and per COPY")
	stores := fs.Int("stores", perf.StoresDefault, "timed single Store calls")
	clients := fs.Int("clients", perf.ClientsDefault, "concurrent clients of the load test")
	duration := fs.Duration("duration", perf.LoadDurationDefault, "length of the load test (-1ns skips it)")
	poolSize := fs.Int("pool", perf.PoolSizeDefault, "client pool size of the load test")
	noWorker := fs.Bool("no-worker", false, "run the load test without a worker")
	scorer := fs.String("lexical-scorer", "", "zb.lexical_scorer of the benchmark databases: auto, sql or compiled (migration 0032;\nempty: the server's default, auto)")
	workerBin := fs.String("worker-bin", "auto", "zbworker program the load test runs as a separate process, its memory, goroutines and connections measured\n(auto: the zbworker beside this program, if any; empty: the worker in-process)")
	keep := fs.Bool("keep", false, "keep the recall databases (for profiling; needs ZB_DATABASE_URL)")
	multiOnly := fs.Bool("multi-only", false, "measure only the multi-tenant layout (skip the one-tenant layout)")
	dim := fs.Int("dim", perf.DimDefault, "embedding dimension")
	seed := fs.Uint64("seed", 1, "seed of the generated data")
	hnswM := fs.Int("hnsw-m", 0, "HNSW m of the recall databases' index (0: the migration's, 16)")
	hnswEfc := fs.Int("hnsw-ef-construction", 0, "HNSW ef_construction of the recall databases' index (0: the migration's, 64)")
	split := fs.Int64("recall-split", 0, "tenant size from which recall reads its two halves concurrently (0: the coordinator's default, 1000; -1: never)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *quick {
		quickDefaults := map[string]func(){
			"sizes": func() { *sizes = "2000" }, "queries": func() { *queries = 50 }, "filtered-queries": func() { *filtered = 20 },
			"import": func() { *importSize = 1000 }, "stores": func() { *stores = 100 }, "duration": func() { *duration = 10 * time.Second },
		}
		for name, apply := range quickDefaults {
			if !set[name] {
				apply()
			}
		}
	}
	sz := []int{}
	for _, s := range strings.Split(*sizes, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			fmt.Fprintf(stderr, "zbperfbench: -sizes: %q is not a number\n", s)
			return 2
		}
		sz = append(sz, n)
	}
	if *workerBin == "auto" {
		*workerBin = ""
		if !*noWorker {
			*workerBin = besideSelf("zbworker")
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	cfg := &perf.Config{
		AdminURL: getenv("ZB_DATABASE_URL"), Dim: *dim, Sizes: sz, Tenants: *tenants, Queries: *queries,
		FilteredQueries: *filtered, PartialMax: *partialMax, HalfvecMax: *halfvecMax, ImportSize: *importSize, BatchSize: *batch, Stores: *stores,
		Clients: *clients, LoadDuration: *duration, PoolSize: *poolSize, NoWorker: *noWorker, WorkerBin: *workerBin, Keep: *keep, MultiOnly: *multiOnly,
		RecallSplitMinDocs: *split, LexicalScorer: *scorer, HNSWM: *hnswM, HNSWEfConstruction: *hnswEfc, Seed: *seed, Logger: logger,
		// Partial results are saved after each figure, so a long run that is stopped keeps them.
		OnProgress: func(r *perf.Results) {
			if err := r.Write(*out); err != nil {
				logger.Warn("error saving partial results", "error", err)
			}
		},
	}
	if cfg.AdminURL == "" {
		u, cleanup, err := ephemeral(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "zbperfbench: %v\n", err)
			return 1
		}
		defer cleanup()
		cfg.AdminURL = u
	}
	res, err := perf.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "zbperfbench: %v\n", err)
		return 1
	}
	if err := res.Write(*out); err != nil {
		fmt.Fprintf(stderr, "zbperfbench: %v\n", err)
		return 1
	}
	res.Markdown(stdout)
	fmt.Fprintf(stdout, "results: %s\n", filepath.Join(*out, "results.{json,md}"))
	return 0
}

// besideSelf returns the path of the executable name in this program's directory, or "" when
// there is none (as under go run, which builds into a temporary directory).
func besideSelf(name string) string {
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	p := filepath.Join(filepath.Dir(self), name)
	if st, err := os.Stat(p); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return ""
	}
	return p
}

// ephemeral starts a throwaway cluster, sized for 100k 768-d memories and with
// pg_stat_statements preloaded, and returns the URL of its maintenance database.
func ephemeral(ctx context.Context) (string, func(), error) {
	dir, err := os.MkdirTemp("", "zbperfbench-")
	if err != nil {
		return "", nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, err
	}
	cl, err := pgcluster.New(&pgcluster.Config{
		Dir: filepath.Join(dir, "pg"), AnyPort: true, Ephemeral: true, Database: "postgres",
		Settings: map[string]string{
			"max_connections": "100", "log_min_messages": "fatal", "shared_buffers": "'1GB'",
			"shared_preload_libraries": "'pg_stat_statements'", "max_parallel_maintenance_workers": "1",
		},
	})
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, err
	}
	cleanup := func() {
		c, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = cl.Destroy(c)
		_ = os.RemoveAll(dir)
	}
	if err := cl.Init(ctx); err != nil {
		cleanup()
		return "", nil, err
	}
	if err := cl.Start(ctx); err != nil {
		cleanup()
		return "", nil, err
	}
	u, err := cl.URL()
	if err != nil {
		cleanup()
		return "", nil, err
	}
	return u, cleanup, nil
}
