package coordinator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
	"github.com/zenbrain/zb/pma"
)

// A crafted sequence of stores, derivations, feedback and recalls moves the tenant's stored
// tonic levels in the directions of the events, homeostasis pulls them back, and the ablation
// switch stops it.
func TestNeuromodulatorFollowsStoredData(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	const tenant = "neuro"
	const da, ne, ht = 0, 1, 2
	tonic := func() [4]float64 {
		t.Helper()
		var l [4]float64
		require.NoError(t, pool.QueryRow(ctx, `SELECT da_tonic, ne_tonic, ht_tonic, ach_tonic FROM zb.neuromodulator_state WHERE tenant_id = $1`,
			tenant).Scan(&l[0], &l[1], &l[2], &l[3]))
		return l
	}
	events := func(kind string) int {
		t.Helper()
		return queryInt(t, pool, `SELECT count(*) FROM zb.neuromodulator_event WHERE tenant_id = $1 AND event = $2`, tenant, kind)
	}

	// A stored value changes: the store records a prediction error; nothing is replayed yet.
	_, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "Bob lives in Berlin"})
	require.NoError(t, err)
	b.clock.Add(time.Hour)
	nw, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "Bob lives in Paris."})
	require.NoError(t, err)
	require.Len(t, nw.Superseded, 1)
	require.Equal(t, 1, events("prediction_error"))
	require.Zero(t, queryInt(t, pool, `SELECT count(*) FROM zb.neuromodulator_state WHERE tenant_id = $1`, tenant))

	// Deriving the memories adds their novelty and writes the state: surprise and novelty
	// raise noradrenaline and dopamine above the 0.5 baseline.
	_, err = b.co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, Pending: true}, nil)
	require.NoError(t, err)
	require.Equal(t, 1, events("novelty"))
	s1 := tonic()
	require.Greater(t, s1[ne], 0.5)
	require.Greater(t, s1[da], 0.5)

	// Helpful recalls are rewards (dopamine up); the decay job's tick writes the state.
	for range 3 {
		_, err := b.co.Feedback(ctx, tenant, nw.ID, true)
		require.NoError(t, err)
	}
	_, err = b.co.DecayDue(ctx, tenant, 0, nil)
	require.NoError(t, err)
	s2 := tonic()
	require.Greater(t, s2[da], s1[da]+0.02, "three rewards: each moves the tonic level by 10 % of its burst")
	require.Less(t, s2[ht], s1[ht], "dopamine rises oppose serotonin")

	// Rejections lower dopamine and raise noradrenaline.
	for range 3 {
		_, err := b.co.Feedback(ctx, tenant, nw.ID, false)
		require.NoError(t, err)
	}
	_, err = b.co.DecayDue(ctx, tenant, 0, nil)
	require.NoError(t, err)
	s3 := tonic()
	require.Less(t, s3[da], s2[da])
	require.Greater(t, s3[ne], s2[ne])
	st, err := b.co.Neuromodulator(ctx, tenant)
	require.NoError(t, err)
	require.True(t, st.Enabled)
	require.Equal(t, 8, st.Events, "a prediction error, a novelty, three rewards, three rejections")
	require.InDelta(t, s3[da], st.Tonic.DA, 1e-6, "the replay agrees with the stored state")
	require.InDelta(t, s3[ne], st.Tonic.NE, 1e-6)

	// A recall of something unknown is an exploration.
	_, err = b.co.Recall(ctx, tenant, "quantum chromodynamics lecture notes", nil)
	require.NoError(t, err)
	require.Equal(t, 1, events("exploration"))

	// Thirteen hours later homeostasis has pulled the tonic levels back to the baseline.
	b.clock.Add(13 * time.Hour)
	_, err = b.co.DecayDue(ctx, tenant, 0, nil)
	require.NoError(t, err)
	for i, v := range tonic() {
		require.InDelta(t, 0.5, v, 0.01, "channel %d", i)
	}

	// Switched off: nothing is recorded and the levels read as the baseline.
	require.NoError(t, b.co.SetAlgorithm(ctx, tenant, "neuromodulator", false))
	before := queryInt(t, pool, `SELECT count(*) FROM zb.neuromodulator_event WHERE tenant_id = $1`, tenant)
	_, err = b.co.Feedback(ctx, tenant, nw.ID, true)
	require.NoError(t, err)
	_, err = b.co.Recall(ctx, tenant, "zeppelin harmonica", nil)
	require.NoError(t, err)
	require.Equal(t, before, queryInt(t, pool, `SELECT count(*) FROM zb.neuromodulator_event WHERE tenant_id = $1`, tenant))
	st, err = b.co.Neuromodulator(ctx, tenant)
	require.NoError(t, err)
	require.False(t, st.Enabled)
	require.Equal(t, pma.BaselineLevels(), st.Levels)
}
