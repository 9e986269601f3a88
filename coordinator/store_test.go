package coordinator_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
)

func TestStoreAndRecallBasic(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	r1, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "acme", Content: "Berlin is the capital of Germany"})
	require.NoError(t, err)
	require.Equal(t, coordinator.LayerSemantic, r1.Layer)
	require.Equal(t, "default_fact", r1.Route)
	require.True(t, r1.Embedded)
	_, err = b.co.Store(ctx, coordinator.StoreInput{TenantID: "acme", Content: "The cat sat on the warm mat"})
	require.NoError(t, err)

	res, err := b.co.Recall(ctx, "acme", "What is the capital of Germany?", nil)
	require.NoError(t, err)
	require.NotEmpty(t, res.Results)
	require.Equal(t, r1.ID, res.Results[0].ID)
	require.True(t, res.SideEffects)
	require.Equal(t, []int64{r1.ID}, res.Touched[:1])
	require.InDelta(t, 0.5, res.Results[0].Confidence, 1e-9)
	require.Less(t, res.Results[0].ConfidenceLow, 0.5)
	require.Greater(t, res.Results[0].ConfidenceHigh, 0.5)
}
