package worker_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/embed"
	"github.com/zenbrain/zb/internal/zbtest"
	"github.com/zenbrain/zb/jobs"
	"github.com/zenbrain/zb/migrate"
)

// This file runs zbworker as real operating-system processes against a zbtest database: the
// binary is built once per TestProcesses run into a temporary directory, and every process is
// stopped (SIGTERM, or SIGKILL in the crash test) and reaped before its test ends.

// TestProcesses builds zbworker once and runs the process tests as parallel subtests, so the
// binary's directory outlives all of them.
func TestProcesses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs zbworker processes; skipped with -short")
	}
	bin := buildZBWorker(t)
	t.Run("TwoProcessesRunEachJobOnce", func(t *testing.T) {
		t.Parallel()
		testTwoProcesses(t, bin)
	})
	t.Run("KilledProcessLeavesNoPartialEffect", func(t *testing.T) {
		t.Parallel()
		testCrash(t, bin)
	})
}

// buildZBWorker compiles cmd/zbworker into a temporary directory and returns the binary's path.
func buildZBWorker(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go") //nolint:staticcheck // SA1019: the test runs where it was built
	}
	out := filepath.Join(t.TempDir(), "zbworker")
	cmd := exec.Command(goBin, "build", "-o", out, "github.com/zenbrain/zb/cmd/zbworker")
	cmd.Env = os.Environ()
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build ./cmd/zbworker: %s", msg)
	return out
}

// proc is one running zbworker process; its stdout and stderr go to a log file.
type proc struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
	err    error // Wait's result, valid once exited is closed
}

// startProc starts bin on the database url with schedules off, no HTTP server and concurrency 4;
// the flags in extra come last and override these (e.g. --concurrency).
func startProc(t *testing.T, bin, url, name string, extra ...string) *proc {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), name+".log")
	f, err := os.Create(logPath)
	require.NoError(t, err)
	defer f.Close()
	args := []string{
		"--http-addr", "", "--concurrency", "4", "--log-level", "info",
		"--decay-interval", "-1ns", "--review-interval", "-1ns", "--sleep-interval", "-1ns",
		"--sweep-interval", "-1ns", "--idle-interval", "-1ns", "--prospective-interval", "-1ns",
		"--vacuum-interval", "-1ns",
	}
	args = append(args, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "ZB_DATABASE_URL="+url, "ZB_EMBEDDER=hash")
	cmd.Stdout, cmd.Stderr = f, f
	require.NoError(t, cmd.Start())
	p := &proc{t: t, name: name, cmd: cmd, log: logPath, exited: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("log of %s:\n%s", name, tail(string(b), 4000))
		}
	})
	return p
}

// stop sends sig and waits up to timeout for the process to exit; it fails the test when the
// process is still alive then.
func (p *proc) stop(sig syscall.Signal, timeout time.Duration) {
	p.t.Helper()
	require.NoError(p.t, p.cmd.Process.Signal(sig))
	select {
	case <-p.exited:
	case <-time.After(timeout):
		p.t.Fatalf("%s still running %s after %v", p.name, timeout, sig)
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// world is a migrated database with a coordinator and an insert-only River client.
type world struct {
	url   string
	pool  *pgxpool.Pool
	co    *coordinator.Coordinator
	river *river.Client[pgx.Tx]
}

func newWorld(t *testing.T) *world {
	t.Helper()
	url := zbtest.DB(t, &zbtest.Opts{EmbeddingDim: dim})
	ctx := context.Background()
	pool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: url, ApplicationName: "zbtest", MaxConns: 8})
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	emb, err := embed.New(&embed.Config{Dim: dim})
	require.NoError(t, err)
	co, err := coordinator.New(&coordinator.Config{Pool: pool, Embedder: emb})
	require.NoError(t, err)
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Schema: migrate.RiverSchema})
	require.NoError(t, err)
	return &world{url: url, pool: pool, co: co, river: rc}
}

// workload describes the memories a test stores: per tenant, Batch memories through one
// StoreBatch (one pending derive job) and then Single memories through Store (queued for
// derivation by the memory table's triggers: the pending job takes them too).
type workload struct {
	Tenants, Single, Batch int
	Seed                   uint64
}

var (
	wlNames  = []string{"Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy"}
	wlPlaces = []string{"Paris", "Lisbon", "Berlin", "Oslo", "Madrid", "Vienna", "Prague"}
	wlWords  = strings.Fields(`apple river stone cloud maple copper violin garden ladder harbor
		candle meadow silver pepper rocket saddle timber velvet walnut marble orchid lantern puzzle
		feather canyon glacier hammock island jasmine kettle lemon mirror nutmeg oyster pillow quartz
		ribbon saffron tulip umbrella vessel whistle yogurt zephyr anchor bamboo cactus dolphin
		ember falcon ginger hazel igloo jungle koala lotus magnet nectar olive parrot quiver raven`)
)

// text returns the deterministic content of memory i of a tenant: two people and a place (so
// entities repeat and co_occurs edges form) and distinct filler words (so no two memories are
// near-duplicates that contradiction detection would pair up).
func (w workload) text(r *rand.Rand, tenant, i int) string {
	a, b := wlNames[r.IntN(len(wlNames))], wlNames[r.IntN(len(wlNames))]
	if a == b {
		b = wlNames[(r.IntN(len(wlNames)-1)+1+indexOf(wlNames, a))%len(wlNames)]
	}
	var fill []string
	for range 6 {
		fill = append(fill, wlWords[r.IntN(len(wlWords))])
	}
	return fmt.Sprintf("%s met %s in %s: %s (t%d #%d)", a, b, wlPlaces[r.IntN(len(wlPlaces))], strings.Join(fill, " "), tenant, i)
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return 0
}

func tenantName(i int) string { return fmt.Sprintf("p%02d", i) }

// load stores the workload into w (same ids in every world: one sequential writer).
func (wl workload) load(t *testing.T, w *world) {
	t.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(wl.Seed, 7))
	for ti := range wl.Tenants {
		if wl.Batch > 0 {
			items := make([]coordinator.StoreInput, wl.Batch)
			for i := range items {
				items[i] = coordinator.StoreInput{TenantID: tenantName(ti), Content: wl.text(r, ti, i)}
			}
			n, err := w.co.StoreBatch(ctx, items)
			require.NoError(t, err)
			require.EqualValues(t, wl.Batch, n)
		}
		for i := range wl.Single {
			_, err := w.co.Store(ctx, coordinator.StoreInput{TenantID: tenantName(ti), Content: wl.text(r, ti, wl.Batch+i)})
			require.NoError(t, err)
		}
	}
}

// sleepSeed fixes every sleep's counterfactual seed, so two databases sleep alike.
const sleepSeed = 20261202

// enqueueSleeps inserts copies sleep jobs for each of the tenants from..to-1 with a fixed seed,
// all in one transaction, checks that the copies coalesce — lifecycle jobs are unique by
// arguments while waiting or running (jobs.LifecycleInsertOpts), so each tenant gets one job —
// and returns the jobs' ids. One transaction because the workers already run: a copy inserted on
// its own after the tenant's first job completed would be a new request (uniqueness ends at
// completion) and sleep the tenant again, so how many sleeps ran would depend on timing.
func enqueueSleeps(t *testing.T, w *world, from, to, copies int) []int64 {
	t.Helper()
	ctx := context.Background()
	tx, err := w.pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	var ids []int64
	for ti := from; ti < to; ti++ {
		for c := range copies {
			res, err := w.river.InsertTx(ctx, tx, jobs.SleepArgs{TenantID: tenantName(ti), Trigger: "manual", Seed: sleepSeed},
				jobs.LifecycleInsertOpts())
			require.NoError(t, err)
			require.Equal(t, c > 0, res.UniqueSkippedAsDuplicate, "tenant %d copy %d: only the first copy inserts a job", ti, c)
			if c == 0 {
				ids = append(ids, res.Job.ID)
			}
		}
	}
	require.NoError(t, tx.Commit(ctx))
	return ids
}

// lockTable takes a SHARE lock on table in a transaction of its own and returns it: until the
// transaction ends, every INSERT into the table waits, inside its own transaction. A job that
// writes the table is held there, running, with the writes it made before uncommitted; the
// test decides when it goes on. The transaction is rolled back when the test ends, if not
// before.
func lockTable(t *testing.T, w *world, table string) pgx.Tx {
	t.Helper()
	ctx := context.Background()
	tx, err := w.pool.Begin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tx.Rollback(ctx) })
	_, err = tx.Exec(ctx, "LOCK TABLE "+table+" IN SHARE MODE")
	require.NoError(t, err)
	return tx
}

// gated returns the number of running jobs of kind and how many zbworker sessions wait for the
// lock on table (lockTable).
func gated(t *testing.T, w *world, kind, table string) (running, waiting int) {
	t.Helper()
	require.NoError(t, w.pool.QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM river.river_job WHERE kind = $1 AND state = 'running'),
		(SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE l.locktype = 'relation' AND l.relation = $2::regclass AND NOT l.granted
			AND a.application_name LIKE 'zbworker%')`, kind, table).Scan(&running, &waiting))
	return running, waiting
}

// waitDrained polls river.river_job until no job is left to work (every job completed,
// cancelled or discarded) and, when underived is false, no memory is underived.
func waitDrained(t *testing.T, w *world, timeout time.Duration) {
	t.Helper()
	ctx := context.Background()
	waitFor(t, timeout, "drained queues", func() bool {
		var open, underived int
		require.NoError(t, w.pool.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM river.river_job WHERE state NOT IN ('completed', 'cancelled', 'discarded')),
			(SELECT count(*) FROM zb.memory WHERE derived_at IS NULL)`).Scan(&open, &underived))
		return open == 0 && underived == 0
	})
}

// snapshot counts what the jobs wrote, independent of row ids and timestamps.
func snapshot(t *testing.T, w *world) map[string]int64 {
	t.Helper()
	rows, err := w.pool.Query(context.Background(), `
		SELECT 'memory/' || layer || '/' || status || '/' || kind, count(*) FROM zb.memory GROUP BY 1
		UNION ALL SELECT 'memory/underived', count(*) FROM zb.memory WHERE derived_at IS NULL
		UNION ALL SELECT 'memory/embedded', count(*) FROM zb.memory WHERE embedding IS NOT NULL
		UNION ALL SELECT 'entity', count(*) FROM zb.entity
		UNION ALL SELECT 'mention', count(*) FROM zb.mention
		UNION ALL SELECT 'edge', count(*) FROM zb.edge
		UNION ALL SELECT 'memory_link/' || relation::text, count(*) FROM zb.memory_link GROUP BY relation
		UNION ALL SELECT 'triple_copy/' || copy, count(*) FROM zb.triple_copy GROUP BY copy
		UNION ALL SELECT 'review_state', count(*) FROM zb.review_state
		UNION ALL SELECT 'confidence_evidence', count(*) FROM zb.confidence_evidence
		UNION ALL SELECT 'sleep_run', count(*) FROM zb.sleep_run
		UNION ALL SELECT 'sleep_run/tenants', count(DISTINCT tenant_id) FROM zb.sleep_run
		UNION ALL SELECT 'sleep_run/ltp+ltd+pruned+new', coalesce(sum(ltp_count + ltd_count + pruned_edges + new_associations), 0) FROM zb.sleep_run
		UNION ALL SELECT 'sleep_run/schemas', coalesce(sum(schemas_created), 0) FROM zb.sleep_run`)
	require.NoError(t, err)
	out := map[string]int64{}
	for rows.Next() {
		var k string
		var n int64
		require.NoError(t, rows.Scan(&k, &n))
		out[k] = n
	}
	require.NoError(t, rows.Err())
	return out
}

// jobSummary counts River jobs by kind, state and attempt.
func jobSummary(t *testing.T, w *world) map[string]int64 {
	t.Helper()
	rows, err := w.pool.Query(context.Background(),
		`SELECT kind || '/' || state || '/attempt=' || attempt, count(*) FROM river.river_job GROUP BY 1`)
	require.NoError(t, err)
	out := map[string]int64{}
	for rows.Next() {
		var k string
		var n int64
		require.NoError(t, rows.Scan(&k, &n))
		out[k] = n
	}
	require.NoError(t, rows.Err())
	return out
}

func keys(m map[string]int64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// requireNoWorkerConnections checks that no zbworker session is left on the database.
func requireNoWorkerConnections(t *testing.T, w *world) {
	t.Helper()
	ctx := context.Background()
	waitFor(t, 60*time.Second, "zbworker connections to close", func() bool {
		var n int
		require.NoError(t, w.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND application_name LIKE 'zbworker%'`).Scan(&n))
		return n == 0
	})
}

// runReference loads wl into a fresh database, works it with one zbworker process, sleeps every
// tenant once, and returns the snapshot: what an uninterrupted single worker produces.
func runReference(t *testing.T, bin string, wl workload) map[string]int64 {
	t.Helper()
	ref := newWorld(t)
	wl.load(t, ref)
	p := startProc(t, bin, ref.url, "reference")
	waitDrained(t, ref, 3*time.Minute)
	enqueueSleeps(t, ref, 0, wl.Tenants, 1)
	waitDrained(t, ref, 3*time.Minute)
	p.stop(syscall.SIGTERM, 60*time.Second)
	require.NoError(t, p.err, "reference worker exits cleanly on SIGTERM")
	return snapshot(t, ref)
}

// Two zbworker processes on one database: every job completes on its first attempt, every
// memory is derived once, one sleep_run per tenant, and the result equals a single worker's.
func testTwoProcesses(t *testing.T, bin string) {
	wl := workload{Tenants: 6, Single: 30, Batch: 120, Seed: 11}
	want := runReference(t, bin, wl)

	w := newWorld(t)
	wl.load(t, w)
	p1 := startProc(t, bin, w.url, "worker-1")
	p2 := startProc(t, bin, w.url, "worker-2")
	waitDrained(t, w, 3*time.Minute)
	// Both processes work jobs whatever the timing: the sleeps wait for a lock the test holds on
	// zb.sleep_run (a sleep writes its run there last, in its transaction) until every one of
	// them runs at once. There are more of them than one process works at a time (--concurrency
	// 4), so both processes hold some; then the test lets them finish.
	gate := lockTable(t, w, "zb.sleep_run")
	enqueueSleeps(t, w, 0, wl.Tenants, 3)
	waitFor(t, 3*time.Minute, "every sleep job running, waiting for the test's lock", func() bool {
		running, waiting := gated(t, w, jobs.KindSleep, "zb.sleep_run")
		return running == wl.Tenants && waiting == wl.Tenants
	})
	ctx := context.Background()
	require.NoError(t, gate.Rollback(ctx))
	waitDrained(t, w, 3*time.Minute)
	p1.stop(syscall.SIGTERM, 60*time.Second)
	p2.stop(syscall.SIGTERM, 60*time.Second)
	require.NoError(t, p1.err, "worker-1 exits cleanly on SIGTERM")
	require.NoError(t, p2.err, "worker-2 exits cleanly on SIGTERM")
	requireNoWorkerConnections(t, w)

	js := jobSummary(t, w)
	t.Logf("jobs: %v", js)
	var total, notCompleted, retried, byWorker int
	require.NoError(t, w.pool.QueryRow(ctx, `SELECT count(*),
			count(*) FILTER (WHERE state <> 'completed'),
			count(*) FILTER (WHERE attempt <> 1 OR cardinality(errors) > 0),
			count(DISTINCT attempted_by[1])
		FROM river.river_job`).Scan(&total, &notCompleted, &retried, &byWorker))
	require.Zero(t, notCompleted, "every job completed")
	require.Zero(t, retried, "every job ran exactly once, on its first attempt")
	require.Equal(t, 2, byWorker, "both processes worked jobs")
	// StoreBatch enqueues one derive job per tenant (pending sweep); Store's memories are
	// derived by the pending-derive jobs of the notifications and the sweep at start; one
	// sleep per tenant.
	require.GreaterOrEqual(t, total, 2*wl.Tenants)

	got := snapshot(t, w)
	t.Logf("state: %v", got)
	require.Zero(t, got["memory/underived"])
	require.Positive(t, got["edge"], "derivation made co_occurs edges")
	require.Positive(t, got["sleep_run/ltp+ltd+pruned+new"], "the sleeps changed edges")
	require.EqualValues(t, wl.Tenants, got["sleep_run"], "one sleep_run per tenant although each was requested 3 times")
	require.EqualValues(t, wl.Tenants, got["sleep_run/tenants"])
	var sleepJobs int
	require.NoError(t, w.pool.QueryRow(ctx, `SELECT count(*) FROM river.river_job WHERE kind = $1`, jobs.KindSleep).Scan(&sleepJobs))
	require.Equal(t, wl.Tenants, sleepJobs, "one sleep job per tenant: duplicates coalesced")
	// Every memory derived once: embeddings, mentions, edges, triple copies and review states
	// as a single uninterrupted worker wrote them.
	for _, k := range keys(want) {
		require.Equal(t, want[k], got[k], "%s: two processes vs one (all: %v vs %v)", k, got, want)
	}
	for _, k := range keys(got) {
		_, ok := want[k]
		require.True(t, ok, "%s appears only with two processes (%d)", k, got[k])
	}
}
