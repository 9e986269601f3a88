package coordinator

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/algorithms/forgetting"
	"github.com/zenbrain/zb/algorithms/retrieval"
	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/jobs"
	"github.com/zenbrain/zb/pma"
)

// StoreLockTimeout bounds how long a store waits for a row lock it needs (the session row,
// a core label, working slots) before it fails with ErrConflict. Store never waits on the
// rows a sleep or decay run locks: older facts it would supersede are skipped when locked and
// re-checked by the derive job.
const StoreLockTimeout = 2 * time.Second

// StoreInput is one memory to store.
type StoreInput struct {
	// TenantID is the tenant; it is created on first use. Required.
	TenantID string
	// Content is the memory's text: valid UTF-8 without NUL bytes, not blank, at most
	// Config.MaxContentBytes. Required.
	Content string
	// Layer forces the layer. Empty routes by content (see DefaultRoutes). LayerCore needs
	// CoreLabel; LayerWorking needs SessionID.
	Layer Layer
	// Kind forces the kind (fact, episode, interaction, skill, identity, schema, hypothesis,
	// focus, entity_link, counterfactual). Empty means the route's kind.
	Kind string
	// Context is the domain (personal, work, ...). Defaults to DefaultContext.
	Context string
	// SessionID is the session the memory belongs to; the session is created or touched.
	// Without an explicit layer a memory with a session is a short-term interaction.
	SessionID *uuid.UUID
	// OccurredAt is the event time; relative dates in Content resolve against it (or against
	// the store time when nil). It is a temporal anchor for routing.
	OccurredAt *time.Time
	// ExternalID is a caller's unique id for the memory (unique per tenant), e.g. a dia_id.
	ExternalID string
	// CoreLabel stores a core memory by label: an upsert, never a silent collision.
	CoreLabel string
	// Metadata is stored as a JSON object.
	Metadata map[string]any
	// SourceIDs are the memories this one derives from (provenance).
	SourceIDs []int64
	// Importance in [0, 1]. 0 means 0.5.
	Importance float64
	// Relevance in (0, 1] of a working-memory item. 0 means 1.
	Relevance float64
	// Embedding is a precomputed embedding of the install's dimension; nil embeds with
	// Config.Embedder (unless deferred).
	Embedding []float32
	// EmbeddingModel names the model of Embedding. Defaults to "external".
	EmbeddingModel string
	// AIGenerated marks derived content.
	AIGenerated bool
	// Skill is the structure of a procedural memory (trigger, steps, tools).
	Skill *Skill
}

// Skill is the structure of a procedural memory.
type Skill struct {
	// Trigger is when the skill applies.
	Trigger string
	// Steps are the steps in order.
	Steps []string
	// Tools are the tools it uses.
	Tools []string
}

// Store outcomes.
const (
	// OutcomeCreated means a new memory was written.
	OutcomeCreated = "created"
	// OutcomeUpdated means a core memory's value under an existing label changed.
	OutcomeUpdated = "updated"
	// OutcomeUnchanged means a core memory already held this value.
	OutcomeUnchanged = "unchanged"
)

// StoreResult describes a stored memory.
type StoreResult struct {
	// ID is the memory's id.
	ID int64
	// Layer and Kind are where it was stored.
	Layer Layer
	Kind  string
	// Route names the decision: "explicit", "core_label", "session", a Route's name, or
	// "default_fact".
	Route string
	// Outcome is OutcomeCreated, OutcomeUpdated or OutcomeUnchanged.
	Outcome string
	// Fact is the subject/attribute fact extracted from a semantic memory, if any.
	Fact *Fact
	// Superseded lists older facts whose validity this one ended.
	Superseded []int64
	// SupersededBy is set when an existing newer fact makes this one historical at once.
	SupersededBy int64
	// Evicted is the working-memory item moved to short-term to make room (0 if none).
	Evicted int64
	// Dates are the date expressions in the content, resolved against the memory's time.
	Dates []retrieval.DateRef
	// Embedded reports whether the memory was embedded inline.
	Embedded bool
	// ApprovalID is the queued approval request when Outcome is OutcomePendingApproval.
	ApprovalID int64
}

// prepared is a validated memory with everything computed outside the transaction.
type prepared struct {
	in        StoreInput
	now       time.Time
	layer     Layer
	kind      string
	route     string
	context   string
	metadata  []byte
	terms     []string
	valence   float64
	arousal   float64
	signif    float64
	mEmo      float64
	import_   float64
	priority  float64
	stability *float64
	fadeAt    *time.Time
	eventFrom *time.Time
	eventTo   *time.Time
	validFrom *time.Time
	fact      *Fact
	dates     []retrieval.DateRef
	embedding []float32
	model     string
}

func (c *Coordinator) prepare(in StoreInput, now time.Time) (*prepared, error) {
	if err := checkTenant(in.TenantID); err != nil {
		return nil, err
	}
	if err := checkText(in.Content, c.cfg.MaxContentBytes); err != nil {
		return nil, err
	}
	p := &prepared{in: in, now: now, context: cmp.Or(in.Context, DefaultContext)}
	if err := checkContext(p.context); err != nil {
		return nil, err
	}
	if in.Layer != "" && !in.Layer.Valid() {
		return nil, fmt.Errorf("%w: %q", ErrUnknownLayer, truncate(string(in.Layer), 40))
	}
	if in.Kind != "" && !validKinds[in.Kind] {
		return nil, fmt.Errorf("%w: unknown kind %q", ErrInvalidInput, truncate(in.Kind, 40))
	}
	if in.CoreLabel != "" {
		if err := checkText(in.CoreLabel, labelMax); err != nil {
			return nil, fmt.Errorf("%w: core label: %w", ErrInvalidInput, err)
		}
		if in.Layer != "" && in.Layer != LayerCore {
			return nil, fmt.Errorf("%w: a core label needs layer core, not %s", ErrInvalidInput, in.Layer)
		}
	}
	if in.Layer == LayerCore && in.CoreLabel == "" {
		return nil, fmt.Errorf("%w: layer core needs a CoreLabel", ErrInvalidInput)
	}
	if in.Layer == LayerWorking && in.SessionID == nil {
		return nil, fmt.Errorf("%w: layer working needs a SessionID", ErrInvalidInput)
	}
	if in.ExternalID != "" {
		if err := checkText(in.ExternalID, 512); err != nil {
			return nil, fmt.Errorf("%w: external id: %w", ErrInvalidInput, err)
		}
	}
	if in.OccurredAt != nil && (in.OccurredAt.Year() < 1 || in.OccurredAt.Year() > 9999) {
		return nil, fmt.Errorf("%w: OccurredAt out of range", ErrInvalidInput)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"Importance", in.Importance}, {"Relevance", in.Relevance}} {
		if math.IsNaN(f.v) || f.v < 0 || f.v > 1 {
			return nil, fmt.Errorf("%w: %s must be in [0, 1], got %v", ErrInvalidInput, f.name, f.v)
		}
	}
	for _, id := range in.SourceIDs {
		if id <= 0 {
			return nil, fmt.Errorf("%w: source id %d", ErrInvalidInput, id)
		}
	}
	if err := checkStoreLimits(in); err != nil {
		return nil, err
	}
	if in.Skill != nil {
		for _, s := range append(append([]string{in.Skill.Trigger}, in.Skill.Steps...), in.Skill.Tools...) {
			if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
				return nil, fmt.Errorf("%w: skill: %w", ErrInvalidInput, ErrInvalidUTF8)
			}
		}
	}
	if in.EmbeddingModel != "" {
		if err := checkText(in.EmbeddingModel, 200); err != nil {
			return nil, fmt.Errorf("%w: embedding model: %w", ErrInvalidInput, err)
		}
	}

	// Emotion, dates, routing.
	tag, err := c.tagger.Tag(in.Content)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidInput, err)
	}
	p.valence, p.arousal, p.signif, p.mEmo = tag.Valence, tag.Arousal, tag.Significance, tag.DecayMultiplier
	memTime := now
	if in.OccurredAt != nil {
		memTime = *in.OccurredAt
	}
	cls := c.classifier.Classify(in.Content, memTime)
	p.dates = cls.Dates
	if cls.Range != nil {
		// A span that PostgreSQL cannot hold (wholly before 4713 BC) is left out.
		if from, to := clampPGTime(cls.Range.From), clampPGTime(cls.Range.To); to.After(from) {
			p.eventFrom, p.eventTo = &from, &to
		}
	}
	switch {
	case in.Layer != "":
		p.layer, p.route = in.Layer, "explicit"
	case in.CoreLabel != "":
		p.layer, p.route = LayerCore, "core_label"
	case in.SessionID != nil:
		p.layer, p.route = LayerShortTerm, "session"
	default:
		emo := max(math.Abs(tag.Valence), tag.Arousal, tag.Significance)
		r, ok := c.router.route(textproc.Normalize(in.Content), routeSignals{emotion: emo, hasDate: len(cls.Dates) > 0 || in.OccurredAt != nil}, c.cfg.StrongEmotion)
		if ok {
			p.layer, p.kind, p.route = r.Layer, r.Kind, r.Name
		} else {
			p.layer, p.route = LayerSemantic, "default_fact"
		}
	}
	p.kind = cmp.Or(in.Kind, p.kind, DefaultKind(p.layer))
	if p.layer == LayerCore && in.CoreLabel == "" {
		return nil, fmt.Errorf("%w: layer core needs a CoreLabel", ErrInvalidInput)
	}

	// Metadata with the resolved dates.
	md := map[string]any{}
	for k, v := range in.Metadata {
		md[k] = v
	}
	if len(cls.Dates) > 0 {
		ds := make([]map[string]string, 0, len(cls.Dates))
		for _, d := range cls.Dates {
			ds = append(ds, map[string]string{"text": d.Text, "from": d.Range.From.UTC().Format(time.RFC3339), "to": d.Range.To.UTC().Format(time.RFC3339)})
		}
		md["resolved_dates"] = ds
	}
	if p.metadata, err = json.Marshal(md); err != nil {
		return nil, fmt.Errorf("%w: metadata: %w", ErrInvalidInput, err)
	}
	if len(p.metadata) > MaxMetadataBytes {
		return nil, fmt.Errorf("%w: metadata of %d bytes, at most %d", ErrInvalidInput, len(p.metadata), MaxMetadataBytes)
	}

	// Index terms, forgetting state, priority.
	p.terms = textproc.Terms(in.Content, textproc.DetectLang(in.Content))
	if p.layer != LayerCore {
		tr, err := c.forget.NewTrace(forgetting.Layer(p.layer), now, p.mEmo)
		if err != nil {
			return nil, fmt.Errorf("error computing the forgetting trace: %w", err)
		}
		s := tr.Stability.Hours() / 24
		p.stability = &s
		if fa, ok, err := tr.FadeAt(forgetting.ArchiveThreshold); err == nil && ok {
			p.fadeAt = &fa
		}
	}
	p.import_ = in.Importance
	if p.import_ == 0 {
		p.import_ = 0.5
	}
	pr, err := c.priority.Score(pma.PriorityInput{Salience: p.arousal, Valence: p.valence, Relevance: p.import_, Goal: p.signif}, pma.BaselineLevels())
	if err != nil {
		return nil, fmt.Errorf("error computing the priority: %w", err)
	}
	p.priority = pr.Score
	if p.layer == LayerSemantic {
		vf := memTime
		p.validFrom = &vf
		if f, ok := c.facts.extract(in.Content); ok {
			p.fact = &f
		}
	}
	if in.Embedding != nil {
		p.embedding = in.Embedding
		p.model = cmp.Or(in.EmbeddingModel, "external")
	}
	return p, nil
}

// embedPrepared fills the embeddings of ps that have none, in batches, and validates all.
func (c *Coordinator) embedPrepared(ctx context.Context, ps []*prepared) error {
	dim, err := c.embeddingDim(ctx)
	if err != nil {
		return err
	}
	var todo []*prepared
	for _, p := range ps {
		if p.embedding != nil {
			if err := checkEmbedding(p.embedding, dim); err != nil {
				return err
			}
		} else if c.cfg.Embedder != nil && !c.cfg.DeferEmbedding {
			todo = append(todo, p)
		}
	}
	for start := 0; start < len(todo); start += c.cfg.EmbedBatchSize {
		batch := todo[start:min(start+c.cfg.EmbedBatchSize, len(todo))]
		texts := make([]string, len(batch))
		for i, p := range batch {
			texts[i] = p.in.Content
		}
		vs, err := c.cfg.Embedder.Embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("error embedding content: %w", err)
		}
		if len(vs) != len(batch) {
			return fmt.Errorf("%w: the embedder returned %d embeddings for %d texts", ErrDimensionMismatch, len(vs), len(batch))
		}
		for i, p := range batch {
			if err := checkEmbedding(vs[i], dim); err != nil {
				return fmt.Errorf("embedder output: %w", err)
			}
			p.embedding, p.model = vs[i], c.cfg.Embedder.Model()
		}
	}
	return nil
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Store routes and writes one memory and queues its derivation in the same transaction.
// See the package documentation for the routing table and each layer's rules.
func (c *Coordinator) Store(ctx context.Context, in StoreInput) (*StoreResult, error) {
	now := c.clock.Now()
	p, err := c.prepare(in, now)
	if err != nil {
		return nil, err
	}
	if err := c.embedPrepared(ctx, []*prepared{p}); err != nil {
		return nil, err
	}
	res := &StoreResult{
		Layer: p.layer, Kind: p.kind, Route: p.route, Outcome: OutcomeCreated, Fact: p.fact,
		Dates: p.dates, Embedded: p.embedding != nil,
	}
	err = c.pipelinedTx(ctx, in.TenantID, txPrelude{lockTimeout: StoreLockTimeout, ensureTenant: true}, func(pt *pipeTx) error {
		q := c.q.WithTx(pt)
		if in.SessionID != nil {
			if err := pt.Later(func() error {
				return q.SessionTouch(ctx, db.SessionTouchParams{TenantID: in.TenantID, ID: *in.SessionID, Context: p.context, Now: now})
			}); err != nil {
				return err
			}
		}
		if p.layer == LayerCore {
			return c.storeCore(ctx, pt, q, p, res)
		}
		return c.storeNew(ctx, pt, q, p, res)
	})
	if err != nil {
		return nil, interpretError("storing memory", err)
	}
	return res, nil
}

func (c *Coordinator) insertParams(p *prepared) db.MemoryStoreParams {
	var sess *uuid.UUID
	if p.in.SessionID != nil {
		s := *p.in.SessionID
		sess = &s
	}
	var subj, attr *string
	if p.fact != nil {
		subj, attr = &p.fact.Subject, &p.fact.Attribute
	}
	return db.MemoryStoreParams{
		TenantID: p.in.TenantID, Context: p.context, Layer: string(p.layer), Kind: p.kind, Content: p.in.Content,
		SessionID: sess, ExternalID: strPtr(p.in.ExternalID), CoreLabel: strPtr(p.in.CoreLabel), Subject: subj,
		Attribute: attr, OccurredAt: p.in.OccurredAt, Now: p.now, SourceIDs: nonNil(p.in.SourceIDs),
		Metadata: p.metadata, Valence: float32(p.valence), Arousal: float32(p.arousal), Significance: float32(p.signif),
		Importance: float32(p.import_), Priority: float32(p.priority), Stability: p.stability, FadeAt: p.fadeAt,
		AiGenerated: p.in.AIGenerated, Terms: nonNil(p.terms), TermCount: int32(len(p.terms)),
		EventFrom: p.eventFrom, EventTo: p.eventTo, ValidFrom: p.validFrom, Embedding: toVector(p.embedding),
		EmbeddingModel: strPtr(p.model),
	}
}

// storeNew inserts a new memory with its triple copies, procedure and audit row in one
// statement (MemoryStore). A plain store — no fact to supersede, not working memory — is one
// round trip: BEGIN with the tenant binding, the INSERT and COMMIT (pipeTx.Final). A fact first
// reads and locks its older versions; working memory places itself among the session's items
// and writes its audit row (with its evictions) with COMMIT. The memory's derivation is queued
// by the INSERT's triggers.
func (c *Coordinator) storeNew(ctx context.Context, pt *pipeTx, q *db.Queries, p *prepared, res *StoreResult) error {
	params := c.insertParams(p)
	recheck := false

	// Bi-temporal supersession: lock the live facts about the same subject and attribute
	// (skipping those a sleep or decay run holds), decide before inserting.
	var older []db.MemorySupersedableRow
	if p.fact != nil {
		rows, err := q.MemorySupersedable(ctx, db.MemorySupersedableParams{TenantID: p.in.TenantID, Subject: p.fact.Subject, Attribute: p.fact.Attribute})
		if err != nil {
			return err
		}
		total, err := q.MemorySupersedableCount(ctx, db.MemorySupersedableCountParams{TenantID: p.in.TenantID, Subject: p.fact.Subject, Attribute: p.fact.Attribute})
		if err != nil {
			return err
		}
		recheck = total > int64(len(rows))
		newFrom := *p.validFrom
		for _, o := range rows {
			from := o.CreatedAt
			if o.ValidFrom != nil {
				from = *o.ValidFrom
			}
			if from.After(newFrom) {
				// A newer fact already exists: this one is historical at once.
				if params.ValidTo == nil || from.Before(*params.ValidTo) {
					f, id := from, o.ID
					params.ValidTo, params.SupersededBy = &f, &id
				}
				continue
			}
			older = append(older, o)
		}
	}
	// What the INSERT writes with the memory (MemoryStore): the triple copies, the procedure
	// and — but for working memory, whose evictions are known only after it — the audit row.
	// The copies are written unless the tenant switched triple_copy off (checked by the
	// statement).
	tc, err := c.triple.Store("new memory", max(p.priority, 0.01), p.now)
	if err != nil {
		return err
	}
	cfg := pma.TripleCopyConfig{}
	cfg = *cfg.WithDefaults()
	params.Copies, params.Strengths = []string{"fast", "medium"}, []float64{tc.FastStrength, tc.MediumStrength}
	params.Taus = []float64{cfg.TauFast.Seconds(), cfg.TauMedium.Seconds()}
	if p.layer == LayerProcedural || p.in.Skill != nil {
		sk := p.in.Skill
		if sk == nil {
			sk = &Skill{}
		}
		params.WithProcedure, params.TriggerText, params.Steps, params.Tools = true, sk.Trigger, nonNil(sk.Steps), nonNil(sk.Tools)
	}
	if params.ValidTo == nil {
		// Every older fact is superseded (below) unless the new one is itself historical.
		for _, o := range older {
			res.Superseded = append(res.Superseded, o.ID)
		}
	}
	storeDetail := func() []byte {
		d, _ := json.Marshal(map[string]any{
			"layer": p.layer, "kind": p.kind, "route": p.route, "bytes": len(p.in.Content),
			"superseded": res.Superseded, "evicted": res.Evicted,
		})
		return d
	}
	params.Actor = c.cfg.Actor
	if p.layer != LayerWorking {
		params.Detail = storeDetail()
	}
	insert := func() error {
		id, err := q.MemoryStore(ctx, params)
		res.ID = id
		return err
	}
	if p.fact == nil && p.layer != LayerWorking {
		// Nothing else to write: BEGIN, the INSERT and COMMIT in one round trip. The INSERT's
		// triggers queue the memory's derivation (see below).
		return pt.Final(insert)
	}
	if err := insert(); err != nil {
		return err
	}
	id := res.ID
	if params.SupersededBy != nil {
		res.SupersededBy = *params.SupersededBy
	}
	for _, o := range older {
		if params.ValidTo != nil {
			break // the new fact is itself historical; the newer one already ended the older ones
		}
		validTo := *p.validFrom
		if o.ValidFrom != nil && !validTo.After(*o.ValidFrom) {
			validTo = o.ValidFrom.Add(time.Microsecond) // stated at the same instant: the later store wins
		}
		if _, err := q.MemorySupersede(ctx, db.MemorySupersedeParams{TenantID: p.in.TenantID, ID: o.ID, ValidTo: validTo, SupersededBy: id, Now: p.now}); err != nil {
			return err
		}
	}
	if p.layer == LayerWorking {
		ev, err := c.placeWorking(ctx, q, p, id)
		if err != nil {
			return err
		}
		res.Evicted = ev
		detail := storeDetail()
		if err := pt.Later(func() error {
			return q.AuditEventInsert(ctx, db.AuditEventInsertParams{
				TenantID: p.in.TenantID, At: p.now, Actor: c.cfg.Actor,
				Action: "memory.store", MemoryID: &id, Detail: detail,
			})
		}); err != nil {
			return err
		}
	}
	if err := c.neuroOnStore(ctx, q, p.in.TenantID, res, p.now); err != nil {
		return err
	}
	if !recheck {
		// The INSERT's triggers queued the memory for derivation (zb.memory_underived) and
		// notify the worker at COMMIT (zb_memory_inserted, an empty payload), which reads the
		// tenants with underived memories and enqueues one pending-derive job per tenant for a
		// burst of stores; the worker's sweep finds what no notification reached. A job of its own is only needed to re-check the supersession.
		return nil
	}
	// River's insert notification, when it sends one, waits for COMMIT.
	return pt.Later(func() error {
		return c.enqueueDerive(ctx, pt, jobs.DeriveArgs{
			TenantID: p.in.TenantID, MemoryIDs: []int64{id},
			NeedsEmbedding: p.embedding == nil, RecheckSupersede: true,
		})
	})
}

func (c *Coordinator) enqueueDerive(ctx context.Context, tx pgx.Tx, args jobs.DeriveArgs) error {
	_, err := c.river.InsertTx(ctx, tx, args, jobs.DeriveInsertOpts())
	if err != nil {
		return fmt.Errorf("error enqueuing derivation: %w", err)
	}
	return nil
}

func (c *Coordinator) storeCore(ctx context.Context, tx pgx.Tx, q *db.Queries, p *prepared, res *StoreResult) error {
	existing, err := q.MemoryCoreGetByLabel(ctx, db.MemoryCoreGetByLabelParams{TenantID: p.in.TenantID, CoreLabel: p.in.CoreLabel})
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		id, err := q.MemoryStore(ctx, c.insertParams(p))
		if err != nil {
			return err
		}
		res.ID = id
		detail, _ := json.Marshal(map[string]any{"layer": p.layer, "kind": p.kind, "route": p.route, "label": p.in.CoreLabel, "bytes": len(p.in.Content)})
		if err := q.AuditEventInsert(ctx, db.AuditEventInsertParams{
			TenantID: p.in.TenantID, At: p.now, Actor: c.cfg.Actor,
			Action: "memory.store", MemoryID: &id, Detail: detail,
		}); err != nil {
			return err
		}
		return c.enqueueDerive(ctx, tx, jobs.DeriveArgs{TenantID: p.in.TenantID, MemoryIDs: []int64{id}, NeedsEmbedding: p.embedding == nil})
	case err != nil:
		return err
	}
	res.ID = existing.ID
	if existing.Content == p.in.Content {
		res.Outcome = OutcomeUnchanged
		return nil
	}
	if pending, err := c.gateCore(ctx, q, p, existing.ID, res); err != nil || pending {
		return err
	}
	res.Outcome = OutcomeUpdated
	if _, err := q.MemoryCoreUpdate(ctx, db.MemoryCoreUpdateParams{
		TenantID: p.in.TenantID, ID: existing.ID, Content: p.in.Content, Terms: nonNil(p.terms),
		TermCount: int32(len(p.terms)), Metadata: p.metadata, Valence: float32(p.valence), Arousal: float32(p.arousal),
		Significance: float32(p.signif), Importance: float32(p.import_), Priority: float32(p.priority),
		Embedding: toVector(p.embedding), EmbeddingModel: strPtr(p.model), Now: p.now,
	}); err != nil {
		return err
	}
	detail, _ := json.Marshal(map[string]any{"label": p.in.CoreLabel, "old_value": existing.Content, "new_value": p.in.Content})
	if err := q.AuditEventInsert(ctx, db.AuditEventInsertParams{
		TenantID: p.in.TenantID, At: p.now, Actor: c.cfg.Actor,
		Action: "memory.update", MemoryID: &existing.ID, Detail: detail,
	}); err != nil {
		return err
	}
	return c.enqueueDerive(ctx, tx, jobs.DeriveArgs{TenantID: p.in.TenantID, MemoryIDs: []int64{existing.ID}, NeedsEmbedding: p.embedding == nil})
}

// placeWorking puts memory id into a working-memory slot of its session. When all slots are
// taken the slot with the lowest relevance × recency (recency exp(−Δt/τ) since it was last
// touched; ties: the older, then the lower slot) is evicted to short-term. The newcomer is never
// the one evicted: it is not a candidate.
func (c *Coordinator) placeWorking(ctx context.Context, q *db.Queries, p *prepared, id int64) (int64, error) {
	sess := *p.in.SessionID
	slots, err := q.WorkingSlotListForUpdate(ctx, db.WorkingSlotListForUpdateParams{TenantID: p.in.TenantID, SessionID: sess})
	if err != nil {
		return 0, err
	}
	rel := p.in.Relevance
	if rel == 0 {
		rel = 1
	}
	var slot int16
	var evicted int64
	if len(slots) < WorkingSlotsDefault {
		used := map[int16]bool{}
		for _, s := range slots {
			used[s.Slot] = true
		}
		for slot = 1; used[slot]; slot++ {
		}
	} else {
		best, bestScore := -1, math.Inf(1)
		for i, s := range slots {
			score := s.Relevance * math.Exp(-p.now.Sub(s.TouchedAt).Seconds()/c.cfg.WorkingRecencyTau.Seconds())
			if best < 0 || score < bestScore || (score == bestScore && s.TouchedAt.Before(slots[best].TouchedAt)) {
				best, bestScore = i, score
			}
		}
		ev := slots[best]
		if _, err := q.WorkingSlotDelete(ctx, db.WorkingSlotDeleteParams{TenantID: p.in.TenantID, SessionID: sess, Slot: ev.Slot}); err != nil {
			return 0, err
		}
		if _, err := q.MemoryMoveLayer(ctx, db.MemoryMoveLayerParams{
			TenantID: p.in.TenantID, ID: ev.MemoryID,
			Layer: string(LayerShortTerm), Kind: DefaultKind(LayerShortTerm), Now: p.now,
		}); err != nil {
			return 0, err
		}
		slot, evicted = ev.Slot, ev.MemoryID
	}
	return evicted, q.WorkingSlotInsert(ctx, db.WorkingSlotInsertParams{
		TenantID: p.in.TenantID, SessionID: sess,
		Slot: slot, MemoryID: id, Relevance: rel, Now: p.now,
	})
}

// switchSet is a tenant's disabled algorithms (a missing row means enabled).
type switchSet map[string]bool

func (s switchSet) enabled(name string) bool { return !s[name] }

func (c *Coordinator) switches(ctx context.Context, q *db.Queries, tenant string) (switchSet, error) {
	rows, err := q.AlgorithmSwitchListByTenant(ctx, tenant)
	if err != nil {
		return nil, err
	}
	out := switchSet{}
	for _, r := range rows {
		if !r.Enabled {
			out[r.Algorithm] = true
		}
	}
	return out, nil
}

func disabledSet(names []string) switchSet {
	out := switchSet{}
	for _, n := range names {
		out[n] = true
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
