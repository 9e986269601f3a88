package coordinator_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
)

// vacuumMarker is a word only the erased memories contain.
const vacuumMarker = "quillowmarker"

// markerStats counts the statistics rows of zenbrain's tables (and their expression indexes)
// whose sampled values hold vacuumMarker; table "" means every table of schema zb.
func markerStats(t *testing.T, pool *pgxpool.Pool, table string) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(ctxT(t), `
		SELECT count(*) FROM pg_statistic s
		JOIN pg_class c ON c.oid = s.starelid
		LEFT JOIN pg_index i ON i.indexrelid = c.oid
		WHERE ($1 = '' AND coalesce((SELECT t.relnamespace FROM pg_class t WHERE t.oid = i.indrelid), c.relnamespace) = 'zb'::regnamespace
		       OR s.starelid = to_regclass(nullif($1, '')))
		  AND lower(coalesce(s.stavalues1::text, '') || coalesce(s.stavalues2::text, '') || coalesce(s.stavalues3::text, '')
		            || coalesce(s.stavalues4::text, '') || coalesce(s.stavalues5::text, '')) LIKE '%' || $2 || '%'`,
		table, vacuumMarker).Scan(&n))
	return n
}

// storeMarked stores n memories of tenant in context ctxName whose content is the same sentence
// with vacuumMarker, so that ANALYZE makes it a most common value.
func storeMarked(t *testing.T, b *testBundle, tenant, ctxName string, n int) {
	t.Helper()
	items := make([]coordinator.StoreInput, n)
	for i := range items {
		items[i] = coordinator.StoreInput{TenantID: tenant, Context: ctxName, Content: "The " + vacuumMarker + " account number is 4711."}
	}
	b.storeAll(t, ctxT(t), items)
}

func vacuumRequest(t *testing.T, co *coordinator.Coordinator, id int64) coordinator.VacuumRequest {
	t.Helper()
	reqs, err := co.VacuumRequests(ctxT(t), 0)
	require.NoError(t, err)
	for _, r := range reqs {
		if r.ID == id {
			return r
		}
	}
	require.FailNow(t, "no such vacuum request", "id %d in %v", id, reqs)
	return coordinator.VacuumRequest{}
}

// An erase queues a vacuum request (a dry run none); VacuumErased vacuums and analyzes every
// table of zb and River's job table, marks the request done, and afterwards the planner
// statistics no longer hold the erased content; a second run finds nothing pending.
func TestVacuumErasedRemovesStatistics(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	pool := b.cfg.Pool
	storeMarked(t, b, "vac", "gdpr", 50)
	storeMarked(t, b, "vac", "keep", 1) // another context: its memory stays, and so does its count
	_, err := pool.Exec(ctx, "ANALYZE zb.memory")
	require.NoError(t, err)
	require.Positive(t, markerStats(t, pool, "zb.memory"), "ANALYZE sampled the marker into pg_statistic")

	dry, err := b.co.Erase(ctx, "vac", coordinator.ScopeContext("gdpr"), &coordinator.EraseOpts{DryRun: true})
	require.NoError(t, err)
	require.Zero(t, dry.VacuumRequest, "a dry run queues no vacuum")
	reqs, err := b.co.VacuumRequests(ctx, 0)
	require.NoError(t, err)
	require.Empty(t, reqs)

	rep, err := b.co.Erase(ctx, "vac", coordinator.ScopeContext("gdpr"), nil)
	require.NoError(t, err)
	require.EqualValues(t, 50, rep.Memories)
	require.Positive(t, rep.VacuumRequest)
	require.NotContains(t, rep.Counts, "vacuum_request", "the request id is no table count")
	require.Equal(t, dry.Counts, rep.Counts, "the dry run counts what the erase removes")
	require.Equal(t, dry.Total(), rep.Total())
	require.Equal(t, coordinator.VacuumStatePending, vacuumRequest(t, b.co, rep.VacuumRequest).State)

	// A second erase while the request waits shares it.
	again, err := b.co.Erase(ctx, "vac", coordinator.ScopeContext("keep"), nil)
	require.NoError(t, err)
	require.EqualValues(t, 1, again.Memories)
	require.Equal(t, rep.VacuumRequest, again.VacuumRequest)
	// Erasing what is gone removes nothing and queues nothing.
	none, err := b.co.Erase(ctx, "vac", coordinator.ScopeContext("gdpr"), nil)
	require.NoError(t, err)
	require.Zero(t, none.VacuumRequest)

	vr, err := b.co.VacuumErased(ctx, nil)
	require.NoError(t, err)
	require.False(t, vr.Busy)
	require.Equal(t, []int64{rep.VacuumRequest}, vr.Requests)
	require.Contains(t, vr.Tables, "zb.memory")
	require.Contains(t, vr.Tables, "zb.vacuum_request")
	require.Contains(t, vr.Tables, "river.river_job")
	var zbTables int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM pg_class WHERE relnamespace = 'zb'::regnamespace AND relkind = 'r'`).Scan(&zbTables))
	require.Len(t, vr.Tables, zbTables+1, "every table of zb, and River's job table")

	done := vacuumRequest(t, b.co, rep.VacuumRequest)
	require.Equal(t, coordinator.VacuumStateDone, done.State)
	require.NotNil(t, done.StartedAt)
	require.NotNil(t, done.DoneAt)
	require.Equal(t, len(vr.Tables), done.Tables)
	require.Zero(t, markerStats(t, pool, "zb.memory"), "ANALYZE replaced the statistics that held the erased content")
	require.Zero(t, markerStats(t, pool, ""), "no statistics of zb's tables or indexes hold it")

	vr, err = b.co.VacuumErased(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, vr.Requests, "nothing pending")
	require.Empty(t, vr.Tables, "nothing vacuumed")

	// An erase after the run queues a new request.
	storeMarked(t, b, "vac", "later", 1)
	later, err := b.co.Erase(ctx, "vac", coordinator.ScopeContext("later"), nil)
	require.NoError(t, err)
	require.Greater(t, later.VacuumRequest, rep.VacuumRequest)
}

// While another run holds the vacuum lock, VacuumErased reports Busy and leaves the requests
// pending; the hook runs (the worker's job completes).
func TestVacuumErasedBusy(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	storeMarked(t, b, "busy", "gdpr", 1)
	rep, err := b.co.Erase(ctx, "busy", coordinator.ScopeContext("gdpr"), nil)
	require.NoError(t, err)

	conn, err := b.cfg.Pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	_, err = conn.Exec(ctx, "SELECT pg_advisory_lock(hashtext('zb.vacuum'), 0)")
	require.NoError(t, err)

	hooked := false
	vr, err := b.co.VacuumErased(ctx, &coordinator.VacuumOpts{Hook: func(context.Context, pgx.Tx) error { hooked = true; return nil }})
	require.NoError(t, err)
	require.True(t, vr.Busy)
	require.True(t, hooked)
	require.Empty(t, vr.Requests)
	require.Equal(t, coordinator.VacuumStatePending, vacuumRequest(t, b.co, rep.VacuumRequest).State)

	_, err = conn.Exec(ctx, "SELECT pg_advisory_unlock(hashtext('zb.vacuum'), 0)")
	require.NoError(t, err)
	vr, err = b.co.VacuumErased(ctx, nil)
	require.NoError(t, err)
	require.Equal(t, []int64{rep.VacuumRequest}, vr.Requests)

	// A failing hook rolls the completion back: the request returns to pending.
	storeMarked(t, b, "busy", "again", 1)
	rep, err = b.co.Erase(ctx, "busy", coordinator.ScopeContext("again"), nil)
	require.NoError(t, err)
	boom := errors.New("boom")
	_, err = b.co.VacuumErased(ctx, &coordinator.VacuumOpts{Hook: func(context.Context, pgx.Tx) error { return boom }})
	require.ErrorIs(t, err, boom)
	require.Equal(t, coordinator.VacuumStatePending, vacuumRequest(t, b.co, rep.VacuumRequest).State)
}

// An erase in flight (not yet committed) that reuses the pending request holds the claim back
// until it commits: VACUUM could not remove its row versions before, so the request must not be
// done without them.
func TestVacuumErasedWaitsForErasesInFlight(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	pool := b.cfg.Pool
	storeMarked(t, b, "flight", "first", 1)
	storeMarked(t, b, "flight", "second", 1)
	first, err := b.co.Erase(ctx, "flight", coordinator.ScopeContext("first"), nil)
	require.NoError(t, err)

	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	var reused int64
	require.NoError(t, tx.QueryRow(ctx, `SELECT (zb.erase('flight', 'context', 'second') ->> 'vacuum_request')::bigint`).Scan(&reused))
	require.Equal(t, first.VacuumRequest, reused, "the erase in flight reuses the pending request")

	type result struct {
		rep *coordinator.VacuumReport
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := b.co.VacuumErased(ctx, nil)
		done <- result{rep, err}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var waiting bool
		require.NoError(t, pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks
			WHERE relation = 'zb.vacuum_request'::regclass AND mode = 'AccessExclusiveLock' AND NOT granted)`).Scan(&waiting))
		if waiting {
			break
		}
		select {
		case r := <-done:
			require.FailNow(t, "the run did not wait for the erase in flight", "report %+v, error %v", r.rep, r.err)
		case <-time.After(20 * time.Millisecond):
		}
		require.True(t, time.Now().Before(deadline), "the claim waits for the erase's lock")
	}
	require.NoError(t, tx.Commit(ctx))
	select {
	case r := <-done:
		require.NoError(t, r.err)
		require.Equal(t, []int64{first.VacuumRequest}, r.rep.Requests)
	case <-time.After(30 * time.Second):
		require.FailNow(t, "the run did not finish after the erase committed")
	}
	require.Equal(t, coordinator.VacuumStateDone, vacuumRequest(t, b.co, first.VacuumRequest).State)
}

var vacuumRoleCounter atomic.Int64

// A role that does not own zenbrain's tables (a login in zb_worker) may not vacuum them:
// VacuumErased fails with a *VacuumPrivilegeError naming the role and what to do, vacuums
// nothing, and the request stays pending for a run as the owner.
func TestVacuumErasedNeedsOwner(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	super := b.cfg.Pool
	storeMarked(t, b, "own", "gdpr", 1)
	rep, err := b.co.Erase(ctx, "own", coordinator.ScopeContext("gdpr"), nil)
	require.NoError(t, err)
	require.Positive(t, rep.VacuumRequest)

	var group string
	require.NoError(t, super.QueryRow(ctx, "SELECT zb.role_name('worker')::text").Scan(&group))
	name := fmt.Sprintf("zbvac_worker_%d_%d", os.Getpid(), vacuumRoleCounter.Add(1))
	const pw = "secret-test-password"
	_, err = super.Exec(ctx, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s' IN ROLE %s", name, pw, pgx.Identifier{group}.Sanitize()))
	require.NoError(t, err)
	cfg := super.Config().Copy()
	cfg.ConnConfig.User, cfg.ConnConfig.Password = name, pw
	cfg.MaxConns = 2
	wpool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		wpool.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := super.Exec(ctx, "DROP ROLE IF EXISTS "+name); err != nil {
			t.Logf("error dropping role %s: %v", name, err)
		}
	})
	wco, err := coordinator.New(&coordinator.Config{Pool: wpool, Embedder: fakeEmbedder{dim: testDim}, Clock: b.clock})
	require.NoError(t, err)

	hooked := false
	vr, err := wco.VacuumErased(ctx, &coordinator.VacuumOpts{Hook: func(context.Context, pgx.Tx) error { hooked = true; return nil }})
	require.Nil(t, vr)
	require.ErrorIs(t, err, coordinator.ErrVacuumPrivilege)
	require.ErrorIs(t, err, coordinator.ErrForbidden)
	var perr *coordinator.VacuumPrivilegeError
	require.ErrorAs(t, err, &perr)
	require.Equal(t, name, perr.Role)
	require.Contains(t, perr.Tables, "zb.memory")
	require.Equal(t, []int64{rep.VacuumRequest}, perr.Requests)
	require.NotEmpty(t, perr.Owners)
	require.Contains(t, err.Error(), "role "+name+" may not vacuum")
	require.Contains(t, err.Error(), "run 'zbctl vacuum' as the tables' owner or a superuser")
	require.False(t, hooked, "a refused run completes nothing")

	req := vacuumRequest(t, wco, rep.VacuumRequest) // the worker role reads the requests
	require.Equal(t, coordinator.VacuumStatePending, req.State)
	require.Nil(t, req.StartedAt, "the claim was undone")

	vr, err = b.co.VacuumErased(ctx, nil)
	require.NoError(t, err, "the owner may")
	require.Equal(t, []int64{rep.VacuumRequest}, vr.Requests)
}

func TestVacuumRequestsLimit(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	for _, limit := range []int{-1, coordinator.VacuumRequestListMax + 1} {
		_, err := b.co.VacuumRequests(ctx, limit)
		require.ErrorIs(t, err, coordinator.ErrInvalidInput, "limit %d", limit)
	}
	reqs, err := b.co.VacuumRequests(ctx, 1)
	require.NoError(t, err)
	require.Empty(t, reqs)
}
