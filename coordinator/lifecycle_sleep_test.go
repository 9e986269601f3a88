package coordinator_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

// sleepFixture builds a tenant for a sleep: a useful episode (recalled 3 times), a dull one
// sharing an entity with it, a faded one carried by a fact that states it, and two near-identical
// episodes.
type sleepFixture struct {
	good, dull, faded, twin1, twin2 int64
	ea, eb, ec, ed                  int64
}

func buildSleepFixture(t *testing.T, b *testBundle, tenant string) sleepFixture {
	t.Helper()
	pool, ctx := b.cfg.Pool, ctxT(t)
	var f sleepFixture
	ep := func(content string, stab float64, last time.Time) int64 {
		return insertMem(t, pool, tenant, memSpec{
			layer: "episodic", kind: "episode", content: content, created: last,
			stability: stab, embed: true, derived: true, fadeAt: ptrTime(t0.Add(30 * 24 * time.Hour)),
		})
	}
	f.good = ep("Anna visited the museum in Berlin.", 1, t0.Add(-2*time.Hour))
	f.dull = ep("Anna met Caroline near Dresden.", 1, t0.Add(-2*time.Hour))
	f.faded = ep("Tom forgot the keys somewhere.", 0.05, t0.Add(-24*time.Hour))
	insertMem(t, pool, tenant, memSpec{
		kind: "fact", content: "Tom forgot the keys somewhere.", created: t0.Add(-3 * time.Hour), stability: 7,
		sources: []int64{f.faded}, ai: true, derived: true, embed: true,
	})
	f.twin1 = ep("Melanie and Caroline went hiking at Mount Rainier on Saturday.", 1, t0.Add(-5*time.Hour))
	f.twin2 = ep("Melanie and Caroline went hiking at Mount Rainier again on Sunday.", 1, t0.Add(-4*time.Hour))
	for _, p := range []struct {
		name string
		dst  *int64
	}{{"anna", &f.ea}, {"berlin", &f.eb}, {"caroline", &f.ec}, {"dresden", &f.ed}} {
		require.NoError(t, pool.QueryRow(ctx, `INSERT INTO zb.entity (tenant_id, name, normalized_name, created_at, updated_at) VALUES ($1, $2, $2, $3, $3) RETURNING id`,
			tenant, p.name, t0).Scan(p.dst))
	}
	execSQL(t, pool, `INSERT INTO zb.mention (tenant_id, memory_id, entity_id) VALUES ($1, $2, $3), ($1, $2, $4), ($1, $5, $3), ($1, $5, $6), ($1, $5, $7)`,
		tenant, f.good, f.ea, f.eb, f.dull, f.ec, f.ed)
	execSQL(t, pool, `INSERT INTO zb.edge (tenant_id, source_id, target_id, weight, variance, activation_count, created_at, last_activated_at)
		VALUES ($1, $2, $3, 1, 1, 1, $6, $6), ($1, $4, $5, 0.07, 1, 1, $6, $6)`, tenant, f.ea, f.eb, f.ec, f.ed, t0)
	for i := 0; i < 3; i++ {
		execSQL(t, pool, `INSERT INTO zb.recall_event (tenant_id, query_hash, query_class, result_ids, created_at) VALUES ($1, 'q', 'general', $2, $3)`,
			tenant, []int64{f.good}, t0.Add(-time.Hour))
	}
	return f
}

func TestSleep(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	const tenant = "sleep"
	f := buildSleepFixture(t, b, tenant)
	var stabBefore float64
	require.NoError(t, pool.QueryRow(ctx, `SELECT stability FROM zb.memory WHERE id = $1`, f.good).Scan(&stabBefore))

	rep, err := b.co.Sleep(ctx, tenant, &coordinator.SleepOpts{Trigger: "manual", Seed: 42}, nil)
	require.NoError(t, err)
	require.NotZero(t, rep.RunID)
	require.Equal(t, 6, rep.Episodes, "every active memory with activity in the last 7 days")
	require.Equal(t, 1, rep.Counterfactuals, "dull (reward 0) and good (reward 1) share Anna")
	require.Equal(t, 1, rep.NewAssociations)
	require.Equal(t, 1, rep.LTP)
	require.Equal(t, 1, rep.LTD)
	require.Equal(t, 1, rep.Pruned, "0.07 − 0.05·2/3 (EWC) is below 0.05")
	require.Equal(t, 1, rep.Archived)
	require.Equal(t, 1, rep.SchemasCreated)
	require.Equal(t, 2, rep.Consolidated)
	require.GreaterOrEqual(t, rep.Promotions, 1)

	// The rows agree with the report.
	var w float64
	require.NoError(t, pool.QueryRow(ctx, `SELECT weight FROM zb.edge WHERE tenant_id = $1 AND source_id = $2 AND target_id = $3`, tenant, f.ea, f.eb).Scan(&w))
	require.InDelta(t, 1+0.10/1.5, w, 1e-9, "LTP +0.10 damped by EWC 1/(1 + 0.5·I), I = 1")
	require.Zero(t, queryInt(t, pool, `SELECT count(*) FROM zb.edge WHERE tenant_id = $1 AND source_id = $2`, tenant, f.ec))
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.memory_link WHERE tenant_id = $1 AND source_id = $2 AND target_id = $3 AND relation = 'associated' AND origin = 'sleep'`,
		tenant, min(f.good, f.dull), max(f.good, f.dull)))
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE id = $1 AND status = 'archived'`, f.faded))
	// The schema adds a statement; the episodes it was formed from stay active.
	require.Equal(t, 2, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE id IN ($1, $2) AND status = 'active'`, f.twin1, f.twin2))
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND kind = 'schema' AND status = 'active' AND source_ids @> $2`,
		tenant, []int64{f.twin1, f.twin2}))
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.triple_copy WHERE tenant_id = $1 AND memory_id = $2 AND copy = 'deep'`, tenant, f.good))
	var stabAfter float64
	require.NoError(t, pool.QueryRow(ctx, `SELECT stability FROM zb.memory WHERE id = $1`, f.good).Scan(&stabAfter))
	require.Greater(t, stabAfter, stabBefore*1.5)

	var run struct {
		episodes, cf, sel, ltp, ltd, newAssoc, pruned, archived, promotions, schemas int
		storageBefore, storageAfter, edgesBefore, edgesAfter                         int
		fb, fa                                                                       float64
	}
	require.NoError(t, pool.QueryRow(ctx, `SELECT episodes_considered, counterfactuals, selected, ltp_count, ltd_count, new_associations,
		pruned_edges, archived, promotions, schemas_created, storage_before, storage_after, edges_before, edges_after, fiedler_before, fiedler_after
		FROM zb.sleep_run WHERE tenant_id = $1 AND id = $2`, tenant, rep.RunID).Scan(&run.episodes, &run.cf, &run.sel, &run.ltp, &run.ltd,
		&run.newAssoc, &run.pruned, &run.archived, &run.promotions, &run.schemas, &run.storageBefore, &run.storageAfter, &run.edgesBefore,
		&run.edgesAfter, &run.fb, &run.fa))
	require.Equal(t, []int{
		rep.Episodes, rep.Counterfactuals, rep.Selected, rep.LTP, rep.LTD, rep.NewAssociations, rep.Pruned, rep.Archived,
		rep.Promotions, rep.SchemasCreated,
	}, []int{
		run.episodes, run.cf, run.sel, run.ltp, run.ltd, run.newAssoc, run.pruned, run.archived,
		run.promotions, run.schemas,
	})
	activeNow := queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND status = 'active'`, tenant)
	graphNow := queryInt(t, pool, `SELECT (SELECT count(*) FROM zb.edge WHERE tenant_id = $1) + (SELECT count(*) FROM zb.memory_link WHERE tenant_id = $1 AND relation = 'associated')`, tenant)
	require.Equal(t, activeNow, run.storageAfter)
	require.Equal(t, graphNow, run.edgesAfter)
	require.Equal(t, run.storageBefore-run.archived+run.schemas, run.storageAfter)
	require.Equal(t, run.edgesBefore+run.newAssoc-run.pruned, run.edgesAfter)
	require.Equal(t, 6, run.storageBefore)
	require.Equal(t, 2, run.edgesBefore)
	require.InDelta(t, rep.FiedlerBefore, run.fb, 1e-12)
	require.InDelta(t, rep.FiedlerAfter, run.fa, 1e-12)

	// Idempotent: nothing had activity since the run, so a second one is skipped.
	before := tenantState(t, pool, tenant)
	rep2, err := b.co.Sleep(ctx, tenant, &coordinator.SleepOpts{Trigger: "manual", Seed: 42}, nil)
	require.NoError(t, err)
	require.True(t, rep2.Skipped)
	require.Equal(t, before, tenantState(t, pool, tenant))
}

func TestSleepNeverOverlaps(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	const tenant = "sleeplock"
	buildSleepFixture(t, b, tenant)
	// Another sleep of the tenant holds the advisory lock in an open transaction.
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('zb.sleep'), hashtext($1))`, tenant)
	require.NoError(t, err)
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err = b.co.Sleep(short, tenant, nil, nil)
	require.Error(t, err, "the second sleep waits for the first")
	require.Zero(t, queryInt(t, pool, `SELECT count(*) FROM zb.sleep_run WHERE tenant_id = $1`, tenant))
	require.NoError(t, tx.Rollback(ctx))
	// Once the lock is gone the sleep runs.
	rep, err := b.co.Sleep(ctx, tenant, nil, nil)
	require.NoError(t, err)
	require.NotZero(t, rep.RunID)
}

// TestLifecycleHookErrorRollsBack runs every entry point on data it would change with a hook
// that fails: the error comes back and nothing changed (rows, audit, River jobs).
func TestLifecycleHookErrorRollsBack(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	const tenant = "hooks"
	f := buildSleepFixture(t, b, tenant)
	// Derive: an underived row. DecayDue: a faded row. ReviewDue: a due card. Consolidate: a
	// session with turns. Propagate: a contradicts link.
	under := insertMem(t, pool, tenant, memSpec{content: "Lea works at Bosch in Stuttgart.", created: t0, stability: 7})
	insertMem(t, pool, tenant, memSpec{
		content: "old faded thing", created: t0.Add(-90 * 24 * time.Hour), stability: 1,
		fadeAt: ptrTime(t0.Add(-time.Hour)), derived: true,
	})
	execSQL(t, pool, `INSERT INTO zb.review_state (tenant_id, memory_id, due) VALUES ($1, $2, $3)`, tenant, f.good, t0.Add(-time.Hour))
	sess := uuid.New()
	for i := 0; i < 3; i++ {
		insertMem(t, pool, tenant, memSpec{
			layer: "short_term", kind: "interaction", content: "turn " + itoa(int64(i)) + " about hiking",
			created: t0.Add(time.Duration(i) * time.Minute), stability: 1, session: &sess, derived: true, embed: true,
		})
	}
	execSQL(t, pool, `INSERT INTO zb.memory_link (tenant_id, source_id, target_id, relation, created_at) VALUES ($1, $2, $3, 'contradicts', $4)`,
		tenant, f.good, f.dull, t0)

	before := tenantState(t, pool, tenant)
	calls := []struct {
		name string
		run  func() error
	}{
		{"derive", func() error {
			_, err := b.co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, MemoryIDs: []int64{under}, Pending: true}, failHook)
			return err
		}},
		{"decay", func() error { _, err := b.co.DecayDue(ctx, tenant, 0, failHook); return err }},
		{"review", func() error { _, err := b.co.ReviewDue(ctx, tenant, 0, failHook); return err }},
		{"consolidate", func() error { _, err := b.co.Consolidate(ctx, tenant, sess, failHook); return err }},
		{"sleep", func() error { _, err := b.co.Sleep(ctx, tenant, &coordinator.SleepOpts{Seed: 7}, failHook); return err }},
		{"propagate", func() error { _, err := b.co.Propagate(ctx, tenant, []int64{f.good}, failHook); return err }},
	}
	for _, c := range calls {
		require.ErrorIs(t, c.run(), errHook, c.name)
		require.Equal(t, before, tenantState(t, pool, tenant), c.name)
	}
	// With a nil hook the same calls do change the state.
	rep, err := b.co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, MemoryIDs: []int64{under}}, nil)
	require.NoError(t, err)
	require.Equal(t, []int64{under}, rep.Derived)
	require.NotEqual(t, before, tenantState(t, pool, tenant))
}

func TestLifecycleBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	_, err := b.co.Derive(ctx, jobs.DeriveArgs{TenantID: "bad tenant!"}, nil)
	require.ErrorIs(t, err, coordinator.ErrInvalidTenant)
	_, err = b.co.Derive(ctx, jobs.DeriveArgs{TenantID: "t", MemoryIDs: make([]int64, coordinator.DeriveMaxPerCall+1)}, nil)
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
	_, err = b.co.DecayDue(ctx, "t", -1, nil)
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
	_, err = b.co.ReviewDue(ctx, "t", coordinator.MaxLifecycleLimit+1, nil)
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
	_, err = b.co.Sleep(ctx, "t", &coordinator.SleepOpts{Trigger: "whenever"}, nil)
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
	_, err = b.co.Sleep(ctx, "t", &coordinator.SleepOpts{MaxEpisodes: -1}, nil)
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
	_, err = b.co.UnderivedTenants(ctx, 0)
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
	// An unknown tenant has nothing to do.
	rep, err := b.co.DecayDue(ctx, "nobody", 0, nil)
	require.NoError(t, err)
	require.Zero(t, rep.Examined)
	ts, err := b.co.Tenants(ctx)
	require.NoError(t, err)
	require.Empty(t, ts)
}

// A tenant with more episodes in its sleep window than one run takes is covered by rounds: each
// takes the next episodes after the previous run's cursor, enqueues the next round while some are
// left, and records figures that match the rows; activity during the rounds falls into the next
// window.
func TestSleepRounds(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	const tenant = "rounds"
	var ids []int64 // oldest activity first
	for i := 0; i < 10; i++ {
		ids = append(ids, insertMem(t, pool, tenant, memSpec{
			layer: "episodic", kind: "episode", content: "walk number " + itoa(int64(i)),
			created: t0.Add(time.Duration(i-10) * time.Minute), stability: 7, fadeAt: ptrTime(t0.Add(30 * 24 * time.Hour)), derived: true,
		}))
	}
	type run struct {
		episodes, storageAfter, edgesAfter int
		cursorID                           *int64
		windowTo                           time.Time
	}
	sleepRun := func(round int) (*coordinator.SleepReport, run) {
		t.Helper()
		rep, err := b.co.Sleep(ctx, tenant, &coordinator.SleepOpts{Trigger: "manual", Seed: 5, MaxEpisodes: 4, Round: round}, nil)
		require.NoError(t, err)
		var r run
		if rep.RunID != 0 {
			require.NoError(t, pool.QueryRow(ctx, `SELECT episodes_considered, storage_after, edges_after, (details->>'cursor_id')::bigint,
				(details->>'window_to')::timestamptz FROM zb.sleep_run WHERE tenant_id = $1 AND id = $2`, tenant, rep.RunID).Scan(
				&r.episodes, &r.storageAfter, &r.edgesAfter, &r.cursorID, &r.windowTo))
			require.Equal(t, rep.Episodes, r.episodes)
			require.Equal(t, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND status = 'active'`, tenant), r.storageAfter)
			require.Equal(t, queryInt(t, pool, `SELECT count(*) FROM zb.memory_link WHERE tenant_id = $1 AND relation = 'associated'`, tenant)+
				queryInt(t, pool, `SELECT count(*) FROM zb.edge WHERE tenant_id = $1`, tenant), r.edgesAfter)
		}
		return rep, r
	}

	rep, r := sleepRun(0)
	require.Equal(t, 4, rep.Episodes)
	require.True(t, rep.More)
	require.Equal(t, ids[6], *r.cursorID, "the four newest: ids 9, 8, 7, 6")
	require.True(t, r.windowTo.Equal(t0))
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM river.river_job WHERE kind = 'zb_sleep' AND args->>'tenant_id' = $1
		AND (args->>'round')::int = 1`, tenant), "the next round is queued")

	sweptAt := func(id int64) time.Time {
		t.Helper()
		var at time.Time
		require.NoError(t, pool.QueryRow(ctx, `SELECT (details->>'stc_swept_at')::timestamptz FROM zb.sleep_run
			WHERE tenant_id = $1 AND id = $2`, tenant, id).Scan(&at))
		return at
	}
	require.True(t, sweptAt(rep.RunID).Equal(t0), "the run opening the window swept")

	// New activity of an episode already slept on: it belongs to the next window. Its
	// confidence falls, so the next tagging sweep tags it at that activity.
	b.clock.Add(time.Minute)
	execSQL(t, pool, `UPDATE zb.memory SET last_accessed_at = $2, confidence = 0.3 WHERE id = $1`, ids[9], t0.Add(30*time.Second))
	tags := func() int {
		return queryInt(t, pool, `SELECT count(*) FROM zb.stc_tag WHERE tenant_id = $1 AND memory_id = $2 AND tagged_at = $3`,
			tenant, ids[9], t0.Add(30*time.Second))
	}

	rep, r = sleepRun(1)
	require.Equal(t, 4, rep.Episodes)
	require.True(t, rep.More)
	require.Equal(t, ids[2], *r.cursorID)
	require.True(t, r.windowTo.Equal(t0), "the same window")
	require.Zero(t, tags(), "the rounds continuing a window do not sweep")
	require.True(t, sweptAt(rep.RunID).Equal(t0), "they carry the window's sweep time")
	rep, r = sleepRun(2)
	require.Equal(t, 2, rep.Episodes, "the last two of the window")
	require.False(t, rep.More)
	require.Nil(t, r.cursorID)
	require.Zero(t, tags())
	rep, r = sleepRun(0)
	require.Equal(t, 1, rep.Episodes, "the next window holds the episode used since")
	require.True(t, rep.WindowFrom.Equal(t0) && r.windowTo.Equal(t0.Add(time.Minute)))
	require.Equal(t, 1, tags(), "the run opening the next window sweeps the activity since the previous sweep")
	require.True(t, sweptAt(rep.RunID).Equal(t0.Add(time.Minute)))
	rep, _ = sleepRun(0)
	require.True(t, rep.Skipped)
}
