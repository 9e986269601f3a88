package worker_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/jobs"
)

// CrashTrialsEnv names the environment variable that sets the number of crash trials of
// TestProcesses/KilledProcessLeavesNoPartialEffect (default crashTrialsDefault). For a soak
// run: ZB_CRASH_TRIALS=50 go test ./worker -run 'TestProcesses/Killed' -timeout 2h
const CrashTrialsEnv = "ZB_CRASH_TRIALS"

// crashTrialsDefault runs one derive and one sleep trial in CI.
const crashTrialsDefault = 2

// A zbworker process killed with SIGKILL while jobs run leaves no partial effect: at the kill,
// every effect on the database belongs to a completed job; after the stuck jobs are rescued and
// a new process works the queues, every job completes and the final state equals an
// uninterrupted single worker's. Odd trials kill during derivation, even ones during sleeps.
func testCrash(t *testing.T, bin string) {
	trials := crashTrialsDefault
	if v := os.Getenv(CrashTrialsEnv); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "%s=%q", CrashTrialsEnv, v)
		require.Positive(t, n)
		trials = n
	}
	wl := workload{Tenants: 6, Single: 20, Batch: 400, Seed: 23}
	want := runReference(t, bin, wl)
	for trial := 1; trial <= trials; trial++ {
		crashTrial(t, bin, wl, want, trial)
	}
}

// crashTrial kills the process once some jobs of the trial's kind completed (the threshold
// varies by trial) while others run. Whatever the timing, the kill catches at least one job in
// the middle of its transaction: the last tenant's job is held back until the others reached the
// threshold, and then runs into a lock the test holds on a table the job writes late in its
// transaction (derive: zb.review_state, after the memories' derived columns, triple copies,
// entities, mentions and edges; sleep: zb.sleep_run, after all of its edge and memory writes).
// The other jobs of the kind that had not written that table yet wait at the same lock and are
// killed there too. Waiting for a moment when some jobs are done and others run, and killing
// then, depended on timing: the sleeps of this workload all run within a few hundred
// milliseconds, and a busy machine let that moment pass unseen (or let the last job finish
// between the look and the kill).
func crashTrial(t *testing.T, bin string, wl workload, want map[string]int64, trial int) {
	ctx := context.Background()
	w := newWorld(t)
	wl.load(t, w)
	duringSleep := trial%2 == 0
	name := "crash-" + strconv.Itoa(trial)
	last := wl.Tenants - 1
	kind, gateTable := jobs.KindDerive, "zb.review_state"
	if duringSleep {
		kind, gateTable = jobs.KindSleep, "zb.sleep_run"
	}
	// A derive trial has one pending-derive job per tenant (its batch's, which also takes the
	// memories stored one by one), queued by the load: the last tenant's waits, scheduled an
	// hour ahead, until the test releases it.
	var held int64
	if !duringSleep {
		require.NoError(t, w.pool.QueryRow(ctx, `UPDATE river.river_job SET state = 'scheduled', scheduled_at = now() + interval '1 hour'
			WHERE kind = $1 AND args->>'tenant_id' = $2 RETURNING id`, jobs.KindDerive, tenantName(last)).Scan(&held))
	}
	// One slot per tenant (the flag overrides startProc's), so that the jobs held at the lock
	// below never keep the held-back job from starting.
	p := startProc(t, bin, w.url, name, "--concurrency", strconv.Itoa(wl.Tenants))
	if duringSleep {
		waitDrained(t, w, 3*time.Minute)
		enqueueSleeps(t, w, 0, last, 1)
	}
	// The jobs not held back reach the threshold (at most Tenants-2 of them).
	minDone := 1 + (trial*5)%(wl.Tenants-2)
	if duringSleep {
		minDone = (trial / 2) % 3
	}
	waitFor(t, 3*time.Minute, fmt.Sprintf("%d completed %s jobs", minDone, kind), func() bool {
		var done int
		require.NoError(t, w.pool.QueryRow(ctx, `SELECT count(*) FROM river.river_job WHERE kind = $1 AND state = 'completed'`,
			kind).Scan(&done))
		return done >= minDone
	})
	// From here on no job of the kind completes: one that already wrote the table commits before
	// the lock is granted, every other one waits for it.
	gate := lockTable(t, w, gateTable)
	if duringSleep {
		held = enqueueSleeps(t, w, last, last+1, 1)[0]
	} else {
		_, err := w.pool.Exec(ctx, `UPDATE river.river_job SET state = 'available', scheduled_at = now() WHERE id = $1`, held)
		require.NoError(t, err)
	}
	waitFor(t, 3*time.Minute, "the held-back job waiting for the test's lock", func() bool {
		var state string
		require.NoError(t, w.pool.QueryRow(ctx, `SELECT state FROM river.river_job WHERE id = $1`, held).Scan(&state))
		running, waiting := gated(t, w, kind, gateTable)
		return state == "running" && waiting == running
	})
	p.stop(syscall.SIGKILL, 30*time.Second)
	// The killed process's sessions end (their transactions roll back) once the lock is released:
	// a session waiting for a lock does not notice that its client is gone.
	require.NoError(t, gate.Rollback(ctx))
	requireNoWorkerConnections(t, w)

	// No partial effect: derivation effects only on derived memories, a sleep_run only for a
	// completed sleep job.
	var orphanMentions, orphanReviews, sleepRuns, sleepsDone, stillRunning int
	require.NoError(t, w.pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM zb.mention n JOIN zb.memory m ON m.tenant_id = n.tenant_id AND m.id = n.memory_id WHERE m.derived_at IS NULL),
		(SELECT count(*) FROM zb.review_state r JOIN zb.memory m ON m.tenant_id = r.tenant_id AND m.id = r.memory_id WHERE m.derived_at IS NULL),
		(SELECT count(*) FROM zb.sleep_run),
		(SELECT count(*) FROM river.river_job WHERE kind = $1 AND state = 'completed'),
		(SELECT count(*) FROM river.river_job WHERE state = 'running')`, jobs.KindSleep).
		Scan(&orphanMentions, &orphanReviews, &sleepRuns, &sleepsDone, &stillRunning))
	require.Zero(t, orphanMentions, "trial %d: mentions of underived memories", trial)
	require.Zero(t, orphanReviews, "trial %d: review states of underived memories", trial)
	require.Equal(t, sleepsDone, sleepRuns, "trial %d: one sleep_run per completed sleep job, none for the killed ones", trial)
	// The jobs still running now are the killed ones, the held-back one among them. River rescues
	// a job left running by a dead process only after RescueStuckJobsAfter (with JobTimeout 10
	// min, JobTimeout + 1 min); the test does the rescuer's work (running → available) instead
	// of waiting.
	killed := runningIDs(t, w)
	require.Len(t, killed, stillRunning)
	require.Contains(t, killed, held, "trial %d: the kill interrupted the held-back %s job", trial, kind)
	running := killed
	_, err := w.pool.Exec(ctx, `UPDATE river.river_job SET state = 'available', scheduled_at = now()
		WHERE state = 'running'`)
	require.NoError(t, err)

	p2 := startProc(t, bin, w.url, name+"-restart")
	waitDrained(t, w, 3*time.Minute)
	if !duringSleep {
		enqueueSleeps(t, w, 0, wl.Tenants, 1)
		waitDrained(t, w, 3*time.Minute)
	}
	p2.stop(syscall.SIGTERM, 60*time.Second)
	require.NoError(t, p2.err, "trial %d: restarted worker exits cleanly", trial)
	requireNoWorkerConnections(t, w)

	var notCompleted, rescuedOK, retriedOther int
	require.NoError(t, w.pool.QueryRow(ctx, `SELECT
		count(*) FILTER (WHERE state <> 'completed'),
		count(*) FILTER (WHERE id = ANY ($1) AND attempt = 2),
		count(*) FILTER (WHERE NOT id = ANY ($1) AND attempt <> 1)
		FROM river.river_job`, running).Scan(&notCompleted, &rescuedOK, &retriedOther))
	require.Zero(t, notCompleted, "trial %d: every job completed", trial)
	require.Equal(t, len(running), rescuedOK, "trial %d: each killed job ran once more", trial)
	require.Zero(t, retriedOther, "trial %d: no other job ran twice", trial)
	got := snapshot(t, w)
	for _, k := range keys(want) {
		require.Equal(t, want[k], got[k], "trial %d: %s after a crash vs uninterrupted (all: %v vs %v)", trial, k, got, want)
	}
	for _, k := range keys(got) {
		_, ok := want[k]
		require.True(t, ok, "trial %d: %s appears only after a crash (%d)", trial, k, got[k])
	}
	t.Logf("trial %d (%s): killed with %d %s job(s) running; final state equals the uninterrupted run", trial,
		map[bool]string{true: "sleep", false: "derive"}[duringSleep], len(running), kind)
}

func runningIDs(t *testing.T, w *world) []int64 {
	t.Helper()
	rows, err := w.pool.Query(context.Background(), `SELECT id FROM river.river_job WHERE state = 'running' ORDER BY id`)
	require.NoError(t, err)
	var ids []int64
	for rows.Next() {
		var id int64
		require.NoError(t, rows.Scan(&id))
		ids = append(ids, id)
	}
	require.NoError(t, rows.Err())
	return ids
}
