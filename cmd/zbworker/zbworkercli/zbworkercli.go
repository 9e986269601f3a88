// Package zbworkercli implements the zbworker command: configuration from flags and the
// environment (read only here), then a [worker.Worker] with its HTTP server until SIGTERM, or
// until the queues are drained with --once.
package zbworkercli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/embed"
	"github.com/zenbrain/zb/internal/pgcluster"
	"github.com/zenbrain/zb/migrate"
	"github.com/zenbrain/zb/worker"
)

// Version is the zbworker version reported in heartbeats.
const Version = "0.1.0-dev"

// HTTPAddrDefault is the default address of /metrics, /healthz and /riverui.
const HTTPAddrDefault = "127.0.0.1:9188"

// Run executes zbworker with args and returns the exit code.
func Run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return RunContext(ctx, args, os.Getenv, stdout, stderr)
}

type options struct {
	databaseURL         string
	home                string
	queues              string
	concurrency         int
	once                bool
	onceTimeout         time.Duration
	httpAddr            string
	riverUI             bool
	embedder            string
	embedModel          string
	embedURL            string
	embedAPIKey         string
	logLevel            string
	logFormat           string
	decayInterval       time.Duration
	reviewInterval      time.Duration
	sleepInterval       time.Duration
	sweepInterval       time.Duration
	idleInterval        time.Duration
	prospectiveInterval time.Duration
	vacuumInterval      time.Duration
	sessionIdle         time.Duration
	jobTimeout          time.Duration
	rescueAfter         time.Duration
}

// RunContext is Run with an explicit context and environment lookup.
func RunContext(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	var o options
	cmd := newCommand(&o, getenv, stdout, stderr)
	cmd.SetArgs(args)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	if err := cmd.ExecuteContext(ctx); err != nil {
		fmt.Fprintf(stderr, "zbworker: %v\n", err)
		return 1
	}
	return 0
}

// newCommand returns the zbworker command, its flags bound to o.
func newCommand(o *options, getenv func(string) string, stdout, stderr io.Writer) *cobra.Command {
	concurrency, concurrencyErr := envInt(getenv, "ZB_WORKER_CONCURRENCY", worker.ConcurrencyDefault)
	cmd := &cobra.Command{
		Use:   "zbworker",
		Short: "Run zenbrain's background jobs (derive, decay, review, sleep, propagation, consolidation)",
		Long: `zbworker works zenbrain's River queues against ZB_DATABASE_URL (else the dev cluster of
ZB_HOME, default ./.zb). Several replicas may run on the same database: each job runs once.

It serves Prometheus metrics at /metrics, a health check at /healthz and, with --riverui,
River UI at /riverui. SIGTERM or Ctrl-C stops it gracefully: running jobs finish first.

After erases it vacuums and analyzes zenbrain's tables (--vacuum-interval), so that erased
content leaves dead row versions and planner statistics. That needs a connection as the
tables' owner or a superuser; under another role it logs a warning and 'zbctl vacuum', run as
the owner, does it.

Environment: ZB_DATABASE_URL, ZB_HOME, ZB_EMBEDDER (hash|ollama|openai), ZB_EMBED_MODEL,
ZB_EMBED_URL, ZB_EMBED_API_KEY, ZB_WORKER_CONCURRENCY, ZB_WORKER_HTTP_ADDR.`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if concurrencyErr != nil && !cmd.Flags().Changed("concurrency") {
				return concurrencyErr
			}
			if err := o.checkTimeouts(); err != nil {
				return err
			}
			return run(cmd.Context(), o, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.databaseURL, "database-url", getenv("ZB_DATABASE_URL"), "PostgreSQL URL (default $ZB_DATABASE_URL, else the dev cluster)")
	f.StringVar(&o.home, "home", cmpOr(getenv("ZB_HOME"), ".zb"), "dev cluster directory used when no URL is given")
	f.StringVar(&o.queues, "queues", "derive,lifecycle", "comma-separated queues to work")
	f.IntVar(&o.concurrency, "concurrency", concurrency, "jobs worked at once per queue")
	f.BoolVar(&o.once, "once", false, "work until the queues are drained, then exit")
	f.DurationVar(&o.onceTimeout, "once-timeout", 10*time.Minute, "with --once: give up after this long")
	f.StringVar(&o.httpAddr, "http-addr", cmpOr(getenv("ZB_WORKER_HTTP_ADDR"), HTTPAddrDefault), "address of /metrics, /healthz and /riverui (empty: no HTTP server)")
	f.BoolVar(&o.riverUI, "riverui", false, "serve River UI at /riverui")
	f.StringVar(&o.embedder, "embedder", cmpOr(getenv("ZB_EMBEDDER"), "hash"), "embedder: hash (offline), ollama or openai")
	f.StringVar(&o.embedModel, "embed-model", getenv("ZB_EMBED_MODEL"), "embedding model (ollama/openai)")
	f.StringVar(&o.embedURL, "embed-url", getenv("ZB_EMBED_URL"), "embedding server base URL (ollama/openai)")
	o.embedAPIKey = getenv("ZB_EMBED_API_KEY")
	f.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	f.StringVar(&o.logFormat, "log-format", "text", "log format: text or json")
	f.DurationVar(&o.decayInterval, "decay-interval", worker.DecayIntervalDefault, "how often decay runs (-1ns disables)")
	f.DurationVar(&o.reviewInterval, "review-interval", worker.ReviewIntervalDefault, "how often due reviews run (-1ns disables)")
	f.DurationVar(&o.sleepInterval, "sleep-interval", worker.SleepIntervalDefault, "how often every tenant sleeps (-1ns disables)")
	f.DurationVar(&o.sweepInterval, "sweep-interval", worker.SweepIntervalDefault, "how often underived memories are swept up (-1ns disables)")
	f.DurationVar(&o.idleInterval, "idle-interval", worker.IdleIntervalDefault, "how often idle sessions are looked for (-1ns disables)")
	f.DurationVar(&o.prospectiveInterval, "prospective-interval", worker.ProspectiveTickInterval, "how often due time intentions fire (-1ns disables)")
	f.DurationVar(&o.vacuumInterval, "vacuum-interval", worker.VacuumIntervalDefault, "how often erased content is vacuumed away, as the tables' owner (-1ns disables)")
	f.DurationVar(&o.sessionIdle, "session-idle", worker.SessionIdleDefault, "idle time after which a session is consolidated")
	f.DurationVar(&o.jobTimeout, "job-timeout", worker.JobTimeoutDefault,
		fmt.Sprintf("longest one attempt of a job may run before it is cancelled (the vacuum job: %s)", shortDuration(worker.VacuumJobTimeout)))
	f.DurationVar(&o.rescueAfter, "rescue-after", 0,
		fmt.Sprintf("how long a job may stay running before it counts as abandoned by a dead worker and is retried; at least --job-timeout "+
			"(0: --job-timeout + %s, which is %s with the default job timeout)", shortDuration(worker.RescueMarginDefault),
			shortDuration(worker.JobTimeoutDefault+worker.RescueMarginDefault)))
	return cmd
}

// checkTimeouts checks --job-timeout and --rescue-after before anything connects.
func (o *options) checkTimeouts() error {
	switch {
	case o.jobTimeout <= 0:
		return fmt.Errorf("--job-timeout %s: must be positive", o.jobTimeout)
	case o.rescueAfter < 0:
		return fmt.Errorf("--rescue-after %s: must not be negative (0: --job-timeout + %s)", o.rescueAfter, shortDuration(worker.RescueMarginDefault))
	case o.rescueAfter != 0 && o.rescueAfter < o.jobTimeout:
		return fmt.Errorf("--rescue-after %s is shorter than --job-timeout %s: a job may run that long on a live worker, "+
			"which would lose it to the rescue; use at least the job timeout", o.rescueAfter, o.jobTimeout)
	}
	return nil
}

// shortDuration formats d without zero units: 1m, not 1m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// workerConfig is the worker's configuration from the options; run adds the pool, the
// coordinator, the logger and the metrics.
func (o *options) workerConfig() *worker.Config {
	return &worker.Config{
		Concurrency: o.concurrency, Queues: strings.Split(o.queues, ","),
		DecayInterval: o.decayInterval, ReviewInterval: o.reviewInterval, SleepInterval: o.sleepInterval,
		SweepInterval: o.sweepInterval, IdleInterval: o.idleInterval, ProspectiveInterval: o.prospectiveInterval,
		VacuumInterval: o.vacuumInterval, SessionIdle: o.sessionIdle, Version: Version,
		JobTimeout: o.jobTimeout, RescueStuckJobsAfter: o.rescueAfter,
	}
}

func run(ctx context.Context, o *options, stdout, stderr io.Writer) error {
	logger, err := newLogger(o, stderr)
	if err != nil {
		return err
	}
	url := o.databaseURL
	if url == "" {
		if url, err = pgcluster.RunningURL(ctx, &pgcluster.Config{Dir: o.home}); err != nil {
			return err
		}
	}
	queues := strings.Split(o.queues, ",")
	pool, err := dbconn.NewPool(ctx, &dbconn.Config{
		URL: url, ApplicationName: "zbworker[" + o.queues + "]:" + strconv.Itoa(os.Getpid()),
		MaxConns: int32(o.concurrency*len(queues) + 4),
	})
	if err != nil {
		return err
	}
	defer pool.Close()
	// A database that lacks this build's migrations is named as such, not by a job's missing
	// column later.
	if err := migrate.CheckSchema(ctx, pool, "zbworker"); err != nil {
		return err
	}
	q := db.New(pool)
	dimText, err := q.ConfigGet(ctx, "embedding_dim")
	if err != nil {
		return fmt.Errorf("error reading the embedding dimension (is the database migrated? run 'zbctl migrate up'): %w", err)
	}
	dim, _ := strconv.Atoi(dimText)
	emb, err := embed.New(&embed.Config{Provider: o.embedder, Dim: dim, Model: o.embedModel, BaseURL: o.embedURL, APIKey: o.embedAPIKey})
	if err != nil {
		return err
	}
	co, err := coordinator.New(&coordinator.Config{Pool: pool, Embedder: emb})
	if err != nil {
		return err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics, err := worker.NewMetrics(reg, q)
	if err != nil {
		return err
	}
	wcfg := o.workerConfig()
	wcfg.Pool, wcfg.Coordinator, wcfg.Logger, wcfg.Metrics = pool, co, logger, metrics
	w, err := worker.New(wcfg)
	if err != nil {
		return err
	}
	if err := w.Start(ctx); err != nil {
		return err
	}
	var srv *worker.HTTPServer
	if o.httpAddr != "" && !o.once {
		srv, err = w.ServeHTTP(ctx, worker.HTTPOpts{Addr: o.httpAddr, Gatherer: reg, RiverUI: o.riverUI})
		if err != nil {
			_ = w.Stop(context.WithoutCancel(ctx))
			return err
		}
		fmt.Fprintf(stdout, "zbworker %s: metrics http://%s/metrics, health http://%s/healthz", Version, srv.Addr(), srv.Addr())
		if o.riverUI {
			fmt.Fprintf(stdout, ", River UI http://%s/riverui/", srv.Addr())
		}
		fmt.Fprintln(stdout)
	}
	logger.Info("zbworker started", "queues", queues, "concurrency", o.concurrency, "embedder", emb.Model(), "once", o.once)
	var runErr error
	if o.once {
		dctx, cancel := context.WithTimeout(ctx, o.onceTimeout)
		runErr = w.Drain(dctx, 200*time.Millisecond)
		cancel()
		if errors.Is(runErr, context.DeadlineExceeded) {
			runErr = fmt.Errorf("queues not drained after %s (--once-timeout)", o.onceTimeout)
		}
	} else {
		<-ctx.Done()
	}
	logger.Info("zbworker stopping")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if srv != nil {
		_ = srv.Shutdown(sctx)
	}
	if err := w.Stop(sctx); err != nil && runErr == nil {
		runErr = err
	}
	return runErr
}

func newLogger(o *options, w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", o.logLevel)
	}
	hopts := &slog.HandlerOptions{Level: level}
	switch o.logFormat {
	case "text":
		return slog.New(slog.NewTextHandler(w, hopts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, hopts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", o.logFormat)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// envInt reads a positive integer from the environment: def when unset, an error naming the
// variable when it is not one.
func envInt(getenv func(string) string, key string, def int) (int, error) {
	v := getenv(key)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return def, fmt.Errorf("%s=%q: want a positive integer", key, v)
	}
	return n, nil
}
