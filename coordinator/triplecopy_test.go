package coordinator_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/pma"
)

// TestDecayTripleCopyProtects measures the effect of triple_copy on forgetting: of two faded,
// unused episodes (R ≈ e^{−60} < 0.1, so the IB budget archives them), the one that sleep
// promoted to a deep copy 14 days ago (strength 0.6·(1 − e^{−2}) ≈ 0.519 ≥ 0.3) stays active
// with triple_copy on; switched off, the copies are ignored and both are archived.
func TestDecayTripleCopyProtects(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	past := ptrTime(t0.Add(-time.Hour))
	old := t0.Add(-60 * 24 * time.Hour)
	promotedAt := t0.Add(-14 * 24 * time.Hour)
	tcm, err := pma.NewTripleCopyMemory(nil)
	require.NoError(t, err)
	tc, err := tcm.Store("x", 0.15, old)
	require.NoError(t, err)
	tc, err = tcm.Promote(tc, 0.6, promotedAt)
	require.NoError(t, err)
	want := tcm.Strengths(tc, t0)
	require.InDelta(t, 0.6*(1-math.Exp(-2)), want.Strength, 1e-9)
	require.True(t, tcm.Retrieve(tc, t0).Retrievable)

	run := func(tenant string, on bool) (archived, protected int, promotedActive bool) {
		mk := func(content string, deep bool) int64 {
			id := insertMem(t, pool, tenant, memSpec{
				layer: "episodic", kind: "episode", content: content,
				created: old, stability: 1, fadeAt: past, derived: true, ai: true,
			})
			execSQL(t, pool, `INSERT INTO zb.triple_copy (tenant_id, memory_id, copy, initial_strength, tau_seconds, created_at)
				VALUES ($1, $2, 'fast', 0.15, 14400, $3), ($1, $2, 'medium', 0.12, 1209600, $3)`, tenant, id, old)
			if deep {
				execSQL(t, pool, `INSERT INTO zb.triple_copy (tenant_id, memory_id, copy, initial_strength, tau_seconds, created_at)
					VALUES ($1, $2, 'deep', 0.6, 604800, $3)`, tenant, id, promotedAt)
			}
			return id
		}
		promoted := mk("Caroline mentioned Anna at lunch.", true)
		plain := mk("Melanie mentioned Tom at dinner.", false)
		if !on {
			require.NoError(t, b.co.SetAlgorithm(ctx, tenant, "triple_copy", false))
		}
		rep, err := b.co.DecayDue(ctx, tenant, 0, nil)
		require.NoError(t, err)
		require.Equal(t, 2, rep.Examined)
		require.Contains(t, rep.Archived, plain, "an episode without a deep copy is archived either way")
		if on {
			require.Equal(t, []int64{promoted}, rep.ProtectedByCopy)
		}
		return len(rep.Archived), len(rep.ProtectedByCopy),
			queryString(t, pool, `SELECT status::text FROM zb.memory WHERE id = $1`, promoted) == "active"
	}
	aOn, pOn, activeOn := run("tc-on", true)
	aOff, pOff, activeOff := run("tc-off", false)
	t.Logf("triple_copy on: archived %d, protected %d; off: archived %d, protected %d", aOn, pOn, aOff, pOff)
	require.Equal(t, 1, aOn)
	require.Equal(t, 1, pOn)
	require.True(t, activeOn, "the promoted episode survives decay with triple_copy on")
	require.Equal(t, 2, aOff)
	require.Equal(t, 0, pOff)
	require.False(t, activeOff, "with triple_copy off the deep copy is ignored")
	require.Equal(t, 0.3, coordinator.CopyProtectThreshold)
	// The SQL strength the decision used is the Go model's.
	var s float64
	require.NoError(t, pool.QueryRow(ctx, `SELECT max(zb.copy_strength(c.copy, c.initial_strength, c.tau_seconds, c.created_at, $2))
		FROM zb.triple_copy c JOIN zb.memory m ON m.tenant_id = c.tenant_id AND m.id = c.memory_id
		WHERE c.tenant_id = 'tc-on' AND m.status = 'active' AND m.content = $1`, "Caroline mentioned Anna at lunch.", t0).Scan(&s))
	require.InDelta(t, want.Strength, s, 1e-9)
}

// TestSleepTripleCopyProtects measures triple_copy in sleep's archive decision on the sleep
// fixture: its faded episode (R < 0.1, carried by a fact, archived by TestSleep) gets a deep
// copy of strength 0.6·(1 − e^{−2}) ≈ 0.519; with triple_copy on sleep keeps it (0 archived, 1
// protected), with it off sleep archives it as before (1 archived, 0 protected).
func TestSleepTripleCopyProtects(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	run := func(tenant string, on bool) (archived, protected int, status string) {
		f := buildSleepFixture(t, b, tenant)
		execSQL(t, pool, `INSERT INTO zb.triple_copy (tenant_id, memory_id, copy, initial_strength, tau_seconds, created_at)
			VALUES ($1, $2, 'deep', 0.6, 604800, $3)`, tenant, f.faded, t0.Add(-14*24*time.Hour))
		if !on {
			require.NoError(t, b.co.SetAlgorithm(ctx, tenant, "triple_copy", false))
		}
		rep, err := b.co.Sleep(ctx, tenant, &coordinator.SleepOpts{Trigger: "manual", Seed: 42}, nil)
		require.NoError(t, err)
		return rep.Archived, rep.ProtectedByCopy, queryString(t, pool, `SELECT status::text FROM zb.memory WHERE id = $1`, f.faded)
	}
	aOn, pOn, sOn := run("stc-on", true)
	aOff, pOff, sOff := run("stc-off", false)
	t.Logf("sleep with triple_copy on: archived %d, protected %d (%s); off: archived %d, protected %d (%s)", aOn, pOn, sOn, aOff, pOff, sOff)
	require.Equal(t, 0, aOn)
	require.Equal(t, 1, pOn)
	require.Equal(t, "active", sOn)
	require.Equal(t, 1, aOff)
	require.Equal(t, 0, pOff)
	require.Equal(t, "archived", sOff)
}
