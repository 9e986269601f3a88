package reliability

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/internal/pgcluster"
	"github.com/zenbrain/zb/jobs"
	"github.com/zenbrain/zb/migrate"
)

// classify names the sentinel an operation error maps to, or "raw <type>" when it maps to none
// of the retryable ones.
func classify(err error) string {
	for _, s := range []struct {
		err  error
		name string
	}{
		{coordinator.ErrUnavailable, "ErrUnavailable"},
		{coordinator.ErrTimeout, "ErrTimeout"},
		{coordinator.ErrDuplicate, "ErrDuplicate"},
		{coordinator.ErrConflict, "ErrConflict"},
	} {
		if errors.Is(err, s.err) {
			return s.name
		}
	}
	return fmt.Sprintf("raw %T: %v", err, err)
}

// terminate ends backend pid from another connection and waits until it is gone.
func terminate(t testing.TB, admin *pgxpool.Pool, pid uint32) {
	t.Helper()
	ctx := context.Background()
	var ok bool
	require.NoError(t, admin.QueryRow(ctx, `SELECT pg_terminate_backend($1)`, int32(pid)).Scan(&ok))
	require.True(t, ok, "backend %d terminated", pid)
	waitFor(t, 10*time.Second, "the terminated backend to exit", func() bool {
		var n int
		require.NoError(t, admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE pid = $1`, int32(pid)).Scan(&n))
		return n == 0
	})
}

// A connection killed (pg_terminate_backend) in the middle of an operation's transaction leaves
// no partial state: the operation returns ErrUnavailable (retryable), every table's row count is
// unchanged, and a retry completes it once.
func TestFaultTerminatedMidTransaction(t *testing.T) {
	t.Parallel()
	u, admin := db(t)
	ctx := context.Background()
	plain := newCoordinator(t, admin, nil)
	const ten = "kill"

	// killAt runs op on a coordinator whose connections stop at the first query containing
	// marker, terminates that backend there and returns op's error.
	killAt := func(t *testing.T, marker string, op func(co *coordinator.Coordinator) error) error {
		g := newGate(marker)
		co := newCoordinator(t, newPool(t, u, g, nil), nil)
		g.armed.Store(true)
		errc := make(chan error, 1)
		go func() { errc <- op(co) }()
		terminate(t, admin, waitGate(t, g, 30*time.Second))
		close(g.release)
		return <-errc
	}
	requireKilled := func(t *testing.T, err error, before map[string]int64) {
		t.Helper()
		require.Error(t, err)
		require.ErrorIs(t, err, coordinator.ErrUnavailable, "%v", err)
		require.True(t, coordinator.IsRetryable(err))
		require.Equal(t, before, counts(t, admin), "no partial state after %v", err)
	}

	t.Run("Store", func(t *testing.T) {
		before := counts(t, admin)
		// A fact: its transaction began with the read of the older versions, and is killed
		// when its INSERT (with copies and audit row) goes out.
		err := killAt(t, "-- name: MemoryStore :one", func(co *coordinator.Coordinator) error {
			_, err := co.Store(ctx, coordinator.StoreInput{TenantID: ten, Content: "Carol moved to Oslo", ExternalID: "k-1"})
			return err
		})
		requireKilled(t, err, before)
		_, err = coordinator.Retry(ctx, nil, func(ctx context.Context) (*coordinator.StoreResult, error) {
			return plain.Store(ctx, coordinator.StoreInput{TenantID: ten, Content: "Carol moved to Oslo", ExternalID: "k-1"})
		})
		require.NoError(t, err)
		require.Equal(t, before["zb.memory"]+1, counts(t, admin)["zb.memory"])
	})

	t.Run("StoreBatch", func(t *testing.T) {
		items := make([]coordinator.StoreInput, 50)
		for i := range items {
			items[i] = coordinator.StoreInput{TenantID: ten, Content: fmt.Sprintf("batch memory %d about Dave and Erin", i)}
		}
		before := counts(t, admin)
		err := killAt(t, "-- name: AuditEventInsert", func(co *coordinator.Coordinator) error {
			_, err := co.StoreBatch(ctx, items)
			return err
		})
		requireKilled(t, err, before)
		n, err := plain.StoreBatch(ctx, items)
		require.NoError(t, err)
		require.EqualValues(t, 50, n)
	})

	t.Run("RecallSideEffects", func(t *testing.T) {
		before := counts(t, admin)
		err := killAt(t, "-- name: RecallApply", func(co *coordinator.Coordinator) error {
			_, err := co.Recall(ctx, ten, "Where did Carol move?", nil)
			return err
		})
		requireKilled(t, err, before)
		var accesses int
		require.NoError(t, admin.QueryRow(ctx, `SELECT coalesce(sum(access_count), 0) FROM zb.memory WHERE tenant_id = $1`, ten).Scan(&accesses))
		require.Zero(t, accesses, "no access recorded by the killed recall")
	})

	// An erase (GDPR Art. 17) killed before its COMMIT leaves the memory and everything derived
	// from it in place; the retry erases it once.
	t.Run("Erase", func(t *testing.T) {
		var id int64
		require.NoError(t, admin.QueryRow(ctx, `SELECT id FROM zb.memory WHERE tenant_id = $1 AND external_id = 'k-1'`, ten).Scan(&id))
		before := counts(t, admin)
		err := killAt(t, "commit", func(co *coordinator.Coordinator) error {
			_, err := co.Erase(ctx, ten, coordinator.EraseScope{Kind: coordinator.EraseMemory, MemoryID: id}, nil)
			return err
		})
		requireKilled(t, err, before)
		var content, status string
		require.NoError(t, admin.QueryRow(ctx, `SELECT content, status FROM zb.memory WHERE tenant_id = $1 AND id = $2`, ten, id).Scan(&content, &status))
		require.Equal(t, "Carol moved to Oslo", content)
		require.Equal(t, "active", status)
		rep, err := plain.Erase(ctx, ten, coordinator.EraseScope{Kind: coordinator.EraseMemory, MemoryID: id}, nil)
		require.NoError(t, err)
		require.EqualValues(t, 1, rep.Memories)
	})

	// Lifecycle jobs commit through their TxHook (the worker's river.JobCompleteTx): a hook that
	// kills its own backend loses the whole job's effects.
	killInHook := func(t *testing.T) coordinator.TxHook {
		return func(ctx context.Context, tx pgx.Tx) error {
			terminate(t, admin, tx.Conn().PgConn().PID())
			return nil
		}
	}
	t.Run("Derive", func(t *testing.T) {
		var underived int
		require.NoError(t, admin.QueryRow(ctx, `SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND derived_at IS NULL`, ten).Scan(&underived))
		require.Positive(t, underived)
		before := counts(t, admin)
		co := newCoordinator(t, newPool(t, u, nil, nil), nil)
		_, err := co.Derive(ctx, jobs.DeriveArgs{TenantID: ten, Pending: true}, killInHook(t))
		requireKilled(t, err, before)
		var still int
		require.NoError(t, admin.QueryRow(ctx, `SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND derived_at IS NULL`, ten).Scan(&still))
		require.Equal(t, underived, still, "no memory marked derived")
		rep, err := plain.Derive(ctx, jobs.DeriveArgs{TenantID: ten, Pending: true}, nil)
		require.NoError(t, err)
		require.Len(t, rep.Derived, underived)
		require.Positive(t, counts(t, admin)["zb.mention"])
	})

	t.Run("Sleep", func(t *testing.T) {
		before := counts(t, admin)
		var stab float64
		require.NoError(t, admin.QueryRow(ctx, `SELECT sum(stability) FROM zb.memory WHERE tenant_id = $1`, ten).Scan(&stab))
		co := newCoordinator(t, newPool(t, u, nil, nil), nil)
		_, err := co.Sleep(ctx, ten, &coordinator.SleepOpts{Trigger: "manual", Seed: 7}, killInHook(t))
		requireKilled(t, err, before)
		var after float64
		var runs int
		require.NoError(t, admin.QueryRow(ctx, `SELECT sum(stability), (SELECT count(*) FROM zb.sleep_run) FROM zb.memory WHERE tenant_id = $1`, ten).Scan(&after, &runs))
		require.Equal(t, stab, after, "no stability change")
		require.Zero(t, runs, "no sleep_run row")
		rep, err := plain.Sleep(ctx, ten, &coordinator.SleepOpts{Trigger: "manual", Seed: 7}, nil)
		require.NoError(t, err)
		require.Positive(t, rep.RunID)
	})
}

// A statement cancelled by statement_timeout (here: waiting on a lock an operator holds) is a
// clear ErrTimeout, retryable, and writes nothing.
func TestFaultStatementTimeout(t *testing.T) {
	t.Parallel()
	u, admin := db(t)
	ctx := context.Background()
	plain := newCoordinator(t, admin, nil)
	co := newCoordinator(t, newPool(t, u, nil, map[string]string{"statement_timeout": "300ms"}), nil)
	const ten = "slow"
	_, err := plain.Store(ctx, coordinator.StoreInput{TenantID: ten, CoreLabel: "name", Content: "My name is Sam"})
	require.NoError(t, err)

	// An operator holds the core memory's row lock: the upsert's lock wait hits the timeout.
	tx, err := admin.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `SELECT id FROM zb.memory WHERE tenant_id = $1 AND core_label = 'name' FOR UPDATE`, ten)
	require.NoError(t, err)
	before := counts(t, admin)
	_, err = co.Store(ctx, coordinator.StoreInput{TenantID: ten, CoreLabel: "name", Content: "My name is Samantha"})
	require.ErrorIs(t, err, coordinator.ErrTimeout)
	require.True(t, coordinator.IsRetryable(err))
	require.Contains(t, err.Error(), "statement timeout")
	require.Equal(t, before, counts(t, admin))

	// A table lock blocks recall's candidate query: ErrTimeout too.
	_, err = tx.Exec(ctx, `LOCK TABLE zb.memory IN ACCESS EXCLUSIVE MODE`)
	require.NoError(t, err)
	_, err = co.Recall(ctx, ten, "what is my name?", nil)
	require.ErrorIs(t, err, coordinator.ErrTimeout)
	require.True(t, coordinator.IsRetryable(err))
	require.NoError(t, tx.Rollback(ctx))
	require.Equal(t, before, counts(t, admin))

	res, err := coordinator.Retry(ctx, nil, func(ctx context.Context) (*coordinator.StoreResult, error) {
		return co.Store(ctx, coordinator.StoreInput{TenantID: ten, CoreLabel: "name", Content: "My name is Samantha"})
	})
	require.NoError(t, err)
	require.Equal(t, coordinator.OutcomeUpdated, res.Outcome)
}

// ownServer is a PostgreSQL cluster of the test's own, for faults that would disturb the
// shared test server (a restart, a tablespace on a tiny file system).
type ownServer struct {
	cl   *pgcluster.Cluster
	info *pgcluster.Info
}

func newOwnServer(t *testing.T) *ownServer {
	t.Helper()
	dir, err := os.MkdirTemp("", "zbrel-pg-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	cl, err := pgcluster.New(&pgcluster.Config{
		Dir: dir, AnyPort: true, Ephemeral: true, Database: "postgres",
		BinDir: os.Getenv("ZB_PG_BINDIR"), Settings: map[string]string{"max_connections": "100", "log_min_messages": "fatal"},
	})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = cl.Destroy(ctx)
	})
	require.NoError(t, cl.Init(ctx))
	require.NoError(t, cl.Start(ctx))
	info, err := cl.Info()
	require.NoError(t, err)
	return &ownServer{cl: cl, info: info}
}

// migratedDB creates database name on the server, migrates it and returns its URL.
func (s *ownServer) migratedDB(t *testing.T, name string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.info.URL("postgres"))
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	require.NoError(t, err)
	require.NoError(t, conn.Close(ctx))
	u := s.info.URL(name)
	pool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: u, MaxConns: 2})
	require.NoError(t, err)
	defer pool.Close()
	m, err := migrate.New(pool)
	require.NoError(t, err)
	_, err = m.Up(ctx, &migrate.Opts{EmbeddingDim: dim})
	require.NoError(t, err)
	return u
}

// restartLoad returns the number of store clients and memories per client of
// TestFaultRestartUnderLoad: 4 × 30 by default, ZB_RESTART_LOAD=clients×memories for a longer
// run (e.g. ZB_RESTART_LOAD=16x500).
func restartLoad(t *testing.T) (clients, perClient, restarts int) {
	clients, perClient, restarts = 4, 30, 1
	if v := os.Getenv("ZB_RESTART_LOAD"); v != "" {
		parts := strings.Split(v, "x")
		require.Len(t, parts, 2, "ZB_RESTART_LOAD=%q: want clients x memories", v)
		var err error
		clients, err = strconv.Atoi(parts[0])
		require.NoError(t, err)
		perClient, err = strconv.Atoi(parts[1])
		require.NoError(t, err)
		restarts = 3
	}
	return clients, perClient, restarts
}

// PostgreSQL restarted (fast shutdown, then start) while store and recall clients run: the
// clients get retryable, classified errors (ErrUnavailable), retry with backoff, and nothing is
// lost or stored twice — every external id exists exactly once, with one derive job and one
// audit event per memory.
func TestFaultRestartUnderLoad(t *testing.T) {
	t.Parallel()
	srv := newOwnServer(t)
	u := srv.migratedDB(t, "load")
	pool := newPool(t, u, nil, nil)
	co := newCoordinator(t, pool, nil)
	clients, perClient, restarts := restartLoad(t)
	total := clients * perClient

	var (
		stored, retries, ambiguous, recalls atomic.Int64
		mu                                  sync.Mutex
		kinds                               = map[string]int{}
	)
	opts := &coordinator.RetryOpts{
		MaxAttempts: 400, InitialBackoff: 10 * time.Millisecond, MaxBackoff: 200 * time.Millisecond,
		OnRetry: func(_ int, err error, _ time.Duration) {
			retries.Add(1)
			mu.Lock()
			kinds[classify(err)]++
			mu.Unlock()
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, clients+4)
	for c := range clients {
		wg.Go(func() {
			for j := range perClient {
				in := coordinator.StoreInput{
					TenantID: fmt.Sprintf("load%d", c%2), ExternalID: fmt.Sprintf("c%d-%d", c, j),
					Content: fmt.Sprintf("client %d note %d: %s met %s in %s", c, j, wlName(c+j), wlName(c+2*j+1), wlPlace(j)),
				}
				_, err := coordinator.Retry(ctx, opts, func(ctx context.Context) (*coordinator.StoreResult, error) {
					return co.Store(ctx, in)
				})
				if errors.Is(err, coordinator.ErrDuplicate) {
					ambiguous.Add(1) // an earlier attempt committed, its reply was lost
					err = nil
				}
				if err != nil {
					errs <- fmt.Errorf("client %d memory %d: %w", c, j, err)
					return
				}
				stored.Add(1)
			}
		})
	}
	storesDone := make(chan struct{})
	var rwg sync.WaitGroup
	for r := range 2 {
		rwg.Go(func() {
			for {
				select {
				case <-storesDone:
					return
				default:
				}
				_, err := coordinator.Retry(ctx, opts, func(ctx context.Context) (*coordinator.RecallResult, error) {
					return co.Recall(ctx, fmt.Sprintf("load%d", r), "who met whom in Oslo?", nil)
				})
				if err != nil && !errors.Is(err, coordinator.ErrNotFound) { // the tenant may not exist yet
					errs <- fmt.Errorf("recall client %d: %w", r, err)
					return
				}
				recalls.Add(1)
			}
		})
	}
	var downRetries int64
	for k := range restarts {
		threshold := int64(total * (k + 1) / (restarts + 2))
		waitFor(t, 2*time.Minute, "stores before the restart", func() bool { return stored.Load() >= threshold })
		r0 := retries.Load()
		require.NoError(t, srv.cl.Stop(ctx))
		// The server is down: wait until the clients have noticed (retries) before starting it.
		waitFor(t, 30*time.Second, "clients retrying against the stopped server", func() bool { return retries.Load() > r0+int64(clients) })
		downRetries += retries.Load() - r0
		require.NoError(t, srv.cl.Start(ctx))
	}
	wg.Wait()
	close(storesDone)
	rwg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	t.Logf("%d stores by %d clients, %d recalls, %d restart(s): %d retries (%d while down), %d ambiguous commits resolved by ExternalID; errors retried: %v",
		total, clients, recalls.Load(), restarts, retries.Load(), downRetries, ambiguous.Load(), kinds)
	for k := range kinds {
		require.False(t, strings.HasPrefix(k, "raw "), "an unclassified error was retried: %s", k)
	}
	require.Positive(t, kinds["ErrUnavailable"], "the restart reached the clients as ErrUnavailable")

	var n, distinct, queued, audits int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT external_id),
		(SELECT count(*) FROM zb.memory_underived u JOIN zb.memory m ON m.tenant_id = u.tenant_id AND m.id = u.memory_id),
		(SELECT count(*) FROM zb.audit_event WHERE action = 'memory.store')
		FROM zb.memory`).Scan(&n, &distinct, &queued, &audits))
	require.EqualValues(t, total, n, "every memory stored, none twice")
	require.EqualValues(t, total, distinct)
	require.EqualValues(t, total, queued, "every memory queued for derivation once")
	require.EqualValues(t, total, audits, "one audit event per memory")
}

// diskFullPossible reports whether this process can mount a tmpfs (it must be root).
func diskFullPossible() bool { return os.Geteuid() == 0 }

// A full disk — the memory table on a tablespace on a 1 MiB tmpfs — gives ErrUnavailable with
// PostgreSQL's "No space left on device", writes nothing of the failing operation, keeps every
// earlier memory intact, and stores again once space is freed. It needs root to mount the
// tmpfs; elsewhere it is skipped (docs/reliability.md).
func TestFaultDiskFull(t *testing.T) {
	t.Parallel()
	if !diskFullPossible() {
		t.Skip("mounting a tmpfs for a tiny tablespace needs root; see docs/reliability.md (full disk)")
	}
	srv := newOwnServer(t)
	u := srv.migratedDB(t, "full")
	ctx := context.Background()
	mnt, err := os.MkdirTemp("", "zbrel-tiny-")
	require.NoError(t, err)
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m,mode=0755", "tmpfs", mnt).CombinedOutput()
	require.NoError(t, err, "mount: %s", out)
	// Cleanups run last-in first-out: the server (registered by newOwnServer, earlier) is
	// destroyed after this unmount is attempted, so unmount lazily.
	t.Cleanup(func() {
		_ = exec.Command("umount", "-l", mnt).Run()
		_ = os.Remove(mnt)
	})
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(filepath.Join(srv.cl.Dir(), "data"), &st))
	loc := filepath.Join(mnt, "ts")
	require.NoError(t, os.Mkdir(loc, 0o700))
	require.NoError(t, os.Chown(loc, int(st.Uid), int(st.Gid)))

	pool := newPool(t, u, nil, nil)
	co := newCoordinator(t, pool, nil)
	_, err = pool.Exec(ctx, fmt.Sprintf(`CREATE TABLESPACE tiny LOCATION '%s'`, loc))
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `ALTER TABLE zb.memory SET TABLESPACE tiny`)
	require.NoError(t, err)

	// Distinct words compress badly, so every memory takes real space.
	text := func(i int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "memory %d:", i)
		for j := 0; b.Len() < 30000; j++ {
			fmt.Fprintf(&b, " %x", uint64(i)*0x9E3779B97F4A7C15+uint64(j)*0xBF58476D1CE4E5B9)
		}
		return b.String()
	}
	okStores := 0
	var full error
	for i := range 200 {
		before := counts(t, pool)
		_, err := co.Store(ctx, coordinator.StoreInput{TenantID: "disk", Content: text(i)})
		if err != nil {
			full = err
			require.Equal(t, before, counts(t, pool), "the failed store wrote nothing")
			break
		}
		okStores++
	}
	require.Error(t, full, "the 1 MiB tablespace filled up")
	t.Logf("disk full after %d stores of 30 kB: %v", okStores, full)
	require.ErrorIs(t, full, coordinator.ErrUnavailable)
	require.True(t, coordinator.IsRetryable(full))
	require.Contains(t, full.Error(), "No space left on device")

	// A batch fails as a whole.
	before := counts(t, pool)
	_, err = co.StoreBatch(ctx, []coordinator.StoreInput{{TenantID: "disk", Content: text(1000)}, {TenantID: "disk", Content: text(1001)}})
	require.ErrorIs(t, err, coordinator.ErrUnavailable)
	require.Equal(t, before, counts(t, pool))

	// Earlier memories are intact and readable.
	var n, bytes int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*), coalesce(sum(octet_length(content)), 0) FROM zb.memory WHERE tenant_id = 'disk'`).Scan(&n, &bytes))
	require.Equal(t, okStores, n)
	require.Greater(t, bytes, okStores*29000)

	// Space freed (the table moved back): stores succeed again.
	_, err = pool.Exec(ctx, `ALTER TABLE zb.memory SET TABLESPACE pg_default`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `DROP TABLESPACE tiny`)
	require.NoError(t, err)
	_, err = coordinator.Retry(ctx, nil, func(ctx context.Context) (*coordinator.StoreResult, error) {
		return co.Store(ctx, coordinator.StoreInput{TenantID: "disk", Content: text(2000)})
	})
	require.NoError(t, err)
}
