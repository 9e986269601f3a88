package worker_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/embed"
	"github.com/zenbrain/zb/internal/zbtest"
	"github.com/zenbrain/zb/jobs"
	"github.com/zenbrain/zb/worker"
)

const dim = 64

type bundle struct {
	pool *pgxpool.Pool
	co   *coordinator.Coordinator
}

func setup(t *testing.T) *bundle {
	t.Helper()
	pool := zbtest.Pool(t, &zbtest.Opts{EmbeddingDim: dim})
	emb, err := embed.New(&embed.Config{Dim: dim})
	require.NoError(t, err)
	co, err := coordinator.New(&coordinator.Config{Pool: pool, Embedder: emb})
	require.NoError(t, err)
	return &bundle{pool: pool, co: co}
}

func newWorker(t *testing.T, b *bundle, id string, mod func(*worker.Config)) *worker.Worker {
	t.Helper()
	cfg := &worker.Config{
		Pool: b.pool, Coordinator: b.co, ID: id, Concurrency: 2,
		// Schedules off unless a test turns one on: tests enqueue what they need.
		DecayInterval: -1, ReviewInterval: -1, SleepInterval: -1, SweepInterval: -1, IdleInterval: -1,
		ProspectiveInterval: -1, VacuumInterval: -1,
		Heartbeat: 200 * time.Millisecond,
		Logger:    testLogger(),
	}
	if mod != nil {
		mod(cfg)
	}
	w, err := worker.New(cfg)
	require.NoError(t, err)
	return w
}

func start(t *testing.T, w *worker.Worker) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, w.Start(ctx))
	t.Cleanup(func() {
		sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer scancel()
		require.NoError(t, w.Stop(sctx))
		require.NoError(t, w.Stop(sctx), "stopping twice is safe")
		cancel()
	})
}

// waitFor polls cond every 20 ms until it holds or the timeout passes. It returns the time it
// took (reported, never asserted: machines are noisy).
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	began := time.Now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		case <-tick.C:
		}
	}
	return time.Since(began)
}

func TestConfigValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cases := []struct {
		name string
		mod  func(*worker.Config)
		want string
	}{
		{"no pool", func(c *worker.Config) { c.Pool = nil }, "Pool is required"},
		{"no coordinator", func(c *worker.Config) { c.Coordinator = nil }, "Coordinator is required"},
		{"bad queue", func(c *worker.Config) { c.Queues = []string{"nope"} }, "unknown queue"},
		{"too fast", func(c *worker.Config) { c.DecayInterval = time.Millisecond }, "DecayInterval"},
		{"tick too fast", func(c *worker.Config) { c.ProspectiveInterval = time.Millisecond }, "ProspectiveInterval"},
		{"concurrency", func(c *worker.Config) { c.Concurrency = 5000 }, "Concurrency"},
	}
	for _, tc := range cases {
		cfg := &worker.Config{Pool: b.pool, Coordinator: b.co}
		tc.mod(cfg)
		_, err := worker.New(cfg)
		require.ErrorContains(t, err, tc.want, tc.name)
	}
}

// A row inserted with plain SQL is derived while a worker runs, through the notification
// trigger (the sweep is off here, so only LISTEN/NOTIFY can have done it).
func TestPlainSQLInsertIsDerived(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := newWorker(t, b, "w-notify", nil)
	start(t, w)
	ctx := context.Background()
	_, err := b.pool.Exec(ctx, `INSERT INTO zb.tenant (id) VALUES ('plain')`)
	require.NoError(t, err)
	var id int64
	require.NoError(t, b.pool.QueryRow(ctx, `
		INSERT INTO zb.memory (tenant_id, layer, content, created_at, updated_at, last_accessed_at, stability)
		VALUES ('plain', 'semantic', 'Alice moved to Lisbon in 2021', now(), now(), now(), 7) RETURNING id`).Scan(&id))
	took := waitFor(t, 60*time.Second, "derivation of a plain SQL insert", func() bool {
		var derived bool
		err := b.pool.QueryRow(ctx, `SELECT derived_at IS NOT NULL AND embedding IS NOT NULL FROM zb.memory WHERE tenant_id = 'plain' AND id = $1`, id).Scan(&derived)
		return err == nil && derived
	})
	t.Logf("plain SQL insert derived after %s", took)
}

// The listener never reads a notification's payload: a forged NOTIFY naming a tenant (one that
// does not exist, and one that exists with nothing to derive) enqueues no derive job for it,
// while a memory inserted with plain SQL afterwards is still derived through the notification
// (the sweep is off). Notifications reach the listener in commit order, so once that memory is
// derived the forged ones have been handled.
func TestForgedNotificationEnqueuesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := newWorker(t, b, "w-forged", nil)
	start(t, w)
	ctx := context.Background()
	_, err := b.pool.Exec(ctx, `INSERT INTO zb.tenant (id) VALUES ('quiet'), ('real')`)
	require.NoError(t, err)
	for _, payload := range []string{"no-such-tenant", "quiet"} {
		_, err := b.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, worker.NotifyChannel, payload)
		require.NoError(t, err)
	}
	var id int64
	require.NoError(t, b.pool.QueryRow(ctx, `
		INSERT INTO zb.memory (tenant_id, layer, content, created_at, updated_at, last_accessed_at, stability)
		VALUES ('real', 'semantic', 'Carol plays the cello on Sundays', now(), now(), now(), 7) RETURNING id`).Scan(&id))
	waitFor(t, 60*time.Second, "derivation of a plain SQL insert", func() bool {
		var derived bool
		err := b.pool.QueryRow(ctx, `SELECT derived_at IS NOT NULL FROM zb.memory WHERE tenant_id = 'real' AND id = $1`, id).Scan(&derived)
		return err == nil && derived
	})
	rows, err := b.pool.Query(ctx, `SELECT DISTINCT args->>'tenant_id' FROM river.river_job WHERE kind = $1 ORDER BY 1`, jobs.KindDerive)
	require.NoError(t, err)
	tenants, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{"real"}, tenants, "derive jobs only for the tenant with underived memories")
}

// A notification queues no derive job for a tenant that has one waiting to start (it will read
// the tenant's whole queue), only for tenants without one.
func TestNotificationSkipsWaitingDerive(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := newWorker(t, b, "w-waiting", nil)
	start(t, w)
	ctx := context.Background()
	_, err := b.pool.Exec(ctx, `
		INSERT INTO zb.tenant (id) VALUES ('backlog'), ('fresh');
		ALTER TABLE zb.memory DISABLE TRIGGER memory_notify_underived;
		INSERT INTO zb.memory (tenant_id, layer, content, created_at, updated_at, last_accessed_at, stability)
		VALUES ('backlog', 'semantic', 'Dana collects old maps', now(), now(), now(), 7);
		ALTER TABLE zb.memory ENABLE TRIGGER memory_notify_underived;`)
	require.NoError(t, err)
	// The backlog's derive job waits (scheduled an hour ahead).
	_, err = w.Client().Insert(ctx, jobs.DeriveArgs{TenantID: "backlog", Pending: true},
		&river.InsertOpts{Queue: jobs.QueueDerive, ScheduledAt: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	var id int64
	require.NoError(t, b.pool.QueryRow(ctx, `
		INSERT INTO zb.memory (tenant_id, layer, content, created_at, updated_at, last_accessed_at, stability)
		VALUES ('fresh', 'semantic', 'Eli repairs clocks', now(), now(), now(), 7) RETURNING id`).Scan(&id))
	waitFor(t, 60*time.Second, "derivation through the notification", func() bool {
		var derived bool
		err := b.pool.QueryRow(ctx, `SELECT derived_at IS NOT NULL FROM zb.memory WHERE tenant_id = 'fresh' AND id = $1`, id).Scan(&derived)
		return err == nil && derived
	})
	var n int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM river.river_job WHERE kind = $1 AND args->>'tenant_id' = 'backlog'`,
		jobs.KindDerive).Scan(&n))
	require.Equal(t, 1, n, "the backlog's waiting job serves it; the notification queued no other")
}

// The sweep finds underived rows that no notification reached.
func TestSweepDerivesMissedRows(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, err := b.pool.Exec(ctx, `
		INSERT INTO zb.tenant (id) VALUES ('swept');
		ALTER TABLE zb.memory DISABLE TRIGGER memory_notify_underived;
		INSERT INTO zb.memory (tenant_id, layer, content, created_at, updated_at, last_accessed_at, stability)
		SELECT 'swept', 'semantic', 'fact number ' || g, now(), now(), now(), 7 FROM generate_series(1, 5) g;
		ALTER TABLE zb.memory ENABLE TRIGGER memory_notify_underived;`)
	require.NoError(t, err)
	w := newWorker(t, b, "w-sweep", func(c *worker.Config) { c.SweepInterval = 200 * time.Millisecond })
	start(t, w)
	waitFor(t, 60*time.Second, "the sweep", func() bool {
		var n int
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory WHERE tenant_id = 'swept' AND derived_at IS NULL`).Scan(&n))
		return n == 0
	})
}

// A drain (zbworker --once) derives what was stored while no worker listened, even with the
// periodic sweep off.
func TestDrainDerivesEarlierStores(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for j := range 5 {
		_, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "drain", Content: fmt.Sprintf("Gina met Hugo in Oslo on day %d", j)})
		require.NoError(t, err)
	}
	w := newWorker(t, b, "w-drain", func(c *worker.Config) { c.SweepInterval = -1 })
	start(t, w)
	dctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	require.NoError(t, w.Drain(dctx, 100*time.Millisecond))
	var underived int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory WHERE tenant_id = 'drain' AND derived_at IS NULL`).Scan(&underived))
	require.Zero(t, underived)
}

// Two workers on the same queues: every job runs once and every effect is applied once.
func TestTwoWorkersRunEachJobOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	const tenants = 4
	for i := range tenants {
		tenant := fmt.Sprintf("t%d", i)
		for j := range 6 {
			_, err := b.co.Store(ctx, coordinator.StoreInput{
				TenantID: tenant,
				Content:  fmt.Sprintf("Bob and Carol met Dave in Paris on trip %d", j),
			})
			require.NoError(t, err)
		}
	}
	// The memories were stored before any worker listened: the sweep the leader runs at start
	// (whichever worker leads) finds them and enqueues their derivation.
	sweep := func(c *worker.Config) { c.SweepInterval = time.Hour }
	w1 := newWorker(t, b, "w-one", sweep)
	w2 := newWorker(t, b, "w-two", sweep)
	// Duplicates coalesce: one sleep per tenant at a time. The copies go in before the workers
	// start: uniqueness ends when a job completes, so a copy inserted while the workers run could
	// come after the tenant's sleep completed and be a new request, making the number of sleeps
	// depend on timing.
	for i := range tenants {
		for c := range 3 {
			res, err := w1.InsertSleep(ctx, fmt.Sprintf("t%d", i))
			require.NoError(t, err)
			require.Equal(t, c > 0, res.UniqueSkippedAsDuplicate, "t%d copy %d: only the first copy inserts a job", i, c)
		}
	}
	start(t, w1)
	start(t, w2)
	require.Eventually(t, func() bool {
		var underived int
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory WHERE derived_at IS NULL`).Scan(&underived))
		return underived == 0
	}, 2*time.Minute, 50*time.Millisecond, "every memory derived")
	dctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	require.NoError(t, w1.Drain(dctx, 100*time.Millisecond))
	var runs, dupRuns, completed, notCompleted int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*), count(*) - count(DISTINCT tenant_id) FROM zb.sleep_run`).Scan(&runs, &dupRuns))
	require.Equal(t, tenants, runs, "one sleep per tenant")
	require.Zero(t, dupRuns)
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE state = 'completed'), count(*) FILTER (WHERE state <> 'completed')
		FROM river.river_job`).Scan(&completed, &notCompleted))
	require.Zero(t, notCompleted)
	require.Positive(t, completed)
	var attemptsOver1 int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM river.river_job WHERE attempt > 1`).Scan(&attemptsOver1))
	require.Zero(t, attemptsOver1, "no job ran twice")
	var underived int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory WHERE derived_at IS NULL`).Scan(&underived))
	require.Zero(t, underived)
}

// A job whose context is cancelled mid-way leaves no partial effect; the retry completes it and
// the final state equals an uninterrupted run.
func TestCancelledJobLeavesNoPartialEffect(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for j := range 8 {
		_, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "k", Content: fmt.Sprintf("Erin visited Rome with Frank, day %d", j)})
		require.NoError(t, err)
	}
	// An entry point cancelled before its hook commits changes nothing.
	cctx, cancel := context.WithCancel(ctx)
	_, err := b.co.Sleep(cctx, "k", &coordinator.SleepOpts{Trigger: "manual", Seed: 1}, func(context.Context, pgx.Tx) error {
		cancel()
		return context.Canceled
	})
	require.Error(t, err)
	var runs int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM zb.sleep_run`).Scan(&runs))
	require.Zero(t, runs, "a cancelled sleep leaves no sleep_run")
}

func TestHTTPHealthAndMetrics(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := newWorker(t, b, "w-http", nil)
	start(t, w)
	reg := prometheus.NewRegistry()
	_, err := worker.NewMetrics(reg, db.New(b.pool))
	require.NoError(t, err)
	ctx := context.Background()
	srv, err := w.ServeHTTP(ctx, worker.HTTPOpts{Addr: "127.0.0.1:0", Gatherer: reg, RiverUI: true})
	require.NoError(t, err)
	defer func() { require.NoError(t, srv.Shutdown(ctx)) }()
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + srv.Addr() + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(body)
	}
	code, body := get("/healthz")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `"worker_id":"w-http"`)
	// A batch enqueues its derivation in its own transaction: the derive queue has a job.
	_, err = b.co.StoreBatch(ctx, []coordinator.StoreInput{{TenantID: "m", Content: "metrics see this memory"}})
	require.NoError(t, err)
	code, body = get("/metrics")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `zenbrain_memories{layer="semantic",status="active"} 1`)
	require.Contains(t, body, `zenbrain_queue_jobs{queue="derive"`)
	code, _ = get("/riverui/")
	require.Equal(t, http.StatusOK, code)
	// The first heartbeat is written by the worker's background loop: on a loaded machine it
	// may come after the requests above.
	require.Eventually(t, func() bool {
		hb, err := db.New(b.pool).WorkerHeartbeatList(ctx, time.Now().Add(-time.Minute))
		require.NoError(t, err)
		return strings.Contains(fmt.Sprint(hb), "w-http")
	}, 30*time.Second, 20*time.Millisecond, "the worker's heartbeat row")
	_ = jobs.KindDerive
}

func testLogger() *slog.Logger {
	if os.Getenv("ZB_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// Periodic schedules fire every interval, not once: a completed schedule job does not block the
// next one (unique only while waiting or running).
func TestSchedulesRepeat(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := newWorker(t, b, "w-sched", func(c *worker.Config) { c.DecayInterval = 200 * time.Millisecond })
	start(t, w)
	ctx := context.Background()
	waitFor(t, 60*time.Second, "three completed decay schedules", func() bool {
		var n int
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM river.river_job
			WHERE kind = 'zb_schedule' AND args->>'task' = 'decay' AND state = 'completed'`).Scan(&n))
		return n >= 3
	})
}
