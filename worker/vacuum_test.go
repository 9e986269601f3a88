package worker_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/embed"
	"github.com/zenbrain/zb/jobs"
	"github.com/zenbrain/zb/worker"
)

// eraseOne stores a memory of tenant in a context of its own and erases the context, returning
// the vacuum request the erase queued.
func eraseOne(t *testing.T, co *coordinator.Coordinator, tenant string) int64 {
	t.Helper()
	ctx := context.Background()
	_, err := co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Context: "gdpr", Content: "My card PIN is 0815."})
	require.NoError(t, err)
	rep, err := co.Erase(ctx, tenant, coordinator.ScopeContext("gdpr"), nil)
	require.NoError(t, err)
	require.Positive(t, rep.VacuumRequest)
	return rep.VacuumRequest
}

func vacuumState(t *testing.T, co *coordinator.Coordinator, id int64) string {
	t.Helper()
	reqs, err := co.VacuumRequests(context.Background(), 0)
	require.NoError(t, err)
	for _, r := range reqs {
		if r.ID == id {
			return r.State
		}
	}
	return ""
}

// The periodic vacuum job (Config.VacuumInterval) completes a pending vacuum request without
// anything inserted by hand, and its jobs complete.
func TestVacuumSchedule(t *testing.T) {
	t.Parallel()
	b := setup(t)
	start(t, newWorker(t, b, "vac", func(c *worker.Config) { c.VacuumInterval = 200 * time.Millisecond }))
	id := eraseOne(t, b.co, "vac")
	waitFor(t, 60*time.Second, "the vacuum request to be done", func() bool {
		return vacuumState(t, b.co, id) == coordinator.VacuumStateDone
	})
	waitFor(t, 30*time.Second, "a completed vacuum job", func() bool {
		var n int
		require.NoError(t, b.pool.QueryRow(context.Background(),
			`SELECT count(*) FROM river.river_job WHERE kind = $1 AND state = 'completed'`, jobs.KindVacuum).Scan(&n))
		return n > 0
	})
}

// syncBuffer is a bytes.Buffer safe for the worker's concurrent log writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A worker connected as a role that may not vacuum zenbrain's tables (a login in zb_worker)
// logs a warning, completes the vacuum job instead of retrying it, and leaves the request
// pending for 'zbctl vacuum' as the owner.
func TestVacuumJobWithoutOwnership(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := eraseOne(t, b.co, "vac-role")

	var group string
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT zb.role_name('worker')::text").Scan(&group))
	name := fmt.Sprintf("zbvac_wrk_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	const pw = "secret-test-password"
	_, err := b.pool.Exec(ctx, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s' IN ROLE %s", name, pw, pgx.Identifier{group}.Sanitize()))
	require.NoError(t, err)
	cfg := b.pool.Config().Copy()
	cfg.ConnConfig.User, cfg.ConnConfig.Password = name, pw
	wpool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		wpool.Close()
		if _, err := b.pool.Exec(context.Background(), "DROP ROLE IF EXISTS "+name); err != nil {
			t.Logf("error dropping role %s: %v", name, err)
		}
	})
	emb, err := embed.New(&embed.Config{Dim: dim})
	require.NoError(t, err)
	wco, err := coordinator.New(&coordinator.Config{Pool: wpool, Embedder: emb})
	require.NoError(t, err)

	var logs syncBuffer
	w := newWorker(t, &bundle{pool: wpool, co: wco}, "vac-role", func(c *worker.Config) {
		c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	})
	start(t, w)
	_, err = w.InsertVacuum(ctx)
	require.NoError(t, err)
	waitFor(t, 60*time.Second, "the vacuum job to complete", func() bool {
		var n int
		require.NoError(t, b.pool.QueryRow(ctx,
			`SELECT count(*) FROM river.river_job WHERE kind = $1 AND state = 'completed' AND attempt = 1`, jobs.KindVacuum).Scan(&n))
		return n == 1
	})
	require.Contains(t, logs.String(), "may not vacuum")
	require.Contains(t, logs.String(), "zbctl vacuum")
	require.Equal(t, coordinator.VacuumStatePending, vacuumState(t, b.co, id))
}
