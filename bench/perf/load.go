package perf

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/zenbrain/zb/bench/internal/stmtstats"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/embed"
	"github.com/zenbrain/zb/worker"
)

// LoadFigure is the mixed load test.
type LoadFigure struct {
	// N and Tenants describe the database; Clients the concurrent clients; PoolSize their
	// pool; Duration the length (seconds); Worker whether a worker ran in-process.
	N        int     `json:"n"`
	Tenants  int     `json:"tenants"`
	Clients  int     `json:"clients"`
	PoolSize int     `json:"pool_size"`
	Duration float64 `json:"duration_s"`
	Worker   bool    `json:"worker"`
	// Ops, Errors and Throughput (operations per second) over all clients. Clients start
	// operations until the deadline and let the last one finish, so none is cut off.
	Ops        int     `json:"ops"`
	Errors     int     `json:"errors"`
	Throughput float64 `json:"throughput_per_s"`
	// FirstErrors are up to five error messages.
	FirstErrors []string `json:"first_errors,omitempty"`
	// Recall and Store are the latencies per operation (Recall with side effects).
	Recall Latency `json:"recall"`
	Store  Latency `json:"store"`
	// SideEffectsSkipped counts recalls whose side effects gave up on a lock (not errors).
	SideEffectsSkipped int `json:"side_effects_skipped"`
	// DerivedDuring is the number of memories stored by the test that the worker derived
	// before the end; Stored how many the test stored.
	Stored        int `json:"stored"`
	DerivedDuring int `json:"derived_during"`
	// TopStatements are the top statements by total execution time (pg_stat_statements), or
	// empty with StatementsUnavailable saying why.
	TopStatements         []Statement `json:"top_statements,omitempty"`
	StatementsUnavailable string      `json:"statements_unavailable,omitempty"`
	// WorkerBinary is the zbworker program that ran as a separate process during the test
	// (Config.WorkerBin); empty when the worker ran in-process (or not at all).
	WorkerBinary string `json:"worker_binary,omitempty"`
	// RSSMiB is the largest resident set (VmRSS, sampled every RSSInterval from the start of
	// the clients to the end of the test) in MiB — of the zbworker process when WorkerBinary
	// is set, else of the benchmark process (clients, coordinator and the in-process worker
	// together); RSSHWMMiB the kernel's high-water mark of that process at the end (VmHWM, over
	// its whole life: for the benchmark process including the bulk loads before the test).
	// RSSSamples counts the samples; RSSMet is RSSMiB ≤ RSSTargetMiB; RSSUnavailable says why
	// there is no figure (no /proc).
	RSSMiB         float64 `json:"rss_mib"`
	RSSHWMMiB      float64 `json:"rss_hwm_mib"`
	RSSSamples     int     `json:"rss_samples"`
	RSSMet         bool    `json:"rss_met"`
	RSSUnavailable string  `json:"rss_unavailable,omitempty"`
	// WorkerGoroutinesStart and WorkerGoroutinesEnd are the zbworker process's go_goroutines
	// (its /metrics) before the clients start and after the test, before it is stopped;
	// WorkerConns the most connections it held (pg_stat_activity, sampled with the resident
	// set) and WorkerConnsLimit its pool's size; WorkerExit how it ended on SIGTERM ("clean",
	// or what went wrong).
	WorkerGoroutinesStart int    `json:"worker_goroutines_start,omitempty"`
	WorkerGoroutinesEnd   int    `json:"worker_goroutines_end,omitempty"`
	WorkerConns           int    `json:"worker_conns,omitempty"`
	WorkerConnsLimit      int    `json:"worker_conns_limit,omitempty"`
	WorkerExit            string `json:"worker_exit,omitempty"`
}

// RSSInterval is how often the load test samples the resident set.
const RSSInterval = 500 * time.Millisecond

// workerConnsLimit is zbworker's pool size at its defaults: its concurrency per queue times
// its two queues (derive and lifecycle), plus 4 (cmd/zbworker).
const workerConnsLimit = worker.ConcurrencyDefault*2 + 4

// Statement is one row of pg_stat_statements.
type Statement = stmtstats.Statement

// benchLoad runs c.Clients clients mixing Recall and Store 9:1 for c.LoadDuration.
func benchLoad(ctx context.Context, c *Config, bdb *benchDB, emb embed.Embedder, n, tenants int) (*LoadFigure, error) {
	f := &LoadFigure{
		N: n, Tenants: tenants, Clients: c.Clients, PoolSize: c.PoolSize, Worker: !c.NoWorker,
		WorkerBinary: c.WorkerBin,
	}
	pool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: bdb.url, ApplicationName: "zbperfbench-load", MaxConns: int32(c.PoolSize)})
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	co, err := coordinator.New(&coordinator.Config{Pool: pool, Embedder: emb, RecallSplitMinDocs: c.RecallSplitMinDocs})
	if err != nil {
		return nil, err
	}
	f.StatementsUnavailable = stmtstats.Reset(ctx, bdb.pool)
	statsOK := f.StatementsUnavailable == ""
	var maxID int64
	if err := bdb.pool.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM zb.memory`).Scan(&maxID); err != nil {
		return nil, err
	}

	// The resident set watched: the zbworker process's, or this process's with the worker in it.
	watchPid, connCount := selfPid, (func(context.Context) (int, error))(nil)
	var xw *extWorker
	switch {
	case c.WorkerBin != "":
		var err error
		if xw, err = startWorker(ctx, c.WorkerBin, bdb.url); err != nil {
			return nil, err
		}
		defer func() {
			if f.WorkerExit == "" { // an error ended the test early
				_ = xw.Stop(time.Minute)
			}
		}()
		watchPid, f.WorkerConnsLimit = xw.Pid(), workerConnsLimit
		app := fmt.Sprintf("zbworker[%%]:%d", xw.Pid())
		connCount = func(ctx context.Context) (int, error) {
			var k int
			err := bdb.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE $1`, app).Scan(&k)
			return k, err
		}
		if f.WorkerGoroutinesStart, err = xw.Goroutines(ctx); err != nil {
			return nil, fmt.Errorf("worker metrics: %w", err)
		}
	case !c.NoWorker:
		wpool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: bdb.url, ApplicationName: "zbperfbench-worker", MaxConns: 6})
		if err != nil {
			return nil, err
		}
		defer wpool.Close()
		wco, err := coordinator.New(&coordinator.Config{Pool: wpool, Embedder: emb})
		if err != nil {
			return nil, err
		}
		w, err := worker.New(&worker.Config{Pool: wpool, Coordinator: wco, ID: "zbperfbench", Logger: c.Logger})
		if err != nil {
			return nil, err
		}
		if err := w.Start(ctx); err != nil {
			return nil, err
		}
		defer func() {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			_ = w.Stop(sctx)
		}()
	}

	type clientStats struct {
		recall, store []time.Duration
		errs          []string
		nerr, skipped int
	}
	stats := make([]clientStats, c.Clients)
	// Clients start operations until the deadline and finish the one in progress (with ctx,
	// so none is cut off); the measured duration runs until the last one returns.
	watch := watchMemory(ctx, watchPid, RSSInterval, connCount)
	start := time.Now()
	deadline := start.Add(c.LoadDuration)
	var wg sync.WaitGroup
	for i := range c.Clients {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			st := &stats[i]
			r := rand.New(rand.NewPCG(c.Seed, uint64(1000+i)))
			for seq := 0; ; seq++ {
				if ctx.Err() != nil || time.Now().After(deadline) {
					return
				}
				tenant := tenantName(r.IntN(tenants))
				var err error
				t := time.Now()
				if r.IntN(10) == 0 {
					in := genItem(r, tenant, n+i*1_000_000+seq, time.Now())
					in.Layer = ""
					_, err = co.Store(ctx, in)
					if err == nil {
						st.store = append(st.store, time.Since(t))
					}
				} else {
					var res *coordinator.RecallResult
					res, err = co.Recall(ctx, tenant, genQuery(r), &coordinator.RecallOpts{K: K})
					if err == nil {
						st.recall = append(st.recall, time.Since(t))
						if !res.SideEffects {
							st.skipped++
						}
					}
				}
				if err != nil {
					st.nerr++
					if len(st.errs) < 5 {
						st.errs = append(st.errs, err.Error())
					}
				}
			}
		}(i)
	}
	wg.Wait()
	f.Duration = time.Since(start).Seconds()
	if rss, hwm, conns, samples, err := watch.Stop(ctx, watchPid, connCount); err != nil {
		f.RSSUnavailable = err.Error()
	} else {
		f.RSSMiB, f.RSSHWMMiB, f.RSSSamples, f.RSSMet = rss, hwm, samples, rss <= RSSTargetMiB
		if xw != nil {
			f.WorkerConns = conns
		}
	}
	if xw != nil {
		// Its goroutines while it still runs (jobs queued by the test may be in flight), then a
		// graceful stop: SIGTERM lets running jobs finish.
		if g, err := xw.Goroutines(ctx); err == nil {
			f.WorkerGoroutinesEnd = g
		}
		f.WorkerExit = xw.Stop(time.Minute)
	}
	var recall, store []time.Duration
	for _, st := range stats {
		recall, store = append(recall, st.recall...), append(store, st.store...)
		f.Errors += st.nerr
		f.SideEffectsSkipped += st.skipped
		for _, e := range st.errs {
			if len(f.FirstErrors) < 5 {
				f.FirstErrors = append(f.FirstErrors, e)
			}
		}
	}
	f.Recall, f.Store = summarize(recall), summarize(store)
	f.Ops = len(recall) + len(store) + f.Errors
	f.Stored = len(store)
	f.Throughput = float64(len(recall)+len(store)) / f.Duration
	if err := bdb.pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory WHERE id > $1 AND derived_at IS NOT NULL`, maxID).Scan(&f.DerivedDuring); err != nil {
		return nil, err
	}
	if statsOK {
		if f.TopStatements, err = stmtstats.Top(ctx, bdb.pool, 10); err != nil {
			return nil, err
		}
	}
	c.Logger.Info("load", "ops", f.Ops, "errors", f.Errors, "throughput", f.Throughput, "recall_p99", f.Recall.P99, "store_p99", f.Store.P99)
	return f, nil
}
