package coordinator

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/db"
)

// Export format (JSON Lines: one JSON object per line).
//
// The first line is an ExportHeader; then come the tenant's sessions (SessionRecord), entities
// (EntityRecord), memories (MemoryRecord, in id order, with their procedure, FSRS card and triple
// copies), mentions (MentionRecord), entity edges (EdgeRecord), memory links (LinkRecord), and
// the history of the memories: FSRS reviews (ReviewLogRecord), confidence evidence
// (EvidenceRecord) and reconsolidation events with their snapshots (ReconsolidationRecord).
// Records refer to each other by the ids of the exporting database; Import maps them to new
// ids. Every object has a "type" field naming its record type.
const (
	// ExportFormat is the header's "format".
	ExportFormat = "zenbrain-export"
	// ExportVersion is the header's "version"; Import reads versions up to it. Version 2 added
	// the review_log, evidence and reconsolidation records.
	ExportVersion = 2
)

// Record types (the "type" field of each line).
const (
	RecordHeader  = "header"
	RecordSession = "session"
	RecordEntity  = "entity"
	RecordMemory  = "memory"
	RecordMention = "mention"
	RecordEdge    = "edge"
	RecordLink    = "link"
	// RecordReviewLog, RecordEvidence and RecordReconsolidation are the memories' history.
	RecordReviewLog       = "review_log"
	RecordEvidence        = "evidence"
	RecordReconsolidation = "reconsolidation"
)

// exportPage is the number of memories or mentions read per query.
const exportPage = 1000

// ExportCounts counts the records of an export by type.
type ExportCounts struct {
	Sessions int64 `json:"sessions"`
	Entities int64 `json:"entities"`
	Memories int64 `json:"memories"`
	Mentions int64 `json:"mentions"`
	Edges    int64 `json:"edges"`
	Links    int64 `json:"links"`
	// ReviewLogs, Evidence and Reconsolidations count the history records.
	ReviewLogs       int64 `json:"review_logs"`
	Evidence         int64 `json:"evidence"`
	Reconsolidations int64 `json:"reconsolidations"`
}

// Total returns the number of records (the header not counted).
func (n ExportCounts) Total() int64 {
	return n.Sessions + n.Entities + n.Memories + n.Mentions + n.Edges + n.Links + n.ReviewLogs + n.Evidence + n.Reconsolidations
}

// add adds b's counts to n.
func (n *ExportCounts) add(b ExportCounts) {
	n.Sessions += b.Sessions
	n.Entities += b.Entities
	n.Memories += b.Memories
	n.Mentions += b.Mentions
	n.Edges += b.Edges
	n.Links += b.Links
	n.ReviewLogs += b.ReviewLogs
	n.Evidence += b.Evidence
	n.Reconsolidations += b.Reconsolidations
}

// ExportHeader is the first line of an export.
type ExportHeader struct {
	Type    string `json:"type"`
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Tenant is the exported tenant.
	Tenant string `json:"tenant"`
	// Origin names the exporting install and tenant ("<install id>/<tenant>"); with a memory's
	// id it forms the key Import records, so importing the same export twice adds nothing.
	Origin string `json:"origin"`
	// ExportedAt is the time of the export's snapshot.
	ExportedAt time.Time `json:"exported_at"`
	// EmbeddingDim is the exporting install's embedding dimension; EmbeddingModel its active
	// model ("" when none is recorded).
	EmbeddingDim   int    `json:"embedding_dim"`
	EmbeddingModel string `json:"embedding_model,omitempty"`
	// Embeddings reports whether memory records carry their embeddings.
	Embeddings bool `json:"embeddings"`
	// Counts are the numbers of records that follow.
	Counts ExportCounts `json:"counts"`
}

// SessionRecord is one session.
type SessionRecord struct {
	Type           string          `json:"type"`
	ID             uuid.UUID       `json:"id"`
	Context        string          `json:"context,omitempty"`
	StartedAt      time.Time       `json:"started_at"`
	LastActivityAt *time.Time      `json:"last_activity_at,omitempty"`
	EndedAt        *time.Time      `json:"ended_at,omitempty"`
	ConsolidatedAt *time.Time      `json:"consolidated_at,omitempty"`
	Metadata       json.RawMessage `json:"metadata,omitempty"`
}

// EntityRecord is one knowledge-graph node.
type EntityRecord struct {
	Type           string    `json:"type"`
	ID             int64     `json:"id"`
	Context        string    `json:"context,omitempty"`
	Name           string    `json:"name"`
	NormalizedName string    `json:"normalized_name,omitempty"`
	EntityType     string    `json:"entity_type,omitempty"`
	MentionCount   int32     `json:"mention_count"`
	CreatedAt      time.Time `json:"created_at"`
	UpdatedAt      time.Time `json:"updated_at"`
}

// ProcedureRecord is the structure and outcome record of a procedural memory.
type ProcedureRecord struct {
	Trigger      string     `json:"trigger"`
	Steps        []string   `json:"steps"`
	Tools        []string   `json:"tools"`
	SuccessCount int32      `json:"success_count"`
	FailureCount int32      `json:"failure_count"`
	LastOutcome  string     `json:"last_outcome,omitempty"`
	LastUsedAt   *time.Time `json:"last_used_at,omitempty"`
}

// ReviewRecord is the FSRS card of a memory.
type ReviewRecord struct {
	Stability        float64    `json:"stability"`
	Difficulty       float64    `json:"difficulty"`
	Due              time.Time  `json:"due"`
	Reps             int32      `json:"reps"`
	Lapses           int32      `json:"lapses"`
	State            int16      `json:"state"`
	ElapsedDays      int32      `json:"elapsed_days"`
	ScheduledDays    int32      `json:"scheduled_days"`
	LastReview       *time.Time `json:"last_review,omitempty"`
	AccessesAtReview int32      `json:"accesses_at_review"`
}

// CopyRecord is one triple copy (fast, medium or deep) of a memory.
type CopyRecord struct {
	Copy            string    `json:"copy"`
	InitialStrength float64   `json:"initial_strength"`
	TauSeconds      float64   `json:"tau_seconds"`
	CreatedAt       time.Time `json:"created_at"`
}

// MemoryRecord is one memory with its provenance and state. Import requires type, layer,
// content and created_at; absent optional fields take the values Store would give.
type MemoryRecord struct {
	Type string `json:"type"`
	// ID is the memory's id in the exporting database (other records refer to it).
	ID int64 `json:"id,omitempty"`
	// XID is the key Import records the memory under: the key it was itself imported with, else
	// "ext:<external id>", else "<origin>:<id>". Import computes it when absent.
	XID        string     `json:"xid,omitempty"`
	Layer      Layer      `json:"layer"`
	Kind       string     `json:"kind,omitempty"`
	Context    string     `json:"context,omitempty"`
	Content    string     `json:"content"`
	Status     string     `json:"status,omitempty"`
	SessionID  *uuid.UUID `json:"session_id,omitempty"`
	ExternalID string     `json:"external_id,omitempty"`
	CoreLabel  string     `json:"core_label,omitempty"`
	Subject    string     `json:"subject,omitempty"`
	Attribute  string     `json:"attribute,omitempty"`
	OccurredAt *time.Time `json:"occurred_at,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  *time.Time `json:"updated_at,omitempty"`
	DerivedAt  *time.Time `json:"derived_at,omitempty"`
	EventFrom  *time.Time `json:"event_from,omitempty"`
	EventTo    *time.Time `json:"event_to,omitempty"`
	ValidFrom  *time.Time `json:"valid_from,omitempty"`
	ValidTo    *time.Time `json:"valid_to,omitempty"`
	// SupersededBy and SourceIDs are provenance: ids of other memories of the export.
	SupersededBy   int64            `json:"superseded_by,omitempty"`
	SourceIDs      []int64          `json:"source_ids,omitempty"`
	Metadata       json.RawMessage  `json:"metadata,omitempty"`
	AIGenerated    bool             `json:"ai_generated,omitempty"`
	Valence        float64          `json:"valence"`
	Arousal        float64          `json:"arousal"`
	Significance   float64          `json:"significance"`
	Importance     *float64         `json:"importance,omitempty"`
	Priority       *float64         `json:"priority,omitempty"`
	AccessCount    int32            `json:"access_count"`
	LastAccessedAt *time.Time       `json:"last_accessed_at,omitempty"`
	Stability      *float64         `json:"stability,omitempty"`
	Difficulty     *float64         `json:"difficulty,omitempty"`
	FadeAt         *time.Time       `json:"fade_at,omitempty"`
	ValueEstimate  float64          `json:"value_estimate"`
	ConfAlpha      *float64         `json:"conf_alpha,omitempty"`
	ConfBeta       *float64         `json:"conf_beta,omitempty"`
	Confidence     *float64         `json:"confidence,omitempty"`
	EmbeddingModel string           `json:"embedding_model,omitempty"`
	Embedding      []float32        `json:"embedding,omitempty"`
	Procedure      *ProcedureRecord `json:"procedure,omitempty"`
	Review         *ReviewRecord    `json:"review,omitempty"`
	Copies         []CopyRecord     `json:"copies,omitempty"`
}

// MentionRecord says that a memory mentions an entity.
type MentionRecord struct {
	Type      string `json:"type"`
	MemoryID  int64  `json:"memory_id"`
	EntityID  int64  `json:"entity_id"`
	SpanStart *int32 `json:"span_start,omitempty"`
	SpanEnd   *int32 `json:"span_end,omitempty"`
}

// EdgeRecord is one Two-Factor edge between two entities.
type EdgeRecord struct {
	Type            string    `json:"type"`
	SourceID        int64     `json:"source_id"`
	TargetID        int64     `json:"target_id"`
	Relation        string    `json:"relation"`
	Weight          float64   `json:"weight"`
	Variance        float64   `json:"variance"`
	ActivationCount int32     `json:"activation_count"`
	Origin          string    `json:"origin,omitempty"`
	CreatedAt       time.Time `json:"created_at"`
	LastActivatedAt time.Time `json:"last_activated_at"`
}

// LinkRecord is one relation between two memories (supports, contradicts, ...).
type LinkRecord struct {
	Type      string    `json:"type"`
	SourceID  int64     `json:"source_id"`
	TargetID  int64     `json:"target_id"`
	Relation  string    `json:"relation"`
	Weight    float64   `json:"weight"`
	Origin    string    `json:"origin,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// ReviewLogRecord is one FSRS review of a memory (zb.review_log).
type ReviewLogRecord struct {
	Type string `json:"type"`
	// ID is the review's id in the exporting database (provenance); MemoryID the memory's.
	ID           int64     `json:"id,omitempty"`
	MemoryID     int64     `json:"memory_id"`
	Grade        int16     `json:"grade"`
	ReviewedAt   time.Time `json:"reviewed_at"`
	StateBefore  int16     `json:"state_before"`
	IntervalDays float64   `json:"interval_days"`
	VmpfcPE      *float64  `json:"vmpfc_pe,omitempty"`
	Multiplier   *float64  `json:"multiplier,omitempty"`
}

// EvidenceRecord is one piece of confidence evidence on a memory (zb.confidence_evidence): its
// kind (confirm, contradict, prior, propagated), weight, source and the memory it came from.
type EvidenceRecord struct {
	Type           string    `json:"type"`
	ID             int64     `json:"id,omitempty"`
	MemoryID       int64     `json:"memory_id"`
	Kind           string    `json:"kind"`
	Weight         float64   `json:"weight"`
	Source         string    `json:"source,omitempty"`
	SourceMemoryID int64     `json:"source_memory_id,omitempty"`
	CreatedAt      time.Time `json:"created_at"`
}

// ReconsolidationRecord is one reconsolidation event of a memory (zb.reconsolidation_event): the
// memory that triggered it and the one it produced, the mode and prediction errors, the
// snapshot of the memory before (which Rollback restores) and whether it was rolled back.
type ReconsolidationRecord struct {
	Type           string          `json:"type"`
	ID             int64           `json:"id,omitempty"`
	MemoryID       int64           `json:"memory_id"`
	TriggerID      int64           `json:"trigger_id,omitempty"`
	ResultID       int64           `json:"result_id,omitempty"`
	Mode           string          `json:"mode"`
	RawPE          float64         `json:"raw_pe"`
	EffectivePE    float64         `json:"effective_pe"`
	Contradiction  bool            `json:"contradiction,omitempty"`
	Blocked        bool            `json:"blocked,omitempty"`
	Snapshot       json.RawMessage `json:"snapshot"`
	NewContent     *string         `json:"new_content,omitempty"`
	AppliedAt      time.Time       `json:"applied_at"`
	RolledBackAt   *time.Time      `json:"rolled_back_at,omitempty"`
	RollbackReason *string         `json:"rollback_reason,omitempty"`
}

// ExportOpts are the options of Export; nil means all defaults.
type ExportOpts struct {
	// Embeddings includes every memory's embedding (large: dimension × ~10 bytes per memory).
	// Without them an import embeds the memories again with the importing side's embedder.
	Embeddings bool
	// Progress, when set, is called with the records written so far and the total, after the
	// header and after every page of records.
	Progress func(done, total int64)
}

// ExportReport describes a finished export.
type ExportReport struct {
	// Tenant is the exported tenant; Origin the header's origin.
	Tenant string `json:"tenant"`
	Origin string `json:"origin"`
	// Counts are the records written by type.
	Counts ExportCounts `json:"counts"`
	// Bytes is the size of the output.
	Bytes int64 `json:"bytes"`
	// Embeddings reports whether the memories carry their embeddings.
	Embeddings bool `json:"embeddings"`
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Export writes a tenant's memories as JSON Lines to w (the format is described at ExportFormat):
// every memory that is not erased with its layer, kind, context, status, timestamps, validity,
// confidence, emotional tags, forgetting state, provenance (source ids, superseded_by, external
// id, session, metadata, ai_generated), core label, procedure, FSRS card and triple copies; the
// sessions, entities, mentions, entity edges and memory links; the memories' FSRS review log,
// confidence evidence and reconsolidation events (with their snapshots). It reads one consistent snapshot
// (a repeatable-read transaction) and records an audit event "tenant.export" with the counts in
// the same transaction, which commits only when everything was written. An unknown tenant gives
// ErrNotFound.
func (c *Coordinator) Export(ctx context.Context, tenant string, w io.Writer, opts *ExportOpts) (*ExportReport, error) {
	if opts == nil {
		opts = &ExportOpts{}
	}
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	if w == nil {
		return nil, fmt.Errorf("%w: nil writer", ErrInvalidInput)
	}
	now := c.clock.Now()
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	rep := &ExportReport{Tenant: tenant, Embeddings: opts.Embeddings}
	var done, total int64
	progress := func(n int64) {
		done += n
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	}
	err := c.beginTenantTx(ctx, tenant, pgx.TxOptions{IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		if _, err := q.TenantGetByID(ctx, tenant); err != nil {
			return fmt.Errorf("tenant %q: %w", tenant, err)
		}
		cnt, err := q.ExportCounts(ctx, tenant)
		if err != nil {
			return err
		}
		rep.Counts = ExportCounts{
			Sessions: cnt.Sessions, Entities: cnt.Entities, Memories: cnt.Memories,
			Mentions: cnt.Mentions, Edges: cnt.Edges, Links: cnt.Links, ReviewLogs: cnt.ReviewLogs, Evidence: cnt.Evidence,
			Reconsolidations: cnt.Reconsolidations,
		}
		total = rep.Counts.Total()
		install, err := q.ConfigGet(ctx, "install_id")
		if err != nil {
			return fmt.Errorf("reading the install id (is the database migrated to 0010?): %w", err)
		}
		dimText, err := q.ConfigGet(ctx, "embedding_dim")
		if err != nil {
			return err
		}
		dim, _ := strconv.Atoi(dimText)
		active, err := q.ConfigGet(ctx, ConfigEmbeddingModel)
		if err != nil && !isNoRows(err) {
			return err
		}
		rep.Origin = install + "/" + tenant
		if err := enc.Encode(ExportHeader{
			Type: RecordHeader, Format: ExportFormat, Version: ExportVersion, Tenant: tenant,
			Origin: rep.Origin, ExportedAt: now.UTC(), EmbeddingDim: dim, EmbeddingModel: active, Embeddings: opts.Embeddings,
			Counts: rep.Counts,
		}); err != nil {
			return err
		}
		progress(0)

		sessions, err := q.ExportSessions(ctx, tenant)
		if err != nil {
			return err
		}
		for _, s := range sessions {
			la := s.LastActivityAt
			if err := enc.Encode(SessionRecord{
				Type: RecordSession, ID: s.ID, Context: s.Context, StartedAt: s.StartedAt,
				LastActivityAt: &la, EndedAt: s.EndedAt, ConsolidatedAt: s.ConsolidatedAt, Metadata: s.Metadata,
			}); err != nil {
				return err
			}
		}
		progress(int64(len(sessions)))

		ents, err := q.ExportEntities(ctx, tenant)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if err := enc.Encode(EntityRecord{
				Type: RecordEntity, ID: e.ID, Context: e.Context, Name: e.Name,
				NormalizedName: e.NormalizedName, EntityType: e.Type, MentionCount: e.MentionCount, CreatedAt: e.CreatedAt,
				UpdatedAt: e.UpdatedAt,
			}); err != nil {
				return err
			}
		}
		progress(int64(len(ents)))

		for after := int64(0); ; {
			page, err := q.ExportMemoryPage(ctx, db.ExportMemoryPageParams{
				TenantID: tenant, AfterID: after, K: exportPage,
				WithEmbeddings: opts.Embeddings,
			})
			if err != nil {
				return err
			}
			for i := range page {
				if err := enc.Encode(memoryRecordOf(&page[i], rep.Origin)); err != nil {
					return err
				}
			}
			progress(int64(len(page)))
			if len(page) < exportPage {
				break
			}
			after = page[len(page)-1].ID
		}

		for am, ae := int64(0), int64(0); ; {
			page, err := q.ExportMentionPage(ctx, db.ExportMentionPageParams{TenantID: tenant, AfterMemory: am, AfterEntity: ae, K: exportPage})
			if err != nil {
				return err
			}
			for _, m := range page {
				if err := enc.Encode(MentionRecord{
					Type: RecordMention, MemoryID: m.MemoryID, EntityID: m.EntityID,
					SpanStart: m.SpanStart, SpanEnd: m.SpanEnd,
				}); err != nil {
					return err
				}
			}
			progress(int64(len(page)))
			if len(page) < exportPage {
				break
			}
			am, ae = page[len(page)-1].MemoryID, page[len(page)-1].EntityID
		}

		edges, err := q.ExportEdges(ctx, tenant)
		if err != nil {
			return err
		}
		for _, e := range edges {
			if err := enc.Encode(EdgeRecord{
				Type: RecordEdge, SourceID: e.SourceID, TargetID: e.TargetID, Relation: string(e.Relation),
				Weight: e.Weight, Variance: e.Variance, ActivationCount: e.ActivationCount, Origin: e.Origin, CreatedAt: e.CreatedAt,
				LastActivatedAt: e.LastActivatedAt,
			}); err != nil {
				return err
			}
		}
		progress(int64(len(edges)))

		links, err := q.ExportLinks(ctx, tenant)
		if err != nil {
			return err
		}
		for _, l := range links {
			if err := enc.Encode(LinkRecord{
				Type: RecordLink, SourceID: l.SourceID, TargetID: l.TargetID, Relation: string(l.Relation),
				Weight: l.Weight, Origin: l.Origin, CreatedAt: l.CreatedAt,
			}); err != nil {
				return err
			}
		}
		progress(int64(len(links)))

		reviews, err := q.ExportReviewLogs(ctx, tenant)
		if err != nil {
			return err
		}
		for _, r := range reviews {
			if err := enc.Encode(ReviewLogRecord{
				Type: RecordReviewLog, ID: r.ID, MemoryID: r.MemoryID, Grade: r.Grade,
				ReviewedAt: r.ReviewedAt, StateBefore: r.StateBefore, IntervalDays: r.IntervalDays, VmpfcPE: r.VmpfcPe,
				Multiplier: r.Multiplier,
			}); err != nil {
				return err
			}
		}
		progress(int64(len(reviews)))

		evidence, err := q.ExportEvidence(ctx, tenant)
		if err != nil {
			return err
		}
		for _, v := range evidence {
			if err := enc.Encode(EvidenceRecord{
				Type: RecordEvidence, ID: v.ID, MemoryID: v.MemoryID, Kind: v.Kind, Weight: v.Weight,
				Source: v.Source, SourceMemoryID: deref(v.SourceMemoryID), CreatedAt: v.CreatedAt,
			}); err != nil {
				return err
			}
		}
		progress(int64(len(evidence)))

		recons, err := q.ExportReconsolidations(ctx, tenant)
		if err != nil {
			return err
		}
		for _, e := range recons {
			if err := enc.Encode(ReconsolidationRecord{
				Type: RecordReconsolidation, ID: e.ID, MemoryID: e.MemoryID,
				TriggerID: deref(e.TriggerID), ResultID: deref(e.ResultID), Mode: string(e.Mode), RawPE: e.RawPe,
				EffectivePE: e.EffectivePe, Contradiction: e.Contradiction, Blocked: e.Blocked, Snapshot: e.Snapshot,
				NewContent: e.NewContent, AppliedAt: e.AppliedAt, RolledBackAt: e.RolledBackAt,
				RollbackReason: e.RollbackReason,
			}); err != nil {
				return err
			}
		}
		progress(int64(len(recons)))
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("error writing the export: %w", err)
		}
		return c.audit(ctx, q, tenant, "tenant.export", nil, now, map[string]any{
			"counts":     rep.Counts,
			"embeddings": opts.Embeddings, "bytes": cw.n, "origin": rep.Origin,
		})
	})
	if err != nil {
		return nil, interpretError(fmt.Sprintf("exporting tenant %s", tenant), err)
	}
	rep.Bytes = cw.n
	return rep, nil
}

// memoryXID is the key of an exported memory: the key it was imported under, else its external
// id, else origin and id.
func memoryXID(importXID, externalID, origin string, id int64) string {
	switch {
	case importXID != "":
		return importXID
	case externalID != "":
		return "ext:" + externalID
	default:
		return origin + ":" + strconv.FormatInt(id, 10)
	}
}

func memoryRecordOf(m *db.ExportMemoryPageRow, origin string) MemoryRecord {
	f := func(x float32) float64 { return float64(x) }
	imp, pri, dif, ca, cb, conf := f(m.Importance), f(m.Priority), m.Difficulty, m.ConfAlpha, m.ConfBeta, m.Confidence
	upd, last := m.UpdatedAt, m.LastAccessedAt
	r := MemoryRecord{
		Type: RecordMemory, ID: m.ID, Layer: Layer(m.Layer), Kind: m.Kind, Context: m.Context,
		Content: m.Content, Status: string(m.Status), SessionID: m.SessionID, OccurredAt: m.OccurredAt, CreatedAt: m.CreatedAt,
		UpdatedAt: &upd, DerivedAt: m.DerivedAt, EventFrom: m.EventFrom, EventTo: m.EventTo, ValidFrom: m.ValidFrom,
		ValidTo: m.ValidTo, SourceIDs: m.SourceIDs, Metadata: m.Metadata, AIGenerated: m.AiGenerated, Valence: f(m.Valence),
		Arousal: f(m.Arousal), Significance: f(m.Significance), Importance: &imp, Priority: &pri, AccessCount: m.AccessCount,
		LastAccessedAt: &last, Stability: m.Stability, Difficulty: &dif, FadeAt: m.FadeAt, ValueEstimate: m.ValueEstimate,
		ConfAlpha: &ca, ConfBeta: &cb, Confidence: &conf, Embedding: m.Embedding,
	}
	if m.ExternalID != nil {
		r.ExternalID = *m.ExternalID
	}
	r.XID = memoryXID(m.ImportXid, r.ExternalID, origin, m.ID)
	if m.CoreLabel != nil {
		r.CoreLabel = *m.CoreLabel
	}
	if m.Subject != nil {
		r.Subject = *m.Subject
	}
	if m.Attribute != nil {
		r.Attribute = *m.Attribute
	}
	if m.SupersededBy != nil {
		r.SupersededBy = *m.SupersededBy
	}
	if m.EmbeddingModel != nil && len(m.Embedding) > 0 {
		r.EmbeddingModel = *m.EmbeddingModel
	}
	if m.HasProcedure {
		p := &ProcedureRecord{Steps: nonNil(m.Steps), Tools: nonNil(m.Tools), LastUsedAt: m.LastUsedAt}
		if m.TriggerText != nil {
			p.Trigger = *m.TriggerText
		}
		if m.SuccessCount != nil {
			p.SuccessCount = *m.SuccessCount
		}
		if m.FailureCount != nil {
			p.FailureCount = *m.FailureCount
		}
		if m.LastOutcome != nil {
			p.LastOutcome = *m.LastOutcome
		}
		r.Procedure = p
	}
	if m.HasReview && m.CardDue != nil {
		r.Review = &ReviewRecord{
			Stability: deref(m.CardStability), Difficulty: deref(m.CardDifficulty), Due: *m.CardDue,
			Reps: deref(m.CardReps), Lapses: deref(m.CardLapses), State: deref(m.CardState), ElapsedDays: deref(m.CardElapsedDays),
			ScheduledDays: deref(m.CardScheduledDays), LastReview: m.CardLastReview, AccessesAtReview: deref(m.CardAccessesAtReview),
		}
	}
	for i, name := range m.CopyNames {
		if i < len(m.CopyStrengths) && i < len(m.CopyTaus) && i < len(m.CopyCreated) {
			r.Copies = append(r.Copies, CopyRecord{
				Copy: name, InitialStrength: m.CopyStrengths[i], TauSeconds: m.CopyTaus[i],
				CreatedAt: m.CopyCreated[i],
			})
		}
	}
	return r
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
