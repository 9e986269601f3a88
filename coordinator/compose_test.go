package coordinator_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/workspace"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

// composeWorld stores a work session's world: two work memories about Bob Meyer and Orion, a
// personal memory about Bob Meyer (readable by work under the policy), a personal memory about
// nobody of the query (unlinked) and a health memory about Bob Meyer (health is not readable by
// work). It returns the session (context work).
func composeWorld(t *testing.T, b *testBundle, tenant string) coordinator.StoreInput {
	t.Helper()
	ctx := ctxT(t)
	sess, err := b.co.StartSession(ctx, tenant, "work")
	require.NoError(t, err)
	for _, in := range []coordinator.StoreInput{
		{Content: "Bob Meyer leads the Orion project at the office", Context: "work", Layer: coordinator.LayerSemantic},
		{Content: "The Orion project deadline is Friday", Context: "work", Layer: coordinator.LayerSemantic},
		{Content: "Bob Meyer is my neighbour and plays chess on Sundays", Context: "personal", Layer: coordinator.LayerSemantic},
		{Content: "Alice Tan lent me a bicycle", Context: "personal", Layer: coordinator.LayerSemantic},
		{Content: "Bob Meyer recommended a dentist in Basel", Context: "health", Layer: coordinator.LayerSemantic},
	} {
		in.TenantID = tenant
		_, err := b.co.Store(ctx, in)
		require.NoError(t, err)
	}
	_, err = b.co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, Pending: true}, nil)
	require.NoError(t, err)
	execSQL(t, b.cfg.Pool, `INSERT INTO zb.context_policy (tenant_id, reader_context, source_context, allowed, updated_at)
		VALUES ($1, 'work', 'personal', true, $2), ($1, 'work', 'health', false, $2)`, tenant, t0)
	return coordinator.StoreInput{TenantID: tenant, SessionID: &sess}
}

// TestContextCompositional measures compositional_context: with it on, a work session's Context
// gets a cross_context section composed from the personal memory linked to the query's entity
// (Bob Meyer) — discounted ×0.5, tagged with its context and link — while the health memory
// (policy: not readable) and the unlinked personal memory are left out; with it off, no item is
// composed and the recalled memories of other contexts compete in their layer modules as before.
func TestContextCompositional(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	const query = "What does Bob Meyer do?"
	var sessOn coordinator.StoreInput
	run := func(tenant string, on bool) (*coordinator.ContextBlock, int) {
		w := composeWorld(t, b, tenant)
		if on {
			sessOn = w
		}
		if !on {
			require.NoError(t, b.co.SetAlgorithm(ctx, tenant, "compositional_context", false))
		}
		blk, err := b.co.Context(ctx, tenant, w.SessionID, query, 600)
		require.NoError(t, err)
		n := 0
		for _, it := range blk.Items {
			if it.Section == string(workspace.CrossContext) {
				n++
			}
		}
		return blk, n
	}
	on, nOn := run("cc-on", true)
	off, nOff := run("cc-off", false)
	t.Logf("on: %d cross-context items, report %+v\n%s", nOn, on.Workspace.Composition, on.Text)
	t.Logf("off: %d cross-context items\n%s", nOff, off.Text)
	rep := on.Workspace.Composition
	require.NotNil(t, rep)
	require.Equal(t, "work", rep.Target)
	require.Equal(t, []string{"personal"}, rep.Readable)
	require.Contains(t, rep.Anchors, "bob meyer")
	require.Equal(t, 1, rep.Cross)
	require.Equal(t, 1, nOn)
	require.Contains(t, on.Text, "(personal, via bob meyer) ["+t0.Format(coordinator.DateFormat)+"] Bob Meyer is my neighbour and plays chess on Sundays")
	require.NotContains(t, on.Text, "dentist", "health is not readable by work")
	require.NotContains(t, on.Text, "bicycle", "an unlinked memory of another context is not composed")
	for _, it := range on.Items {
		if it.Section == string(workspace.CrossContext) {
			require.InDelta(t, coordinator.ComposeCrossDiscount*1, it.Score, 1e-12, "linked through the query's entity: relevance 1 × 0.8")
		}
	}
	// Without the grant nothing crosses: every recalled memory of another context is denied.
	execSQL(t, b.cfg.Pool, `DELETE FROM zb.context_policy WHERE tenant_id = 'cc-on'`)
	none, err := b.co.Context(ctx, "cc-on", sessOn.SessionID, query, 600)
	require.NoError(t, err)
	require.Zero(t, none.Workspace.Composition.Cross)
	require.Equal(t, 3, none.Workspace.Composition.Denied, "the three recalled memories of personal and health")
	require.NotContains(t, none.Text, "chess")
	require.Nil(t, off.Workspace.Composition)
	require.Contains(t, off.Text, "dentist", "off: the health memory competes among the facts as before")
	require.Contains(t, off.Text, "Bob Meyer is my neighbour", "off: so does the personal one, untagged")
	require.Equal(t, 0, nOff)
	require.False(t, strings.Contains(off.Text, "(personal, via"))
}
