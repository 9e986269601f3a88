package security

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
)

// TestNoSelfApproval checks separation of duties in the approval queue: the actor who made a
// request cannot approve it — the Go API refuses with ErrSelfApproval and the database with
// SQLSTATE ZB003, leaving the request pending and the state unchanged — but may withdraw it,
// and another operator's approval carries it out.
func TestNoSelfApproval(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx, co := ctxT(t), e.co // actor "test"
	const tenant = "duties"
	core, err := co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "The door code is 1111.", CoreLabel: "door"})
	require.NoError(t, err)
	require.NoError(t, co.SetGovernance(ctx, tenant, coordinator.GovernanceSettings{ApprovalRequired: []string{coordinator.OpCoreOverwrite}}))
	coreValue := func() string {
		var s string
		require.NoError(t, e.super.QueryRow(ctx, "SELECT content FROM zb.memory WHERE id = $1", core.ID).Scan(&s))
		return s
	}
	status := func(id int64) string {
		var s string
		require.NoError(t, e.super.QueryRow(ctx, "SELECT status FROM zb.approval_request WHERE id = $1", id).Scan(&s))
		return s
	}

	r, err := co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "The door code is 2222.", CoreLabel: "door"})
	require.NoError(t, err)
	require.Equal(t, coordinator.OutcomePendingApproval, r.Outcome)
	_, err = co.Decide(ctx, r.ApprovalID, true, "test", "")
	require.ErrorIs(t, err, coordinator.ErrSelfApproval)
	require.ErrorIs(t, err, coordinator.ErrForbidden)
	require.Contains(t, err.Error(), "another operator must approve it")
	_, err = co.Decide(ctx, r.ApprovalID, true, "", "") // "" is the coordinator's actor, "test"
	require.ErrorIs(t, err, coordinator.ErrSelfApproval)
	require.Equal(t, "pending", status(r.ApprovalID))
	require.Equal(t, "The door code is 1111.", coreValue())
	require.Zero(t, queryInt(t, e.super, "SELECT count(*) FROM zb.audit_event WHERE tenant_id = $1 AND action = 'approval.approve'", tenant))

	// The database refuses it too, whoever writes the row.
	_, err = e.super.Exec(ctx, `UPDATE zb.approval_request SET status = 'approved', decided_by = requested_by, decided_at = requested_at
		WHERE id = $1`, r.ApprovalID)
	require.Equal(t, "ZB003", sqlState(err))
	require.Equal(t, "pending", status(r.ApprovalID))

	// Another operator approves it.
	done, err := co.Decide(ctx, r.ApprovalID, true, "reviewer", "")
	require.NoError(t, err)
	require.Equal(t, coordinator.ApprovalExecuted, done.Status)
	require.Equal(t, "The door code is 2222.", coreValue())

	// The requester may withdraw (deny) its own request.
	r, err = co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "The door code is 3333.", CoreLabel: "door"})
	require.NoError(t, err)
	d, err := co.Decide(ctx, r.ApprovalID, false, "test", "withdrawn")
	require.NoError(t, err)
	require.Equal(t, coordinator.ApprovalRejected, d.Status)
	require.Equal(t, "The door code is 2222.", coreValue())
}
