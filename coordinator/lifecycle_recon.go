package coordinator

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/jobs"
	"github.com/zenbrain/zb/pma"
)

// reconRow is the part of a memory row a reconsolidation may change, stored in the event's
// snapshot so Rollback restores it exactly (embedding and derivation state included).
type reconRow struct {
	Content        string          `json:"content"`
	Metadata       json.RawMessage `json:"metadata"`
	SourceIDs      []int64         `json:"source_ids"`
	Stability      *float64        `json:"stability"`
	ConfAlpha      float64         `json:"conf_alpha"`
	ConfBeta       float64         `json:"conf_beta"`
	Confidence     float64         `json:"confidence"`
	UpdatedAt      time.Time       `json:"updated_at"`
	Terms          []string        `json:"terms"`
	TermCount      int32           `json:"term_count"`
	Embedding      []float32       `json:"embedding,omitempty"`
	EmbeddingModel *string         `json:"embedding_model,omitempty"`
	DerivedAt      *time.Time      `json:"derived_at,omitempty"`
	FadeAt         *time.Time      `json:"fade_at,omitempty"`
}

type reconLink struct {
	SourceID int64  `json:"source_id"`
	TargetID int64  `json:"target_id"`
	Relation string `json:"relation"`
}

// reconSnapshot is the jsonb snapshot of a reconsolidation event.
type reconSnapshot struct {
	// Plan is pma's snapshot (the memory as the engine saw it, and the neuromodulator levels).
	Plan pma.Snapshot `json:"plan"`
	// Action is what the plan did.
	Action pma.Mode `json:"action"`
	// Row is the stored row before the event.
	Row reconRow `json:"row"`
	// Link is the memory link the event created, removed on rollback.
	Link *reconLink `json:"link,omitempty"`
	// Trigger is the content of the memory that triggered the event. (The event's new_content
	// is the memory's content as the event left it.)
	Trigger string `json:"trigger,omitempty"`
}

func rowOf(m db.ZbMemory) reconRow {
	r := reconRow{
		Content: m.Content, Metadata: m.Metadata, SourceIDs: nonNil(m.SourceIDs), Stability: m.Stability,
		ConfAlpha: m.ConfAlpha, ConfBeta: m.ConfBeta, Confidence: m.Confidence, UpdatedAt: m.UpdatedAt,
		Terms: nonNil(m.Terms), TermCount: m.TermCount, EmbeddingModel: m.EmbeddingModel, DerivedAt: m.DerivedAt, FadeAt: m.FadeAt,
	}
	if m.Embedding != nil {
		r.Embedding = m.Embedding.Slice()
	}
	return r
}

func (r reconRow) rewrite(tenant string, id int64) db.LcMemoryRewriteParams {
	var emb *pgvector.Vector
	if r.Embedding != nil {
		emb = toVector(r.Embedding)
	}
	md := r.Metadata
	if len(md) == 0 {
		md = json.RawMessage("{}")
	}
	return db.LcMemoryRewriteParams{
		TenantID: tenant, ID: id, Content: r.Content, Metadata: md, SourceIDs: nonNil(r.SourceIDs),
		Stability: r.Stability, ConfAlpha: r.ConfAlpha, ConfBeta: r.ConfBeta, Confidence: r.Confidence, UpdatedAt: r.UpdatedAt,
		Terms: nonNil(r.Terms), TermCount: r.TermCount, Embedding: emb, EmbeddingModel: r.EmbeddingModel,
		DerivedAt: r.DerivedAt, FadeAt: r.FadeAt,
	}
}

// reconsolidate applies reconsolidation when m arrived while a related memory was labile.
func (d *deriver) reconsolidate(m *db.ZbMemory, vec []float32, ents []int64) error {
	ctx, q, c := d.ctx, d.q, d.c
	if n, err := q.LcReconEventsByTrigger(ctx, db.LcReconEventsByTriggerParams{TenantID: d.tenant, TriggerID: m.ID}); err != nil || n > 0 {
		return err
	}
	cands, err := q.LcLabileNear(ctx, db.LcLabileNearParams{TenantID: d.tenant, At: m.CreatedAt, ID: m.ID, Context: m.Context, Query: toVector(vec)})
	if err != nil || len(cands) == 0 {
		return err
	}
	ids := make([]int64, len(cands))
	for i, cd := range cands {
		ids[i] = cd.ID
	}
	ments, err := q.LcMentionsOf(ctx, db.LcMentionsOfParams{TenantID: d.tenant, MemoryIds: ids})
	if err != nil {
		return err
	}
	shared := map[int64]bool{}
	for _, mn := range ments {
		if slices.Contains(ents, mn.EntityID) {
			shared[mn.MemoryID] = true
		}
	}
	var target *db.LcLabileNearRow
	for i, cd := range cands {
		if cd.Cosine >= ReconsolidationMinCosine || shared[cd.ID] {
			target = &cands[i]
			break
		}
	}
	if target == nil {
		return nil
	}
	old, err := q.LcMemoryLockOne(ctx, db.LcMemoryLockOneParams{TenantID: d.tenant, ID: target.ID})
	if err != nil {
		return err
	}
	srcs := make([]string, len(old.SourceIDs))
	for i, s := range old.SourceIDs {
		srcs[i] = strconv.FormatInt(s, 10)
	}
	stab := 0.0
	if old.Stability != nil {
		stab = *old.Stability
	}
	mem := pma.Memory{
		ID: strconv.FormatInt(old.ID, 10), Context: old.Context, Layer: pma.Layer(old.Layer), Content: old.Content,
		Metadata: old.Metadata, SourceIDs: srcs, Stability: stab, ConfidenceAlpha: old.ConfAlpha, ConfidenceBeta: old.ConfBeta,
		UpdatedAt: old.UpdatedAt,
	}
	neuro := d.neuro.levelsAt(m.CreatedAt)
	var lock *pma.Lock
	if d.sw.enabled("stability_protector") {
		sp, err := pma.NewStabilityProtector(nil)
		if err != nil {
			return err
		}
		age := m.CreatedAt.Sub(old.CreatedAt).Hours() / 24
		l, err := sp.Evaluate(mem.ID, pma.StabilityInput{
			AccessCount: int(old.AccessCount), Confidence: lcClamp(old.Confidence, 0, 1),
			AgeDays: max(age, 0), Core: old.Layer == db.ZbMemoryLayerCore,
		}, d.now)
		if err != nil {
			return err
		}
		if err := q.LcStabilityLockUpsert(ctx, db.LcStabilityLockUpsertParams{
			TenantID: d.tenant, MemoryID: old.ID,
			LockLevel: l.Score, Rho: l.Rigidity, Threshold: l.Threshold, Now: d.now,
		}); err != nil {
			return err
		}
		lock = &l
	}
	eng, err := pma.NewReconsolidationEngine(&pma.ReconsolidationConfig{Window: c.cfg.LabilityWindow})
	if err != nil {
		return err
	}
	plan, err := eng.Plan(pma.ReconsolidationInput{
		Window:     pma.LabilityWindow{MemoryID: mem.ID, Context: old.Context, OpenedAt: target.OpenedAt, ClosesAt: target.ClosesAt},
		Memory:     mem,
		NewContent: m.Content, NewSourceIDs: []string{strconv.FormatInt(m.ID, 10)}, Context: m.Context,
		Neuro: neuro, Lock: lock, Now: m.CreatedAt,
	})
	if err != nil {
		return nil // not labile at that time, or text without words: nothing to reconsolidate
	}
	snap := reconSnapshot{Plan: plan.Snapshot, Action: plan.Action, Row: rowOf(old), Trigger: m.Content}
	var resultID *int64
	// The event logs the memory's content as the event leaves it: a mechanism changes a memory
	// only to exactly what it logged.
	content := old.Content
	switch {
	case plan.Update != nil && plan.Action != pma.ModeNoop && plan.Action != pma.ModeNewEpisode:
		u := plan.Update
		w := snap.Row.rewrite(d.tenant, old.ID)
		w.Metadata, w.UpdatedAt = u.Metadata, d.now
		if len(w.Metadata) == 0 {
			w.Metadata = old.Metadata
		}
		w.SourceIDs = []int64{}
		for _, s := range u.SourceIDs {
			if id, ok := parseID(s); ok && !slices.Contains(w.SourceIDs, id) && id != old.ID {
				w.SourceIDs = append(w.SourceIDs, id)
			}
		}
		if old.Stability != nil && u.Stability > 0 {
			s := u.Stability
			w.Stability = &s
			if tr, ok := lcTrace(old.Layer, &s, old.Valence, old.Arousal, old.Significance, old.LastAccessedAt); ok {
				w.FadeAt = lcFadeAt(tr)
			}
		}
		w.ConfAlpha, w.ConfBeta = u.ConfidenceAlpha, u.ConfidenceBeta
		w.Confidence = lcClamp(u.ConfidenceAlpha/(u.ConfidenceAlpha+u.ConfidenceBeta), 0, 1)
		if u.Content != old.Content {
			terms := textproc.Terms(u.Content, textproc.DetectLang(u.Content))
			w.Content, w.Terms, w.TermCount = u.Content, nonNil(terms), int32(len(terms))
			w.Embedding, w.EmbeddingModel, w.DerivedAt = nil, nil, nil
			content = u.Content
		}
		if err := q.LcMemoryRewrite(ctx, w); err != nil {
			return err
		}
		if u.Content != old.Content {
			if err := c.enqueueDerive(ctx, d.tx, jobs.DeriveArgs{TenantID: d.tenant, MemoryIDs: []int64{old.ID}, NeedsEmbedding: true}); err != nil {
				return err
			}
		}
	case plan.Action == pma.ModeNewEpisode:
		// The new memory is the new episode: link it to the old one.
		rel := string(db.ZbEdgeRelationAssociated)
		if plan.Link != nil {
			switch plan.Link.Relation {
			case pma.RelationContradicts:
				rel = string(db.ZbEdgeRelationContradicts)
			case pma.RelationCoOccurs:
				rel = string(db.ZbEdgeRelationCoOccurs)
			}
		}
		n, err := q.LcLinkInsert(ctx, db.LcLinkInsertParams{
			TenantID: d.tenant, SourceID: m.ID, TargetID: old.ID, Relation: rel,
			Weight: 1, Origin: "reconsolidation", Now: d.now,
		})
		if err != nil {
			return err
		}
		if n > 0 {
			snap.Link = &reconLink{SourceID: m.ID, TargetID: old.ID, Relation: rel}
		}
		id := m.ID
		resultID = &id
	}
	trig := m.ID
	ev, err := q.LcReconEventInsert(ctx, db.LcReconEventInsertParams{
		TenantID: d.tenant, MemoryID: old.ID, TriggerID: &trig,
		ResultID: resultID, Mode: string(plan.Mode), RawPe: lcClamp(plan.RawPE, 0, 1.2), EffectivePe: lcClamp(plan.EffectivePE, 0, 3),
		Contradiction: plan.Contradiction.Detected(), Blocked: plan.Blocked, Snapshot: mustJSON(snap), NewContent: &content, Now: d.now,
	})
	if err != nil {
		return err
	}
	d.rep.Reconsolidations++
	switch {
	case plan.Mode == pma.ModeConfirmed:
		d.events = append(d.events, neuroEvent{Type: pma.EventConfirmation, Magnitude: 1, MemoryID: &old.ID})
	case plan.Action != pma.ModeNoop:
		d.events = append(d.events, neuroEvent{Type: pma.EventPredictionError, Magnitude: lcClamp(plan.EffectivePE, 0, 1), MemoryID: &old.ID})
	}
	return c.audit(ctx, q, d.tenant, "memory.reconsolidate", &old.ID, d.now, map[string]any{
		"event_id": ev, "mode": plan.Mode,
		"action": plan.Action, "trigger_id": m.ID, "raw_pe": plan.RawPE, "effective_pe": plan.EffectivePE, "blocked": plan.Blocked,
		"block_reason": plan.BlockReason,
	})
}

// Rollback undoes reconsolidation event eventID of tenant: the memory's row is restored from the
// event's snapshot exactly (content, metadata, sources, stability, confidence, index terms,
// embedding, derivation state, fade time, updated_at), the memory link the event created is
// removed, and the event is marked rolled back (with an audit event). Rolling back a rolled-back
// event changes nothing. An unknown event gives ErrNotFound.
func (c *Coordinator) Rollback(ctx context.Context, tenant string, eventID int64) error {
	if err := checkTenant(tenant); err != nil {
		return err
	}
	now := c.clock.Now()
	err := c.lifecycleTx(ctx, tenant, nil, func(tx pgx.Tx, q *db.Queries) error {
		ev, err := q.LcReconEventGet(ctx, db.LcReconEventGetParams{TenantID: tenant, ID: eventID})
		if err != nil {
			return err
		}
		if ev.RolledBackAt != nil {
			return nil
		}
		var snap reconSnapshot
		if err := json.Unmarshal(ev.Snapshot, &snap); err != nil {
			return fmt.Errorf("error reading the snapshot of reconsolidation event %d: %w", eventID, err)
		}
		if _, err := q.LcMemoryLockOne(ctx, db.LcMemoryLockOneParams{TenantID: tenant, ID: ev.MemoryID}); err != nil {
			return err
		}
		if err := q.LcMemoryRewrite(ctx, snap.Row.rewrite(tenant, ev.MemoryID)); err != nil {
			return err
		}
		if l := snap.Link; l != nil {
			if _, err := q.LcLinkDelete(ctx, db.LcLinkDeleteParams{TenantID: tenant, SourceID: l.SourceID, TargetID: l.TargetID, Relation: l.Relation}); err != nil {
				return err
			}
		}
		at := now
		if at.Before(ev.AppliedAt) {
			at = ev.AppliedAt
		}
		if err := q.LcReconEventRolledBack(ctx, db.LcReconEventRolledBackParams{TenantID: tenant, ID: eventID, Now: at, Reason: "rollback"}); err != nil {
			return err
		}
		return c.audit(ctx, q, tenant, "memory.reconsolidate_rollback", &ev.MemoryID, now, map[string]any{"event_id": eventID})
	})
	return interpretError("rolling back reconsolidation", err)
}
