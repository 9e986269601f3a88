package security

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

// TestAuditTrail checks that every kind of event the issue names is recorded with its actor and
// time — store, recall (the query's SHA-256, never its text), update, reconsolidation, rollback,
// erase, export, algorithm switch, approvals, consent, governance and retention changes — and
// that no payload carries a memory's content except the core overwrite's old and new value (which
// an erase scrubs).
func TestAuditTrail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx, co := ctxT(t), e.co
	const tenant = "audited"
	w := populate(t, e, tenant, "Auditmarka")
	const query = "which secret does the gardener keep?"
	_, err := co.Recall(ctx, tenant, query, nil)
	require.NoError(t, err)
	var ev int64
	require.NoError(t, e.super.QueryRow(ctx, "SELECT id FROM zb.reconsolidation_event WHERE tenant_id = $1 AND memory_id = $2",
		tenant, w.recon).Scan(&ev))
	require.NoError(t, co.Rollback(ctx, tenant, ev))
	_, err = co.Forget(ctx, tenant, w.plain)
	require.NoError(t, err)
	_, err = co.RevokeConsent(ctx, tenant, "user", coordinator.ConsentPurposeMemory)
	require.NoError(t, err)
	// Approvals: a tenant erase waits; one request is denied, one approved and carried out.
	require.NoError(t, co.SetGovernance(ctx, tenant, coordinator.GovernanceSettings{ApprovalRequired: []string{coordinator.OpContextErase}}))
	_, err = co.Erase(ctx, tenant, coordinator.ScopeContext("archive"), nil)
	var pending *coordinator.ApprovalRequiredError
	require.True(t, errors.As(err, &pending), "%v", err)
	_, err = co.Decide(ctx, pending.ID, false, "reviewer-1", "not yet")
	require.NoError(t, err)
	_, err = co.Erase(ctx, tenant, coordinator.ScopeContext("archive"), nil)
	require.True(t, errors.As(err, &pending), "%v", err)
	_, err = co.Decide(ctx, pending.ID, true, "reviewer-2", "")
	require.NoError(t, err)

	for _, action := range []string{
		"memory.store", "memory.recall", "memory.update", "memory.reconsolidate",
		"memory.reconsolidate_rollback", "memory.erase", "context.erase", "tenant.export", "algorithm.switch",
		"approval.request", "approval.approve", "approval.deny", "approval.execute", "consent.grant", "consent.revoke",
		"governance.update", "retention.update", "memory.feedback", "session.consolidate", "memory.sleep",
	} {
		require.Positive(t, queryInt(t, e.super, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = $1 AND action = $2
			AND length(actor) > 0 AND at > '2000-01-01'`, tenant, action), "no audit event %s", action)
	}
	require.EqualValues(t, 1, queryInt(t, e.super, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = $1
		AND action = 'approval.approve' AND actor = 'reviewer-2'`, tenant), "a decision records its approver")

	// Recall: the hash, not the text.
	sum := sha256.Sum256([]byte(query))
	require.EqualValues(t, 1, queryInt(t, e.super, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = $1 AND action = 'memory.recall'
		AND detail ->> 'query_sha256' = $2`, tenant, hex.EncodeToString(sum[:])))
	require.Zero(t, queryInt(t, e.super, `SELECT count(*) FROM zb.audit_event WHERE detail::text LIKE '%gardener%'`))
	require.Zero(t, queryInt(t, e.super, `SELECT count(*) FROM zb.recall_event WHERE tenant_id = $1 AND query_hash IS NULL`, tenant))
	// Payloads carry no memory content, except the core overwrite's values (memory.update).
	require.Zero(t, queryInt(t, e.super, `SELECT count(*) FROM zb.audit_event a WHERE a.tenant_id = $1 AND a.action <> 'memory.update'
		AND EXISTS (SELECT 1 FROM zb.memory m WHERE m.tenant_id = a.tenant_id AND length(m.content) > 12
		            AND strpos(a.detail::text, m.content) > 0)`, tenant))
	// The append-only trail: nobody changes it outside an erase (superuser included).
	_, err = e.super.Exec(ctx, "UPDATE zb.audit_event SET actor = 'x' WHERE tenant_id = $1", tenant)
	require.Equal(t, "42501", sqlState(err))
}

// TestConsentGatesStorage: a tenant whose settings require consent refuses new memories
// (ErrConsentRequired, through the Go API, a batch and the SQL API alike, nothing written) until
// the data subject's consent for the purpose "memory" is recorded, and again once it is
// revoked; a consent limited to one context admits that context only.
func TestConsentGatesStorage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx, co := ctxT(t), e.co
	const tenant = "consenting"
	require.NoError(t, co.SetGovernance(ctx, tenant, coordinator.GovernanceSettings{ConsentRequired: true}))
	gov, err := co.Governance(ctx, tenant)
	require.NoError(t, err)
	require.True(t, gov.ConsentRequired)
	memories := func() int64 {
		return queryInt(t, e.super, "SELECT count(*) FROM zb.memory WHERE tenant_id = $1", tenant)
	}
	_, err = co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "Ida likes tea."})
	require.ErrorIs(t, err, coordinator.ErrConsentRequired)
	require.ErrorIs(t, err, coordinator.ErrForbidden)
	_, err = co.StoreBatch(ctx, []coordinator.StoreInput{{TenantID: tenant, Content: "Ida likes tea."}})
	require.ErrorIs(t, err, coordinator.ErrConsentRequired)
	_, err = e.super.Exec(ctx, "SELECT zb.remember($1, 'Ida likes tea.')", tenant)
	require.Equal(t, "ZB001", sqlState(err))
	require.Zero(t, memories())

	// Consent for the work context only.
	_, err = co.GrantConsent(ctx, tenant, coordinator.Consent{Subject: "ida", Purpose: coordinator.ConsentPurposeMemory, Context: "work"})
	require.NoError(t, err)
	_, err = co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "Ida likes tea."})
	require.ErrorIs(t, err, coordinator.ErrConsentRequired, "the default context has no consent")
	_, err = co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "Ida leads the release.", Context: "work"})
	require.NoError(t, err)
	// Consent for every context.
	_, err = co.GrantConsent(ctx, tenant, coordinator.Consent{Subject: "ida", Purpose: coordinator.ConsentPurposeMemory, Evidence: "signed form 12"})
	require.NoError(t, err)
	_, err = co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "Ida likes tea."})
	require.NoError(t, err)
	r, err := co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "Ida's badge is 7.", CoreLabel: "badge"})
	require.NoError(t, err)
	require.EqualValues(t, 3, memories())
	cs, err := co.Consents(ctx, tenant)
	require.NoError(t, err)
	require.Len(t, cs, 2)

	n, err := co.RevokeConsent(ctx, tenant, "ida", coordinator.ConsentPurposeMemory)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	_, err = co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "Ida likes coffee now.", Context: "work"})
	require.ErrorIs(t, err, coordinator.ErrConsentRequired)
	_, err = co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "Ida's badge is 8.", CoreLabel: "badge"})
	require.ErrorIs(t, err, coordinator.ErrConsentRequired, "a core overwrite is storage too")
	require.EqualValues(t, 3, memories())
	var badge string
	require.NoError(t, e.super.QueryRow(ctx, "SELECT content FROM zb.memory WHERE id = $1", r.ID).Scan(&badge))
	require.Equal(t, "Ida's badge is 7.", badge)
	// Derivation and erasure go on without consent.
	_, err = co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, Pending: true, NeedsEmbedding: true}, nil)
	require.NoError(t, err)
	found, err := co.Forget(ctx, tenant, r.ID)
	require.NoError(t, err)
	require.True(t, found)
	// A tenant without the setting stores freely.
	_, err = co.Store(ctx, coordinator.StoreInput{TenantID: "free", Content: "No consent needed here."})
	require.NoError(t, err)
}

// TestRetentionErasesExpiredMemories: memories of a context with a retention window are erased
// by the decay job once older than the window (with Erase's semantics, audited as retention);
// other contexts and younger memories stay.
func TestRetentionErasesExpiredMemories(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx, co := ctxT(t), e.co
	const tenant = "retained"
	store := func(content, cx string) int64 {
		r, err := co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: content, Context: cx})
		require.NoError(t, err)
		return r.ID
	}
	old := store("The chat log of March mentions Vexmarka.", "chat")
	keepOther := store("The project plan of March.", "work")
	e.clock.Add(20 * 24 * time.Hour)
	young := store("The chat log of April.", "chat")
	require.NoError(t, co.SetRetention(ctx, tenant, "chat", 30*24*time.Hour))
	ret, err := co.Retention(ctx, tenant)
	require.NoError(t, err)
	require.Equal(t, []coordinator.RetentionPolicy{{Context: "chat", MaxAge: 30 * 24 * time.Hour}}, ret)

	e.clock.Add(15 * 24 * time.Hour) // old is 35 days old, young 15
	_, err = co.DecayDue(ctx, tenant, 0, nil)
	require.NoError(t, err)
	status := func(id int64) string {
		var s string
		require.NoError(t, e.super.QueryRow(ctx, "SELECT status::text FROM zb.memory WHERE id = $1", id).Scan(&s))
		return s
	}
	require.Equal(t, "erased", status(old))
	require.Equal(t, "active", status(young))
	require.Equal(t, "active", status(keepOther))
	require.Empty(t, scanMarker(t, e.super, "Vexmarka"))
	require.EqualValues(t, 1, queryInt(t, e.super, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = $1 AND action = 'memory.erase'
		AND actor = 'retention' AND detail ->> 'reason_code' = 'retention'`, tenant))
	// Nothing more is due: a second sweep erases nothing.
	rep, err := co.ApplyRetention(ctx, tenant, 0)
	require.NoError(t, err)
	require.Zero(t, rep.Erased)
	require.False(t, rep.More)
	e.clock.Add(20 * 24 * time.Hour)
	rep, err = co.ApplyRetention(ctx, tenant, 0)
	require.NoError(t, err)
	require.EqualValues(t, 1, rep.Erased)
	require.Equal(t, "erased", status(young))
	require.NoError(t, co.SetRetention(ctx, tenant, "chat", 0))
	ret, err = co.Retention(ctx, tenant)
	require.NoError(t, err)
	require.Empty(t, ret)
}

// TestApprovalQueue: operations the tenant's settings put behind an approval wait in the queue
// — a tenant erase, a core overwrite, switching a mechanism off — and run only when an operator
// approves them (with the approver recorded); a denied request changes nothing and drops the
// value it held; a decided request cannot be decided again.
func TestApprovalQueue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx, co := ctxT(t), e.co
	const tenant = "guarded"
	core, err := co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "The vault code is 1111.", CoreLabel: "vault"})
	require.NoError(t, err)
	require.NoError(t, co.SetGovernance(ctx, tenant, coordinator.GovernanceSettings{
		ApprovalRequired: []string{coordinator.OpTenantErase, coordinator.OpCoreOverwrite, coordinator.OpAlgorithmSwitch},
	}))
	coreValue := func() string {
		var s string
		require.NoError(t, e.super.QueryRow(ctx, "SELECT content FROM zb.memory WHERE id = $1", core.ID).Scan(&s))
		return s
	}

	// Core overwrite: pending, then denied (the value is dropped), then approved.
	r, err := co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "The vault code is 2222.", CoreLabel: "vault"})
	require.NoError(t, err)
	require.Equal(t, coordinator.OutcomePendingApproval, r.Outcome)
	require.Positive(t, r.ApprovalID)
	again, err := co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "The vault code is 2222.", CoreLabel: "vault"})
	require.NoError(t, err)
	require.Equal(t, r.ApprovalID, again.ApprovalID, "the same request is not queued twice")
	require.Equal(t, "The vault code is 1111.", coreValue())
	denied, err := co.Decide(ctx, r.ApprovalID, false, "ops", "wrong code")
	require.NoError(t, err)
	require.Equal(t, coordinator.ApprovalRejected, denied.Status)
	require.Zero(t, queryInt(t, e.super, "SELECT count(*) FROM zb.approval_request WHERE payload::text LIKE '%2222%'"))
	_, err = co.Decide(ctx, r.ApprovalID, true, "ops", "")
	require.ErrorIs(t, err, coordinator.ErrConflict, "a decided request stays decided")
	r, err = co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "The vault code is 3333.", CoreLabel: "vault"})
	require.NoError(t, err)
	list, err := co.Approvals(ctx, "", coordinator.ApprovalPending, 0)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, coordinator.OpCoreOverwrite, list[0].Operation)
	done, err := co.Decide(ctx, r.ApprovalID, true, "ops", "")
	require.NoError(t, err)
	require.Equal(t, coordinator.ApprovalExecuted, done.Status)
	require.Equal(t, "The vault code is 3333.", coreValue())

	// Switching a mechanism off waits; switching it on does not.
	err = co.SetAlgorithm(ctx, tenant, "decay", false)
	var pending *coordinator.ApprovalRequiredError
	require.True(t, errors.As(err, &pending), "%v", err)
	require.ErrorIs(t, err, coordinator.ErrApprovalRequired)
	algs, err := co.Algorithms(ctx, tenant)
	require.NoError(t, err)
	require.True(t, algs[0].Enabled, "decay is still on")
	_, err = co.Decide(ctx, pending.ID, true, "ops", "")
	require.NoError(t, err)
	algs, err = co.Algorithms(ctx, tenant)
	require.NoError(t, err)
	require.False(t, algs[0].Enabled)
	require.NoError(t, co.SetAlgorithm(ctx, tenant, "decay", true))

	// Tenant erase: a dry run needs no approval; the erase waits, the SQL API refuses it too,
	// and the approval carries it out.
	dry, err := co.Erase(ctx, tenant, coordinator.ScopeTenant(), &coordinator.EraseOpts{DryRun: true})
	require.NoError(t, err)
	require.EqualValues(t, 1, dry.Counts["tenant"])
	_, err = co.Erase(ctx, tenant, coordinator.ScopeTenant(), nil)
	require.True(t, errors.As(err, &pending), "%v", err)
	_, err = e.super.Exec(ctx, "SELECT zb.erase($1, 'tenant')", tenant)
	require.Equal(t, "ZB002", sqlState(err))
	require.EqualValues(t, 1, queryInt(t, e.super, "SELECT count(*) FROM zb.tenant WHERE id = $1", tenant))
	_, err = co.Decide(ctx, pending.ID, true, "dpo", "verified request")
	require.NoError(t, err)
	require.Zero(t, queryInt(t, e.super, "SELECT count(*) FROM zb.tenant WHERE id = $1", tenant))
	require.EqualValues(t, 1, queryInt(t, e.super, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = $1 AND action = 'tenant.erase'
		AND actor = 'dpo' AND (detail ->> 'approval_id')::bigint = $2`, tenant, pending.ID))
	_, err = co.Decide(ctx, 999999, true, "ops", "")
	require.ErrorIs(t, err, coordinator.ErrNotFound)
}
