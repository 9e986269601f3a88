package experiments

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/bench/ablation"
	"github.com/zenbrain/zb/internal/zbtest"
)

// TestSmoke is the CI-sized run of the evaluation's key directions, on one seed and small
// sizes (the full figures come from 'zbctl bench ablation' and 'zbctl bench experiments'):
//
//   - sleep improves retention under stress (base decay 0.25/day): full > without sleep;
//   - the bare system (every mechanism but the forgetting model off) ends below the full
//     system, and collapses when it is not used (no recall traffic): nothing else rehearses
//     its memories. (Under use it does not collapse: a used recall and a successful review
//     grow stability in the forgetting model itself, which only the decay switch removes.)
//   - the full system beats the harness's Simple Memory at day 30 (P@5).
//
// ZB_SOAK=1 runs the stress workload's full size (500 facts, 60 days) instead.
func TestSmoke(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := zbtest.Pool(t, &zbtest.Opts{EmbeddingDim: 64})
	env, err := ablation.NewEnv(ctx, pool)
	require.NoError(t, err)
	w := ablation.Workload{Name: "smoke", Facts: 40, Queries: 20, Days: 30, BaseDecay: 0.25, QueriesPerDay: 1, EvalQueries: 20}
	if os.Getenv("ZB_SOAK") != "" {
		w = ablation.Stress
		w.Name = "smoke"
	}
	world, err := ablation.NewWorld(w, 42)
	require.NoError(t, err)
	specs := []ablation.RunSpec{
		{World: world, Arm: ablation.ArmFull, Checkpoints: []int{30}},
		{World: world, Arm: "-sim_selection_sleep", Disabled: []string{"sim_selection_sleep"}},
		{World: world, Arm: ablation.ArmBare, Disabled: ablation.BareArm().Disabled},
		{World: world, Arm: "bare-unused", Disabled: ablation.BareArm().Disabled, Steps: ablation.Steps{NoTraffic: true}},
	}
	runs, err := ablation.RunAll(ctx, env, specs, &ablation.RunAllOpts{Parallel: 4})
	require.NoError(t, err)
	full, noSleep, bare, unused := runs[0], runs[1], runs[2], runs[3]
	c := &Config{Env: env}
	b, err := newBaselines(ctx, c, world)
	require.NoError(t, err)
	simple30, static30 := b.p5(30, true), b.p5(30, false)
	t.Logf("retention: full %.4f, without sleep %.4f, bare %.4f, bare unused %.4f (after day 1 %.4f); P@5 day 30: full %.3f, "+
		"Simple Memory %.3f, Static RAG %.3f", full.Retention, noSleep.Retention, bare.Retention, unused.Retention, unused.Timeline[0],
		full.Checkpoints[0].P5, simple30, static30)

	require.Len(t, full.Timeline, w.Days)
	require.Positive(t, full.Counters.StabilityGrown, "sleep grew stability")
	require.Zero(t, noSleep.Counters.StabilityGrown)
	require.Zero(t, bare.Counters.SleepRuns)

	// Sleep improves retention under stress.
	require.Greater(t, full.Retention, noSleep.Retention)
	// The bare system ends below the full system, and collapses when unused.
	require.Less(t, bare.Retention, full.Retention)
	require.Zero(t, unused.Counters.Recalls)
	require.Less(t, unused.Retention, 0.1*unused.Timeline[0])
	// The full system beats Simple Memory at day 30.
	require.Equal(t, 30, full.Checkpoints[0].Day)
	require.Greater(t, full.Checkpoints[0].P5, simple30)

	// The runs leave nothing behind.
	var n int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM zb.memory WHERE tenant_id LIKE 'ablation:smoke:%'").Scan(&n))
	require.Zero(t, n)
}
