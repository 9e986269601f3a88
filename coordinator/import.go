package coordinator

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/zenbrain/zb/algorithms/forgetting"
	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/jobs"
)

// Limits of Import.
const (
	// ImportBatchDefault is the number of records written per transaction when
	// ImportOpts.BatchSize is 0.
	ImportBatchDefault = 500
	// ImportMaxBatch is the largest ImportOpts.BatchSize.
	ImportMaxBatch = 10000
	// ImportMaxLineBytes is the longest line Import reads (content up to 1 MiB, escaped, with
	// an embedding).
	ImportMaxLineBytes = 16 << 20
	// ImportMaxErrors is the number of bad lines an ImportError lists at most.
	ImportMaxErrors = 20
)

// Import phases reported to ImportOpts.Progress.
const (
	// PhaseValidate is the first pass: every line is read and checked, nothing is written.
	PhaseValidate = "validate"
	// PhaseImport is the second pass: the records are written, batch by batch.
	PhaseImport = "import"
)

// ImportOpts are the options of Import; nil means all defaults.
type ImportOpts struct {
	// DryRun validates every line and reports what would be imported; nothing is written.
	DryRun bool
	// BatchSize is the number of records per transaction, in [1, ImportMaxBatch]. 0 means
	// ImportBatchDefault.
	BatchSize int
	// Progress, when set, is called with the phase, the bytes read so far in that phase and the
	// size of the input.
	Progress func(phase string, done, total int64)
}

// ImportReport describes an import (or, with DryRun, what it would do).
type ImportReport struct {
	// Tenant is the tenant imported into.
	Tenant string `json:"tenant"`
	// DryRun reports that nothing was written.
	DryRun bool `json:"dry_run"`
	// Origin is the origin named by the file's header ("" without a header).
	Origin string `json:"origin,omitempty"`
	// Lines is the number of lines read; Records counts the records by type.
	Lines   int          `json:"lines"`
	Records ExportCounts `json:"records"`
	// Imported counts the records written by this run (sessions, mentions, edges and links
	// are written only when missing, entities found by name are reused; both count here). It is
	// zero with DryRun.
	Imported ExportCounts `json:"imported"`
	// Existing counts memories already in the tenant: imported by an earlier run (same key) or
	// holding the same external id. They are left as they are.
	Existing int64 `json:"existing"`
	// EmbeddingsKept counts memories imported with their embedding; EmbeddingsQueued those
	// queued for embedding by the worker (no embedding in the file, another dimension, or
	// another model than the active one); Underived those queued for full derivation.
	EmbeddingsKept   int64 `json:"embeddings_kept"`
	EmbeddingsQueued int64 `json:"embeddings_queued"`
	Underived        int64 `json:"underived"`
	// Relinked counts imported memories whose provenance (source ids, superseded_by) was set;
	// Unresolved the references to memories that are neither in the file nor imported before,
	// which were dropped.
	Relinked   int64 `json:"relinked"`
	Unresolved int64 `json:"unresolved"`
	// Batches is the number of transactions committed.
	Batches int `json:"batches"`
}

// LineError is a problem with one line of an import.
type LineError struct {
	// Line is the 1-based line number.
	Line int `json:"line"`
	// Err is what is wrong.
	Err error `json:"-"`
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns Err.
func (e *LineError) Unwrap() error { return e.Err }

// ImportError lists the bad lines found by Import's validation; nothing was written. It wraps
// ErrInvalidInput.
type ImportError struct {
	// Lines are the first ImportMaxErrors bad lines, in order.
	Lines []*LineError
	// More is the number of further bad lines.
	More int
}

func (e *ImportError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d bad line(s), nothing imported", len(e.Lines)+e.More)
	for _, l := range e.Lines {
		b.WriteString("\n  " + l.Error())
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "\n  … and %d more", e.More)
	}
	return b.String()
}

// Unwrap returns ErrInvalidInput.
func (e *ImportError) Unwrap() error { return ErrInvalidInput }

// ImportBatchError reports a batch that could not be written: nothing of lines FirstLine to
// LastLine was written; the batches before it were (re-running the import resumes there).
type ImportBatchError struct {
	// FirstLine and LastLine bound the batch that was rolled back.
	FirstLine, LastLine int
	// Err is the error, a *LineError when one record is to blame.
	Err error
}

func (e *ImportBatchError) Error() string {
	return fmt.Sprintf("%v (lines %d-%d were not written; the lines before are imported, and re-running the import resumes)",
		e.Err, e.FirstLine, e.LastLine)
}

// Unwrap returns Err.
func (e *ImportBatchError) Unwrap() error { return e.Err }

var entityTypeRE = regexp.MustCompile(`^[a-z][a-z_]{0,31}$`)

// record is one parsed line.
type record struct {
	line int
	typ  string
	hdr  *ExportHeader
	ses  *SessionRecord
	ent  *EntityRecord
	mem  *MemoryRecord
	men  *MentionRecord
	edge *EdgeRecord
	link *LinkRecord
	rl   *ReviewLogRecord
	ev   *EvidenceRecord
	rc   *ReconsolidationRecord
	key  string // memory key
}

func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}

func parseRecord(line int, b []byte) (*record, error) {
	var t struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	r := &record{line: line, typ: t.Type}
	var err error
	switch t.Type {
	case RecordHeader:
		r.hdr = &ExportHeader{}
		err = decodeStrict(b, r.hdr)
	case RecordSession:
		r.ses = &SessionRecord{}
		err = decodeStrict(b, r.ses)
	case RecordEntity:
		r.ent = &EntityRecord{}
		err = decodeStrict(b, r.ent)
	case RecordMemory:
		r.mem = &MemoryRecord{}
		err = decodeStrict(b, r.mem)
	case RecordMention:
		r.men = &MentionRecord{}
		err = decodeStrict(b, r.men)
	case RecordEdge:
		r.edge = &EdgeRecord{}
		err = decodeStrict(b, r.edge)
	case RecordLink:
		r.link = &LinkRecord{}
		err = decodeStrict(b, r.link)
	case RecordReviewLog:
		r.rl = &ReviewLogRecord{}
		err = decodeStrict(b, r.rl)
	case RecordEvidence:
		r.ev = &EvidenceRecord{}
		err = decodeStrict(b, r.ev)
	case RecordReconsolidation:
		r.rc = &ReconsolidationRecord{}
		err = decodeStrict(b, r.rc)
	case "":
		return nil, errors.New(`no "type" field (want header, session, entity, memory, mention, edge, link, review_log, evidence or reconsolidation)`)
	default:
		return nil, fmt.Errorf("unknown record type %q (want header, session, entity, memory, mention, edge, link, review_log, evidence or reconsolidation)", truncate(t.Type, 40))
	}
	if err != nil {
		return nil, fmt.Errorf("bad %s record: %w", t.Type, err)
	}
	return r, nil
}

// lineReader yields the non-blank lines of an input with their numbers.
type lineReader struct {
	sc    *bufio.Scanner
	line  int
	bytes int64
}

func newLineReader(r io.Reader) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), ImportMaxLineBytes)
	return &lineReader{sc: sc}
}

func (l *lineReader) next() ([]byte, bool) {
	for l.sc.Scan() {
		l.line++
		b := l.sc.Bytes()
		l.bytes += int64(len(b)) + 1
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		return b, true
	}
	return nil, false
}

func (l *lineReader) err() error {
	if err := l.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &LineError{Line: l.line + 1, Err: fmt.Errorf("longer than %d bytes", ImportMaxLineBytes)}
		}
		return fmt.Errorf("error reading the import at line %d: %w", l.line+1, err)
	}
	return nil
}

// importer holds the state of one Import.
type importer struct {
	c       *Coordinator
	tenant  string
	dim     int
	active  string
	origin  string
	hdrDim  int
	rep     *ImportReport
	batch   int
	now     time.Time
	dry     bool
	labels  map[string]string // existing core label → key it was imported under ("" if not imported)
	total   int64
	progres func(string, int64, int64)

	// validation
	errs     []*LineError
	more     int
	memIDs   map[int64]int // file memory id → line
	entIDs   map[int64]bool
	keys     map[string]int
	fileLbls map[string]int

	// writing
	memMap   map[int64]int64 // file memory id → local id
	relinkOK map[int64]bool  // file memory ids imported under a key (their provenance is ours to set)
	entMap   map[int64]int64 // file entity id → local id
	sessions map[uuid.UUID]bool
	relinks  []relinkItem
}

type relinkItem struct {
	line    int
	fileID  int64
	sources []int64
	superBy int64
}

// Import reads a JSON Lines export (see ExportFormat) from r into tenant. It is resumable and
// idempotent: every memory is recorded under a key (its "xid", else "ext:" and its external id,
// else the header's origin and its id, else a SHA-256 of its layer, context, content and
// creation time), and a memory whose key is already recorded, or whose external id the tenant
// already holds, is skipped; sessions, entities, mentions, edges and links are written only when
// missing. Re-running an interrupted or completed import therefore adds nothing twice.
//
// The input is read twice. The first pass parses and checks every line and writes nothing: with
// bad lines Import returns an *ImportError listing them with their line numbers (and
// opts.DryRun stops here in any case). The second pass writes batches of opts.BatchSize records,
// each in one transaction with an audit event "tenant.import": a batch that fails is rolled back
// entirely and reported as an *ImportBatchError naming its lines. A third step sets the imported
// memories' provenance (source ids, superseded_by) to the new ids.
//
// Memories keep their layer, kind, context, status, timestamps, validity, confidence, emotional
// tags, forgetting state, provenance, core label, procedure, FSRS card and triple copies. An
// embedding is kept when its dimension is the install's and its model the active one (or none
// is active); otherwise a re-embedding job (jobs.ReembedArgs) embeds the memory with the
// worker's model. Memories that were not derived when exported are queued for derivation.
func (c *Coordinator) Import(ctx context.Context, tenant string, r io.ReadSeeker, opts *ImportOpts) (*ImportReport, error) {
	if opts == nil {
		opts = &ImportOpts{}
	}
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("%w: nil reader", ErrInvalidInput)
	}
	batch := cmp.Or(opts.BatchSize, ImportBatchDefault)
	if batch < 1 || batch > ImportMaxBatch {
		return nil, fmt.Errorf("%w: batch size must be in [1, %d], got %d", ErrInvalidInput, ImportMaxBatch, batch)
	}
	dim, err := c.embeddingDim(ctx)
	if err != nil {
		return nil, err
	}
	active, err := c.ActiveModel(ctx)
	if err != nil {
		return nil, err
	}
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, fmt.Errorf("error sizing the import: %w", err)
	}
	labels, err := tenantRead(ctx, c, tenant, func(q *db.Queries) ([]db.ImportCoreLabelsRow, error) { return q.ImportCoreLabels(ctx, tenant) })
	if err != nil {
		return nil, interpretError("reading core labels", err)
	}
	im := &importer{
		c: c, tenant: tenant, dim: dim, active: active, batch: batch, now: c.clock.Now(), dry: opts.DryRun,
		rep: &ImportReport{Tenant: tenant, DryRun: opts.DryRun}, total: size, progres: opts.Progress,
		labels: map[string]string{}, memIDs: map[int64]int{}, entIDs: map[int64]bool{}, keys: map[string]int{},
		fileLbls: map[string]int{},
	}
	for _, l := range labels {
		im.labels[l.CoreLabel] = l.Xid
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("error rewinding the import: %w", err)
	}
	if err := im.validate(r); err != nil {
		return nil, err
	}
	if len(im.errs) > 0 {
		return im.rep, &ImportError{Lines: im.errs, More: im.more}
	}
	if opts.DryRun {
		return im.rep, nil
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("error rewinding the import: %w", err)
	}
	if err := im.write(ctx, r); err != nil {
		return im.rep, err
	}
	if err := im.relink(ctx); err != nil {
		return im.rep, err
	}
	return im.rep, nil
}

func (im *importer) bad(line int, format string, args ...any) {
	if len(im.errs) >= ImportMaxErrors {
		im.more++
		return
	}
	im.errs = append(im.errs, &LineError{Line: line, Err: fmt.Errorf(format, args...)})
}

func (im *importer) report(phase string, done int64) {
	if im.progres != nil {
		im.progres(phase, min(done, im.total), im.total)
	}
}

// validate is the first pass.
func (im *importer) validate(r io.Reader) error {
	lr := newLineReader(r)
	first := true
	for {
		b, ok := lr.next()
		if !ok {
			break
		}
		rec, err := parseRecord(lr.line, b)
		if err != nil {
			im.bad(lr.line, "%v", err)
			first = false
			continue
		}
		if rec.typ == RecordHeader {
			if !first {
				im.bad(lr.line, "a header is only allowed on the first line")
			} else if err := im.checkHeader(rec.hdr); err != nil {
				im.bad(lr.line, "%v", err)
			}
			first = false
			continue
		}
		first = false
		if err := im.check(rec); err != nil {
			im.bad(lr.line, "%v", err)
		}
		if lr.line%1000 == 0 {
			im.report(PhaseValidate, lr.bytes)
		}
	}
	im.rep.Lines = lr.line
	im.report(PhaseValidate, lr.bytes)
	if err := lr.err(); err != nil {
		var le *LineError
		if errors.As(err, &le) {
			im.errs = append(im.errs, le)
			return nil
		}
		return err
	}
	return nil
}

func (im *importer) checkHeader(h *ExportHeader) error {
	if h.Format != ExportFormat {
		return fmt.Errorf("header format %q is not %q", truncate(h.Format, 40), ExportFormat)
	}
	if h.Version < 1 || h.Version > ExportVersion {
		return fmt.Errorf("export version %d is not supported (this zenbrain reads versions 1 to %d)", h.Version, ExportVersion)
	}
	if len(h.Origin) > 300 {
		return errors.New("header origin longer than 300 bytes")
	}
	im.origin, im.hdrDim = h.Origin, h.EmbeddingDim
	im.rep.Origin = h.Origin
	return nil
}

func checkUnit(name string, v, lo, hi float64) error {
	if math.IsNaN(v) || v < lo || v > hi {
		return fmt.Errorf("%s must be in [%v, %v], got %v", name, lo, hi, v)
	}
	return nil
}

func checkOptUnit(name string, v *float64, lo, hi float64) error {
	if v == nil {
		return nil
	}
	return checkUnit(name, *v, lo, hi)
}

func checkMetadata(md json.RawMessage) error {
	if len(md) == 0 || string(md) == "null" {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(md, &m); err != nil {
		return errors.New("metadata must be a JSON object")
	}
	return nil
}

func checkSpan(name string, from, to *time.Time) error {
	if from != nil && to != nil && !to.After(*from) {
		return fmt.Errorf("%s: the end must be after the start", name)
	}
	return nil
}

var (
	edgeOrigins = map[string]bool{"hebbian": true, "extraction": true, "sleep": true, "user": true, "consolidation": true}
	linkOrigins = map[string]bool{"derive": true, "reconsolidation": true, "debate": true, "sleep": true, "consolidation": true, "user": true}
)

// memoryKey returns the key a memory is imported under.
func memoryKey(m *MemoryRecord, origin string) string {
	switch {
	case m.XID != "":
		return m.XID
	case m.ExternalID != "":
		return "ext:" + m.ExternalID
	case origin != "" && m.ID > 0:
		return origin + ":" + strconv.FormatInt(m.ID, 10)
	}
	h := sha256.New()
	for _, s := range []string{string(m.Layer), cmp.Or(m.Context, DefaultContext), m.Content, m.CreatedAt.UTC().Format(time.RFC3339Nano), m.CoreLabel} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// check validates one record against the rules of the schema and the records before it.
func (im *importer) check(rec *record) error {
	switch rec.typ {
	case RecordSession:
		s := rec.ses
		im.rep.Records.Sessions++
		if s.ID == uuid.Nil {
			return errors.New("session id is missing")
		}
		if s.Context != "" {
			if err := checkContext(s.Context); err != nil {
				return err
			}
		}
		if s.StartedAt.IsZero() {
			return errors.New("session started_at is missing")
		}
		if s.LastActivityAt != nil && s.LastActivityAt.Before(s.StartedAt) {
			return errors.New("session last_activity_at is before started_at")
		}
		if s.EndedAt != nil && s.EndedAt.Before(s.StartedAt) {
			return errors.New("session ended_at is before started_at")
		}
		return checkMetadata(s.Metadata)
	case RecordEntity:
		e := rec.ent
		im.rep.Records.Entities++
		if e.ID <= 0 {
			return errors.New("entity id must be positive")
		}
		if im.entIDs[e.ID] {
			return fmt.Errorf("entity id %d appears twice", e.ID)
		}
		im.entIDs[e.ID] = true
		if err := checkText(e.Name, 500); err != nil {
			return fmt.Errorf("entity name: %w", err)
		}
		if e.Context != "" {
			if err := checkContext(e.Context); err != nil {
				return err
			}
		}
		if e.EntityType != "" && !entityTypeRE.MatchString(e.EntityType) {
			return fmt.Errorf("entity_type %q must match %s", truncate(e.EntityType, 40), entityTypeRE)
		}
		if e.MentionCount < 0 || e.CreatedAt.IsZero() {
			return errors.New("entity needs created_at and a mention_count ≥ 0")
		}
		return nil
	case RecordMemory:
		im.rep.Records.Memories++
		return im.checkMemory(rec)
	case RecordMention:
		m := rec.men
		im.rep.Records.Mentions++
		if _, ok := im.memIDs[m.MemoryID]; !ok {
			return fmt.Errorf("mention of memory %d, which no earlier line defines", m.MemoryID)
		}
		if !im.entIDs[m.EntityID] {
			return fmt.Errorf("mention of entity %d, which no earlier line defines", m.EntityID)
		}
		if m.SpanStart != nil && *m.SpanStart < 0 || m.SpanStart != nil && m.SpanEnd != nil && *m.SpanEnd <= *m.SpanStart {
			return errors.New("mention span must have 0 ≤ start < end")
		}
		return nil
	case RecordEdge:
		e := rec.edge
		im.rep.Records.Edges++
		if !im.entIDs[e.SourceID] || !im.entIDs[e.TargetID] {
			return fmt.Errorf("edge between entities %d and %d, which earlier lines do not both define", e.SourceID, e.TargetID)
		}
		if e.SourceID == e.TargetID {
			return errors.New("edge from an entity to itself")
		}
		if !db.ZbEdgeRelation(e.Relation).Valid() {
			return fmt.Errorf("unknown relation %q", truncate(e.Relation, 40))
		}
		if e.Origin != "" && !edgeOrigins[e.Origin] {
			return fmt.Errorf("unknown edge origin %q", truncate(e.Origin, 40))
		}
		if err := checkUnit("edge weight", e.Weight, 0, 10); err != nil {
			return err
		}
		if err := checkUnit("edge variance", e.Variance, 0.01, 100); err != nil {
			return err
		}
		if e.ActivationCount < 0 || e.CreatedAt.IsZero() || e.LastActivatedAt.IsZero() {
			return errors.New("edge needs created_at, last_activated_at and an activation_count ≥ 0")
		}
		return nil
	case RecordLink:
		l := rec.link
		im.rep.Records.Links++
		_, okS := im.memIDs[l.SourceID]
		_, okT := im.memIDs[l.TargetID]
		if !okS || !okT {
			return fmt.Errorf("link between memories %d and %d, which earlier lines do not both define", l.SourceID, l.TargetID)
		}
		if l.SourceID == l.TargetID {
			return errors.New("link from a memory to itself")
		}
		if !db.ZbEdgeRelation(l.Relation).Valid() {
			return fmt.Errorf("unknown relation %q", truncate(l.Relation, 40))
		}
		if l.Origin != "" && !linkOrigins[l.Origin] {
			return fmt.Errorf("unknown link origin %q", truncate(l.Origin, 40))
		}
		if l.CreatedAt.IsZero() {
			return errors.New("link created_at is missing")
		}
		return checkUnit("link weight", l.Weight, 0, 10)
	case RecordReviewLog:
		r := rec.rl
		im.rep.Records.ReviewLogs++
		if _, ok := im.memIDs[r.MemoryID]; !ok {
			return fmt.Errorf("review of memory %d, which no earlier line defines", r.MemoryID)
		}
		if r.Grade < 1 || r.Grade > 4 || r.StateBefore < 0 || r.StateBefore > 3 {
			return fmt.Errorf("review grade must be in [1, 4] and state_before in [0, 3], got %d and %d", r.Grade, r.StateBefore)
		}
		if r.ReviewedAt.IsZero() {
			return errors.New("review reviewed_at is missing")
		}
		if err := checkUnit("review interval_days", r.IntervalDays, 0, math.MaxFloat64); err != nil {
			return err
		}
		if err := checkOptUnit("review vmpfc_pe", r.VmpfcPE, 0, 2); err != nil {
			return err
		}
		return checkOptUnit("review multiplier", r.Multiplier, 0.3, 2)
	case RecordEvidence:
		v := rec.ev
		im.rep.Records.Evidence++
		if _, ok := im.memIDs[v.MemoryID]; !ok {
			return fmt.Errorf("evidence on memory %d, which no earlier line defines", v.MemoryID)
		}
		if _, ok := im.memIDs[v.SourceMemoryID]; v.SourceMemoryID != 0 && !ok {
			return fmt.Errorf("evidence from memory %d, which no earlier line defines", v.SourceMemoryID)
		}
		if !evidenceKinds[v.Kind] {
			return fmt.Errorf("unknown evidence kind %q (want confirm, contradict, prior or propagated)", truncate(v.Kind, 40))
		}
		if math.IsNaN(v.Weight) || v.Weight <= 0 || v.Weight > 100 {
			return fmt.Errorf("evidence weight must be in (0, 100], got %v", v.Weight)
		}
		if len(v.Source) > 100 {
			return errors.New("evidence source longer than 100 bytes")
		}
		if v.CreatedAt.IsZero() {
			return errors.New("evidence created_at is missing")
		}
		return nil
	case RecordReconsolidation:
		e := rec.rc
		im.rep.Records.Reconsolidations++
		for _, id := range []int64{e.MemoryID, e.TriggerID, e.ResultID} {
			if _, ok := im.memIDs[id]; (id != 0 || e.MemoryID == 0) && !ok {
				return fmt.Errorf("reconsolidation event refers to memory %d, which no earlier line defines", id)
			}
		}
		if !db.ZbReconsolidationMode(e.Mode).Valid() {
			return fmt.Errorf("unknown reconsolidation mode %q", truncate(e.Mode, 40))
		}
		if err := checkUnit("reconsolidation raw_pe", e.RawPE, 0, 1.2); err != nil {
			return err
		}
		if err := checkUnit("reconsolidation effective_pe", e.EffectivePE, 0, 3); err != nil {
			return err
		}
		var snap map[string]json.RawMessage
		if err := json.Unmarshal(e.Snapshot, &snap); err != nil || snap == nil {
			return errors.New("reconsolidation snapshot must be a JSON object")
		}
		if e.NewContent != nil && len(*e.NewContent) > maxImportContent {
			return fmt.Errorf("reconsolidation new_content longer than %d bytes", maxImportContent)
		}
		if e.AppliedAt.IsZero() {
			return errors.New("reconsolidation applied_at is missing")
		}
		if e.RolledBackAt != nil && e.RolledBackAt.Before(e.AppliedAt) {
			return errors.New("reconsolidation rolled_back_at is before applied_at")
		}
		if (e.RolledBackAt == nil) != (e.RollbackReason == nil) {
			return errors.New("reconsolidation rolled_back_at and rollback_reason go together")
		}
		return nil
	}
	return nil
}

// evidenceKinds are the kinds of zb.confidence_evidence.
var evidenceKinds = map[string]bool{"confirm": true, "contradict": true, "prior": true, "propagated": true}

// maxImportContent bounds a reconsolidation event's new content (the table's content limit).
const maxImportContent = 1 << 20

// remapSnapshot rewrites the memory ids a reconsolidation snapshot holds (row.source_ids, the
// link's source_id and target_id) from the file's ids to the tenant's; ids that map to nothing
// are dropped (a link without both ends is dropped).
func remapSnapshot(raw json.RawMessage, mapMem func(int64) (int64, bool)) (json.RawMessage, error) {
	var snap map[string]json.RawMessage
	if err := json.Unmarshal(raw, &snap); err != nil {
		return nil, err
	}
	if rowRaw, ok := snap["row"]; ok {
		var row map[string]json.RawMessage
		if err := json.Unmarshal(rowRaw, &row); err == nil && row != nil {
			if srcRaw, ok := row["source_ids"]; ok {
				var ids []int64
				if err := json.Unmarshal(srcRaw, &ids); err == nil {
					out := []int64{}
					for _, id := range ids {
						if v, ok := mapMem(id); ok {
							out = append(out, v)
						}
					}
					row["source_ids"] = mustJSON(out)
					snap["row"] = mustJSON(row)
				}
			}
		}
	}
	if linkRaw, ok := snap["link"]; ok && string(linkRaw) != "null" {
		var l map[string]json.RawMessage
		if err := json.Unmarshal(linkRaw, &l); err == nil && l != nil {
			var s, t int64
			_ = json.Unmarshal(l["source_id"], &s)
			_ = json.Unmarshal(l["target_id"], &t)
			ms, ok1 := mapMem(s)
			mt, ok2 := mapMem(t)
			if ok1 && ok2 {
				l["source_id"], l["target_id"] = mustJSON(ms), mustJSON(mt)
				snap["link"] = mustJSON(l)
			} else {
				delete(snap, "link")
			}
		}
	}
	return mustJSON(snap), nil
}

func (im *importer) checkMemory(rec *record) error {
	m := rec.mem
	if m.ID < 0 {
		return errors.New("memory id must be positive")
	}
	if m.ID > 0 {
		if l, dup := im.memIDs[m.ID]; dup {
			return fmt.Errorf("memory id %d already defined on line %d", m.ID, l)
		}
		im.memIDs[m.ID] = rec.line
	}
	if err := checkText(m.Content, 1<<20); err != nil {
		return fmt.Errorf("content: %w", err)
	}
	if !m.Layer.Valid() {
		return fmt.Errorf("%w %q (want working, short_term, episodic, semantic, procedural, core or cross_context)", ErrUnknownLayer, truncate(string(m.Layer), 40))
	}
	if m.Kind != "" && !validKinds[m.Kind] {
		return fmt.Errorf("unknown kind %q", truncate(m.Kind, 40))
	}
	if m.Context != "" {
		if err := checkContext(m.Context); err != nil {
			return err
		}
	}
	switch m.Status {
	case "", "active", "consolidated", "archived":
	case "erased":
		return errors.New("an erased memory cannot be imported")
	default:
		return fmt.Errorf("unknown status %q (want active, consolidated or archived)", truncate(m.Status, 40))
	}
	if m.CreatedAt.IsZero() {
		return errors.New("created_at is missing")
	}
	if (m.Layer == LayerCore) != (m.CoreLabel != "") {
		return errors.New("a core memory needs a core_label, and only core memories have one")
	}
	if m.CoreLabel != "" {
		if err := checkText(m.CoreLabel, labelMax); err != nil {
			return fmt.Errorf("core_label: %w", err)
		}
	}
	if m.ExternalID != "" {
		if err := checkText(m.ExternalID, 512); err != nil {
			return fmt.Errorf("external_id: %w", err)
		}
	}
	if len(m.XID) > 600 {
		return errors.New("xid longer than 600 bytes")
	}
	if err := checkMetadata(m.Metadata); err != nil {
		return err
	}
	if m.OccurredAt != nil && (m.OccurredAt.Year() < 1 || m.OccurredAt.Year() > 9999) {
		return errors.New("occurred_at out of range")
	}
	for _, sp := range []struct {
		n    string
		a, b *time.Time
	}{{"validity", m.ValidFrom, m.ValidTo}, {"event span", m.EventFrom, m.EventTo}} {
		if err := checkSpan(sp.n, sp.a, sp.b); err != nil {
			return err
		}
	}
	for _, u := range []struct {
		n      string
		v      float64
		lo, hi float64
	}{
		{"valence", m.Valence, -1, 1},
		{"arousal", m.Arousal, 0, 1},
		{"significance", m.Significance, 0, 1},
		{"value_estimate", m.ValueEstimate, -1e6, 1e6},
	} {
		if err := checkUnit(u.n, u.v, u.lo, u.hi); err != nil {
			return err
		}
	}
	for _, u := range []struct {
		n      string
		v      *float64
		lo, hi float64
	}{
		{"importance", m.Importance, 0, 1},
		{"priority", m.Priority, 0, 1},
		{"difficulty", m.Difficulty, 1, 10},
		{"confidence", m.Confidence, 0, 1},
		{"conf_alpha", m.ConfAlpha, 1e-12, math.MaxFloat64},
		{"conf_beta", m.ConfBeta, 1e-12, math.MaxFloat64},
		{"stability", m.Stability, 1e-12, 1e6 - 1e-9},
	} {
		if err := checkOptUnit(u.n, u.v, u.lo, u.hi); err != nil {
			return err
		}
	}
	if m.AccessCount < 0 {
		return errors.New("access_count must not be negative")
	}
	if len(m.Embedding) > 0 {
		if hasNaN(m.Embedding) {
			return ErrInvalidEmbedding
		}
		if m.EmbeddingModel == "" {
			return errors.New("an embedding needs its embedding_model")
		}
	}
	if p := m.Procedure; p != nil {
		for _, s := range append(append([]string{p.Trigger}, p.Steps...), p.Tools...) {
			if strings.IndexByte(s, 0) >= 0 {
				return fmt.Errorf("procedure: %w", ErrInvalidUTF8)
			}
		}
		if p.SuccessCount < 0 || p.FailureCount < 0 || (p.LastOutcome != "" && p.LastOutcome != "success" && p.LastOutcome != "failure") {
			return errors.New("procedure: counts must not be negative and last_outcome is success or failure")
		}
	}
	if rv := m.Review; rv != nil {
		if rv.Due.IsZero() || rv.State < 0 || rv.State > 3 || rv.Reps < 0 || rv.Lapses < 0 || rv.ElapsedDays < 0 ||
			rv.ScheduledDays < 0 || rv.AccessesAtReview < 0 || rv.Stability < 0 || rv.Difficulty < 0 || rv.Difficulty > 10 {
			return errors.New("review: due is required, state in 0..3, difficulty in 0..10, counts not negative")
		}
	}
	for _, cp := range m.Copies {
		if cp.Copy != "fast" && cp.Copy != "medium" && cp.Copy != "deep" {
			return fmt.Errorf("unknown copy %q (want fast, medium or deep)", truncate(cp.Copy, 20))
		}
		if cp.TauSeconds <= 0 || cp.InitialStrength < 0 || cp.InitialStrength > 10 || cp.CreatedAt.IsZero() {
			return errors.New("copy needs tau_seconds > 0, initial_strength in [0, 10] and created_at")
		}
	}
	key := memoryKey(m, im.origin)
	if l, dup := im.keys[key]; dup {
		return fmt.Errorf("memory key %q already used on line %d", truncate(key, 80), l)
	}
	im.keys[key] = rec.line
	if m.CoreLabel != "" {
		if l, dup := im.fileLbls[m.CoreLabel]; dup {
			return fmt.Errorf("core label %q already used on line %d", truncate(m.CoreLabel, 40), l)
		}
		im.fileLbls[m.CoreLabel] = rec.line
		if xid, taken := im.labels[m.CoreLabel]; taken && xid != key && !(m.ExternalID != "" && xid == "") {
			return fmt.Errorf("core label %q is taken in tenant %s by another memory; forget that memory or drop this line",
				truncate(m.CoreLabel, 40), im.tenant)
		}
	}
	return nil
}

// write is the second pass.
func (im *importer) write(ctx context.Context, r io.Reader) error {
	im.memMap, im.relinkOK, im.entMap, im.sessions = map[int64]int64{}, map[int64]bool{}, map[int64]int64{}, map[uuid.UUID]bool{}
	lr := newLineReader(r)
	var recs []*record
	flush := func() error {
		if len(recs) == 0 {
			return nil
		}
		if err := im.writeBatch(ctx, recs); err != nil {
			return &ImportBatchError{FirstLine: recs[0].line, LastLine: recs[len(recs)-1].line, Err: err}
		}
		im.rep.Batches++
		recs = recs[:0]
		im.report(PhaseImport, lr.bytes)
		return nil
	}
	for {
		b, ok := lr.next()
		if !ok {
			break
		}
		rec, err := parseRecord(lr.line, b)
		if err != nil {
			return &LineError{Line: lr.line, Err: fmt.Errorf("the input changed since it was validated: %w", err)}
		}
		if rec.typ == RecordHeader {
			continue
		}
		if rec.mem != nil {
			rec.key = memoryKey(rec.mem, im.origin)
		}
		recs = append(recs, rec)
		if len(recs) >= im.batch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := lr.err(); err != nil {
		return err
	}
	return flush()
}

func (im *importer) writeBatch(ctx context.Context, recs []*record) error {
	tenant, c := im.tenant, im.c
	var counts ExportCounts
	var existing, kept, queued, underived int64
	var fill, derive []int64
	memMapAdd := map[int64]int64{}
	var relinkAdd []relinkItem
	entAdd := map[int64]int64{}
	err := c.beginTenantPrelude(ctx, tenant, txPrelude{lockTimeout: StoreLockTimeout, ensureTenant: true}, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		// Memories of this batch already in the tenant: by key, then by external id.
		var keys, exts []string
		for _, r := range recs {
			if r.mem != nil {
				keys = append(keys, r.key)
				if r.mem.ExternalID != "" {
					exts = append(exts, r.mem.ExternalID)
				}
			}
		}
		byKey, byExt := map[string]int64{}, map[string]int64{}
		if len(keys) > 0 {
			rows, err := q.ImportKeyLookup(ctx, db.ImportKeyLookupParams{TenantID: tenant, Xids: keys})
			if err != nil {
				return err
			}
			for _, k := range rows {
				byKey[k.Xid] = k.MemoryID
			}
		}
		if len(exts) > 0 {
			rows, err := q.ImportMemoryByExternalID(ctx, db.ImportMemoryByExternalIDParams{TenantID: tenant, ExternalIds: exts})
			if err != nil {
				return err
			}
			for _, e := range rows {
				byExt[e.ExternalID] = e.ID
			}
		}
		mapMem := func(id int64) (int64, bool) {
			if v, ok := memMapAdd[id]; ok {
				return v, true
			}
			v, ok := im.memMap[id]
			return v, ok
		}
		mapEnt := func(id int64) (int64, bool) {
			if v, ok := entAdd[id]; ok {
				return v, true
			}
			v, ok := im.entMap[id]
			return v, ok
		}
		for _, r := range recs {
			lineErr := func(err error) error { return &LineError{Line: r.line, Err: interpretError("importing "+r.typ, err)} }
			switch r.typ {
			case RecordSession:
				s := r.ses
				la := s.StartedAt
				if s.LastActivityAt != nil {
					la = *s.LastActivityAt
				}
				md := s.Metadata
				if len(md) == 0 || string(md) == "null" {
					md = json.RawMessage("{}")
				}
				if err := q.ImportSessionInsert(ctx, db.ImportSessionInsertParams{
					TenantID: tenant, ID: s.ID,
					Context: cmp.Or(s.Context, DefaultContext), StartedAt: s.StartedAt, LastActivityAt: la, EndedAt: s.EndedAt,
					ConsolidatedAt: s.ConsolidatedAt, Metadata: md,
				}); err != nil {
					return lineErr(err)
				}
				im.sessions[s.ID] = true
				counts.Sessions++
			case RecordEntity:
				e := r.ent
				norm := e.NormalizedName
				if norm == "" {
					norm = strings.Join(strings.Fields(textproc.Normalize(e.Name)), " ")
				}
				upd := e.UpdatedAt
				if upd.IsZero() {
					upd = e.CreatedAt
				}
				id, err := q.ImportEntityUpsert(ctx, db.ImportEntityUpsertParams{
					TenantID: tenant, Context: cmp.Or(e.Context, DefaultContext),
					Name: e.Name, NormalizedName: norm, Type: cmp.Or(e.EntityType, "thing"), MentionCount: e.MentionCount,
					CreatedAt: e.CreatedAt, UpdatedAt: upd,
				})
				if err != nil {
					return lineErr(err)
				}
				entAdd[e.ID] = id
				counts.Entities++
			case RecordMemory:
				m := r.mem
				if id, ok := byKey[r.key]; ok {
					existing++
					if m.ID > 0 {
						memMapAdd[m.ID], im.relinkOK[m.ID] = id, true
					}
					if len(m.SourceIDs) > 0 || m.SupersededBy > 0 {
						relinkAdd = append(relinkAdd, relinkItem{line: r.line, fileID: m.ID, sources: m.SourceIDs, superBy: m.SupersededBy})
					}
					continue
				}
				if id, ok := byExt[m.ExternalID]; ok && m.ExternalID != "" {
					existing++
					if m.ID > 0 {
						memMapAdd[m.ID] = id
					}
					continue
				}
				if m.SessionID != nil && !im.sessions[*m.SessionID] {
					// A session the file does not define: create it (or keep the tenant's).
					if err := q.ImportSessionInsert(ctx, db.ImportSessionInsertParams{
						TenantID: tenant, ID: *m.SessionID,
						Context: cmp.Or(m.Context, DefaultContext), StartedAt: m.CreatedAt, LastActivityAt: m.CreatedAt,
						Metadata: json.RawMessage("{}"),
					}); err != nil {
						return lineErr(err)
					}
					im.sessions[*m.SessionID] = true
				}
				p, keptEmb, err := im.memoryParams(m)
				if err != nil {
					return &LineError{Line: r.line, Err: err}
				}
				id, err := q.ImportMemoryInsert(ctx, p)
				if err != nil {
					return lineErr(err)
				}
				if err := q.ImportKeyInsert(ctx, db.ImportKeyInsertParams{TenantID: tenant, Xid: r.key, MemoryID: id, Now: im.now}); err != nil {
					return lineErr(err)
				}
				if err := im.writeParts(ctx, q, m, id); err != nil {
					return lineErr(err)
				}
				counts.Memories++
				if m.ID > 0 {
					memMapAdd[m.ID], im.relinkOK[m.ID] = id, true
				}
				if len(m.SourceIDs) > 0 || m.SupersededBy > 0 {
					relinkAdd = append(relinkAdd, relinkItem{line: r.line, fileID: m.ID, sources: m.SourceIDs, superBy: m.SupersededBy})
				}
				switch {
				case m.DerivedAt == nil:
					derive = append(derive, id)
					underived++
				case keptEmb:
					kept++
				default:
					fill = append(fill, id)
					queued++
				}
			case RecordMention:
				mid, ok1 := mapMem(r.men.MemoryID)
				eid, ok2 := mapEnt(r.men.EntityID)
				if !ok1 || !ok2 {
					continue
				}
				if err := q.ImportMentionInsert(ctx, db.ImportMentionInsertParams{
					TenantID: tenant, MemoryID: mid, EntityID: eid,
					SpanStart: r.men.SpanStart, SpanEnd: r.men.SpanEnd,
				}); err != nil {
					return lineErr(err)
				}
				counts.Mentions++
			case RecordEdge:
				e := r.edge
				s, ok1 := mapEnt(e.SourceID)
				t, ok2 := mapEnt(e.TargetID)
				if !ok1 || !ok2 || s == t {
					continue
				}
				if err := q.ImportEdgeInsert(ctx, db.ImportEdgeInsertParams{
					TenantID: tenant, SourceID: s, TargetID: t,
					Relation: db.ZbEdgeRelation(e.Relation), Weight: e.Weight, Variance: e.Variance, ActivationCount: e.ActivationCount,
					Origin: cmp.Or(e.Origin, "hebbian"), CreatedAt: e.CreatedAt, LastActivatedAt: e.LastActivatedAt,
				}); err != nil {
					return lineErr(err)
				}
				counts.Edges++
			case RecordLink:
				l := r.link
				s, ok1 := mapMem(l.SourceID)
				t, ok2 := mapMem(l.TargetID)
				if !ok1 || !ok2 || s == t {
					continue
				}
				if err := q.ImportLinkInsert(ctx, db.ImportLinkInsertParams{
					TenantID: tenant, SourceID: s, TargetID: t,
					Relation: db.ZbEdgeRelation(l.Relation), Weight: l.Weight, Origin: cmp.Or(l.Origin, "user"),
					CreatedAt: l.CreatedAt,
				}); err != nil {
					return lineErr(err)
				}
				counts.Links++
			case RecordReviewLog:
				l := r.rl
				mid, ok := mapMem(l.MemoryID)
				if !ok {
					continue
				}
				n, err := q.ImportReviewLogInsert(ctx, db.ImportReviewLogInsertParams{
					TenantID: tenant, MemoryID: mid, Grade: l.Grade,
					ReviewedAt: l.ReviewedAt, StateBefore: l.StateBefore, IntervalDays: l.IntervalDays, VmpfcPe: l.VmpfcPE,
					Multiplier: l.Multiplier,
				})
				if err != nil {
					return lineErr(err)
				}
				counts.ReviewLogs += n
			case RecordEvidence:
				v := r.ev
				mid, ok := mapMem(v.MemoryID)
				if !ok {
					continue
				}
				var src *int64
				if s, ok := mapMem(v.SourceMemoryID); ok && v.SourceMemoryID != 0 {
					src = &s
				}
				n, err := q.ImportEvidenceInsert(ctx, db.ImportEvidenceInsertParams{
					TenantID: tenant, MemoryID: mid, Kind: v.Kind,
					Weight: v.Weight, Source: cmp.Or(v.Source, "system"), SourceMemoryID: src, CreatedAt: v.CreatedAt,
				})
				if err != nil {
					return lineErr(err)
				}
				counts.Evidence += n
			case RecordReconsolidation:
				e := r.rc
				mid, ok := mapMem(e.MemoryID)
				if !ok {
					continue
				}
				opt := func(id int64) *int64 {
					if v, ok := mapMem(id); ok && id != 0 {
						return &v
					}
					return nil
				}
				snap, err := remapSnapshot(e.Snapshot, mapMem)
				if err != nil {
					return &LineError{Line: r.line, Err: fmt.Errorf("%w: reconsolidation snapshot: %w", ErrInvalidInput, err)}
				}
				n, err := q.ImportReconsolidationInsert(ctx, db.ImportReconsolidationInsertParams{
					TenantID: tenant, MemoryID: mid,
					TriggerID: opt(e.TriggerID), ResultID: opt(e.ResultID), Mode: db.ZbReconsolidationMode(e.Mode), RawPe: e.RawPE,
					EffectivePe: e.EffectivePE, Contradiction: e.Contradiction, Blocked: e.Blocked, Snapshot: snap,
					NewContent: e.NewContent, AppliedAt: e.AppliedAt, RolledBackAt: e.RolledBackAt, RollbackReason: e.RollbackReason,
				})
				if err != nil {
					return lineErr(err)
				}
				counts.Reconsolidations += n
			}
		}
		var params []river.InsertManyParams
		if len(derive) > 0 {
			params = append(params, river.InsertManyParams{
				Args:       jobs.DeriveArgs{TenantID: tenant, MemoryIDs: derive, NeedsEmbedding: true},
				InsertOpts: jobs.DeriveInsertOpts(),
			})
		}
		params = append(params, reembedFillArgs(tenant, fill)...)
		if len(params) > 0 {
			if _, err := c.river.InsertManyTx(ctx, tx, params); err != nil {
				return fmt.Errorf("error enqueuing the embedding of imported memories: %w", err)
			}
		}
		return c.audit(ctx, q, tenant, "tenant.import", nil, im.now, map[string]any{
			"origin": im.origin,
			"lines":  []int{recs[0].line, recs[len(recs)-1].line}, "imported": counts, "existing": existing,
		})
	})
	if err != nil {
		var le *LineError
		if errors.As(err, &le) {
			return le
		}
		return interpretError("importing a batch", err)
	}
	// Committed: fold the batch into the run's state.
	for k, v := range memMapAdd {
		im.memMap[k] = v
	}
	for k, v := range entAdd {
		im.entMap[k] = v
	}
	im.relinks = append(im.relinks, relinkAdd...)
	im.rep.Imported.add(counts)
	im.rep.Existing += existing
	im.rep.EmbeddingsKept += kept
	im.rep.EmbeddingsQueued += queued
	im.rep.Underived += underived
	return nil
}

// memoryParams builds the insert of an imported memory; it reports whether the embedding is kept.
func (im *importer) memoryParams(m *MemoryRecord) (db.ImportMemoryInsertParams, bool, error) {
	f32 := func(p *float64, def float64) float32 {
		if p == nil {
			return float32(def)
		}
		return float32(*p)
	}
	f64 := func(p *float64, def float64) float64 {
		if p == nil {
			return def
		}
		return *p
	}
	upd := m.CreatedAt
	if m.UpdatedAt != nil {
		upd = *m.UpdatedAt
	}
	last := m.CreatedAt
	if m.LastAccessedAt != nil {
		last = *m.LastAccessedAt
	}
	md := m.Metadata
	if len(md) == 0 || string(md) == "null" {
		md = json.RawMessage("{}")
	}
	terms := textproc.Terms(m.Content, textproc.DetectLang(m.Content))
	alpha, beta := f64(m.ConfAlpha, 1), f64(m.ConfBeta, 1)
	p := db.ImportMemoryInsertParams{
		TenantID: im.tenant, Context: cmp.Or(m.Context, DefaultContext), Layer: db.ZbMemoryLayer(m.Layer),
		Kind: cmp.Or(m.Kind, DefaultKind(m.Layer)), Content: m.Content, Status: db.ZbMemoryStatus(cmp.Or(m.Status, "active")),
		SessionID: m.SessionID, ExternalID: strPtr(m.ExternalID), CoreLabel: strPtr(m.CoreLabel), Subject: strPtr(m.Subject),
		Attribute: strPtr(m.Attribute), OccurredAt: m.OccurredAt, CreatedAt: m.CreatedAt, UpdatedAt: upd, DerivedAt: m.DerivedAt,
		Metadata: md, ValidFrom: m.ValidFrom, ValidTo: m.ValidTo, Valence: float32(m.Valence), Arousal: float32(m.Arousal),
		Significance: float32(m.Significance), Importance: f32(m.Importance, 0.5), Priority: f32(m.Priority, 0.5),
		AccessCount: m.AccessCount, LastAccessedAt: last, Stability: m.Stability, Difficulty: f64(m.Difficulty, 5),
		FadeAt: m.FadeAt, ValueEstimate: m.ValueEstimate, ConfAlpha: alpha, ConfBeta: beta,
		Confidence: f64(m.Confidence, alpha/(alpha+beta)), AiGenerated: m.AIGenerated, EventFrom: m.EventFrom, EventTo: m.EventTo,
		Terms: nonNil(terms), TermCount: int32(len(terms)),
	}
	if m.Layer == LayerCore {
		p.Stability, p.FadeAt = nil, nil
	} else if p.Stability == nil {
		// No forgetting state in the file: the initial stability of the layer, as Store gives it.
		mEmo, err := forgetting.EmotionalMultiplier(clamp(m.Valence, -1, 1), clamp(m.Arousal, 0, 1), clamp(m.Significance, 0, 1))
		if err != nil {
			mEmo = 1
		}
		tr, err := im.c.forget.NewTrace(forgetting.Layer(m.Layer), last, mEmo)
		if err != nil {
			return p, false, fmt.Errorf("error computing the forgetting trace: %w", err)
		}
		s := tr.Stability.Hours() / 24
		p.Stability = &s
		if p.FadeAt == nil {
			p.FadeAt = lcFadeAt(tr)
		}
	}
	kept := len(m.Embedding) > 0 && len(m.Embedding) == im.dim && (im.active == "" || im.active == m.EmbeddingModel) &&
		checkEmbedding(m.Embedding, im.dim) == nil
	if kept {
		p.Embedding, p.EmbeddingModel = toVector(m.Embedding), &m.EmbeddingModel
	}
	return p, kept, nil
}

// writeParts writes an imported memory's procedure, FSRS card and triple copies.
func (im *importer) writeParts(ctx context.Context, q *db.Queries, m *MemoryRecord, id int64) error {
	if p := m.Procedure; p != nil {
		if err := q.ImportProcedureInsert(ctx, db.ImportProcedureInsertParams{
			TenantID: im.tenant, MemoryID: id,
			TriggerText: p.Trigger, Steps: nonNil(p.Steps), Tools: nonNil(p.Tools), SuccessCount: p.SuccessCount,
			FailureCount: p.FailureCount, LastOutcome: strPtr(p.LastOutcome), LastUsedAt: p.LastUsedAt,
		}); err != nil {
			return err
		}
	}
	if rv := m.Review; rv != nil {
		if err := q.ImportReviewStateInsert(ctx, db.ImportReviewStateInsertParams{
			TenantID: im.tenant, MemoryID: id,
			Stability: rv.Stability, Difficulty: rv.Difficulty, Due: rv.Due, Reps: rv.Reps, Lapses: rv.Lapses, State: rv.State,
			ElapsedDays: rv.ElapsedDays, ScheduledDays: rv.ScheduledDays, LastReview: rv.LastReview,
			AccessesAtReview: rv.AccessesAtReview,
		}); err != nil {
			return err
		}
	}
	if len(m.Copies) > 0 {
		p := db.ImportTripleCopyInsertParams{TenantID: im.tenant, MemoryID: id}
		for _, cp := range m.Copies {
			p.Copies = append(p.Copies, cp.Copy)
			p.Strengths = append(p.Strengths, cp.InitialStrength)
			p.Taus = append(p.Taus, cp.TauSeconds)
			p.CreatedAts = append(p.CreatedAts, cp.CreatedAt)
		}
		if err := q.ImportTripleCopyInsert(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// relink sets the provenance of the memories imported under a key to the new ids, in batches.
func (im *importer) relink(ctx context.Context) error {
	for start := 0; start < len(im.relinks); start += im.batch {
		items := im.relinks[start:min(start+im.batch, len(im.relinks))]
		var relinked, unresolved int64
		err := im.c.beginTenant(ctx, im.tenant, func(tx pgx.Tx) error {
			q := im.c.q.WithTx(tx)
			for _, it := range items {
				local, ok := im.memMap[it.fileID]
				if !ok || !im.relinkOK[it.fileID] {
					continue
				}
				srcs := []int64{}
				for _, s := range it.sources {
					if v, ok := im.memMap[s]; ok && v != local {
						srcs = append(srcs, v)
					} else {
						unresolved++
					}
				}
				var sup *int64
				if it.superBy > 0 {
					if v, ok := im.memMap[it.superBy]; ok && v != local {
						sup = &v
					} else {
						unresolved++
					}
				}
				if _, err := q.ImportMemoryRelink(ctx, db.ImportMemoryRelinkParams{
					TenantID: im.tenant, ID: local, SourceIDs: srcs,
					SupersededBy: sup,
				}); err != nil {
					return &LineError{Line: it.line, Err: interpretError("setting provenance", err)}
				}
				relinked++
			}
			return nil
		})
		if err != nil {
			return err
		}
		im.rep.Relinked += relinked
		im.rep.Unresolved += unresolved
	}
	return nil
}
