package security

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
)

// Recall's halves on two connections (0026) under row-level security: a zb_app login bound to
// a tenant of 1 100 memories reads the halves through the tenant-checked SECURITY DEFINER
// functions on two connections, each bound to the tenant, and gets the results the superuser's
// one-statement recall gets. A tenant the login is not bound to stays invisible.
func TestRecallSplitAsApp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const tenant, other = "split-app", "split-other"
	for _, tn := range []string{tenant, other} {
		_, err := e.co.StoreBatch(ctx, pItems(tn, 0, 1100))
		require.NoError(t, err)
	}
	app, _ := e.login(t, "app", tenant)
	split, err := coordinator.New(&coordinator.Config{Pool: app, Embedder: e.emb, Clock: e.clock, RecallSplitMinDocs: 1000})
	require.NoError(t, err)
	one, err := coordinator.New(&coordinator.Config{Pool: e.super, Embedder: e.emb, Clock: e.clock, RecallSplitMinDocs: -1})
	require.NoError(t, err)
	ro := &coordinator.RecallOpts{ReadOnly: true}
	_, err = split.Recall(ctx, tenant, "what did Greta repair in Lyon?", ro)
	require.NoError(t, err)
	for _, q := range []string{"what did Greta repair in Lyon?", "who painted the blue kettle", "Hiro cleaned the green window in Turku"} {
		want, err := one.Recall(ctx, tenant, q, ro)
		require.NoError(t, err, q)
		got, err := split.Recall(ctx, tenant, q, ro)
		require.NoError(t, err, q)
		require.True(t, got.Split, q)
		require.NotEmpty(t, got.Results, q)
		require.Equal(t, want.Results, got.Results, q)
	}
	// A tenant the login is not bound to: row-level security shows none of its rows, so its
	// recall is empty and its size is never learnt — it never splits.
	for range 2 {
		r, err := split.Recall(ctx, other, "who painted the blue kettle", ro)
		require.NoError(t, err)
		require.Empty(t, r.Results)
		require.False(t, r.Split)
	}
}
