package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/jobs"
)

// EraseKind names what an erase removes.
type EraseKind string

// Erase scopes.
const (
	// EraseMemory erases one memory.
	EraseMemory EraseKind = "memory"
	// EraseSession erases a session's memories and the session.
	EraseSession EraseKind = "session"
	// EraseContext erases a context's memories, sessions, entities and intentions.
	EraseContext EraseKind = "context"
	// EraseTenant erases everything of a tenant.
	EraseTenant EraseKind = "tenant"
)

// EraseScope is what Erase removes. Build it with ScopeMemory, ScopeSession, ScopeContext or
// ScopeTenant.
type EraseScope struct {
	// Kind is the scope.
	Kind EraseKind
	// MemoryID is the memory of EraseMemory.
	MemoryID int64
	// SessionID is the session of EraseSession.
	SessionID uuid.UUID
	// Context is the context of EraseContext.
	Context string
}

// ScopeMemory is the scope of one memory.
func ScopeMemory(id int64) EraseScope { return EraseScope{Kind: EraseMemory, MemoryID: id} }

// ScopeSession is the scope of a session.
func ScopeSession(id uuid.UUID) EraseScope { return EraseScope{Kind: EraseSession, SessionID: id} }

// ScopeContext is the scope of a context.
func ScopeContext(name string) EraseScope { return EraseScope{Kind: EraseContext, Context: name} }

// ScopeTenant is the scope of a whole tenant.
func ScopeTenant() EraseScope { return EraseScope{Kind: EraseTenant} }

// String describes the scope, e.g. "memory 42".
func (s EraseScope) String() string {
	switch s.Kind {
	case EraseMemory:
		return "memory " + strconv.FormatInt(s.MemoryID, 10)
	case EraseSession:
		return "session " + s.SessionID.String()
	case EraseContext:
		return "context " + s.Context
	case EraseTenant:
		return "tenant"
	}
	return string(s.Kind)
}

// operation is the approval operation of a scope ("" when erasing it never needs one).
func (s EraseScope) operation() string {
	switch s.Kind {
	case EraseTenant:
		return OpTenantErase
	case EraseContext:
		return OpContextErase
	}
	return ""
}

// EraseOpts are the options of Erase; nil means the defaults.
type EraseOpts struct {
	// DryRun counts what the erase would remove and removes nothing (it runs and is rolled
	// back). A dry run needs no approval.
	DryRun bool
	// Reason is recorded in the audit event when it is a short code (at most 40 characters of
	// a-z, 0-9 and _ . : -, e.g. "gdpr_art17" or "ticket:4711"); free text, which may name a
	// person, is not stored.
	Reason string
	// ApprovalID is the approved request (Decide) that allows an erase the tenant's settings
	// put behind an approval (GovernanceSettings.ApprovalRequired: OpTenantErase,
	// OpContextErase).
	ApprovalID int64
	// Actor is recorded as the actor. Defaults to Config.Actor.
	Actor string
}

// EraseReport says what an erase removed (or, for a dry run, would remove).
type EraseReport struct {
	// Scope is the scope erased.
	Scope string `json:"scope"`
	// DryRun reports that nothing was changed.
	DryRun bool `json:"dry_run,omitempty"`
	// Memories is the number of the scope's memories that were erased (not already erased).
	Memories int64 `json:"memories"`
	// Derived is the number of memories derived from them that were erased too (consolidated
	// schemas, AI-generated memories, memories edited by them that could not be restored).
	Derived int64 `json:"derived"`
	// Restored is the number of memories restored to their state before a reconsolidation by an
	// erased memory (re-derived by the worker).
	Restored int64 `json:"restored"`
	// Counts holds the rows removed or scrubbed per table (the memory table counts tombstones).
	Counts map[string]int64 `json:"counts"`
	// ErasedIDs are the memories erased (scope and derived), RestoredIDs those restored.
	ErasedIDs   []int64 `json:"erased_ids,omitempty"`
	RestoredIDs []int64 `json:"restored_ids,omitempty"`
	// VacuumRequest is the request (zb.vacuum_request) that vacuums and analyzes zenbrain's
	// tables after the erase, so that the erased content also leaves the dead row versions and
	// the planner statistics (pg_statistic) that still hold it: the worker's vacuum job, or
	// 'zbctl vacuum', runs it (Coordinator.VacuumErased; Coordinator.VacuumRequests shows its
	// state). Erases in a burst share one pending request. 0 when the erase removed nothing,
	// and for a dry run. It is not a table count: Counts and Total leave it out.
	VacuumRequest int64 `json:"vacuum_request,omitempty"`
}

// Total is the number of rows removed or scrubbed over all tables.
func (r *EraseReport) Total() int64 {
	var n int64
	for _, v := range r.Counts {
		n += v
	}
	return n
}

// Tables lists the tables with a count, in name order.
func (r *EraseReport) Tables() []string {
	out := make([]string, 0, len(r.Counts))
	for k := range r.Counts {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var reasonCodeRE = regexp.MustCompile(`^[a-z0-9_.:-]{1,40}$`)

// Erase erases, for a tenant, one memory, a session, a context or the whole tenant with every
// derivative (GDPR Art. 17), in one transaction through the database's zb.erase (migration
// 0012; the SQL API's zb.forget uses it too), and reports the rows removed per table:
//
//   - the memories become tombstones (status erased; content, metadata, embedding, index terms,
//     subject, external id, validity, emotion and sources cleared), and memories derived from
//     them are erased too (consolidated schemas, AI-generated memories, memories a
//     reconsolidation edited with their content that cannot be restored) or restored to their
//     state before the reconsolidation (then re-derived); sources no live memory carries any
//     more become active again;
//   - every row about them goes: review state and log, triple copies, mentions, working slots,
//     procedures, lability windows, stability locks, tags, links, evidence, debates,
//     reconsolidation events and their snapshots, import keys, intentions;
//   - entities no memory mentions any more go with their edges, as do co-mention edges only an
//     erased memory supported;
//   - audit events about them keep only numbers and enumerations; pending approvals about them
//     expire; River jobs naming them are deleted once finished and lose their error texts;
//   - a session, context or tenant scope also removes the session rows, the context's entities
//     and intentions, or every row of the tenant (its audit events stay, scrubbed).
//
// The erase is audited (memory.erase, session.erase, context.erase, tenant.erase) with counts
// and ids, never content. Erasing what is missing or already erased reports zero memories and
// writes nothing. A tenant or context erase the tenant's settings put behind an approval, called
// without an approved opts.ApprovalID, queues a request and returns an *ApprovalRequiredError.
// Restored memories are queued for derivation in the same transaction.
//
// The erased content still lives, after the commit, in dead row versions and in the planner
// statistics (pg_statistic) until the tables are vacuumed and analyzed: an erase that removed
// something queues a vacuum request for that (EraseReport.VacuumRequest), which VacuumErased
// completes.
func (c *Coordinator) Erase(ctx context.Context, tenant string, scope EraseScope, opts *EraseOpts) (*EraseReport, error) {
	if opts == nil {
		opts = &EraseOpts{}
	}
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	params := db.EraseScopeParams{
		TenantID: tenant, Scope: string(scope.Kind), Actor: opts.Actor, Now: c.clock.Now(),
		DryRun: opts.DryRun,
	}
	if params.Actor == "" {
		params.Actor = c.cfg.Actor
	}
	if err := checkText(params.Actor, 200); err != nil {
		return nil, fmt.Errorf("%w: actor: %w", ErrInvalidInput, err)
	}
	switch scope.Kind {
	case EraseMemory:
		if scope.MemoryID <= 0 {
			return nil, fmt.Errorf("%w: memory id must be positive, got %d", ErrInvalidInput, scope.MemoryID)
		}
		t := strconv.FormatInt(scope.MemoryID, 10)
		params.Target = &t
	case EraseSession:
		if scope.SessionID == uuid.Nil {
			return nil, fmt.Errorf("%w: the session id is empty", ErrInvalidInput)
		}
		t := scope.SessionID.String()
		params.Target = &t
	case EraseContext:
		if err := checkContext(scope.Context); err != nil {
			return nil, err
		}
		t := scope.Context
		params.Target = &t
	case EraseTenant:
	default:
		return nil, fmt.Errorf("%w: unknown erase scope %q (memory, session, context or tenant)", ErrInvalidInput, truncate(string(scope.Kind), 40))
	}
	if opts.Reason != "" {
		if !reasonCodeRE.MatchString(opts.Reason) && (len(opts.Reason) > 500 || checkText(opts.Reason, 500) != nil) {
			return nil, fmt.Errorf("%w: reason must be valid text of at most 500 bytes", ErrInvalidInput)
		}
		r := opts.Reason
		params.Reason = &r
	}
	if opts.ApprovalID < 0 {
		return nil, fmt.Errorf("%w: approval id must be positive, got %d", ErrInvalidInput, opts.ApprovalID)
	}
	if opts.ApprovalID > 0 {
		params.ApprovalID = &opts.ApprovalID
	}
	if op := scope.operation(); op != "" && !opts.DryRun && opts.ApprovalID == 0 {
		pending, err := c.gate(ctx, tenant, op, scope.approvalPayload(), params.Actor)
		if err != nil {
			return nil, interpretError("erasing "+scope.String(), err)
		}
		if pending != nil {
			return nil, pending
		}
	}
	return c.erase(ctx, tenant, scope, params)
}

func (s EraseScope) approvalPayload() map[string]any {
	switch s.Kind {
	case EraseContext:
		return map[string]any{"context": s.Context}
	}
	return map[string]any{}
}

// erase runs zb.erase in a transaction bound to the tenant and queues the derivation of restored
// memories.
func (c *Coordinator) erase(ctx context.Context, tenant string, scope EraseScope, params db.EraseScopeParams) (*EraseReport, error) {
	var rep *EraseReport
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		raw, err := c.q.WithTx(tx).EraseScope(ctx, params)
		if err != nil {
			return err
		}
		if rep, err = eraseReport(raw); err != nil {
			return err
		}
		if len(rep.RestoredIDs) > 0 && !rep.DryRun {
			return c.enqueueDerive(ctx, tx, jobs.DeriveArgs{TenantID: tenant, MemoryIDs: rep.RestoredIDs, NeedsEmbedding: true})
		}
		return nil
	})
	if err != nil {
		return nil, interpretError("erasing "+scope.String(), err)
	}
	return rep, nil
}

// eraseReport decodes zb.erase's JSON: numbers are counts per table, except the memory totals
// and the vacuum request's id; erased_ids and restored_ids are arrays.
func eraseReport(raw []byte) (*EraseReport, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("error decoding the erase report: %w", err)
	}
	rep := &EraseReport{Counts: map[string]int64{}}
	for k, v := range m {
		switch k {
		case "scope":
			_ = json.Unmarshal(v, &rep.Scope)
			continue
		case "dry_run":
			_ = json.Unmarshal(v, &rep.DryRun)
			continue
		case "erased_ids":
			_ = json.Unmarshal(v, &rep.ErasedIDs)
			continue
		case "restored_ids":
			_ = json.Unmarshal(v, &rep.RestoredIDs)
			continue
		case "vacuum_request":
			_ = json.Unmarshal(v, &rep.VacuumRequest)
			continue
		}
		var n int64
		if err := json.Unmarshal(v, &n); err != nil {
			continue
		}
		switch k {
		case "derived":
			rep.Derived = n
		case "restored":
			rep.Restored = n
		case "reactivated", "more":
		default:
			if k == "memory" {
				rep.Memories = n
			}
			if n > 0 {
				rep.Counts[k] = n
			}
		}
	}
	if rep.Memories > 0 || rep.Derived > 0 {
		rep.Counts["memory"] = rep.Memories + rep.Derived
	}
	return rep, nil
}

// RetentionReport says what one retention sweep erased.
type RetentionReport struct {
	// Erased is the number of memories erased because their context's retention window passed.
	Erased int64 `json:"erased"`
	// Counts holds the rows removed per table.
	Counts map[string]int64 `json:"counts"`
	// More reports that the limit was reached: more memories may be due.
	More bool `json:"more"`
	// VacuumRequest is the vacuum request the sweep's erase queued (EraseReport.VacuumRequest);
	// 0 when it erased nothing.
	VacuumRequest int64 `json:"vacuum_request,omitempty"`
}

// RetentionLimitDefault is the limit of ApplyRetention when the caller passes 0.
const RetentionLimitDefault = 1000

// ApplyRetention erases up to limit (0: RetentionLimitDefault) memories of tenant that were
// created longer ago than the retention window of their context (SetRetention), oldest first,
// with Erase's semantics (actor and reason "retention"). The worker's decay job runs the same
// sweep for every tenant.
func (c *Coordinator) ApplyRetention(ctx context.Context, tenant string, limit int) (*RetentionReport, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	var rep *RetentionReport
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		var err error
		rep, err = c.retainTx(ctx, c.q.WithTx(tx), tenant, limit)
		return err
	})
	if err != nil {
		return nil, interpretError("applying retention", err)
	}
	return rep, nil
}

// retainTx applies the retention windows of tenant in the caller's transaction (bound to it).
func (c *Coordinator) retainTx(ctx context.Context, q *db.Queries, tenant string, limit int) (*RetentionReport, error) {
	limit, err := checkLimit(limit, RetentionLimitDefault)
	if err != nil {
		return nil, err
	}
	raw, err := q.EraseApplyRetention(ctx, db.EraseApplyRetentionParams{TenantID: tenant, Now: c.clock.Now(), K: int32(limit)})
	if err != nil {
		return nil, err
	}
	er, err := eraseReport(raw)
	if err != nil {
		return nil, err
	}
	var more struct {
		More bool `json:"more"`
	}
	_ = json.Unmarshal(raw, &more)
	return &RetentionReport{Erased: er.Memories, Counts: er.Counts, More: more.More, VacuumRequest: er.VacuumRequest}, nil
}

// retainInTx applies tenant's retention windows inside a lifecycle transaction (the decay job):
// an error is returned, a sweep with nothing to do costs one indexed lookup per policy.
func (c *Coordinator) retainInTx(ctx context.Context, q *db.Queries, tenant string) error {
	_, err := c.retainTx(ctx, q, tenant, 0)
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("error applying retention: %w", err)
	}
	return err
}
