package coordinator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/algorithms/bayes"
	"github.com/zenbrain/zb/algorithms/debate"
	"github.com/zenbrain/zb/algorithms/hebbian"
	"github.com/zenbrain/zb/algorithms/review"
	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/jobs"
	"github.com/zenbrain/zb/pma"
)

// Parameters of derivation's contradiction detection.
const (
	// ContradictionMinCosine is the cosine similarity from which a stored semantic fact is a
	// contradiction candidate of a new memory (besides the facts about the same subject and
	// attribute).
	ContradictionMinCosine = 0.8
	// ContradictionCandidates is how many nearest semantic facts are checked.
	ContradictionCandidates = 8
	// ContradictionReliability is the reliability q of the contradicting evidence a new
	// memory adds to a stored fact it contradicts: β += q.
	ContradictionReliability = 1.0
	// ReconsolidationMinCosine is the cosine similarity from which a new memory counts as
	// updating a labile memory (sharing an entity also counts).
	ReconsolidationMinCosine = 0.5
)

// DeriveReport counts what one Derive call wrote.
type DeriveReport struct {
	// Requested is the number of memories asked for (the ids, plus the pending ones found).
	Requested int `json:"requested"`
	// Derived lists the memories derived (derived_at set) by this call.
	Derived []int64 `json:"derived"`
	// Skipped counts memories not derived now: already derived, locked by another
	// transaction, or changed between the embedding and the transaction (retried later).
	Skipped int `json:"skipped"`
	// Embedded counts embeddings written.
	Embedded int `json:"embedded"`
	// Terms counts memories whose BM25 index terms were computed (rows inserted with plain SQL).
	Terms int `json:"terms"`
	// Tagged counts emotional tags written over neutral defaults.
	Tagged int `json:"tagged"`
	// Mentions counts new memory–entity mentions; Entities the distinct entities they name.
	Mentions int `json:"mentions"`
	Entities int `json:"entities"`
	// Edges counts co_occurs edges created or strengthened (Hebbian activation).
	Edges int `json:"edges"`
	// TripleCopies counts fast and medium copies written for memories that had none.
	TripleCopies int `json:"triple_copies"`
	// ReviewStates counts FSRS review states created (semantic and procedural memories).
	ReviewStates int `json:"review_states"`
	// Superseded counts facts whose validity the supersession recheck ended.
	Superseded int `json:"superseded"`
	// Contradictions counts new 'contradicts' links (each with contradicting evidence).
	Contradictions int `json:"contradictions"`
	// Debates counts iMAD debates held (a new fact contradicting ≥ 2 stored ones).
	Debates int `json:"debates"`
	// Reconsolidations counts reconsolidation events recorded.
	Reconsolidations int `json:"reconsolidations"`
	// More reports that a Pending sweep left underived memories for another call.
	More bool `json:"more"`
}

// Derive derives what store did not compute for memories of one tenant: for args.MemoryIDs
// and, with args.Pending, the oldest underived memories of the tenant (at most
// DeriveMaxPerCall per call; More reports the rest). Memories already derived are skipped, so
// Derive is idempotent. Embeddings are computed (in batches, with Config.Embedder) before the
// transaction; in the transaction the rows are locked (FOR UPDATE SKIP LOCKED) and a row whose
// updated_at changed since the embedding is left for the next call. Per memory, each mechanism
// only when its switch is on (zb.algorithm_switch; a missing row means on):
//
//   - the embedding when missing, BM25 terms when missing (plain SQL rows), emotional tags
//     when the row has the neutral defaults (and then its priority and fade time), the fade time
//     when missing;
//   - entities and mentions (ExtractEntities) and co_occurs edges between the entities of the
//     memory (hebbian.Model.Activate, tag 1, activation 1) [two_factor_hebbian];
//   - fast and medium triple copies when missing (StoreBatch rows) [triple_copy];
//   - an FSRS review state for semantic and procedural memories, due after FSRS's first
//     interval for a Good answer;
//   - with args.RecheckSupersede, the bi-temporal supersession of live facts about the same
//     subject and attribute;
//   - contradiction detection (pma.DetectContradiction) against stored facts about the same
//     subject and attribute and the ContradictionCandidates nearest semantic facts with cosine
//     ≥ ContradictionMinCosine (facts this one superseded, or is superseded by, are resolved and
//     skipped): a 'contradicts' link and contradicting evidence (β += ContradictionReliability)
//     on the stored fact [bayesian_confidence]; with ≥ 2 contradicted facts an iMAD debate
//     (debate.Run with the offline judge) whose outcome is stored in zb.debate and applied:
//     supersede ends the incumbents' validity, reject archives the new memory, keep_both makes
//     all of them kind 'hypothesis' with a shared metadata.hypothesis_group [imad_debate];
//     a propagation job (jobs.PropagateArgs) is enqueued for the facts with new evidence;
//   - reconsolidation: when the memory arrives while a related memory of its context is labile
//     (a lability window open at its created_at; related = cosine ≥ ReconsolidationMinCosine or a
//     shared entity), the pma.ReconsolidationEngine plan for the most similar one is applied
//     with neuromodulator levels [neuromodulator] and the StabilityProtector gate
//     [stability_protector], and recorded in zb.reconsolidation_event with a snapshot that
//     Rollback restores exactly [reconsolidation]. An edited memory loses its embedding and is
//     re-derived (a derive job is enqueued) so its embedding follows its content.
//
// All effects and hook commit in one transaction.
func (c *Coordinator) Derive(ctx context.Context, args jobs.DeriveArgs, hook TxHook) (*DeriveReport, error) {
	if err := checkTenant(args.TenantID); err != nil {
		return nil, err
	}
	if len(args.MemoryIDs) > DeriveMaxPerCall {
		return nil, fmt.Errorf("%w: %d memory ids, at most %d per call", ErrInvalidInput, len(args.MemoryIDs), DeriveMaxPerCall)
	}
	tenant := args.TenantID
	now := c.clock.Now()
	rep := &DeriveReport{Derived: []int64{}}
	ids := slices.Clone(args.MemoryIDs)
	if args.Pending {
		pend, err := c.q.LcUnderivedIDs(ctx, db.LcUnderivedIDsParams{TenantID: tenant, K: int32(DeriveMaxPerCall + 1)})
		if err != nil {
			return nil, interpretError("listing underived memories", err)
		}
		for _, id := range pend {
			if len(ids) >= DeriveMaxPerCall {
				rep.More = true
				break
			}
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	rep.Requested = len(ids)

	// Embeddings, outside any transaction.
	reads, err := c.q.LcDeriveRead(ctx, db.LcDeriveReadParams{TenantID: tenant, Ids: nonNil(ids)})
	if err != nil {
		return nil, interpretError("reading memories to derive", err)
	}
	readAt := map[int64]time.Time{}
	embs := map[int64][]float32{}
	if c.cfg.Embedder != nil {
		var todo []db.LcDeriveReadRow
		for _, r := range reads {
			if r.NeedsEmbedding && r.Status != db.ZbMemoryStatusErased {
				todo = append(todo, r)
			}
		}
		if len(todo) > 0 {
			dim, err := c.embeddingDim(ctx)
			if err != nil {
				return nil, err
			}
			for start := 0; start < len(todo); start += c.cfg.EmbedBatchSize {
				batch := todo[start:min(start+c.cfg.EmbedBatchSize, len(todo))]
				texts := make([]string, len(batch))
				for i, r := range batch {
					texts[i] = r.Content
				}
				vs, err := c.cfg.Embedder.Embed(ctx, texts)
				if err != nil {
					return nil, fmt.Errorf("error embedding content: %w", err)
				}
				if len(vs) != len(batch) {
					return nil, fmt.Errorf("%w: the embedder returned %d embeddings for %d texts", ErrDimensionMismatch, len(vs), len(batch))
				}
				for i, r := range batch {
					if checkEmbedding(vs[i], dim) != nil {
						continue // e.g. a text without terms: leave it without embedding
					}
					embs[r.ID], readAt[r.ID] = vs[i], r.UpdatedAt
				}
			}
		}
	}

	firstInterval, err := c.firstReviewInterval(now)
	if err != nil {
		return nil, err
	}
	err = c.lifecycleTx(ctx, tenant, hook, func(tx pgx.Tx, q *db.Queries) error {
		sw, err := c.switches(ctx, q, tenant)
		if err != nil {
			return err
		}
		rows, err := q.LcDeriveLock(ctx, db.LcDeriveLockParams{TenantID: tenant, Ids: nonNil(ids)})
		if err != nil {
			return err
		}
		d := &deriver{c: c, ctx: ctx, tx: tx, q: q, sw: sw, now: now, tenant: tenant, rep: rep,
			firstInterval: firstInterval, entities: map[int64]bool{}, propagate: map[int64]bool{}}
		var erased []int64
		for i := range rows {
			m := &rows[i]
			if m.Status == db.ZbMemoryStatusErased {
				erased = append(erased, m.ID)
				continue
			}
			emb := embs[m.ID]
			if m.Embedding == nil && emb != nil && !m.UpdatedAt.Equal(readAt[m.ID]) {
				continue // changed since it was embedded: the next call embeds it again
			}
			if m.Embedding != nil {
				emb = nil
			}
			if err := d.derive(m, emb, args.RecheckSupersede); err != nil {
				return fmt.Errorf("memory %d: %w", m.ID, err)
			}
			rep.Derived = append(rep.Derived, m.ID)
		}
		if len(erased) > 0 {
			if err := q.LcMarkDerived(ctx, db.LcMarkDerivedParams{TenantID: tenant, Ids: erased, Now: now}); err != nil {
				return err
			}
			rep.Derived = append(rep.Derived, erased...)
		}
		rep.Entities = len(d.entities)
		if len(d.propagate) > 0 && sw.enabled("bayesian_confidence") {
			pids := make([]int64, 0, len(d.propagate))
			for id := range d.propagate {
				pids = append(pids, id)
			}
			slices.Sort(pids)
			if _, err := c.river.InsertTx(ctx, tx, jobs.PropagateArgs{TenantID: tenant, MemoryIDs: pids},
				jobs.LifecycleInsertOpts()); err != nil {
				return fmt.Errorf("error enqueuing propagation: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, interpretError("deriving memories", err)
	}
	slices.Sort(rep.Derived)
	rep.Skipped = rep.Requested - len(rep.Derived)
	return rep, nil
}

// firstReviewInterval is FSRS's interval for a Good first answer on a new card (whole days).
func (c *Coordinator) firstReviewInterval(now time.Time) (time.Duration, error) {
	s, err := review.NewScheduler(&review.Config{DisableShortTerm: true})
	if err != nil {
		return 0, err
	}
	_, lg, err := s.Review(review.NewCard(), review.Good, now)
	if err != nil {
		return 0, err
	}
	return max(lg.Interval, 24*time.Hour), nil
}

type deriver struct {
	c             *Coordinator
	ctx           context.Context
	tx            pgx.Tx
	q             *db.Queries
	sw            switchSet
	now           time.Time
	tenant        string
	rep           *DeriveReport
	firstInterval time.Duration
	entities      map[int64]bool
	propagate     map[int64]bool
}

func (d *deriver) derive(m *db.ZbMemory, emb []float32, recheck bool) error {
	ctx, q, c := d.ctx, d.q, d.c
	w := db.LcDeriveWriteParams{TenantID: d.tenant, ID: m.ID, Now: d.now, Terms: nonNil(m.Terms), TermCount: m.TermCount,
		Valence: m.Valence, Arousal: m.Arousal, Significance: m.Significance, Priority: m.Priority, FadeAt: m.FadeAt}
	vec := []float32(nil)
	if m.Embedding != nil {
		vec = m.Embedding.Slice()
	}
	if emb != nil && c.cfg.Embedder != nil {
		w.Embedding, w.EmbeddingModel = toVector(emb), strPtr(c.cfg.Embedder.Model())
		vec = emb
		d.rep.Embedded++
	}
	if m.TermCount == 0 {
		terms := textproc.Terms(m.Content, textproc.DetectLang(m.Content))
		w.Terms, w.TermCount = nonNil(terms), int32(len(terms))
		d.rep.Terms++
	}
	retrace := m.FadeAt == nil
	if m.Valence == 0 && m.Arousal == 0 && m.Significance == 0 {
		if tag, err := c.tagger.Tag(m.Content); err == nil && (tag.Valence != 0 || tag.Arousal != 0 || tag.Significance != 0) {
			w.Valence, w.Arousal, w.Significance = float32(tag.Valence), float32(tag.Arousal), float32(tag.Significance)
			if pr, err := c.priority.Score(pma.PriorityInput{Salience: tag.Arousal, Valence: tag.Valence,
				Relevance: float64(m.Importance), Goal: tag.Significance}, pma.BaselineLevels()); err == nil {
				w.Priority = float32(pr.Score)
			}
			d.rep.Tagged++
			retrace = true
		}
	}
	if retrace && m.Layer != db.ZbMemoryLayerCore {
		if tr, ok := lcTrace(m.Layer, m.Stability, w.Valence, w.Arousal, w.Significance, m.LastAccessedAt); ok {
			w.FadeAt = lcFadeAt(tr)
		}
	}
	if err := q.LcDeriveWrite(ctx, w); err != nil {
		return err
	}

	if d.sw.enabled("triple_copy") {
		tc, err := c.triple.Store(fmt.Sprint(m.ID), lcClamp(float64(w.Priority), 0.01, 1), m.CreatedAt)
		if err != nil {
			return err
		}
		cfg := (&pma.TripleCopyConfig{}).WithDefaults()
		n, err := q.LcTripleCopyEnsure(ctx, db.LcTripleCopyEnsureParams{TenantID: d.tenant, MemoryID: m.ID,
			Copies: []string{"fast", "medium"}, Strengths: []float64{tc.FastStrength, tc.MediumStrength},
			Taus: []float64{cfg.TauFast.Seconds(), cfg.TauMedium.Seconds()}, StoredAt: m.CreatedAt})
		if err != nil {
			return err
		}
		d.rep.TripleCopies += int(n)
	}

	ents, err := d.entitiesOf(m)
	if err != nil {
		return err
	}
	if d.sw.enabled("two_factor_hebbian") && len(ents) >= 2 {
		if err := d.coOccur(ents); err != nil {
			return err
		}
	}

	if m.Layer == db.ZbMemoryLayerSemantic || m.Layer == db.ZbMemoryLayerProcedural {
		n, err := q.LcReviewStateEnsure(ctx, db.LcReviewStateEnsureParams{TenantID: d.tenant, MemoryID: m.ID,
			Due: d.now.Add(d.firstInterval), Accesses: m.AccessCount})
		if err != nil {
			return err
		}
		d.rep.ReviewStates += int(n)
	}

	if recheck && m.Layer == db.ZbMemoryLayerSemantic && m.Subject != nil && m.Attribute != nil && m.ValidTo == nil {
		if err := d.recheckSupersede(m); err != nil {
			return err
		}
	}
	rejected := false
	if (m.Layer == db.ZbMemoryLayerSemantic || m.Layer == db.ZbMemoryLayerEpisodic) && m.Kind != "schema" {
		if rejected, err = d.contradictions(m, vec); err != nil {
			return err
		}
	}
	if !rejected && d.sw.enabled("reconsolidation") {
		if err := d.reconsolidate(m, vec, ents); err != nil {
			return err
		}
	}
	return nil
}

// entitiesOf extracts the memory's entities and records its mentions; it returns the entity ids.
func (d *deriver) entitiesOf(m *db.ZbMemory) ([]int64, error) {
	var out []int64
	for _, e := range ExtractEntities(m.Content) {
		var id int64
		f, err := d.q.LcEntityFind(d.ctx, db.LcEntityFindParams{TenantID: d.tenant, Context: m.Context, NormalizedName: e.Normalized})
		switch {
		case err == nil:
			id = f.ID
		case errors.Is(err, pgx.ErrNoRows):
			if id, err = d.q.LcEntityUpsert(d.ctx, db.LcEntityUpsertParams{TenantID: d.tenant, Context: m.Context,
				Name: truncate(e.Name, 400), NormalizedName: truncate(e.Normalized, 400), Type: e.Type, Now: d.now}); err != nil {
				return nil, err
			}
		default:
			return nil, err
		}
		n, err := d.q.LcMentionInsert(d.ctx, db.LcMentionInsertParams{TenantID: d.tenant, MemoryID: m.ID, EntityID: id,
			SpanStart: int32(e.Start), SpanEnd: int32(e.End), Now: d.now})
		if err != nil {
			return nil, err
		}
		d.rep.Mentions += int(n)
		d.entities[id] = true
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out, nil
}

// coOccur activates the co_occurs edge of every pair of ents (sorted, source < target).
func (d *deriver) coOccur(ents []int64) error {
	locked, err := d.q.LcEdgesAmongLock(d.ctx, db.LcEdgesAmongLockParams{TenantID: d.tenant, EntityIds: ents})
	if err != nil {
		return err
	}
	type pair struct{ a, b int64 }
	have := map[pair]hebbian.Edge{}
	for _, e := range locked {
		if e.Relation == db.ZbEdgeRelationCoOccurs {
			have[pair{e.SourceID, e.TargetID}] = hebbian.Edge{Weight: e.Weight, Variance: e.Variance,
				ActivationCount: int(e.ActivationCount), LastActivated: e.LastActivatedAt}
		}
	}
	var p db.LcEdgeUpsertParams
	for i := 0; i < len(ents); i++ {
		for j := i + 1; j < len(ents); j++ {
			e, err := d.c.hebb.Activate(have[pair{ents[i], ents[j]}], 1, 1, d.now)
			if err != nil {
				return err
			}
			at := e.LastActivated
			if at.IsZero() {
				at = d.now
			}
			p.SourceIDs, p.TargetIds = append(p.SourceIDs, ents[i]), append(p.TargetIds, ents[j])
			p.Weights, p.Variances = append(p.Weights, lcClamp(e.Weight, 0, 10)), append(p.Variances, lcClamp(e.Variance, 0.01, 100))
			p.ActivationCounts, p.ActivatedAt = append(p.ActivationCounts, int32(e.ActivationCount)), append(p.ActivatedAt, at)
		}
	}
	p.TenantID, p.Relation, p.Origin, p.Now = d.tenant, string(db.ZbEdgeRelationCoOccurs), "extraction", d.now
	if err := d.q.LcEdgeUpsert(d.ctx, p); err != nil {
		return err
	}
	d.rep.Edges += len(p.SourceIDs)
	return nil
}

// recheckSupersede repeats store's bi-temporal supersession for m: live facts about the same
// subject and attribute stated before m end where m begins; a fact stated after m ends m.
func (d *deriver) recheckSupersede(m *db.ZbMemory) error {
	rows, err := d.q.LcLiveFacts(d.ctx, db.LcLiveFactsParams{TenantID: d.tenant, Subject: *m.Subject, Attribute: *m.Attribute, ID: m.ID})
	if err != nil {
		return err
	}
	from := m.CreatedAt
	if m.ValidFrom != nil {
		from = *m.ValidFrom
	}
	var newer *db.LcLiveFactsRow
	for i, o := range rows {
		of := o.CreatedAt
		if o.ValidFrom != nil {
			of = *o.ValidFrom
		}
		if of.After(from) && (newer == nil || of.Before(validFrom(newer))) {
			newer = &rows[i]
		}
	}
	if newer != nil {
		n, err := d.q.LcSupersede(d.ctx, db.LcSupersedeParams{TenantID: d.tenant, ID: m.ID, ValidTo: validFrom(newer), SupersededBy: newer.ID, Now: d.now})
		d.rep.Superseded += int(n)
		return err
	}
	for _, o := range rows {
		to := from
		if o.ValidFrom != nil && !to.After(*o.ValidFrom) {
			to = o.ValidFrom.Add(time.Microsecond)
		}
		n, err := d.q.LcSupersede(d.ctx, db.LcSupersedeParams{TenantID: d.tenant, ID: o.ID, ValidTo: to, SupersededBy: m.ID, Now: d.now})
		if err != nil {
			return err
		}
		d.rep.Superseded += int(n)
	}
	return nil
}

func validFrom(r *db.LcLiveFactsRow) time.Time {
	if r.ValidFrom != nil {
		return *r.ValidFrom
	}
	return r.CreatedAt
}

type factCand struct {
	id         int64
	content    string
	recorded   time.Time
	alpha      float64
	beta       float64
	confidence float64
}

// contradictions links m to the stored facts it contradicts, adds the evidence and runs the
// debate. It reports whether the debate rejected m.
func (d *deriver) contradictions(m *db.ZbMemory, vec []float32) (bool, error) {
	ctx, q := d.ctx, d.q
	cands := map[int64]factCand{}
	resolved := func(id int64, supersededBy *int64) bool {
		return (supersededBy != nil && *supersededBy == m.ID) || (m.SupersededBy != nil && *m.SupersededBy == id)
	}
	if m.Subject != nil && m.Attribute != nil {
		rows, err := q.LcFactsSameSubject(ctx, db.LcFactsSameSubjectParams{TenantID: d.tenant, Subject: *m.Subject, Attribute: *m.Attribute, ID: m.ID})
		if err != nil {
			return false, err
		}
		for _, r := range rows {
			if !resolved(r.ID, r.SupersededBy) {
				cands[r.ID] = factCand{r.ID, r.Content, coalesceTime(r.ValidFrom, r.CreatedAt), r.ConfAlpha, r.ConfBeta, r.Confidence}
			}
		}
	}
	if vec != nil {
		rows, err := q.LcFactsSimilar(ctx, db.LcFactsSimilarParams{TenantID: d.tenant, Query: toVector(vec), ID: m.ID, K: ContradictionCandidates})
		if err != nil {
			return false, err
		}
		for _, r := range rows {
			if r.Cosine >= ContradictionMinCosine && !resolved(r.ID, r.SupersededBy) {
				cands[r.ID] = factCand{r.ID, r.Content, coalesceTime(r.ValidFrom, r.CreatedAt), r.ConfAlpha, r.ConfBeta, r.Confidence}
			}
		}
	}
	keys := make([]int64, 0, len(cands))
	for id := range cands {
		keys = append(keys, id)
	}
	slices.Sort(keys)
	var contradicted []factCand
	for _, id := range keys {
		f := cands[id]
		if !pma.DetectContradiction(f.content, m.Content).Detected() {
			continue
		}
		contradicted = append(contradicted, f)
		n, err := q.LcLinkInsert(ctx, db.LcLinkInsertParams{TenantID: d.tenant, SourceID: m.ID, TargetID: f.id,
			Relation: string(db.ZbEdgeRelationContradicts), Weight: 1, Origin: "derive", Now: d.now})
		if err != nil {
			return false, err
		}
		if n == 0 {
			continue
		}
		d.rep.Contradictions++
		d.propagate[m.ID], d.propagate[f.id] = true, true
		if d.sw.enabled("bayesian_confidence") {
			b, err := bayes.Belief{Alpha: f.alpha, Beta: f.beta}.Observe(bayes.Evidence{Kind: bayes.Contradict, Reliability: ContradictionReliability}, nil)
			if err != nil {
				return false, err
			}
			if err := q.LcSetBelief(ctx, db.LcSetBeliefParams{TenantID: d.tenant, ID: f.id, ConfAlpha: b.Alpha, ConfBeta: b.Beta,
				Confidence: lcClamp(b.Mean(), 0, 1), Now: d.now}); err != nil {
				return false, err
			}
			src := m.ID
			if err := q.LcEvidenceInsert(ctx, db.LcEvidenceInsertParams{TenantID: d.tenant, MemoryID: f.id, Kind: "contradict",
				Weight: ContradictionReliability, Source: "derive", SourceMemoryID: &src, Now: d.now}); err != nil {
				return false, err
			}
		}
	}
	if !d.sw.enabled("imad_debate") || !debate.ShouldDebate(len(contradicted), nil) {
		return false, nil
	}
	if n, err := q.LcDebateFor(ctx, db.LcDebateForParams{TenantID: d.tenant, MemoryID: m.ID}); err != nil || n > 0 {
		return false, err
	}
	return d.debate(m, contradicted)
}

func coalesceTime(p *time.Time, d time.Time) time.Time {
	if p != nil {
		return *p
	}
	return d
}

// debate runs the iMAD debate of m against the contradicted facts and applies its outcome.
func (d *deriver) debate(m *db.ZbMemory, contradicted []factCand) (bool, error) {
	ctx, q := d.ctx, d.q
	rel := func(ai bool) float64 {
		if ai {
			return 0.6
		}
		return 0.8
	}
	ch := debate.Fact{ID: fmt.Sprint(m.ID), Statement: m.Content, RecordedAt: coalesceTime(m.ValidFrom, m.CreatedAt),
		Confidence: lcClamp(m.ConfAlpha/(m.ConfAlpha+m.ConfBeta), 0, 1), SourceReliability: rel(m.AiGenerated), Supports: int(m.AccessCount)}
	inc := make([]debate.Fact, len(contradicted))
	ids := make([]int64, len(contradicted))
	for i, f := range contradicted {
		inc[i] = debate.Fact{ID: fmt.Sprint(f.id), Statement: f.content, RecordedAt: f.recorded,
			Confidence: lcClamp(f.alpha/(f.alpha+f.beta), 0, 1), SourceReliability: 0.8}
		ids[i] = f.id
	}
	res, err := debate.Run(ctx, ch, inc, d.now, nil, nil)
	if err != nil || !res.Triggered {
		return false, err
	}
	outcome := map[debate.Outcome]string{debate.KeepBothAsHypotheses: "keep_both", debate.Supersede: "supersede", debate.Reject: "reject"}[res.Verdict.Outcome]
	positions := append([]debate.Position{res.Debate.Challenger}, res.Debate.Incumbents...)
	reason := fmt.Sprintf("%v", res.Verdict.Reasons)
	if len(res.Verdict.Reasons) > 0 {
		reason = res.Verdict.Reasons[0]
		for _, r := range res.Verdict.Reasons[1:] {
			reason += " " + r
		}
	}
	did, err := q.LcDebateInsert(ctx, db.LcDebateInsertParams{TenantID: d.tenant, MemoryID: m.ID, Contradicted: ids,
		Positions: mustJSON(positions), Outcome: outcome, Reason: reason, Judge: res.Verdict.Judge, Now: d.now})
	if err != nil {
		return false, err
	}
	d.rep.Debates++
	rejected := false
	switch res.Verdict.Outcome {
	case debate.Supersede:
		to := coalesceTime(m.ValidFrom, m.CreatedAt)
		for _, s := range res.Verdict.Superseded {
			id, ok := parseID(s)
			if !ok {
				continue
			}
			n, err := q.LcSupersede(ctx, db.LcSupersedeParams{TenantID: d.tenant, ID: id, ValidTo: to, SupersededBy: m.ID, Now: d.now})
			if err != nil {
				return false, err
			}
			d.rep.Superseded += int(n)
		}
	case debate.Reject:
		if err := q.LcSetKindMeta(ctx, db.LcSetKindMetaParams{TenantID: d.tenant, Ids: []int64{m.ID}, Kind: m.Kind,
			Metadata: mustJSON(map[string]any{"debate_id": did, "debate_outcome": outcome}), Now: d.now}); err != nil {
			return false, err
		}
		if _, err := q.LcArchive(ctx, db.LcArchiveParams{TenantID: d.tenant, Ids: []int64{m.ID}, Now: d.now}); err != nil {
			return false, err
		}
		rejected = true
	case debate.KeepBothAsHypotheses:
		if err := q.LcSetKindMeta(ctx, db.LcSetKindMetaParams{TenantID: d.tenant, Ids: append([]int64{m.ID}, ids...), Kind: "hypothesis",
			Metadata: mustJSON(map[string]any{"hypothesis_group": did}), Now: d.now}); err != nil {
			return false, err
		}
	}
	return rejected, d.c.audit(ctx, q, d.tenant, "memory.debate", &m.ID, d.now, map[string]any{"debate_id": did,
		"outcome": outcome, "contradicted": ids, "margin": res.Verdict.Margin})
}

// neuroLevels returns the tenant's effective neuromodulator levels at now (baseline when the
// neuromodulator is off or has no state).
func (c *Coordinator) neuroLevels(ctx context.Context, q *db.Queries, tenant string, sw switchSet, now time.Time) (pma.Levels, error) {
	if !sw.enabled("neuromodulator") {
		return pma.BaselineLevels(), nil
	}
	rows, err := q.LcNeuroGet(ctx, tenant)
	if err != nil || len(rows) == 0 {
		return pma.BaselineLevels(), err
	}
	r := rows[0]
	eng, err := pma.NewNeuromodulatorEngine(nil)
	if err != nil {
		return pma.BaselineLevels(), err
	}
	st := pma.NeuromodulatorState{TenantID: tenant, TonicDA: float64(r.DaTonic), TonicNE: float64(r.NeTonic),
		TonicSerotonin: float64(r.HtTonic), TonicACh: float64(r.AchTonic), PhasicDA: float64(r.DaPhasic),
		PhasicNE: float64(r.NePhasic), PhasicSerotonin: float64(r.HtPhasic), PhasicACh: float64(r.AchPhasic),
		LastTickAt: r.LastTickAt, UpdatedAt: coalesceTime(r.PhasicAt, r.UpdatedAt)}
	l, err := eng.Levels(st, now)
	if err != nil {
		return pma.BaselineLevels(), nil // a corrupt state must not block derivation
	}
	return l, nil
}
