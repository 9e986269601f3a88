package experiments

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/bench/ablation"
	"github.com/zenbrain/zb/internal/zbtest"
)

// TestBeyond is the CI-sized run of the context-level experiment on one seed: with
// prospective memory switched off no cue intention surfaces (on: at least one of those whose
// cue was mentioned does), with curiosity off KnowledgeGaps is empty (on: it names at least one
// absent subject), and switching the global workspace off changes what the context holds (no
// intention reaches it: the plain assembly has no prospective section); with stc_rescue off no
// weakly held fact is rescued.
// ZB_BEYOND_OUT=dir also writes the report there.
func TestBeyond(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := zbtest.Pool(t, &zbtest.Opts{EmbeddingDim: 64})
	env, err := ablation.NewEnv(ctx, pool)
	require.NoError(t, err)
	b, err := RunBeyond(ctx, env, []uint32{42}, 2)
	require.NoError(t, err)
	by := map[string]BeyondMeasure{}
	for _, m := range b.Measures {
		by[m.Mechanism+"/"+m.Measure] = m
		t.Logf("%s / %s: on %.3f off %.3f", m.Mechanism, m.Measure, m.MeanOn, m.MeanOff)
	}
	require.Positive(t, by["prospective/intentions surfaced"].MeanOn)
	require.Zero(t, by["prospective/intentions surfaced"].MeanOff)
	require.Positive(t, by["curiosity/gap recall"].MeanOn)
	require.Zero(t, by["curiosity/gap recall"].MeanOff)
	require.Zero(t, by["gwt/intentions surfaced"].MeanOff, "the plain assembly has no prospective section")
	require.True(t, by["gwt/context answer hit"].Differs || by["gwt/relevant item share"].Differs,
		"switching the workspace off changes the context")
	// Tagging and capture: with stc_rescue on every weakly held fact is rescued by the strong
	// fact about the same person, and its retrievability 14 days on is higher (doubled
	// stability); off, none is rescued.
	require.InDelta(t, 1, by["stc_rescue/weak facts rescued"].MeanOn, 1e-9)
	require.Zero(t, by["stc_rescue/weak facts rescued"].MeanOff)
	require.Greater(t, by["stc_rescue/weak-fact retrievability at 14 days"].MeanOn,
		by["stc_rescue/weak-fact retrievability at 14 days"].MeanOff+0.05)
	if dir := os.Getenv("ZB_BEYOND_OUT"); dir != "" {
		require.NoError(t, b.Write(dir))
	}
}
