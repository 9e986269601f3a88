package perf

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/internal/zbtest"
)

// A VACUUM cannot mark rows all-visible while an older snapshot lives; vacuumVisible retries
// until it is gone, and reports the share it reached when it is not.
func TestVacuumVisibleWaitsForOlderSnapshots(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := zbtest.Pool(t, &zbtest.Opts{Empty: true})
	_, err := pool.Exec(ctx, `CREATE TABLE public.vis (id int PRIMARY KEY, pad text) WITH (autovacuum_enabled = false)`)
	require.NoError(t, err)

	// A repeatable-read transaction whose snapshot predates the rows.
	old, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	require.NoError(t, err)
	defer func() { _ = old.Rollback(ctx) }()
	_, err = old.Exec(ctx, `SELECT 1`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO public.vis SELECT g, repeat('x', 200) FROM generate_series(1, 5000) g`)
	require.NoError(t, err)

	share, rounds, err := vacuumVisible(ctx, pool, 300*time.Millisecond, "public.vis")
	require.NoError(t, err)
	require.Less(t, share, 0.01, "no page can be all-visible under the older snapshot")
	require.GreaterOrEqual(t, rounds, 2, "it retried until its deadline")

	// The old snapshot ends while it waits: the next VACUUM marks every page.
	var wg sync.WaitGroup
	wg.Go(func() {
		time.Sleep(500 * time.Millisecond)
		_ = old.Rollback(ctx)
	})
	share, rounds, err = vacuumVisible(ctx, pool, 30*time.Second, "public.vis")
	wg.Wait()
	require.NoError(t, err)
	require.GreaterOrEqual(t, share, visibleEnough)
	require.GreaterOrEqual(t, rounds, 2)

	// Nothing in the way: one VACUUM.
	share, rounds, err = vacuumVisible(ctx, pool, time.Second, "public.vis")
	require.NoError(t, err)
	require.Equal(t, 1.0, share)
	require.Equal(t, 1, rounds)
}
