package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/db"
)

// Sensitive operations a tenant's settings may put behind an approval
// (GovernanceSettings.ApprovalRequired).
const (
	// OpTenantErase is Erase with ScopeTenant.
	OpTenantErase = "tenant_erase"
	// OpContextErase is Erase with ScopeContext.
	OpContextErase = "context_erase"
	// OpCoreOverwrite is a Store that changes the value of an existing core label.
	OpCoreOverwrite = "core_overwrite"
	// OpAlgorithmSwitch is SetAlgorithm switching a mechanism off.
	OpAlgorithmSwitch = "algorithm_switch"
)

// Approvable lists the operations GovernanceSettings.ApprovalRequired accepts.
var Approvable = []string{OpTenantErase, OpContextErase, OpCoreOverwrite, OpAlgorithmSwitch}

// Approval statuses.
const (
	// ApprovalPending is a request waiting for a decision.
	ApprovalPending = "pending"
	// ApprovalApproved is an approved request not yet carried out (Decide again retries it).
	ApprovalApproved = "approved"
	// ApprovalRejected is a denied request.
	ApprovalRejected = "rejected"
	// ApprovalExpired is a request whose subject was erased before a decision.
	ApprovalExpired = "expired"
	// ApprovalExecuted is an approved request that was carried out.
	ApprovalExecuted = "executed"
)

// OutcomePendingApproval is the StoreResult.Outcome of a core overwrite that waits for an
// approval (StoreResult.ApprovalID): the memory was not changed.
const OutcomePendingApproval = "pending_approval"

// ConsentPurposeMemory is the consent purpose that gates storing memories for tenants whose
// settings require consent.
const ConsentPurposeMemory = "memory"

// Limits of governance inputs.
const (
	// MaxConsentEvidenceBytes bounds Consent.Evidence.
	MaxConsentEvidenceBytes = 4096
	// MaxApprovalReasonBytes bounds the reason of a decision.
	MaxApprovalReasonBytes = 1000
	// MaxApprovalList bounds Approvals.
	MaxApprovalList = 10000
)

// Limits of stored inputs beyond the content (Config.MaxContentBytes), enforced before anything
// is written (ErrInvalidInput).
const (
	// MaxMetadataBytes bounds the JSON encoding of StoreInput.Metadata (with the resolved dates).
	MaxMetadataBytes = 64 << 10
	// MaxSourceIDs bounds StoreInput.SourceIDs.
	MaxSourceIDs = 1000
	// MaxSkillItems bounds the steps and the tools of a Skill, each.
	MaxSkillItems = 100
	// MaxSkillTextBytes bounds a skill's trigger and each step and tool.
	MaxSkillTextBytes = 4096
	// MaxRecallContexts bounds RecallOpts.Contexts.
	MaxRecallContexts = 100
)

// checkStoreLimits enforces the size limits of a StoreInput's parts besides its content.
func checkStoreLimits(in StoreInput) error {
	if len(in.SourceIDs) > MaxSourceIDs {
		return fmt.Errorf("%w: %d source ids, at most %d", ErrInvalidInput, len(in.SourceIDs), MaxSourceIDs)
	}
	if len(in.Metadata) > MaxMetadataBytes {
		return fmt.Errorf("%w: %d metadata keys, at most %d bytes of metadata", ErrInvalidInput, len(in.Metadata), MaxMetadataBytes)
	}
	if sk := in.Skill; sk != nil {
		if len(sk.Steps) > MaxSkillItems || len(sk.Tools) > MaxSkillItems {
			return fmt.Errorf("%w: a skill has at most %d steps and %d tools", ErrInvalidInput, MaxSkillItems, MaxSkillItems)
		}
		for _, s := range append(append([]string{sk.Trigger}, sk.Steps...), sk.Tools...) {
			if len(s) > MaxSkillTextBytes {
				return fmt.Errorf("%w: a skill's trigger, steps and tools have at most %d bytes each", ErrInvalidInput, MaxSkillTextBytes)
			}
		}
	}
	return nil
}

// ApprovalRequiredError is returned (wrapping ErrApprovalRequired) when an operation waits for
// an approval: the request was queued, and Decide carries it out once approved.
type ApprovalRequiredError struct {
	// ID is the queued request.
	ID int64
	// Operation is one of the Op constants.
	Operation string
	// Tenant is the request's tenant.
	Tenant string
}

// Error says which request waits.
func (e *ApprovalRequiredError) Error() string {
	return fmt.Sprintf("%s of tenant %s needs an approval: request %d is pending (zbctl approve %d)", e.Operation, e.Tenant, e.ID, e.ID)
}

// Unwrap returns ErrApprovalRequired.
func (e *ApprovalRequiredError) Unwrap() error { return ErrApprovalRequired }

// GovernanceSettings are a tenant's governance settings (zb.tenant.settings), written by
// operators.
type GovernanceSettings struct {
	// ConsentRequired refuses new memories (ErrConsentRequired) unless the tenant has an active
	// consent for ConsentPurposeMemory in the memory's context or in every context.
	ConsentRequired bool `json:"consent_required"`
	// ApprovalRequired lists the operations (Approvable) that wait for an operator's approval.
	ApprovalRequired []string `json:"approval_required"`
}

// Governance returns a tenant's governance settings (defaults for an unknown tenant).
func (c *Coordinator) Governance(ctx context.Context, tenant string) (*GovernanceSettings, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	raw, err := tenantRead(ctx, c, tenant, func(q *db.Queries) (json.RawMessage, error) { return q.GovernanceSettingsGet(ctx, tenant) })
	if isNoRows(err) {
		return &GovernanceSettings{ApprovalRequired: []string{}}, nil
	}
	if err != nil {
		return nil, interpretError("reading governance settings", err)
	}
	return settingsOf(raw), nil
}

func settingsOf(raw []byte) *GovernanceSettings {
	s := &GovernanceSettings{}
	_ = json.Unmarshal(raw, s)
	s.ApprovalRequired = nonNil(s.ApprovalRequired)
	return s
}

// SetGovernance replaces a tenant's governance settings (creating the tenant if needed) and
// writes an audit event governance.update. The application role may not (ErrForbidden).
func (c *Coordinator) SetGovernance(ctx context.Context, tenant string, s GovernanceSettings) error {
	if err := checkTenant(tenant); err != nil {
		return err
	}
	ops := []string{}
	for _, op := range s.ApprovalRequired {
		if !slices.Contains(Approvable, op) {
			return fmt.Errorf("%w: unknown operation %q (known: %v)", ErrInvalidInput, truncate(op, 40), Approvable)
		}
		if !slices.Contains(ops, op) {
			ops = append(ops, op)
		}
	}
	slices.Sort(ops)
	patch := mustJSON(map[string]any{"consent_required": s.ConsentRequired, "approval_required": ops})
	now := c.clock.Now()
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		if err := q.TenantEnsure(ctx, db.TenantEnsureParams{ID: tenant, Name: tenant}); err != nil {
			return err
		}
		if _, err := q.GovernanceSettingsMerge(ctx, db.GovernanceSettingsMergeParams{TenantID: tenant, Patch: patch}); err != nil {
			return err
		}
		return c.audit(ctx, q, tenant, "governance.update", nil, now, map[string]any{
			"consent_required":  s.ConsentRequired,
			"approval_required": len(ops), "operations": ops,
		})
	})
	return interpretError("setting governance", err)
}

// Consent is one consent record.
type Consent struct {
	// ID identifies the record.
	ID int64 `json:"id"`
	// Subject is the data subject (1-200 bytes), Purpose what the consent is for (1-200 bytes,
	// ConsentPurposeMemory gates storage).
	Subject string `json:"subject"`
	Purpose string `json:"purpose"`
	// Context limits the consent to one context; empty means every context.
	Context string `json:"context,omitempty"`
	// Evidence records how it was given (at most MaxConsentEvidenceBytes).
	Evidence string `json:"evidence,omitempty"`
	// GrantedAt and RevokedAt (nil while active) are its times.
	GrantedAt time.Time  `json:"granted_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// GrantConsent records a granted consent (creating the tenant if needed), writes an audit event
// consent.grant and returns the record's id.
func (c *Coordinator) GrantConsent(ctx context.Context, tenant string, in Consent) (int64, error) {
	if err := checkTenant(tenant); err != nil {
		return 0, err
	}
	for _, f := range []struct{ name, v string }{{"subject", in.Subject}, {"purpose", in.Purpose}} {
		if err := checkText(f.v, 200); err != nil {
			return 0, fmt.Errorf("%w: consent %s: %w", ErrInvalidInput, f.name, err)
		}
	}
	var cx *string
	if in.Context != "" {
		if err := checkContext(in.Context); err != nil {
			return 0, err
		}
		cx = &in.Context
	}
	if in.Evidence != "" {
		if err := checkText(in.Evidence, MaxConsentEvidenceBytes); err != nil {
			return 0, fmt.Errorf("%w: consent evidence: %w", ErrInvalidInput, err)
		}
	}
	now := c.clock.Now()
	var id int64
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		if err := q.TenantEnsure(ctx, db.TenantEnsureParams{ID: tenant, Name: tenant}); err != nil {
			return err
		}
		var err error
		if id, err = q.ConsentInsert(ctx, db.ConsentInsertParams{
			TenantID: tenant, Subject: in.Subject, Purpose: in.Purpose,
			Context: cx, Now: now, Evidence: in.Evidence,
		}); err != nil {
			return err
		}
		return c.audit(ctx, q, tenant, "consent.grant", nil, now, map[string]any{"consent_id": id, "scope": contextOrAll(in.Context)})
	})
	if err != nil {
		return 0, interpretError("recording consent", err)
	}
	return id, nil
}

func contextOrAll(cx string) string {
	if cx == "" {
		return "all"
	}
	return "context"
}

// RevokeConsent revokes a subject's active consents for a purpose, writes an audit event
// consent.revoke and returns how many were revoked. Storage stops at once for a tenant that
// requires consent; what was stored stays until it is erased (Erase).
func (c *Coordinator) RevokeConsent(ctx context.Context, tenant, subject, purpose string) (int, error) {
	if err := checkTenant(tenant); err != nil {
		return 0, err
	}
	if err := checkText(subject, 200); err != nil {
		return 0, fmt.Errorf("%w: consent subject: %w", ErrInvalidInput, err)
	}
	if err := checkText(purpose, 200); err != nil {
		return 0, fmt.Errorf("%w: consent purpose: %w", ErrInvalidInput, err)
	}
	now := c.clock.Now()
	var ids []int64
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		var err error
		if ids, err = q.ConsentRevoke(ctx, db.ConsentRevokeParams{TenantID: tenant, Subject: subject, Purpose: purpose, Now: now}); err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		return c.audit(ctx, q, tenant, "consent.revoke", nil, now, map[string]any{"consent_ids": ids})
	})
	if err != nil {
		return 0, interpretError("revoking consent", err)
	}
	return len(ids), nil
}

// Consents lists a tenant's consent records, newest first.
func (c *Coordinator) Consents(ctx context.Context, tenant string) ([]Consent, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	rows, err := tenantRead(ctx, c, tenant, func(q *db.Queries) ([]db.ConsentListRow, error) { return q.ConsentList(ctx, tenant) })
	if err != nil {
		return nil, interpretError("listing consents", err)
	}
	out := make([]Consent, 0, len(rows))
	for _, r := range rows {
		cs := Consent{ID: r.ID, Subject: r.Subject, Purpose: r.Purpose, Evidence: r.Evidence, GrantedAt: r.GrantedAt, RevokedAt: r.RevokedAt}
		if r.Context != nil {
			cs.Context = *r.Context
		}
		out = append(out, cs)
	}
	return out, nil
}

// RetentionPolicy is the retention window of one context of a tenant.
type RetentionPolicy struct {
	// Context is the context.
	Context string `json:"context"`
	// MaxAge is how long its memories are kept after they were stored.
	MaxAge time.Duration `json:"max_age"`
}

// SetRetention sets the retention window of a tenant's context (creating the tenant if needed);
// 0 removes it. Memories of the context stored longer than maxAge ago are erased by the
// worker's decay job (ApplyRetention). Audited as retention.update; operators only.
func (c *Coordinator) SetRetention(ctx context.Context, tenant, context_ string, maxAge time.Duration) error {
	if err := checkTenant(tenant); err != nil {
		return err
	}
	if err := checkContext(context_); err != nil {
		return err
	}
	if maxAge < 0 || maxAge > 100*365*24*time.Hour {
		return fmt.Errorf("%w: retention must be in [0, 100 years], got %s", ErrInvalidInput, maxAge)
	}
	now := c.clock.Now()
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		if maxAge == 0 {
			if _, err := q.RetentionDelete(ctx, db.RetentionDeleteParams{TenantID: tenant, Context: context_}); err != nil {
				return err
			}
		} else {
			if err := q.TenantEnsure(ctx, db.TenantEnsureParams{ID: tenant, Name: tenant}); err != nil {
				return err
			}
			if err := q.RetentionSet(ctx, db.RetentionSetParams{TenantID: tenant, Context: context_, MaxAgeSeconds: maxAge.Seconds(), Now: now}); err != nil {
				return err
			}
		}
		return c.audit(ctx, q, tenant, "retention.update", nil, now, map[string]any{"max_age_seconds": maxAge.Seconds()})
	})
	return interpretError("setting retention", err)
}

// Retention lists a tenant's retention windows.
func (c *Coordinator) Retention(ctx context.Context, tenant string) ([]RetentionPolicy, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	rows, err := tenantRead(ctx, c, tenant, func(q *db.Queries) ([]db.RetentionListRow, error) { return q.RetentionList(ctx, tenant) })
	if err != nil {
		return nil, interpretError("listing retention", err)
	}
	out := make([]RetentionPolicy, 0, len(rows))
	for _, r := range rows {
		out = append(out, RetentionPolicy{Context: r.Context, MaxAge: time.Duration(r.MaxAgeSeconds * float64(time.Second))})
	}
	return out, nil
}

// Approval is one request of the approval queue.
type Approval struct {
	// ID identifies the request (unique across tenants); TenantID is its tenant.
	ID       int64  `json:"id"`
	TenantID string `json:"tenant_id"`
	// Operation is one of the Op constants.
	Operation string `json:"operation"`
	// Payload holds what the operation needs (a context, a core label and value, an algorithm).
	Payload json.RawMessage `json:"payload"`
	// Status is ApprovalPending, ApprovalApproved, ApprovalRejected, ApprovalExpired or
	// ApprovalExecuted.
	Status string `json:"status"`
	// RequestedBy and RequestedAt say who asked and when.
	RequestedBy string    `json:"requested_by"`
	RequestedAt time.Time `json:"requested_at"`
	// DecidedBy, DecidedAt and Reason record the decision (empty while pending).
	DecidedBy string     `json:"decided_by,omitempty"`
	DecidedAt *time.Time `json:"decided_at,omitempty"`
	Reason    string     `json:"reason,omitempty"`
}

func approvalFromRow(r db.ZbApprovalRequest) Approval {
	a := Approval{
		ID: r.ID, TenantID: r.TenantID, Operation: r.Operation, Payload: r.Payload, Status: r.Status,
		RequestedBy: r.RequestedBy, RequestedAt: r.RequestedAt, DecidedAt: r.DecidedAt,
	}
	if r.DecidedBy != nil {
		a.DecidedBy = *r.DecidedBy
	}
	if r.Reason != nil {
		a.Reason = *r.Reason
	}
	return a
}

// Approvals lists up to limit (0: 100) requests, oldest first: of one tenant, or of every tenant
// when tenant is "" (operators: zb_admin or zb_worker, whose unbound reads see every tenant);
// status "" means any.
func (c *Coordinator) Approvals(ctx context.Context, tenant, status string, limit int) ([]Approval, error) {
	if limit == 0 {
		limit = 100
	}
	if limit < 0 || limit > MaxApprovalList {
		return nil, fmt.Errorf("%w: limit must be in [0, %d], got %d", ErrInvalidInput, MaxApprovalList, limit)
	}
	if status != "" && !slices.Contains([]string{ApprovalPending, ApprovalApproved, ApprovalRejected, ApprovalExpired, ApprovalExecuted}, status) {
		return nil, fmt.Errorf("%w: unknown approval status %q", ErrInvalidInput, truncate(status, 40))
	}
	p := db.ApprovalListParams{K: int32(limit)}
	if status != "" {
		p.Status = &status
	}
	var rows []db.ZbApprovalRequest
	var err error
	if tenant == "" {
		err = c.beginTenant(ctx, "", func(tx pgx.Tx) error {
			rows, err = c.q.WithTx(tx).ApprovalList(ctx, p)
			return err
		})
	} else {
		if err := checkTenant(tenant); err != nil {
			return nil, err
		}
		p.TenantID = &tenant
		rows, err = tenantRead(ctx, c, tenant, func(q *db.Queries) ([]db.ZbApprovalRequest, error) { return q.ApprovalList(ctx, p) })
	}
	if err != nil {
		return nil, interpretError("listing approvals", err)
	}
	out := make([]Approval, 0, len(rows))
	for _, r := range rows {
		out = append(out, approvalFromRow(r))
	}
	return out, nil
}

// approvedKey marks a context that carries out an approved request: the gates let the
// operation through.
type approvedKey struct{}

type approvedOp struct {
	tenant, operation string
	id                int64
}

func approvedFor(ctx context.Context, tenant, operation string) (int64, bool) {
	a, ok := ctx.Value(approvedKey{}).(approvedOp)
	if !ok || a.tenant != tenant || a.operation != operation {
		return 0, false
	}
	return a.id, true
}

// gate queues a request for operation when the tenant's settings put it behind an approval (in
// its own transaction) and returns it as an *ApprovalRequiredError; nil when the operation may
// proceed.
func (c *Coordinator) gate(ctx context.Context, tenant, operation string, payload map[string]any, actor string) (*ApprovalRequiredError, error) {
	if _, ok := approvedFor(ctx, tenant, operation); ok {
		return nil, nil
	}
	var pending *ApprovalRequiredError
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		id, err := c.gateTx(ctx, c.q.WithTx(tx), tenant, operation, payload, actor)
		if id > 0 {
			pending = &ApprovalRequiredError{ID: id, Operation: operation, Tenant: tenant}
		}
		return err
	})
	return pending, err
}

// gateTx is gate inside the caller's transaction (bound to tenant): it returns the id of the
// queued request (an identical pending one is reused), or 0 when the operation may proceed.
func (c *Coordinator) gateTx(ctx context.Context, q *db.Queries, tenant, operation string, payload map[string]any, actor string) (int64, error) {
	if _, ok := approvedFor(ctx, tenant, operation); ok {
		return 0, nil
	}
	raw, err := q.GovernanceSettingsGet(ctx, tenant)
	if isNoRows(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if !slices.Contains(settingsOf(raw).ApprovalRequired, operation) {
		return 0, nil
	}
	pl := mustJSON(payload)
	st := ApprovalPending
	existing, err := q.ApprovalList(ctx, db.ApprovalListParams{TenantID: &tenant, Status: &st, K: MaxApprovalList})
	if err != nil {
		return 0, err
	}
	for _, r := range existing {
		if r.Operation == operation && samePayload(r.Payload, pl) {
			return r.ID, nil
		}
	}
	now := c.clock.Now()
	r, err := q.ApprovalInsert(ctx, db.ApprovalInsertParams{
		TenantID: tenant, Operation: operation, Payload: pl,
		RequestedBy: actor, Now: now,
	})
	if err != nil {
		return 0, err
	}
	return r.ID, c.audit(ctx, q, tenant, "approval.request", memoryIDOf(payload), now,
		map[string]any{"approval_id": r.ID, "operation": operation})
}

func memoryIDOf(payload map[string]any) *int64 {
	if id, ok := payload["memory_id"].(int64); ok {
		return &id
	}
	return nil
}

func samePayload(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}

// gateCore holds back a core overwrite the tenant's settings put behind an approval: the request
// (with the new value) is queued in the store's transaction, res says OutcomePendingApproval,
// and pending is true (the memory is left as it is).
func (c *Coordinator) gateCore(ctx context.Context, q *db.Queries, p *prepared, memoryID int64, res *StoreResult) (pending bool, err error) {
	id, err := c.gateTx(ctx, q, p.in.TenantID, OpCoreOverwrite, map[string]any{
		"memory_id": memoryID, "label": p.in.CoreLabel,
		"context": p.context, "content": p.in.Content,
	}, c.cfg.Actor)
	if err != nil || id == 0 {
		return false, err
	}
	res.Outcome, res.ApprovalID = OutcomePendingApproval, id
	return true, nil
}

// gateAlgorithm holds back switching a mechanism off when the tenant's settings put it behind an
// approval: it returns the *ApprovalRequiredError of the queued request, or nil.
func (c *Coordinator) gateAlgorithm(ctx context.Context, tenant, id string, enabled bool) error {
	if enabled {
		return nil
	}
	pending, err := c.gate(ctx, tenant, OpAlgorithmSwitch, map[string]any{"algorithm": id, "enabled": false}, c.cfg.Actor)
	if err != nil {
		return interpretError("switching algorithm "+id, err)
	}
	if pending != nil {
		return pending
	}
	return nil
}

// Decide approves or rejects a pending request (by id; the caller must see its tenant: an
// operator role without a bound tenant sees every tenant's) and writes an audit event
// approval.approve or approval.deny. An approved request is carried out at once with the
// approver as actor — the tenant or context erase, the core overwrite, the algorithm switch —
// and marked executed (approval.execute); deciding an approved request that failed to run
// retries it. A rejected request loses the content its payload held. Deciding a request that is
// no longer pending or approved gives ErrConflict. The actor who made the request cannot approve
// it (ErrSelfApproval, also enforced by the database); it may deny (withdraw) it.
func (c *Coordinator) Decide(ctx context.Context, id int64, approve bool, actor, reason string) (*Approval, error) {
	if id <= 0 {
		return nil, fmt.Errorf("%w: approval id must be positive, got %d", ErrInvalidInput, id)
	}
	if actor == "" {
		actor = c.cfg.Actor
	}
	if err := checkText(actor, 200); err != nil {
		return nil, fmt.Errorf("%w: actor: %w", ErrInvalidInput, err)
	}
	var rsn *string
	if reason != "" {
		if err := checkText(reason, MaxApprovalReasonBytes); err != nil {
			return nil, fmt.Errorf("%w: reason: %w", ErrInvalidInput, err)
		}
		rsn = &reason
	}
	var req db.ZbApprovalRequest
	err := c.beginTenant(ctx, "", func(tx pgx.Tx) error {
		var err error
		req, err = c.q.WithTx(tx).ApprovalGet(ctx, id)
		return err
	})
	if err != nil {
		return nil, interpretError(fmt.Sprintf("reading approval request %d", id), err)
	}
	tenant := req.TenantID
	now := c.clock.Now()
	if approve && req.RequestedBy == actor && (req.Status == ApprovalPending || req.Status == ApprovalApproved) {
		return nil, fmt.Errorf("%w: approval request %d (%s of tenant %s) was made by %q; another operator must approve it "+
			"(zbctl approve %d --actor NAME)", ErrSelfApproval, id, req.Operation, tenant, actor, id)
	}
	switch {
	case req.Status == ApprovalPending:
		status, action := ApprovalRejected, "approval.deny"
		if approve {
			status, action = ApprovalApproved, "approval.approve"
		}
		err = c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
			q := c.q.WithTx(tx)
			var err error
			if req, err = q.ApprovalDecide(ctx, db.ApprovalDecideParams{
				TenantID: tenant, ID: id, Status: status, DecidedBy: actor,
				Now: now, Reason: rsn,
			}); err != nil {
				return err
			}
			return c.auditAs(ctx, q, tenant, actor, action, now, map[string]any{"approval_id": id, "operation": req.Operation})
		})
		if err != nil {
			return nil, interpretError(fmt.Sprintf("deciding approval request %d", id), err)
		}
		if !approve {
			a := approvalFromRow(req)
			return &a, nil
		}
	case req.Status == ApprovalApproved && approve:
		// Approved before, but not carried out: retry.
	default:
		return nil, fmt.Errorf("%w: approval request %d is %s", ErrConflict, id, req.Status)
	}
	if err := c.execute(ctx, req, actor); err != nil {
		return nil, fmt.Errorf("approval request %d was approved, but carrying it out failed (decide again to retry): %w", id, err)
	}
	req.Status = ApprovalExecuted
	a := approvalFromRow(req)
	return &a, nil
}

// execute carries out an approved request and marks it executed.
func (c *Coordinator) execute(ctx context.Context, req db.ZbApprovalRequest, actor string) error {
	var pl struct {
		Context   string `json:"context"`
		MemoryID  int64  `json:"memory_id"`
		Label     string `json:"label"`
		Content   string `json:"content"`
		Algorithm string `json:"algorithm"`
	}
	if err := json.Unmarshal(req.Payload, &pl); err != nil {
		return fmt.Errorf("error reading the payload of approval request %d: %w", req.ID, err)
	}
	tenant := req.TenantID
	ctx = context.WithValue(ctx, approvedKey{}, approvedOp{tenant: tenant, operation: req.Operation, id: req.ID})
	switch req.Operation {
	case OpTenantErase:
		// The request goes with the tenant; the tenant.erase audit event names it.
		_, err := c.Erase(ctx, tenant, ScopeTenant(), &EraseOpts{ApprovalID: req.ID, Actor: actor})
		return err
	case OpContextErase:
		// zb.erase marks the request executed in the erase's transaction.
		_, err := c.Erase(ctx, tenant, ScopeContext(pl.Context), &EraseOpts{ApprovalID: req.ID, Actor: actor})
		if err != nil {
			return err
		}
		return c.markExecuted(ctx, tenant, req, actor)
	case OpCoreOverwrite:
		if pl.Content == "" {
			return fmt.Errorf("%w: approval request %d holds no value (it was erased)", ErrNotFound, req.ID)
		}
		if _, err := c.Store(ctx, StoreInput{
			TenantID: tenant, Content: pl.Content, Layer: LayerCore, CoreLabel: pl.Label,
			Context: pl.Context,
		}); err != nil {
			return err
		}
	case OpAlgorithmSwitch:
		if err := c.SetAlgorithm(ctx, tenant, pl.Algorithm, false); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%w: approval request %d has operation %q, which zenbrain does not carry out", ErrInvalidInput, req.ID, req.Operation)
	}
	return c.markExecuted(ctx, tenant, req, actor)
}

// markExecuted marks an approved request executed, drops the content its payload held and
// writes an audit event approval.execute.
func (c *Coordinator) markExecuted(ctx context.Context, tenant string, req db.ZbApprovalRequest, actor string) error {
	now := c.clock.Now()
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		if _, err := q.ApprovalMarkExecuted(ctx, db.ApprovalMarkExecutedParams{TenantID: tenant, ID: req.ID}); err != nil {
			return err
		}
		return c.auditAs(ctx, q, tenant, actor, "approval.execute", now, map[string]any{
			"approval_id": req.ID,
			"operation":   req.Operation,
		})
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		return interpretError("marking approval executed", err)
	}
	return err
}

// auditAs appends an audit event of tenant with an explicit actor (the approver of a decision).
func (c *Coordinator) auditAs(ctx context.Context, q *db.Queries, tenant, actor, action string, now time.Time, detail any) error {
	return q.AuditEventInsert(ctx, db.AuditEventInsertParams{
		TenantID: tenant, At: now, Actor: actor, Action: action,
		Detail: mustJSON(detail),
	})
}

// Lifecycle modes of a tenant (zb.tenant.settings "lifecycle").
const (
	// LifecycleWorker (the default) lets the worker run the tenant's lifecycle: derivation,
	// idle-session consolidation, decay, review and sleep.
	LifecycleWorker = "worker"
	// LifecycleManual leaves the tenant out of every worker sweep: a caller drives its
	// lifecycle through the coordinator (a benchmark on a virtual clock, a replay).
	LifecycleManual = "manual"
)

// SetLifecycle sets who runs a tenant's lifecycle (LifecycleWorker or LifecycleManual), creating
// the tenant if needed, and writes an audit event governance.update. The application role may
// not (ErrForbidden).
func (c *Coordinator) SetLifecycle(ctx context.Context, tenant, mode string) error {
	if err := checkTenant(tenant); err != nil {
		return err
	}
	if mode != LifecycleWorker && mode != LifecycleManual {
		return fmt.Errorf("%w: lifecycle %q, want %q or %q", ErrInvalidInput, truncate(mode, 40), LifecycleWorker, LifecycleManual)
	}
	now := c.clock.Now()
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		if err := q.TenantEnsure(ctx, db.TenantEnsureParams{ID: tenant, Name: tenant}); err != nil {
			return err
		}
		if _, err := q.GovernanceSettingsMerge(ctx, db.GovernanceSettingsMergeParams{TenantID: tenant, Patch: mustJSON(map[string]any{"lifecycle": mode})}); err != nil {
			return err
		}
		return c.audit(ctx, q, tenant, "governance.update", nil, now, map[string]any{"lifecycle": mode})
	})
	return interpretError("setting the lifecycle", err)
}
