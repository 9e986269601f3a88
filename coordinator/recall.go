package coordinator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/zenbrain/zb/algorithms/bayes"
	"github.com/zenbrain/zb/algorithms/forgetting"
	"github.com/zenbrain/zb/algorithms/hebbian"
	"github.com/zenbrain/zb/algorithms/retrieval"
	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/db"
)

// MaxEntitiesCoActivated bounds the entities whose pairwise co_occurs edges one recall
// strengthens (at most n·(n−1)/2 = 190 edges).
const MaxEntitiesCoActivated = 20

// RecallOpts are the options of Recall; nil means all defaults.
type RecallOpts struct {
	// K is the number of results, in [1, MaxK]. 0 means retrieval.KDefault (5).
	K int
	// Layers restricts the layers searched. Nil means all seven.
	Layers []Layer
	// Contexts restricts the contexts searched. Nil means all.
	Contexts []string
	// AsOf asks what was valid at a past time: facts that expired or were superseded since
	// then return, facts created after it do not.
	AsOf *time.Time
	// Deep also searches consolidated and archived memories (explicit deep recall).
	Deep bool
	// NoTimeFilter ignores the time range of a temporal query's date expressions.
	NoTimeFilter bool
	// ReadOnly skips the side effects (access counts, stability growth, lability windows,
	// co-activation, recall event and audit), e.g. for evaluation.
	ReadOnly bool
	// Whole delivers every ranked memory as it is stored, duplicates included; by default
	// nothing is delivered twice and an episode is delivered as its best lines (see Result.Excerpt).
	Whole bool
}

// Provenance says where a recalled memory came from.
type Provenance struct {
	// SourceIDs are the memories it derives from.
	SourceIDs []int64 `json:"source_ids"`
	// ExternalID is the caller's id (e.g. a dia_id).
	ExternalID string `json:"external_id,omitempty"`
	// SessionID is its session, if any.
	SessionID *uuid.UUID `json:"session_id,omitempty"`
	// Context is its domain.
	Context string `json:"context"`
	// OccurredAt is its event time, if any.
	OccurredAt *time.Time `json:"occurred_at,omitempty"`
	// CreatedAt is when it was stored.
	CreatedAt time.Time `json:"created_at"`
	// Metadata is its metadata object (including resolved dates and caller ids).
	Metadata json.RawMessage `json:"metadata"`
}

// Result is one recalled memory.
type Result struct {
	// ID is the memory's id.
	ID int64 `json:"id"`
	// Layer is the layer of the memory.
	Layer Layer `json:"layer"`
	// Kind is its kind.
	Kind string `json:"kind"`
	// Content is its text.
	Content string `json:"content"`
	// Score is the fused score: LayerWeight·Hybrid·Boost·Retention.
	Score float64 `json:"score"`
	// Confidence is the mean α/(α + β) of the memory's Beta belief.
	Confidence float64 `json:"confidence"`
	// ConfidenceLow and ConfidenceHigh bound its central 95 % interval.
	ConfidenceLow  float64 `json:"confidence_low"`
	ConfidenceHigh float64 `json:"confidence_high"`
	// Retrievability is R(now) of the forgetting model (1 for core or with decay off).
	Retrievability float64 `json:"retrievability"`
	// Signals explain Score.
	Signals retrieval.Signals `json:"signals"`
	// ByVector and ByLexical report which candidate generator found it.
	ByVector  bool `json:"by_vector"`
	ByLexical bool `json:"by_lexical"`
	// AIGenerated marks content the system derived (consolidation, sleep schemas) rather than
	// content stored by a caller.
	AIGenerated bool `json:"ai_generated"`
	// Provenance says where it came from.
	Provenance Provenance `json:"provenance"`
	// When is when it happened: a date (2006-01-02) or a span of dates (first..last) — its event
	// span, else its occurred_at, else when it was stored.
	When string `json:"when"`
	// Dates are the date expressions of its text resolved to dates ("yesterday = 2023-05-07").
	Dates []ResolvedDate `json:"dates,omitempty"`
	// Excerpt reports that Content holds only the lines of the memory (an episode) that match the
	// query best, with their neighbours; the whole memory is one Get away.
	Excerpt bool `json:"excerpt,omitempty"`
}

// RecallResult is the answer to one recall.
type RecallResult struct {
	// Results are the top k, best first.
	Results []Result `json:"results"`
	// Class is the query's class.
	Class retrieval.QueryClass `json:"class"`
	// Range is the time range applied (temporal queries with a date), or nil.
	Range *retrieval.TimeRange `json:"range,omitempty"`
	// Candidates is the number of candidates fused.
	Candidates int `json:"candidates"`
	// Split reports that the candidates' lexical and vector halves were read at the same time
	// on two connections (a tenant of Config.RecallSplitMinDocs active memories or more).
	Split bool `json:"split,omitempty"`
	// SideEffects reports whether the side effects were written (false for ReadOnly, and when
	// the side-effect transaction gave up on a lock).
	SideEffects bool `json:"side_effects"`
	// Touched lists the returned memories whose access was recorded (rows locked by a sleep or
	// decay run are skipped).
	Touched []int64 `json:"touched,omitempty"`
	// Timing is where the call's time went.
	Timing RecallTiming `json:"timing"`
}

// RecallTiming is where a recall's time went, by the wall clock of the calling process: a
// statement's time includes its round trips and the decoding of its rows.
type RecallTiming struct {
	// Total is the whole call.
	Total time.Duration
	// Embed is the query's embedding.
	Embed time.Duration
	// Candidates is candidate generation: the one statement, or (Split) both halves and their join.
	Candidates time.Duration
	// VectorHalf, LexicalHalf and Join are the parts of a split candidate generation (zero
	// otherwise): the halves run at the same time, so Candidates ≈ max(VectorHalf, LexicalHalf) + Join.
	VectorHalf, LexicalHalf, Join time.Duration
	// Rank is fusion, ranking and building the results (in this process).
	Rank time.Duration
	// SideEffects is the side-effect transaction (zero with ReadOnly).
	SideEffects time.Duration
}

// MarshalJSON writes the durations as milliseconds (total_ms, embed_ms, …), the split parts
// only when set.
func (t RecallTiming) MarshalJSON() ([]byte, error) {
	ms := func(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }
	m := map[string]float64{
		"total_ms": ms(t.Total), "embed_ms": ms(t.Embed), "candidates_ms": ms(t.Candidates),
		"rank_ms": ms(t.Rank), "side_effects_ms": ms(t.SideEffects),
	}
	if t.VectorHalf > 0 || t.LexicalHalf > 0 || t.Join > 0 {
		m["vector_half_ms"], m["lexical_half_ms"], m["join_ms"] = ms(t.VectorHalf), ms(t.LexicalHalf), ms(t.Join)
	}
	return json.Marshal(m)
}

// String is a one-line account, e.g. "26.3 ms: embed 0.03, candidates 24.1 (vector half 11.8
// and lexical half 20.1 at the same time, join 1.2), rank 0.30, side effects 1.9".
func (t RecallTiming) String() string {
	f := func(d time.Duration) string {
		v := float64(d) / 1e6
		if v < 1 {
			return strconv.FormatFloat(v, 'f', 2, 64)
		}
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	s := f(t.Total) + " ms: embed " + f(t.Embed) + ", candidates " + f(t.Candidates)
	if t.VectorHalf > 0 || t.LexicalHalf > 0 || t.Join > 0 {
		s += " (vector half " + f(t.VectorHalf) + " and lexical half " + f(t.LexicalHalf) + " at the same time, join " + f(t.Join) + ")"
	}
	s += ", rank " + f(t.Rank)
	if t.SideEffects > 0 {
		s += ", side effects " + f(t.SideEffects)
	}
	return s
}

// Recall answers query for a tenant as DESIGN.md §5 describes: classification, candidate
// generation in one SQL round trip (per layer top-K by cosine and by BM25; in a large tenant the
// two halves at the same time on two connections, then their join), magnitude fusion
// with class weights, Two-Factor boost, floored retrievability, dedup and top k; then the side
// effects in one short transaction. A tenant that does not exist (has stored nothing) recalls
// nothing, without error and without side effects.
func (c *Coordinator) Recall(ctx context.Context, tenant, query string, opts *RecallOpts) (*RecallResult, error) {
	if opts == nil {
		opts = &RecallOpts{}
	}
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	if err := checkText(query, c.cfg.MaxContentBytes); err != nil {
		return nil, err
	}
	if err := checkQueryTerms(query); err != nil {
		return nil, err
	}
	k := opts.K
	if k == 0 {
		k = retrieval.KDefault
	}
	if k < 0 || k > MaxK {
		return nil, fmt.Errorf("%w: got %d", ErrInvalidK, k)
	}
	layers := opts.Layers
	if layers == nil {
		layers = retrieval.Layers()
	}
	layerNames := make([]string, 0, len(layers))
	for _, l := range layers {
		if !l.Valid() {
			return nil, fmt.Errorf("%w: %q", ErrUnknownLayer, truncate(string(l), 40))
		}
		layerNames = append(layerNames, string(l))
	}
	if len(opts.Contexts) > MaxRecallContexts {
		return nil, fmt.Errorf("%w: %d contexts, at most %d", ErrInvalidInput, len(opts.Contexts), MaxRecallContexts)
	}
	for _, cx := range opts.Contexts {
		if err := checkContext(cx); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	now := c.clock.Now()
	cls := c.classifier.Classify(query, now)
	out := &RecallResult{Class: cls.Class}
	tm := &out.Timing

	var qvec []float32
	t0 := time.Now()
	if c.cfg.Embedder != nil {
		dim, err := c.embeddingDim(ctx)
		if err != nil {
			return nil, err
		}
		vs, err := c.cfg.Embedder.Embed(ctx, []string{query})
		if err != nil {
			return nil, fmt.Errorf("error embedding query: %w", err)
		}
		if len(vs) != 1 {
			return nil, fmt.Errorf("%w: the embedder returned %d embeddings for 1 text", ErrDimensionMismatch, len(vs))
		}
		if err := checkEmbedding(vs[0], dim); err != nil {
			// A query without any embeddable feature (e.g. only punctuation) is lexical-only.
			if !errors.Is(err, ErrInvalidEmbedding) || hasNaN(vs[0]) {
				return nil, fmt.Errorf("query embedding: %w", err)
			}
		} else {
			qvec = vs[0]
		}
	}
	tm.Embed = time.Since(t0)
	params := db.RecallCandidatesParams{
		TenantID: tenant, Query: toVector(qvec), Terms: nonNil(textproc.Terms(query, textproc.DetectLang(query))),
		Layers: layerNames, K: int32(max(c.cfg.CandidatesPerLayer, k)), Now: now, AsOf: clampPGTimePtr(opts.AsOf), Contexts: opts.Contexts,
		Deep: opts.Deep,
	}
	if qvec != nil {
		// The query's model: vectors are compared only when it is the active one (0010).
		params.Model = strPtr(c.cfg.Embedder.Model())
	}
	if cls.Range != nil && !opts.NoTimeFilter {
		r := *cls.Range
		out.Range = &r
		from, to := clampPGTime(r.From), clampPGTime(r.To)
		params.FromTime, params.ToTime = &from, &to
	}
	t0 = time.Now()
	rows, split, err := c.recallCandidates(ctx, tenant, &params, tm)
	if err != nil {
		return nil, interpretError("generating recall candidates", err)
	}
	tm.Candidates = time.Since(t0)
	t0 = time.Now()
	out.Candidates, out.Split = len(rows), split

	var sw switchSet
	if len(rows) > 0 {
		sw = disabledSet(rows[0].Disabled)
	}
	rk := *c.ranking
	// Every candidate is ranked: delivery leaves out what was already delivered and reads the
	// turns' scores to choose an episode's lines.
	rk.K = max(k, len(rows))
	rk.DisableForgetting = rk.DisableForgetting || !sw.enabled("decay")
	rk.DisableLayerWeights = rk.DisableLayerWeights || !sw.enabled("query_routing")
	rk.DisableTwoFactorBoost = rk.DisableTwoFactorBoost || !sw.enabled("two_factor_hebbian")

	nameCache := map[string]bool{}
	named := func(name string) bool {
		v, ok := nameCache[name]
		if !ok {
			v = retrieval.NamedIn(query, name)
			nameCache[name] = v
		}
		return v
	}
	// A consolidated episode or schema among the candidates is a region of the memories it
	// carries.
	region := map[int64][]string{}
	for i := range rows {
		if r := &rows[i]; r.Kind == "episode" || r.Kind == "schema" {
			for _, src := range r.SourceIDs {
				region[src] = append(region[src], strconv.FormatInt(r.ID, 10))
			}
		}
	}
	byID := make(map[string]*db.RecallCandidatesRow, len(rows))
	rets := make(map[string]float64, len(rows))
	cands := make([]retrieval.Candidate, 0, len(rows))
	for i := range rows {
		r := &rows[i]
		id := strconv.FormatInt(r.ID, 10)
		byID[id] = r
		ret := 1.0
		if !rk.DisableForgetting {
			ret = c.retrievability(r.Layer, r.Stability, r.Valence, r.Arousal, r.Significance, r.LastAccessedAt, now)
		}
		rets[id] = ret
		cd := retrieval.Candidate{
			ID: id, Layer: Layer(r.Layer), Text: r.Content, Cosine: clamp(r.Cosine, -1, 1),
			BM25: math.Max(0, r.Bm25), Retrievability: ret,
		}
		if r.SessionID != nil {
			cd.Session = r.SessionID.String()
			cd.SessionBM25 = clamp(r.SessionBm25, 0, math.MaxFloat64)
			if r.PrevID > 0 {
				cd.Prev = strconv.FormatInt(r.PrevID, 10)
			}
			if r.NextID > 0 {
				cd.Next = strconv.FormatInt(r.NextID, 10)
			}
		}
		cd.Regions = region[r.ID]
		if sp := speakerOf(r.Metadata); sp != "" {
			cd.SpeakerNamed = named(sp)
		}
		for _, sp := range r.SessionSpeakers {
			if named(sp) {
				cd.ParticipantNamed = true
				break
			}
		}
		if r.EdgeWeight > 0 {
			e := hebbian.Edge{Weight: r.EdgeWeight, Variance: r.EdgeVariance, LastActivated: r.EdgeActivatedAt}
			cd.EdgeWeight, cd.EdgeImportance = c.hebb.WeightAt(e, now), e.Importance()
		}
		cands = append(cands, cd)
	}
	ranked, err := retrieval.Rank(cls.Class, cands, &rk)
	if err != nil {
		return nil, fmt.Errorf("error ranking recall candidates: %w", err)
	}
	results := make([]Result, 0, len(ranked))
	lineScore := make(map[string]float64, len(ranked))
	for _, rr := range ranked {
		r := byID[rr.ID]
		if key := lineKey(r.Content); !strings.Contains(r.Content, "\n") {
			if _, ok := lineScore[key]; !ok {
				lineScore[key] = rr.Score
			}
		}
		b := bayes.Belief{Alpha: r.ConfAlpha, Beta: r.ConfBeta}
		iv := b.Interval95()
		res := Result{
			ID: r.ID, Layer: rr.Layer, Kind: r.Kind, Content: r.Content, Score: rr.Score, AIGenerated: r.AiGenerated,
			Confidence: b.Mean(), ConfidenceLow: iv.Lower, ConfidenceHigh: iv.Upper, Retrievability: rets[rr.ID],
			Signals: rr.Signals, ByVector: r.ByVector, ByLexical: r.ByLexical,
			Provenance: Provenance{
				SourceIDs: nonNil(r.SourceIDs), SessionID: r.SessionID, Context: r.Context,
				OccurredAt: r.OccurredAt, CreatedAt: r.CreatedAt, Metadata: r.Metadata,
			},
		}
		if r.ExternalID != nil {
			res.Provenance.ExternalID = *r.ExternalID
		}
		res.When = whenOf(r.EventFrom, r.EventTo, r.OccurredAt, r.CreatedAt)
		res.Dates = resolvedDates(r.Metadata)
		results = append(results, res)
	}
	out.Results = deliverResults(results, k, params.Terms, lineScore, opts.Whole)
	tm.Rank = time.Since(t0)
	if opts.ReadOnly {
		tm.Total = time.Since(start)
		return out, nil
	}
	t0 = time.Now()
	touched, err := c.recallSideEffects(ctx, tenant, query, cls.Class, out.Results, byID, sw, now, qvec)
	tm.SideEffects = time.Since(t0)
	switch {
	case err == nil:
		out.SideEffects, out.Touched = true, touched
	case isLockTimeout(err):
		// Skipped: recall never waits on a sleep or decay run.
	case len(out.Results) == 0 && isForeignKeyViolation(err):
		// A tenant that has stored nothing yet (an agent's first "what do you know about
		// me?") recalls nothing, without error: there is nothing to record.
	default:
		return nil, interpretError("recording recall side effects", err)
	}
	tm.Total = time.Since(start)
	return out, nil
}

// MetadataSpeaker is the metadata key that names who said a memory (a conversation turn's
// speaker). Recall boosts memories whose speaker, or a speaker of whose session, the query names
// (retrieval.Config.SpeakerBoost and ParticipantBoost).
const MetadataSpeaker = "speaker"

// speakerOf returns the string metadata[MetadataSpeaker], or "".
func speakerOf(md json.RawMessage) string {
	if len(md) == 0 {
		return ""
	}
	var m map[string]any
	if json.Unmarshal(md, &m) != nil {
		return ""
	}
	s, _ := m[MetadataSpeaker].(string)
	return s
}

func hasNaN(v []float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return true
		}
	}
	return false
}

func clamp(x, lo, hi float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return math.Max(lo, math.Min(hi, x))
}

// retrievability returns R(now) from stored state; core (nil stability) gives 1.
func (c *Coordinator) retrievability(layer db.ZbMemoryLayer, stability *float64, v, a, s float32, last, now time.Time) float64 {
	if stability == nil {
		return 1
	}
	tr, ok := c.trace(layer, *stability, v, a, s, last)
	if !ok {
		return 1
	}
	r, err := tr.Retrievability(now)
	if err != nil {
		return 1
	}
	return r
}

func (c *Coordinator) trace(layer db.ZbMemoryLayer, stabilityDays float64, v, a, s float32, last time.Time) (forgetting.Trace, bool) {
	mEmo, err := forgetting.EmotionalMultiplier(clamp(float64(v), -1, 1), clamp(float64(a), 0, 1), clamp(float64(s), 0, 1))
	if err != nil {
		mEmo = 1
	}
	st := time.Duration(stabilityDays * float64(forgetting.Day))
	tr := forgetting.Trace{Layer: forgetting.Layer(layer), Stability: st, EmotionalMultiplier: mEmo, LastAccess: last}
	return tr, tr.Validate() == nil
}

// recallSideEffects writes, in one short transaction with a lock timeout, the recall event (with
// the query's index terms for the curiosity log), the access of the returned memories (skipping
// rows another transaction holds; a HOT update that leaves fade_at to DecayDue), their lability
// windows and synaptic tags (RecallApply, one statement), the Hebbian co-activation of their
// entities, the neuromodulator's exploration event, tag capture, cue intentions and the audit
// event. Writes whose results are not read wait in a pipeTx and travel with the next statement:
// a recall whose entities have edges is six round trips (BEGIN, RecallApply, the edge lock,
// open tags, pending cues, COMMIT) where it was fourteen.
func (c *Coordinator) recallSideEffects(ctx context.Context, tenant, query string, class retrieval.QueryClass,
	results []Result, rows map[string]*db.RecallCandidatesRow, sw switchSet, now time.Time, qvec []float32,
) ([]int64, error) {
	ids := make([]int64, 0, len(results))
	stabs := make([]float64, 0, len(results))
	reads := make([]float64, 0, len(results))
	for _, res := range results {
		r := rows[strconv.FormatInt(res.ID, 10)]
		s, read := 1.0, 1.0
		if r.Stability != nil {
			s, read = *r.Stability, *r.Stability
			if tr, ok := c.trace(r.Layer, *r.Stability, r.Valence, r.Arousal, r.Significance, r.LastAccessedAt); ok {
				if nt, err := c.forget.Recall(tr, now); err == nil {
					s = nt.Stability.Hours() / 24
				}
			}
		}
		ids, stabs, reads = append(ids, res.ID), append(stabs, s), append(reads, read)
	}
	sum := sha256.Sum256([]byte(query))
	var terms []string
	if sw.enabled("curiosity") { // the curiosity engine's query log (the query text itself is not stored)
		terms = nonNil(textproc.Terms(query, textproc.DetectLang(query)))
	}
	_, stcCfg, err := stcModel()
	if err != nil {
		return nil, err
	}
	var touched []int64
	var applied *db.RecallApplyRow
	err = c.pipelinedTx(ctx, tenant, txPrelude{lockTimeout: max(time.Millisecond, c.cfg.SideEffectLockTimeout)}, func(pt *pipeTx) error {
		q := c.q.WithTx(pt)
		var topScore *float64
		if len(results) > 0 {
			topScore = &results[0].Score
		}
		if err := pt.Later(func() error {
			return q.RecallEventInsert(ctx, db.RecallEventInsertParams{
				TenantID: tenant, QueryHash: sum[:],
				QueryClass: string(class), ResultIDs: ids, TopScore: topScore, Now: now, QueryTerms: terms,
			})
		}); err != nil {
			return err
		}
		if len(ids) > 0 {
			// The stabilities read above are passed along: a stability another transaction
			// changed meanwhile gets this recall's growth factor instead of being overwritten.
			ap, err := q.RecallApply(ctx, db.RecallApplyParams{
				TenantID: tenant, Ids: ids,
				Stabilities: stabs, ReadStabilities: reads, Now: now,
				MaxStability: c.forget.Params().MaxStability.Hours() / 24, ClosesAt: now.Add(c.cfg.LabilityWindow),
				Stc: sw.enabled("stc_rescue"), TagBelow: stcCfg.TagBelow, TagExpiresAt: now.Add(stcCfg.CaptureWindow),
				Entities: sw.enabled("two_factor_hebbian"), MaxEntities: MaxEntitiesCoActivated, TagsFrom: now.Add(-stcCfg.CaptureWindow),
				Cues: sw.enabled("prospective"),
			})
			if err != nil {
				return err
			}
			applied, touched = &ap, ap.Touched
			if len(ap.Entities) > 1 {
				if err := c.coActivate(ctx, pt, q, tenant, &ap, now); err != nil {
					return err
				}
			}
		}
		if err := pt.Later(func() error { return c.neuroOnRecall(ctx, q, tenant, results, sw, now) }); err != nil {
			return err
		}
		if err := c.recallHooks(ctx, q, tenant, query, qvec, applied, sw, now); err != nil { // stc capture, prospective
			return err
		}
		detail, _ := json.Marshal(map[string]any{
			"query_sha256": hex.EncodeToString(sum[:]), "class": class,
			"result_ids": ids, "touched": touched,
		})
		return pt.Later(func() error {
			return q.AuditEventInsert(ctx, db.AuditEventInsertParams{
				TenantID: tenant, At: now, Actor: c.cfg.Actor,
				Action: "memory.recall", Detail: detail,
			})
		})
	})
	return touched, err
}

// coActivate strengthens the co_occurs edges among the distinct entities the recalled memories
// mention (ap.Entities, in id order; the first MaxEntitiesCoActivated of them) with
// hebbian.Model.Activate, tag 1 and activation 1. RecallApply locked the existing edges among
// them (ap.Edge*); those another transaction holds were skipped, and are skipped here too (no
// new edge is made for such a pair either: its insert does nothing on conflict). The edge
// writes wait in pt's queue.
func (c *Coordinator) coActivate(ctx context.Context, pt *pipeTx, q *db.Queries, tenant string, ap *db.RecallApplyRow, now time.Time) error {
	ents := ap.Entities // already the first MaxEntitiesCoActivated (RecallApply's max_entities)
	if len(ents) < 2 {
		return nil
	}
	if n := len(ap.EdgeIds); len(ap.EdgeSources) != n || len(ap.EdgeTargets) != n || len(ap.EdgeWeights) != n ||
		len(ap.EdgeVariances) != n || len(ap.EdgeActivationCounts) != n || len(ap.EdgeLastActivated) != n {
		return fmt.Errorf("coordinator: RecallApply returned edge arrays of unequal lengths")
	}
	type pair struct{ a, b int64 }
	type lockedEdge struct {
		id   int64
		edge hebbian.Edge
	}
	have := make(map[pair]lockedEdge, len(ap.EdgeIds))
	for i, id := range ap.EdgeIds {
		have[pair{ap.EdgeSources[i], ap.EdgeTargets[i]}] = lockedEdge{id: id, edge: hebbian.Edge{
			Weight:   ap.EdgeWeights[i],
			Variance: ap.EdgeVariances[i], ActivationCount: int(ap.EdgeActivationCounts[i]), LastActivated: ap.EdgeLastActivated[i],
		}}
	}
	var up db.EdgeUpdateCoOccursParams
	var ins db.EdgeInsertCoOccursParams
	for i := 0; i < len(ents); i++ {
		for j := i + 1; j < len(ents); j++ {
			p := pair{ents[i], ents[j]}
			old, ok := have[p]
			ne, err := c.hebb.Activate(old.edge, 1, 1, now) // a new pair starts from the zero edge
			if err != nil {
				return fmt.Errorf("error activating edge: %w", err)
			}
			w, v := clamp(ne.Weight, 0, 10), clamp(ne.Variance, 0.01, 100)
			if ok {
				up.Ids = append(up.Ids, old.id)
				up.Weights, up.Variances = append(up.Weights, w), append(up.Variances, v)
				up.ActivationCounts = append(up.ActivationCounts, int32(ne.ActivationCount))
			} else {
				ins.SourceIDs, ins.TargetIds = append(ins.SourceIDs, p.a), append(ins.TargetIds, p.b)
				ins.Weights, ins.Variances = append(ins.Weights, w), append(ins.Variances, v)
				ins.ActivationCounts = append(ins.ActivationCounts, int32(ne.ActivationCount))
			}
		}
	}
	return pt.Later(func() error {
		if len(up.Ids) > 0 {
			up.TenantID, up.Now = tenant, now
			if err := q.EdgeUpdateCoOccurs(ctx, up); err != nil {
				return err
			}
		}
		if len(ins.SourceIDs) > 0 {
			ins.TenantID, ins.Now = tenant, now
			return q.EdgeInsertCoOccurs(ctx, ins)
		}
		return nil
	})
}

// MaxQueryTerms bounds the distinct index terms of a recall query (zb.recall has the same bound):
// each term is a read of the postings, and a question has a few dozen.
const MaxQueryTerms = 1024

// checkQueryTerms refuses a query with more than MaxQueryTerms distinct terms (ErrInvalidInput).
func checkQueryTerms(query string) error {
	terms := textproc.Terms(query, textproc.DetectLang(query))
	if len(terms) <= MaxQueryTerms {
		return nil
	}
	distinct := make(map[string]struct{}, MaxQueryTerms+1)
	for _, t := range terms {
		distinct[t] = struct{}{}
		if len(distinct) > MaxQueryTerms {
			return fmt.Errorf("%w: the query has more than %d distinct terms", ErrInvalidInput, MaxQueryTerms)
		}
	}
	return nil
}
