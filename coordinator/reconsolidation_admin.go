package coordinator

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/zenbrain/zb/db"
)

// Operator access to reconsolidation: the event log and an event's snapshot. Rollback is in
// lifecycle_recon.go.

// ReconLogLimitDefault is the number of events ReconsolidationLog returns when limit is 0.
const ReconLogLimitDefault = 50

// ReconEvent is one reconsolidation event.
type ReconEvent struct {
	ID       int64 `json:"id"`
	MemoryID int64 `json:"memory_id"`
	// TriggerID is the new memory that arrived while MemoryID was labile; ResultID the memory
	// the event produced (new_episode).
	TriggerID *int64 `json:"trigger_id,omitempty"`
	ResultID  *int64 `json:"result_id,omitempty"`
	// Mode is the ReconsolidationEngine's mode (confirmed, selective_edit, integration,
	// new_episode); Action what it did.
	Mode          string     `json:"mode"`
	Action        string     `json:"action"`
	RawPE         float64    `json:"raw_pe"`
	EffectivePE   float64    `json:"effective_pe"`
	Contradiction bool       `json:"contradiction"`
	Blocked       bool       `json:"blocked"`
	AppliedAt     time.Time  `json:"applied_at"`
	RolledBackAt  *time.Time `json:"rolled_back_at,omitempty"`
	RollbackNote  string     `json:"rollback_reason,omitempty"`
}

// ReconsolidationLog returns up to limit (0: ReconLogLimitDefault, at most MaxLifecycleLimit)
// reconsolidation events of a tenant, newest first; of one memory when memoryID > 0.
func (c *Coordinator) ReconsolidationLog(ctx context.Context, tenant string, memoryID int64, limit int) ([]ReconEvent, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	if memoryID < 0 {
		return nil, fmt.Errorf("%w: memory id must be positive, got %d", ErrInvalidInput, memoryID)
	}
	limit, err := checkLimit(limit, ReconLogLimitDefault)
	if err != nil {
		return nil, err
	}
	var mp *int64
	if memoryID > 0 {
		mp = &memoryID
	}
	rows, err := tenantRead(ctx, c, tenant, func(q *db.Queries) ([]db.AdminReconEventListRow, error) {
		return q.AdminReconEventList(ctx, db.AdminReconEventListParams{TenantID: tenant, MemoryID: mp, K: int32(limit)})
	})
	if err != nil {
		return nil, interpretError("listing reconsolidation events", err)
	}
	out := make([]ReconEvent, 0, len(rows))
	for _, r := range rows {
		ev := ReconEvent{
			ID: r.ID, MemoryID: r.MemoryID, TriggerID: r.TriggerID, ResultID: r.ResultID, Mode: string(r.Mode),
			Action: r.Action, RawPE: r.RawPe, EffectivePE: r.EffectivePe, Contradiction: r.Contradiction, Blocked: r.Blocked,
			AppliedAt: r.AppliedAt, RolledBackAt: r.RolledBackAt,
		}
		if r.RollbackReason != nil {
			ev.RollbackNote = *r.RollbackReason
		}
		out = append(out, ev)
	}
	return out, nil
}

// MemoryState is the part of a memory a reconsolidation may change.
type MemoryState struct {
	Content    string          `json:"content"`
	Metadata   json.RawMessage `json:"metadata"`
	SourceIDs  []int64         `json:"source_ids"`
	Stability  *float64        `json:"stability,omitempty"`
	ConfAlpha  float64         `json:"conf_alpha"`
	ConfBeta   float64         `json:"conf_beta"`
	Confidence float64         `json:"confidence"`
	UpdatedAt  time.Time       `json:"updated_at"`
	// Embedded reports whether the memory has an embedding (it loses it when its content
	// changes, until it is derived again).
	Embedded bool `json:"embedded"`
}

// ReconEventDetail is one reconsolidation event with its snapshot.
type ReconEventDetail struct {
	ReconEvent
	// TriggerContent is the content of the trigger memory when the event happened.
	TriggerContent string `json:"trigger_content,omitempty"`
	// LoggedContent is the memory's content as the event left it (the event's new_content):
	// what the mechanism wrote, and what the memory holds unless something changed it since.
	LoggedContent string `json:"logged_content,omitempty"`
	// Before is the memory as the snapshot holds it (what Rollback restores); After the memory
	// now (nil when it is gone). Changed names the fields that differ.
	Before  MemoryState  `json:"before"`
	After   *MemoryState `json:"after,omitempty"`
	Changed []string     `json:"changed"`
	// Plan is the engine's own snapshot (the memory as it saw it and the neuromodulator levels).
	Plan json.RawMessage `json:"plan,omitempty"`
	// Link is the memory link the event created (removed by Rollback), if any.
	Link json.RawMessage `json:"link,omitempty"`
}

// ReconsolidationEvent returns reconsolidation event id of a tenant with the memory before it
// (the snapshot Rollback restores) and now. An unknown event gives ErrNotFound.
func (c *Coordinator) ReconsolidationEvent(ctx context.Context, tenant string, id int64) (*ReconEventDetail, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	if id <= 0 {
		return nil, fmt.Errorf("%w: event id must be positive, got %d", ErrInvalidInput, id)
	}
	ev, err := tenantRead(ctx, c, tenant, func(q *db.Queries) (db.ZbReconsolidationEvent, error) {
		return q.AdminReconEventGet(ctx, db.AdminReconEventGetParams{TenantID: tenant, ID: id})
	})
	if err != nil {
		return nil, interpretError(fmt.Sprintf("reading reconsolidation event %d", id), err)
	}
	var snap struct {
		Plan    json.RawMessage `json:"plan"`
		Action  string          `json:"action"`
		Row     reconRow        `json:"row"`
		Link    json.RawMessage `json:"link"`
		Trigger string          `json:"trigger"`
	}
	if err := json.Unmarshal(ev.Snapshot, &snap); err != nil {
		return nil, fmt.Errorf("error reading the snapshot of reconsolidation event %d: %w", id, err)
	}
	out := &ReconEventDetail{ReconEvent: ReconEvent{
		ID: ev.ID, MemoryID: ev.MemoryID, TriggerID: ev.TriggerID, ResultID: ev.ResultID,
		Mode: string(ev.Mode), Action: snap.Action, RawPE: ev.RawPe, EffectivePE: ev.EffectivePe, Contradiction: ev.Contradiction,
		Blocked: ev.Blocked, AppliedAt: ev.AppliedAt, RolledBackAt: ev.RolledBackAt,
	}, Plan: snap.Plan, Changed: []string{}}
	if ev.RollbackReason != nil {
		out.RollbackNote = *ev.RollbackReason
	}
	out.TriggerContent = snap.Trigger
	if ev.NewContent != nil {
		out.LoggedContent = *ev.NewContent
	}
	if len(snap.Link) > 0 && string(snap.Link) != "null" {
		out.Link = snap.Link
	}
	r := snap.Row
	out.Before = MemoryState{
		Content: r.Content, Metadata: r.Metadata, SourceIDs: nonNil(r.SourceIDs), Stability: r.Stability,
		ConfAlpha: r.ConfAlpha, ConfBeta: r.ConfBeta, Confidence: r.Confidence, UpdatedAt: r.UpdatedAt, Embedded: len(r.Embedding) > 0,
	}
	m, err := tenantRead(ctx, c, tenant, func(q *db.Queries) (db.ZbMemory, error) {
		return q.MemoryGetByID(ctx, db.MemoryGetByIDParams{TenantID: tenant, ID: ev.MemoryID})
	})
	switch {
	case isNoRows(err):
		return out, nil
	case err != nil:
		return nil, interpretError(fmt.Sprintf("reading memory %d", ev.MemoryID), err)
	}
	after := MemoryState{
		Content: m.Content, Metadata: m.Metadata, SourceIDs: nonNil(m.SourceIDs), Stability: m.Stability,
		ConfAlpha: m.ConfAlpha, ConfBeta: m.ConfBeta, Confidence: m.Confidence, UpdatedAt: m.UpdatedAt, Embedded: m.Embedding != nil,
	}
	out.After = &after
	b := out.Before
	for _, f := range []struct {
		name string
		diff bool
	}{
		{"content", b.Content != after.Content},
		{"metadata", !jsonEqual(b.Metadata, after.Metadata)},
		{"source_ids", !slices.Equal(b.SourceIDs, after.SourceIDs)},
		{"stability", !ptrEqual(b.Stability, after.Stability)},
		{"confidence", b.ConfAlpha != after.ConfAlpha || b.ConfBeta != after.ConfBeta || b.Confidence != after.Confidence},
		{"embedding", b.Embedded != after.Embedded},
		{"updated_at", !b.UpdatedAt.Equal(after.UpdatedAt)},
	} {
		if f.diff {
			out.Changed = append(out.Changed, f.name)
		}
	}
	return out, nil
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

func ptrEqual[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
