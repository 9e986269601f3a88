package worker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/jobs"
	"github.com/zenbrain/zb/migrate"
)

// Defaults of Config.
const (
	ConcurrencyDefault    = 4
	DecayIntervalDefault  = 5 * time.Minute
	ReviewIntervalDefault = time.Hour
	SleepIntervalDefault  = 24 * time.Hour
	SweepIntervalDefault  = 30 * time.Second
	IdleIntervalDefault   = time.Minute
	VacuumIntervalDefault = time.Minute
	SessionIdleDefault    = 30 * time.Minute
	HeartbeatDefault      = 10 * time.Second
	JobTimeoutDefault     = 10 * time.Minute
	RescueMarginDefault   = time.Minute
	BatchLimitDefault     = 500
	NotifyChannel         = "zb_memory_inserted"
)

// Config configures a Worker.
type Config struct {
	// Pool is the connection pool shared by River and the coordinator. Required.
	Pool *pgxpool.Pool

	// Coordinator computes and writes each job's effects. Required.
	Coordinator *coordinator.Coordinator

	// Concurrency is the number of jobs worked at once per queue. Defaults to
	// ConcurrencyDefault.
	Concurrency int

	// Queues are the queues this worker works. Defaults to derive and lifecycle.
	Queues []string

	// DecayInterval is how often decay runs for every tenant. Defaults to DecayIntervalDefault.
	// -1 disables the schedule.
	DecayInterval time.Duration

	// ReviewInterval is how often due reviews run. Defaults to ReviewIntervalDefault. -1
	// disables the schedule.
	ReviewInterval time.Duration

	// SleepInterval is how often every tenant sleeps. Defaults to SleepIntervalDefault
	// (nightly). -1 disables the schedule.
	SleepInterval time.Duration

	// SweepInterval is how often the worker looks for memories inserted with plain SQL that
	// no notification reached. Defaults to SweepIntervalDefault. -1 disables it.
	SweepInterval time.Duration

	// IdleInterval is how often idle sessions are looked for. Defaults to
	// IdleIntervalDefault. -1 disables it.
	IdleInterval time.Duration

	// ProspectiveInterval is how often the prospective tick fires due time intentions (and
	// once at start). Defaults to ProspectiveTickInterval. -1 disables it.
	ProspectiveInterval time.Duration

	// VacuumInterval is how often the vacuum job (and once at start) completes the vacuum
	// requests erases queued: VACUUM (ANALYZE) over zenbrain's tables, so that erased content
	// leaves dead row versions and planner statistics (coordinator.VacuumErased). It needs a
	// connection role that may vacuum them (their owner or a superuser); under any other the
	// job logs a warning and leaves the requests to 'zbctl vacuum'. Defaults to
	// VacuumIntervalDefault. -1 disables it.
	VacuumInterval time.Duration

	// SessionIdle is the idle time after which a session is consolidated. Defaults to
	// SessionIdleDefault.
	SessionIdle time.Duration

	// Heartbeat is the interval of the zb.worker_heartbeat row. Defaults to HeartbeatDefault.
	Heartbeat time.Duration

	// JobTimeout bounds one attempt of a job: River cancels the job's context when it has run
	// this long, and the job's transaction rolls back. Defaults to JobTimeoutDefault (10
	// minutes: the longest jobs, a sleep of a large tenant or a re-embedding batch through a slow
	// provider, take minutes). Must be positive. The vacuum job has a timeout of its own
	// (VacuumJobTimeout).
	JobTimeout time.Duration

	// RescueStuckJobsAfter is how long a job may stay running before River's rescuer takes it
	// for abandoned by a worker that died (killed, crashed, its machine lost) and makes it
	// available again as a retry. Defaults to JobTimeout + RescueMarginDefault (11 minutes
	// with the default JobTimeout). It must be at least JobTimeout (River's constraint): a job
	// within its timeout may still be running on a live worker.
	//
	// The trade-off: a job whose worker died waits this long before another worker runs it; a
	// job that really runs longer than this is run a second time, in parallel. Since River
	// cancels a job at JobTimeout, only a job that ignores its cancellation runs that long (the
	// margin covers the time from the cancellation to the rollback), and a second run costs
	// work, not correctness: every job is idempotent and completes in the transaction that
	// writes its effects. A shorter wait therefore comes from a shorter JobTimeout, for
	// workloads whose jobs are known to be short. Derivation does not wait for the rescue: the
	// sweep (SweepInterval) queues a new derive job for each tenant with underived memories. A
	// kind with a longer timeout of its own (vacuum) is rescued only after that timeout.
	RescueStuckJobsAfter time.Duration

	// BatchLimit bounds the memories one decay or review job handles. Defaults to
	// BatchLimitDefault.
	BatchLimit int

	// ID identifies this worker (heartbeat row, River client id). Defaults to
	// "<hostname>-<pid>".
	ID string

	// Version is reported in the heartbeat row.
	Version string

	// Logger receives structured logs. Defaults to slog.Default().
	Logger *slog.Logger

	// Metrics receives job metrics. Nil disables metrics.
	Metrics *Metrics
}

func (c *Config) withDefaults() Config {
	o := *c
	o.Concurrency = cmp.Or(o.Concurrency, ConcurrencyDefault)
	if len(o.Queues) == 0 {
		o.Queues = []string{jobs.QueueDerive, jobs.QueueLifecycle}
	}
	o.DecayInterval = cmp.Or(o.DecayInterval, DecayIntervalDefault)
	o.ReviewInterval = cmp.Or(o.ReviewInterval, ReviewIntervalDefault)
	o.SleepInterval = cmp.Or(o.SleepInterval, SleepIntervalDefault)
	o.SweepInterval = cmp.Or(o.SweepInterval, SweepIntervalDefault)
	o.IdleInterval = cmp.Or(o.IdleInterval, IdleIntervalDefault)
	o.ProspectiveInterval = cmp.Or(o.ProspectiveInterval, ProspectiveTickInterval)
	o.VacuumInterval = cmp.Or(o.VacuumInterval, VacuumIntervalDefault)
	o.SessionIdle = cmp.Or(o.SessionIdle, SessionIdleDefault)
	o.Heartbeat = cmp.Or(o.Heartbeat, HeartbeatDefault)
	o.JobTimeout = cmp.Or(o.JobTimeout, JobTimeoutDefault)
	o.RescueStuckJobsAfter = cmp.Or(o.RescueStuckJobsAfter, o.JobTimeout+RescueMarginDefault)
	o.BatchLimit = cmp.Or(o.BatchLimit, BatchLimitDefault)
	if o.ID == "" {
		host, _ := os.Hostname()
		o.ID = fmt.Sprintf("%s-%d", cmp.Or(host, "zbworker"), os.Getpid())
	}
	o.Logger = cmp.Or(o.Logger, slog.Default())
	return o
}

func (c *Config) validate() error {
	if c.Pool == nil {
		return errors.New("worker: Config.Pool is required")
	}
	if c.Coordinator == nil {
		return errors.New("worker: Config.Coordinator is required")
	}
	if c.Concurrency < 1 || c.Concurrency > 1000 {
		return fmt.Errorf("worker: Config.Concurrency must be in 1..1000, got %d", c.Concurrency)
	}
	for _, q := range c.Queues {
		if q != jobs.QueueDerive && q != jobs.QueueLifecycle {
			return fmt.Errorf("worker: Config.Queues names unknown queue %q (known: %s, %s)", q, jobs.QueueDerive, jobs.QueueLifecycle)
		}
	}
	for name, d := range map[string]time.Duration{
		"DecayInterval": c.DecayInterval, "ReviewInterval": c.ReviewInterval, "SleepInterval": c.SleepInterval,
		"SweepInterval": c.SweepInterval, "IdleInterval": c.IdleInterval,
		"ProspectiveInterval": c.ProspectiveInterval, "VacuumInterval": c.VacuumInterval,
	} {
		if d != -1 && d < 100*time.Millisecond {
			return fmt.Errorf("worker: Config.%s must be at least 100ms or -1 (disabled), got %s", name, d)
		}
	}
	if c.JobTimeout <= 0 {
		return fmt.Errorf("worker: Config.JobTimeout must be positive, got %s", c.JobTimeout)
	}
	if c.RescueStuckJobsAfter < c.JobTimeout {
		return fmt.Errorf("worker: Config.RescueStuckJobsAfter (%s) must be at least JobTimeout (%s)", c.RescueStuckJobsAfter, c.JobTimeout)
	}
	if c.BatchLimit < 1 {
		return fmt.Errorf("worker: Config.BatchLimit must be positive, got %d", c.BatchLimit)
	}
	return nil
}

// Worker runs zenbrain's River jobs. Start it once; Stop is safe to call twice.
type Worker struct {
	cfg    Config
	client *river.Client[pgx.Tx]
	q      *db.Queries

	mu      sync.Mutex
	cancel  context.CancelFunc
	done    chan struct{}
	started bool
	stopped bool
}

// New builds a Worker and its River client.
func New(cfg *Config) (*Worker, error) {
	c := cfg.withDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	w := &Worker{cfg: c, q: db.New(c.Pool)}
	workers := river.NewWorkers()
	river.AddWorker(workers, &deriveWorker{w: w})
	river.AddWorker(workers, &decayWorker{w: w})
	river.AddWorker(workers, &reviewWorker{w: w})
	river.AddWorker(workers, &sleepWorker{w: w})
	river.AddWorker(workers, &consolidateWorker{w: w})
	river.AddWorker(workers, &propagateWorker{w: w})
	river.AddWorker(workers, &scheduleWorker{w: w})
	river.AddWorker(workers, &prospectiveWorker{w: w}) // prospective.go
	river.AddWorker(workers, &reembedWorker{w: w})
	river.AddWorker(workers, &vacuumWorker{w: w}) // vacuum.go

	queues := map[string]river.QueueConfig{}
	for _, q := range c.Queues {
		queues[q] = river.QueueConfig{MaxWorkers: c.Concurrency}
	}
	// Each schedule queues its job every interval (-1: never), unique while one waits or runs,
	// so that several workers share one schedule.
	var periodic []*river.PeriodicJob
	addPeriodic := func(interval time.Duration, id string, args river.JobArgs, runOnStart bool) {
		if interval == -1 {
			return
		}
		periodic = append(periodic, river.NewPeriodicJob(river.PeriodicInterval(interval),
			func() (river.JobArgs, *river.InsertOpts) { return args, jobs.LifecycleInsertOpts() },
			&river.PeriodicJobOpts{ID: id, RunOnStart: runOnStart}))
	}
	for _, s := range []struct {
		interval   time.Duration
		task       string
		runOnStart bool
	}{
		{c.DecayInterval, jobs.TaskDecay, true},
		{c.ReviewInterval, jobs.TaskReview, false},
		{c.SleepInterval, jobs.TaskSleep, false},
		{c.SweepInterval, jobs.TaskSweep, true},
		{c.IdleInterval, jobs.TaskIdleSessions, false},
	} {
		addPeriodic(s.interval, "zb_"+s.task, jobs.ScheduleArgs{Task: s.task}, s.runOnStart)
	}
	addPeriodic(c.ProspectiveInterval, KindProspectiveTick, ProspectiveTickArgs{}, true) // prospective.go
	addPeriodic(c.VacuumInterval, jobs.KindVacuum, jobs.VacuumArgs{}, true)              // vacuum.go

	client, err := river.NewClient(riverpgxv5.New(c.Pool), c.riverConfig(queues, workers, periodic))
	if err != nil {
		return nil, fmt.Errorf("error creating River client: %w", err)
	}
	w.client = client
	return w, nil
}

// riverConfig is the River client's configuration for c (after withDefaults).
func (c *Config) riverConfig(queues map[string]river.QueueConfig, workers *river.Workers, periodic []*river.PeriodicJob) *river.Config {
	return &river.Config{
		ID:           c.ID,
		Schema:       migrate.RiverSchema,
		Queues:       queues,
		Workers:      workers,
		PeriodicJobs: periodic,
		JobTimeout:   c.JobTimeout,

		RescueStuckJobsAfter: c.RescueStuckJobsAfter,
		Logger:               c.Logger,
		MaxAttempts:          10,
	}
}

// Client returns the River client (for inserting jobs and for River UI).
func (w *Worker) Client() *river.Client[pgx.Tx] { return w.client }

// Start starts working jobs, listening for memories inserted with plain SQL, and writing the
// heartbeat. It returns once the River client runs; the background work stops with Stop or
// when ctx ends.
func (w *Worker) Start(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started {
		return errors.New("worker: already started")
	}
	w.started = true
	if err := w.client.Start(ctx); err != nil {
		return fmt.Errorf("error starting River client: %w", err)
	}
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w.cancel = cancel
	w.done = make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(3)
	listening := make(chan struct{})
	go func() { defer wg.Done(); w.listen(bg, listening) }()
	go func() { defer wg.Done(); w.heartbeat(bg) }()
	go func() { defer wg.Done(); w.observe(bg) }()
	go func() { wg.Wait(); close(w.done) }()
	// Inserts made after Start returns are noticed: wait until LISTEN is in place (the sweep
	// covers a listener that cannot connect).
	select {
	case <-listening:
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		w.cfg.Logger.Warn("notification listener not ready after 10s; relying on the sweep")
	}
	return nil
}

// Stop stops fetching jobs, waits for running jobs to finish (or ctx to end, which cancels
// them) and stops the background loops. Calling it twice is safe.
func (w *Worker) Stop(ctx context.Context) error {
	w.mu.Lock()
	if !w.started || w.stopped {
		w.mu.Unlock()
		return nil
	}
	w.stopped = true
	w.mu.Unlock()
	err := w.client.Stop(ctx)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		err = w.client.StopAndCancel(context.WithoutCancel(ctx))
	}
	w.cancel()
	<-w.done
	if _, derr := w.q.WorkerHeartbeatDelete(context.WithoutCancel(ctx), w.cfg.ID); derr != nil && err == nil {
		w.cfg.Logger.Warn("error removing heartbeat", "error", derr)
	}
	return err
}

// Drain works until no job is available or running in this worker's queues (scheduled jobs
// due later do not count), checking every interval. It is the core of `zbworker --once`. It
// first enqueues the derivation of every tenant with underived memories (stored while no worker
// listened), so a drain leaves nothing underived that was stored before it started.
func (w *Worker) Drain(ctx context.Context, interval time.Duration) error {
	w.enqueueUnderived(ctx, 0)
	idle := 0
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		res, err := w.client.JobList(ctx, river.NewJobListParams().
			Queues(w.cfg.Queues...).
			States(rivertype.JobStateAvailable, rivertype.JobStateRunning, rivertype.JobStatePending).
			First(1))
		if err != nil {
			return fmt.Errorf("error listing jobs: %w", err)
		}
		due, err := w.dueRetries(ctx)
		if err != nil {
			return err
		}
		if len(res.Jobs) == 0 && !due {
			idle++
			if idle >= 3 {
				return nil
			}
			continue
		}
		idle = 0
	}
}

// dueRetries reports whether a scheduled or retryable job is due within a second.
func (w *Worker) dueRetries(ctx context.Context) (bool, error) {
	res, err := w.client.JobList(ctx, river.NewJobListParams().
		Queues(w.cfg.Queues...).
		States(rivertype.JobStateScheduled, rivertype.JobStateRetryable).
		OrderBy(river.JobListOrderByScheduledAt, river.SortOrderAsc).
		First(1))
	if err != nil {
		return false, fmt.Errorf("error listing scheduled jobs: %w", err)
	}
	return len(res.Jobs) > 0 && time.Until(res.Jobs[0].ScheduledAt) < time.Second, nil
}

// listen turns notifications of memories inserted with plain SQL into derive jobs. It
// reconnects on error; the periodic sweep covers any gap.
func (w *Worker) listen(ctx context.Context, listening chan struct{}) {
	var once sync.Once
	ready := func() { once.Do(func() { close(listening) }) }
	for ctx.Err() == nil {
		if err := w.listenOnce(ctx, ready); err != nil && ctx.Err() == nil {
			w.cfg.Logger.Warn("notification listener failed; retrying", "error", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

// listenOnce listens on NotifyChannel until an error. A notification only says "look": its
// payload is never read, because any login may LISTEN and NOTIFY on the channel (the trigger
// sends an empty payload, so the channel tells listeners nothing about tenants, and a forged
// payload cannot direct the worker). After each burst the listener reads from the database which
// tenants have underived memories and enqueues a pending-derive job for each.
func (w *Worker) listenOnce(ctx context.Context, ready func()) error {
	conn, err := w.cfg.Pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN "+NotifyChannel); err != nil {
		return err
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), "UNLISTEN "+NotifyChannel)
	}()
	ready()
	for {
		if _, err := conn.Conn().WaitForNotification(ctx); err != nil {
			return err
		}
		// Coalesce a burst: take every notification that arrives within notifyWindow, then look
		// once. Derive is idempotent, so a job queued while another runs for the same tenant
		// only picks up what the first did not.
		wctx, cancel := context.WithTimeout(ctx, notifyWindow)
		n := 1
		for {
			if _, err := conn.Conn().WaitForNotification(wctx); err != nil {
				break
			}
			n++
		}
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		w.enqueueUnderived(ctx, n)
	}
}

// notifyWindow is how long the listener collects notifications before enqueueing.
const notifyWindow = 100 * time.Millisecond

// notifyTenantLimit bounds the tenants one burst of notifications enqueues derive jobs for
// (the sweep's bound); the sweep reaches the rest.
const notifyTenantLimit = 1000

// enqueueUnderived enqueues a pending-derive job for every tenant having underived memories
// (up to notifyTenantLimit) and no such job waiting to start — that one reads the whole queue
// when it starts —, after n notifications. Errors are logged: the sweep covers them.
func (w *Worker) enqueueUnderived(ctx context.Context, n int) {
	tenants, err := w.cfg.Coordinator.UnderivedTenants(ctx, notifyTenantLimit)
	if err == nil && len(tenants) > 0 {
		var waiting []string
		waiting, err = w.q.DeriveWaitingTenants(ctx, tenants)
		tenants = slices.DeleteFunc(tenants, func(t string) bool { return slices.Contains(waiting, t) })
	}
	if err != nil {
		if ctx.Err() == nil {
			w.cfg.Logger.Warn("error listing tenants with underived memories", "error", err)
		}
		return
	}
	w.cfg.Logger.Debug("memory insert notifications", "notifications", n, "tenants", len(tenants))
	if len(tenants) == 0 {
		return
	}
	params := make([]river.InsertManyParams, 0, len(tenants))
	for _, t := range tenants {
		params = append(params, river.InsertManyParams{Args: jobs.DeriveArgs{TenantID: t, Pending: true}, InsertOpts: deriveOpts()})
	}
	if _, err := w.client.InsertMany(ctx, params); err != nil && ctx.Err() == nil {
		w.cfg.Logger.Warn("error enqueueing derivations", "error", err)
	}
}

func (w *Worker) heartbeat(ctx context.Context) {
	started := time.Now()
	host, _ := os.Hostname()
	beat := func() {
		err := w.q.WorkerHeartbeatUpsert(ctx, db.WorkerHeartbeatUpsertParams{
			WorkerID: w.cfg.ID, Hostname: host, Pid: int32(os.Getpid()), Queues: w.cfg.Queues,
			Version: w.cfg.Version, StartedAt: started, Now: time.Now(),
		})
		if err != nil && ctx.Err() == nil {
			w.cfg.Logger.Warn("error writing heartbeat", "error", err)
		}
	}
	beat()
	t := time.NewTicker(w.cfg.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			beat()
		}
	}
}

// observe feeds River's job events into the metrics.
func (w *Worker) observe(ctx context.Context) {
	if w.cfg.Metrics == nil {
		return
	}
	events, cancel := w.client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed,
		river.EventKindJobCancelled, river.EventKindJobSnoozed)
	defer cancel()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			w.cfg.Metrics.observe(ev)
		}
	}
}

// InsertSleep enqueues an on-demand sleep for a tenant (unique: one pending sleep per tenant).
func (w *Worker) InsertSleep(ctx context.Context, tenant string) (*rivertype.JobInsertResult, error) {
	return w.client.Insert(ctx, jobs.SleepArgs{TenantID: tenant, Trigger: "manual"}, lifecycleOpts())
}

func deriveOpts() *river.InsertOpts { return jobs.DeriveInsertOpts() }

func lifecycleOpts() *river.InsertOpts { return jobs.LifecycleInsertOpts() }
