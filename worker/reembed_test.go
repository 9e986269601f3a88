package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

// A re-embedding job for another model is left for a worker with that model (snoozed, not
// failed); one for this worker's model is done.
func TestReembedJobs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	res, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "re", Content: "Alice lives in Berlin"})
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, `UPDATE zb.memory SET embedding = NULL, embedding_model = NULL WHERE id = $1`, res.ID)
	require.NoError(t, err)
	w := newWorker(t, b, "w-reembed", nil)
	other, err := w.Client().Insert(ctx, jobs.ReembedArgs{TenantID: "re", MemoryIDs: []int64{res.ID}, Model: "ollama/other@64"},
		jobs.ReembedInsertOpts())
	require.NoError(t, err)
	mine, err := w.Client().Insert(ctx, jobs.ReembedArgs{TenantID: "re", MemoryIDs: []int64{res.ID}}, jobs.ReembedInsertOpts())
	require.NoError(t, err)
	start(t, w)
	state := func(id int64) string {
		var s string
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT state::text FROM river.river_job WHERE id = $1`, id).Scan(&s))
		return s
	}
	waitFor(t, 30*time.Second, "both jobs handled", func() bool {
		return state(mine.Job.ID) == "completed" && state(other.Job.ID) == "scheduled"
	})
	var model string
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT embedding_model FROM zb.memory WHERE id = $1`, res.ID).Scan(&model))
	require.Equal(t, "hash-v1-64", model)
	// Measured from the attempt's start, not from now: how long after the snooze the test looks
	// depends on the machine's load.
	var snoozedFor time.Duration
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT scheduled_at - attempted_at FROM river.river_job WHERE id = $1`, other.Job.ID).Scan(&snoozedFor))
	require.Greater(t, snoozedFor, 30*time.Second, "snoozed for about a minute")
}
