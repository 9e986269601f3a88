package pgvacuum

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/internal/zbtest"
)

// TestMain checks for leaked goroutines after the tests (zbtest.Main runs goleak).
func TestMain(m *testing.M) { zbtest.Main(m) }

// A VACUUM cannot mark rows all-visible while an older snapshot lives; Visible retries
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

	share, rounds, err := Visible(ctx, pool, 300*time.Millisecond, "public.vis")
	require.NoError(t, err)
	require.Less(t, share, 0.01, "no page can be all-visible under the older snapshot")
	require.GreaterOrEqual(t, rounds, 2, "it retried until its deadline")

	// The old snapshot ends while it waits: the next VACUUM marks every page.
	var wg sync.WaitGroup
	wg.Go(func() {
		time.Sleep(500 * time.Millisecond)
		_ = old.Rollback(ctx)
	})
	share, rounds, err = Visible(ctx, pool, 30*time.Second, "public.vis")
	wg.Wait()
	require.NoError(t, err)
	require.GreaterOrEqual(t, share, Enough)
	require.GreaterOrEqual(t, rounds, 2)

	// Nothing in the way: one VACUUM.
	share, rounds, err = Visible(ctx, pool, time.Second, "public.vis")
	require.NoError(t, err)
	require.Equal(t, 1.0, share)
	require.Equal(t, 1, rounds)
}

// Without tables: the whole database, the share over schema zb's tables.
func TestVacuumVisibleDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := zbtest.Pool(t, nil)
	_, err := pool.Exec(ctx, `INSERT INTO zb.tenant (id) SELECT 'vis' || g FROM generate_series(1, 2000) g`)
	require.NoError(t, err)
	share, rounds, err := Visible(ctx, pool, 10*time.Second)
	require.NoError(t, err)
	require.GreaterOrEqual(t, share, Enough)
	require.Positive(t, rounds)
	var visible, pages int
	require.NoError(t, pool.QueryRow(ctx, `SELECT relallvisible, relpages FROM pg_class WHERE oid = 'zb.tenant'::regclass`).Scan(&visible, &pages))
	require.Positive(t, pages)
	require.Equal(t, pages, visible, "the whole database was vacuumed")
}
