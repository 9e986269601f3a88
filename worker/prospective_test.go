package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/worker"
)

// TestProspectiveTick runs the prospective_tick job in a worker: a time intention due in a
// moment fires once, exactly once, although ticks keep being enqueued.
func TestProspectiveTick(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := newWorker(t, b, "pt", nil)
	start(t, w)
	ctx := context.Background()
	due := time.Now().Add(300 * time.Millisecond)
	in, err := b.co.AddIntention(ctx, "pt", coordinator.IntentionInput{Content: "stand up and stretch", DueAt: &due})
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
