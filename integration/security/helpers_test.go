package security

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/embed"
	"github.com/zenbrain/zb/internal/zbtest"
)

const testDim = 64

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

var t0 = time.Date(2025, 3, 3, 9, 0, 0, 0, time.UTC)

// env is one fresh migrated database with a superuser pool and coordinator.
type env struct {
	url   string
	super *pgxpool.Pool
	co    *coordinator.Coordinator
	clock *fakeClock
	emb   coordinator.Embedder
}

func newEnv(t *testing.T) *env {
	t.Helper()
	u := zbtest.DB(t, &zbtest.Opts{EmbeddingDim: testDim})
	pool := openPool(t, u)
	emb, err := embed.New(&embed.Config{Dim: testDim})
	require.NoError(t, err)
	e := &env{url: u, super: pool, clock: &fakeClock{t: t0}, emb: emb}
	e.co = e.coordinator(t, pool)
	return e
}

func openPool(t *testing.T, u string) *pgxpool.Pool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: u, ApplicationName: "zbsecurity", MaxConns: 4})
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// coordinator returns a coordinator on pool sharing the env's clock and embedder.
func (e *env) coordinator(t *testing.T, pool *pgxpool.Pool) *coordinator.Coordinator {
	t.Helper()
	co, err := coordinator.New(&coordinator.Config{Pool: pool, Embedder: e.emb, Clock: e.clock, Actor: "test"})
	require.NoError(t, err)
	return co
}

// role returns the name of one of zenbrain's group roles (app, worker, admin, definer).
func (e *env) role(t *testing.T, kind string) string {
	t.Helper()
	var r string
	require.NoError(t, e.super.QueryRow(ctxT(t), "SELECT zb.role_name($1)::text", kind).Scan(&r))
	return r
}

var roleCounter atomic.Int64

// login creates a LOGIN role that is a member of the group role of kind (bound to the given
// tenants, if any), and returns a pool connected as it and its name. The role is dropped when
// the test ends.
func (e *env) login(t *testing.T, kind string, tenants ...string) (*pgxpool.Pool, string) {
	t.Helper()
	ctx := ctxT(t)
	name := fmt.Sprintf("zbsec_%s_%d_%d", kind, os.Getpid(), roleCounter.Add(1))
	const pw = "secret-test-password"
	_, err := e.super.Exec(ctx, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s' IN ROLE %s", name, pw,
		pgx.Identifier{e.role(t, kind)}.Sanitize()))
	require.NoError(t, err)
	for _, tn := range tenants {
		_, err := e.super.Exec(ctx, "INSERT INTO zb.tenant_binding (role_name, tenant_id) VALUES ($1, $2)", name, tn)
		require.NoError(t, err)
	}
	u, err := url.Parse(e.url)
	require.NoError(t, err)
	u.User = url.UserPassword(name, pw)
	pool := openPool(t, u.String())
	t.Cleanup(func() {
		pool.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := e.super.Exec(ctx, "DROP ROLE IF EXISTS "+name); err != nil {
			t.Logf("error dropping role %s: %v", name, err)
		}
	})
	return pool, name
}

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func queryInt(t *testing.T, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, sql string, args ...any,
) int64 {
	t.Helper()
	var n int64
	require.NoError(t, q.QueryRow(ctxT(t), sql, args...).Scan(&n), sql)
	return n
}

// inTenant runs fn in a transaction of pool bound to tenant ("" leaves it unbound), then rolls
// it back.
func inTenant(t *testing.T, pool *pgxpool.Pool, tenant string, fn func(tx pgx.Tx)) {
	t.Helper()
	ctx := ctxT(t)
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	if tenant != "" {
		_, err = tx.Exec(ctx, "SELECT zb.bind_tenant($1)", tenant)
		require.NoError(t, err)
	}
	fn(tx)
}

// inTenantCommit runs fn in a transaction of pool bound to tenant and commits it.
func inTenantCommit(t *testing.T, pool *pgxpool.Pool, tenant string, fn func(tx pgx.Tx)) {
	t.Helper()
	ctx := ctxT(t)
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, "SELECT zb.bind_tenant($1)", tenant)
	require.NoError(t, err)
	fn(tx)
	require.NoError(t, tx.Commit(ctx))
}
