package security

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

// TestGoAPIAsApplicationRole runs the Go API on a pool connected as a LOGIN role in zb_app:
// every operation an application uses works (so every one of its transactions is bound to the
// tenant — unbound, zb_app sees nothing), results never include another tenant's memories,
// and what the role may not do is refused with ErrForbidden. The same login bound to one tenant
// cannot act for another even through the Go API. The lifecycle runs as zb_worker.
func TestGoAPIAsApplicationRole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	other := &world{tenant: tenantB}
	for _, text := range []string{"My codename is Bravomarka the First.", "Bob lives in Porto."} {
		r, err := e.co.Store(ctx, coordinator.StoreInput{TenantID: tenantB, Content: text})
		require.NoError(t, err)
		other.plain = r.ID
	}
	appPool, _ := e.login(t, "app")
	app := e.coordinator(t, appPool)
	const tenant = tenantA

	r, err := app.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "My codename is Bravomarka too, says tenant A.", CoreLabel: "codename"})
	require.NoError(t, err)
	require.Equal(t, coordinator.OutcomeCreated, r.Outcome)
	sess, err := app.StartSession(ctx, tenant, "")
	require.NoError(t, err)
	for _, text := range []string{"Dana: I moved to Lisbon last spring.", "Eli: Lisbon has great light for photos."} {
		e.clock.Add(time.Minute)
		_, err := app.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: text, SessionID: &sess})
		require.NoError(t, err)
	}
	n, err := app.StoreBatch(ctx, []coordinator.StoreInput{{TenantID: tenant, Content: "Fay likes sailing."}, {TenantID: tenant, Content: "Gus builds kites."}})
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	sk, err := app.RecordSkill(ctx, tenant, "", coordinator.Skill{Trigger: "brew coffee", Steps: []string{"grind", "pour"}})
	require.NoError(t, err)
	_, err = app.ReportOutcome(ctx, tenant, sk.ID, true)
	require.NoError(t, err)

	rec, err := app.Recall(ctx, tenant, "What is the codename? Bravomarka", &coordinator.RecallOpts{K: 10})
	require.NoError(t, err)
	require.True(t, rec.SideEffects, "recall's side effects are written as the application role")
	require.NotEmpty(t, rec.Results)
	for _, res := range rec.Results {
		require.NotContains(t, res.Content, "Bravomarka the", "tenant B's memories never come back")
	}
	_, err = app.Feedback(ctx, tenant, rec.Results[0].ID, true)
	require.NoError(t, err)
	blk, err := app.Context(ctx, tenant, &sess, "where did Dana move?", 200)
	require.NoError(t, err)
	require.NotEmpty(t, blk.Items)
	core, err := app.CoreMemories(ctx, tenant)
	require.NoError(t, err)
	require.Len(t, core, 1)
	algs, err := app.Algorithms(ctx, tenant)
	require.NoError(t, err)
	require.NotEmpty(t, algs)
	_, err = app.EndSession(ctx, tenant, sess)
	require.NoError(t, err)

	// Another tenant's memory id is not this tenant's: nothing is erased.
	found, err := app.Forget(ctx, tenant, other.plain)
	require.NoError(t, err)
	require.False(t, found)
	require.EqualValues(t, 1, queryInt(t, e.super, "SELECT count(*) FROM zb.memory WHERE id = $1 AND status = 'active'", other.plain))
	found, err = app.Forget(ctx, tenant, r.ID)
	require.NoError(t, err)
	require.True(t, found, "the application erases its tenant's memories")

	// Governance is the operators': refused to the application role.
	require.ErrorIs(t, app.SetGovernance(ctx, tenant, coordinator.GovernanceSettings{}), coordinator.ErrForbidden)
	require.ErrorIs(t, app.SetAlgorithm(ctx, tenant, "decay", false), coordinator.ErrForbidden)
	require.ErrorIs(t, app.SetRetention(ctx, tenant, "default", time.Hour), coordinator.ErrForbidden)
	_, err = app.Decide(ctx, 1, true, "mallory", "")
	require.ErrorIs(t, err, coordinator.ErrNotFound, "the application sees no approval requests without a tenant")
	_, err = app.Approvals(ctx, "", "", 0)
	require.NoError(t, err)

	// A login bound to tenant A cannot act for B, whatever the Go API is asked.
	boundPool, _ := e.login(t, "app", tenant)
	bound := e.coordinator(t, boundPool)
	_, err = bound.Store(ctx, coordinator.StoreInput{TenantID: tenantB, Content: "planted by a bound login"})
	require.ErrorIs(t, err, coordinator.ErrForbidden)
	rec, err = bound.Recall(ctx, tenantB, "codename Bravomarka", &coordinator.RecallOpts{ReadOnly: true})
	require.NoError(t, err)
	require.Empty(t, rec.Results)
	_, err = bound.Erase(ctx, tenantB, coordinator.ScopeTenant(), nil)
	require.ErrorIs(t, err, coordinator.ErrForbidden)
	require.EqualValues(t, 1, queryInt(t, e.super, "SELECT count(*) FROM zb.tenant WHERE id = $1", tenantB))
	require.Zero(t, queryInt(t, e.super, "SELECT count(*) FROM zb.memory WHERE content LIKE '%bound login%'"))

	// The lifecycle as zb_worker: sweeps see every tenant, jobs act for one.
	wrkPool, _ := e.login(t, "worker")
	wrk := e.coordinator(t, wrkPool)
	tenants, err := wrk.Tenants(ctx)
	require.NoError(t, err)
	require.Subset(t, tenants, []string{tenantA, tenantB})
	under, err := wrk.UnderivedTenants(ctx, 10)
	require.NoError(t, err)
	require.Contains(t, under, tenant)
	drep, err := wrk.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, Pending: true, NeedsEmbedding: true}, nil)
	require.NoError(t, err)
	require.NotEmpty(t, drep.Derived)
	crep, err := wrk.Consolidate(ctx, tenant, sess, nil)
	require.NoError(t, err)
	require.Equal(t, 2, crep.Turns)
	_, err = wrk.Sleep(ctx, tenant, &coordinator.SleepOpts{Trigger: "manual", Seed: 3}, nil)
	require.NoError(t, err)
	e.clock.Add(40 * 24 * time.Hour)
	_, err = wrk.ReviewDue(ctx, tenant, 0, nil)
	require.NoError(t, err)
	_, err = wrk.DecayDue(ctx, tenant, 0, nil)
	require.NoError(t, err)

	// Consolidated memories are marked AI-generated in recall results.
	rec, err = app.Recall(ctx, tenant, "Lisbon light photos Dana", &coordinator.RecallOpts{K: 10, Deep: true, ReadOnly: true})
	require.NoError(t, err)
	var ai, human int
	for _, res := range rec.Results {
		if res.AIGenerated {
			ai++
			require.Equal(t, "episodic", string(res.Layer))
		} else {
			human++
		}
	}
	require.Positive(t, ai, "the consolidated episode is AI-generated")
	require.Positive(t, human, "the turns are not")
	require.False(t, strings.Contains(strings.Join(tenants, ","), "zbsec"), "no role name leaks as a tenant")
}
