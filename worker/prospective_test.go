package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/worker"
)

// hourBehind is a clock an hour behind the real one.
type hourBehind struct{}

func (hourBehind) Now() time.Time { return time.Now().Add(-time.Hour) }

// TestProspectiveTick runs the prospective_tick job in a worker: a time intention that comes
// due fires once, exactly once, although ticks keep being enqueued.
func TestProspectiveTick(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := newWorker(t, b, "pt", nil)
	start(t, w)
	ctx := context.Background()
	// The intention is due now, and added by a coordinator whose clock is an hour behind (a due
	// time must be after the adding coordinator's now): an intention due "in a moment" by the
	// real clock is refused when the test is descheduled for that moment on a busy machine.
	early, err := coordinator.New(&coordinator.Config{Pool: b.pool, Clock: hourBehind{}})
	require.NoError(t, err)
	due := time.Now()
	in, err := early.AddIntention(ctx, "pt", coordinator.IntentionInput{Content: "stand up and stretch", DueAt: &due})
	require.NoError(t, err)
	waitFor(t, 30*time.Second, "the intention to fire", func() bool {
		_, err := w.InsertProspectiveTick(ctx)
		require.NoError(t, err)
		list, err := b.co.Intentions(ctx, "pt", "fired", 0)
		require.NoError(t, err)
		return len(list) == 1 && list[0].ID == in.ID
	})
	var fires, ticks int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM zb.audit_event WHERE action = 'intention.fire'),
		(SELECT count(*) FROM river.river_job WHERE kind = $1 AND state = 'completed')`, worker.KindProspectiveTick).Scan(&fires, &ticks))
	require.Equal(t, 1, fires)
	require.Positive(t, ticks)
}

// TestProspectiveSchedule: the periodic tick repeats at Config.ProspectiveInterval with no tick
// inserted by hand, and -1 turns it off (the leader's schedules run — three decays — and no
// tick was ever queued, not even the one at start).
func TestProspectiveSchedule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	count := func(b *bundle, kind, task string) int {
		var n int
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM river.river_job
			WHERE kind = $1 AND ($2 = '' OR args->>'task' = $2) AND state = 'completed'`, kind, task).Scan(&n))
		return n
	}
	t.Run("repeats", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		start(t, newWorker(t, b, "pt-on", func(c *worker.Config) { c.ProspectiveInterval = 200 * time.Millisecond }))
		waitFor(t, 60*time.Second, "three completed ticks", func() bool { return count(b, worker.KindProspectiveTick, "") >= 3 })
	})
	t.Run("off", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		start(t, newWorker(t, b, "pt-off", func(c *worker.Config) {
			c.ProspectiveInterval = -1
			c.DecayInterval = 200 * time.Millisecond
		}))
		waitFor(t, 60*time.Second, "three completed decay schedules", func() bool { return count(b, "zb_schedule", "decay") >= 3 })
		var ticks int
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM river.river_job WHERE kind = $1`, worker.KindProspectiveTick).Scan(&ticks))
		require.Zero(t, ticks)
	})
}
