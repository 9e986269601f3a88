package coordinator

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
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
//     when the row has the neutral defaults (and then its priority, with the tenant's
//     neuromodulator levels [neuromodulator], and fade time), the fade time when missing;
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
//     re-derived (a derive job is enqueued) so its embedding follows its content;
//   - neuromodulator events [neuromodulator]: one novelty event per call (the mean over its
//     semantic and episodic memories of 1 − the best cosine to a stored semantic fact), a
//     prediction error per contradiction and per reconsolidation that changed or added a memory,
//     a confirmation per confirming one; the tenant's state is then written (see Neuromodulator).
//
// The writes are set-based: one UPDATE for every memory's derived columns, one statement each
// for the triple copies, the entities (resolved or created), the mentions, the co_occurs edges
// (activated in memory order, so a pair in two memories is activated twice) and the review
// states, and one statement with one HNSW search per memory for the contradiction candidates;
// the checks that rarely write (supersession, contradictions, reconsolidation) then run memory by
// memory in id order, reading their candidates again once an earlier memory changed stored
// facts. The result equals deriving the memories one call each in id order (a memory does not
// see the embeddings this call writes for later memories), except that the neuromodulator levels
// are those at the start of the call. All effects and hook commit in one transaction.
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
		pend, err := tenantRead(ctx, c, tenant, func(q *db.Queries) ([]int64, error) {
			return q.LcUnderivedIDs(ctx, db.LcUnderivedIDsParams{TenantID: tenant, K: int32(DeriveMaxPerCall + 1)})
		})
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

	// Embeddings, outside the lifecycle transaction (the read is bound to the tenant, like every
	// read of tenant rows: row-level security keys on it).
	reads, err := tenantRead(ctx, c, tenant, func(q *db.Queries) ([]db.LcDeriveReadRow, error) {
		return q.LcDeriveRead(ctx, db.LcDeriveReadParams{TenantID: tenant, Ids: nonNil(ids)})
	})
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
		sw, neuro, err := c.lifecyclePreamble(ctx, q, tenant, now)
		if err != nil {
			return err
		}
		rows, err := q.LcDeriveLock(ctx, db.LcDeriveLockParams{TenantID: tenant, Ids: nonNil(ids)})
		if err != nil {
			return err
		}
		d := &deriver{
			c: c, ctx: ctx, tx: tx, q: q, sw: sw, now: now, tenant: tenant, rep: rep,
			firstInterval: firstInterval, entities: map[int64]bool{}, propagate: map[int64]bool{},
			pos: map[int64]int{}, fresh: map[int64]bool{}, neuro: neuro,
		}
		var erased []int64
		var live []*db.ZbMemory
		fresh := map[int64][]float32{}
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
			if m.Embedding == nil && emb != nil {
				fresh[m.ID] = emb
			}
			live = append(live, m)
		}
		if err := d.deriveBatch(live, fresh, args.RecheckSupersede); err != nil {
			return err
		}
		for _, m := range live {
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
		return c.neuroRecord(ctx, q, tenant, sw, now, d.events, neuro)
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
	// pos is each memory's position in the batch; fresh marks the memories whose embedding this
	// call wrote (a memory later in the batch with a fresh embedding is not yet visible to an
	// earlier one's contradiction search, as if they were derived one after the other).
	pos   map[int64]int
	fresh map[int64]bool
	// dirty reports that a contradiction, supersession or reconsolidation changed stored facts:
	// the prefetched contradiction candidates of later memories are stale and read again.
	dirty bool
	// neuro holds the tenant's recent neuromodulator events (levels at any time of the batch);
	// events collects the events of this call [neuromodulator].
	neuro  *neuroLog
	events []neuroEvent
}

// deriveBatch derives the locked memories ms (in id order; embs holds the embeddings computed for
// those without one) with set-based statements — one UPDATE for every row's derived columns, one
// statement each for the triple copies, the entities, the mentions, the co_occurs edges and the
// review states, one HNSW search per memory in one statement for the contradiction candidates —
// and then runs the per-memory checks that rarely write (supersession, contradictions and
// debates, reconsolidation) in id order, as Derive documents.
func (d *deriver) deriveBatch(ms []*db.ZbMemory, embs map[int64][]float32, recheck bool) error {
	if len(ms) == 0 {
		return nil
	}
	ctx, q, c := d.ctx, d.q, d.c
	levels := pma.BaselineLevels()
	if d.sw.enabled("neuromodulator") {
		levels = d.neuro.levelsAt(d.now)
	}
	w := db.LcDeriveWriteManyParams{TenantID: d.tenant, Now: d.now, Embeddings: []float32{}, Terms: []string{}}
	if c.cfg.Embedder != nil {
		w.EmbeddingModel = c.cfg.Embedder.Model()
	}
	hasVec := map[int64]bool{}
	for i, m := range ms {
		d.pos[m.ID] = i
		emb := embs[m.ID]
		w.Ids = append(w.Ids, m.ID)
		has := emb != nil && c.cfg.Embedder != nil
		w.HasEmbedding, w.EmbOffsets = append(w.HasEmbedding, has), append(w.EmbOffsets, int32(len(w.Embeddings)))
		if has {
			w.Dim = int32(len(emb))
			w.Embeddings = append(w.Embeddings, emb...)
			d.fresh[m.ID] = true
			d.rep.Embedded++
		}
		hasVec[m.ID] = has || m.Embedding != nil
		setTerms := m.TermCount == 0
		w.SetTerms, w.TermOffsets = append(w.SetTerms, setTerms), append(w.TermOffsets, int32(len(w.Terms)))
		count := int32(0)
		if setTerms {
			terms := textproc.Terms(m.Content, textproc.DetectLang(m.Content))
			w.Terms, count = append(w.Terms, terms...), int32(len(terms))
			d.rep.Terms++
		}
		w.TermCounts = append(w.TermCounts, count)
		val, aro, sig, pri, fade := m.Valence, m.Arousal, m.Significance, m.Priority, m.FadeAt
		retrace := m.FadeAt == nil
		if m.Valence == 0 && m.Arousal == 0 && m.Significance == 0 {
			if tag, err := c.tagger.Tag(m.Content); err == nil && (tag.Valence != 0 || tag.Arousal != 0 || tag.Significance != 0) {
				val, aro, sig = float32(tag.Valence), float32(tag.Arousal), float32(tag.Significance)
				if pr, err := c.priority.Score(pma.PriorityInput{
					Salience: tag.Arousal, Valence: tag.Valence,
					Relevance: float64(m.Importance), Goal: tag.Significance,
				}, levels); err == nil {
					pri = float32(pr.Score)
				}
				d.rep.Tagged++
				retrace = true
			}
		}
		if retrace && m.Layer != db.ZbMemoryLayerCore {
			if tr, ok := lcTrace(m.Layer, m.Stability, val, aro, sig, m.LastAccessedAt); ok {
				fade = lcFadeAt(tr)
			}
		}
		w.Valences, w.Arousals, w.Significances = append(w.Valences, val), append(w.Arousals, aro), append(w.Significances, sig)
		w.Priorities, w.FadeNull = append(w.Priorities, pri), append(w.FadeNull, fade == nil)
		if fade != nil {
			w.FadeAts = append(w.FadeAts, *fade)
		} else {
			w.FadeAts = append(w.FadeAts, d.now)
		}
	}
	if _, err := q.LcDeriveWriteMany(ctx, w); err != nil {
		return err
	}

	if d.sw.enabled("triple_copy") {
		cfg := (&pma.TripleCopyConfig{}).WithDefaults()
		var p db.LcTripleCopyEnsureManyParams
		for i, m := range ms {
			tc, err := c.triple.Store(strconv.FormatInt(m.ID, 10), lcClamp(float64(w.Priorities[i]), 0.01, 1), m.CreatedAt)
			if err != nil {
				return err
			}
			p.MemoryIds = append(p.MemoryIds, m.ID, m.ID)
			p.Copies = append(p.Copies, "fast", "medium")
			p.Strengths = append(p.Strengths, tc.FastStrength, tc.MediumStrength)
			p.Taus = append(p.Taus, cfg.TauFast.Seconds(), cfg.TauMedium.Seconds())
			p.StoredAt = append(p.StoredAt, m.CreatedAt, m.CreatedAt)
		}
		p.TenantID = d.tenant
		n, err := q.LcTripleCopyEnsureMany(ctx, p)
		if err != nil {
			return err
		}
		d.rep.TripleCopies += int(n)
	}

	entsOf, err := d.entitiesOf(ms)
	if err != nil {
		return err
	}
	if d.sw.enabled("two_factor_hebbian") {
		if err := d.coOccur(ms, entsOf); err != nil {
			return err
		}
	}

	var rs db.LcReviewStateEnsureManyParams
	for _, m := range ms {
		if m.Layer == db.ZbMemoryLayerSemantic || m.Layer == db.ZbMemoryLayerProcedural {
			rs.MemoryIds, rs.Accesses = append(rs.MemoryIds, m.ID), append(rs.Accesses, m.AccessCount)
		}
	}
	if len(rs.MemoryIds) > 0 {
		rs.TenantID, rs.Due = d.tenant, d.now.Add(d.firstInterval)
		n, err := q.LcReviewStateEnsureMany(ctx, rs)
		if err != nil {
			return err
		}
		d.rep.ReviewStates += int(n)
	}

	// The checks that rarely write, memory by memory, with their candidates read up front.
	checked := func(m *db.ZbMemory) bool {
		return (m.Layer == db.ZbMemoryLayerSemantic || m.Layer == db.ZbMemoryLayerEpisodic) && m.Kind != "schema"
	}
	var simIDs []int64
	for _, m := range ms {
		if checked(m) && hasVec[m.ID] {
			simIDs = append(simIDs, m.ID)
		}
	}
	similar := map[int64][]db.LcFactsSimilarManyRow{}
	if len(simIDs) > 0 {
		rows, err := q.LcFactsSimilarMany(ctx, db.LcFactsSimilarManyParams{TenantID: d.tenant, Ids: simIDs, K: ContradictionCandidates})
		if err != nil {
			return err
		}
		for _, r := range rows {
			similar[r.MemoryID] = append(similar[r.MemoryID], r)
		}
	}
	var windows []db.LcLabileWindowsBetweenRow
	if d.sw.enabled("reconsolidation") {
		from, until := ms[0].CreatedAt, ms[0].CreatedAt
		for _, m := range ms {
			from, until = minTime(from, m.CreatedAt), maxTime(until, m.CreatedAt)
		}
		if windows, err = q.LcLabileWindowsBetween(ctx, db.LcLabileWindowsBetweenParams{TenantID: d.tenant, Since: from, Until: until}); err != nil {
			return err
		}
	}
	novelty, novel := 0.0, 0
	for _, m := range ms {
		if recheck && m.Layer == db.ZbMemoryLayerSemantic && m.Subject != nil && m.Attribute != nil && m.ValidTo == nil {
			if err := d.recheckSupersede(m); err != nil {
				return fmt.Errorf("memory %d: %w", m.ID, err)
			}
		}
		rejected := false
		if checked(m) {
			cands := d.visible(m, similar[m.ID])
			if hasVec[m.ID] {
				best := 0.0
				for _, r := range cands {
					best = max(best, r.Cosine)
				}
				novelty, novel = novelty+lcClamp(1-best, 0, 1), novel+1
			}
			if d.dirty {
				cands = nil // stale: read again
			}
			if rejected, err = d.contradictions(m, hasVec[m.ID], cands, !d.dirty); err != nil {
				return fmt.Errorf("memory %d: %w", m.ID, err)
			}
		}
		if !rejected && d.sw.enabled("reconsolidation") && labileAt(windows, m) {
			var vec []float32
			if e := embs[m.ID]; e != nil && d.fresh[m.ID] {
				vec = e
			} else if m.Embedding != nil {
				vec = m.Embedding.Slice()
			}
			before := d.rep.Reconsolidations
			if err := d.reconsolidate(m, vec, entsOf[m.ID]); err != nil {
				return fmt.Errorf("memory %d: %w", m.ID, err)
			}
			d.dirty = d.dirty || d.rep.Reconsolidations > before
		}
	}
	if err := c.deriveHooks(ctx, q, d.tenant, ms, embs, d.sw, d.now); err != nil { // stc_rescue, prospective cues
		return err
	}
	if novel > 0 {
		d.events = append(d.events, neuroEvent{Type: pma.EventNovelty, Magnitude: novelty / float64(novel)})
	}
	return nil
}

// visible drops the candidates that a sequential derivation would not have seen yet: memories
// later in this batch whose embedding this call wrote.
func (d *deriver) visible(m *db.ZbMemory, rows []db.LcFactsSimilarManyRow) []db.LcFactsSimilarManyRow {
	out := rows[:0:0]
	for _, r := range rows {
		if p, ok := d.pos[r.ID]; ok && p > d.pos[m.ID] && d.fresh[r.ID] {
			continue
		}
		out = append(out, r)
	}
	return out
}

// labileAt reports whether a lability window of another memory was open at m's creation.
func labileAt(ws []db.LcLabileWindowsBetweenRow, m *db.ZbMemory) bool {
	for _, w := range ws {
		if w.MemoryID != m.ID && !w.OpenedAt.After(m.CreatedAt) && w.ClosesAt.After(m.CreatedAt) {
			return true
		}
	}
	return false
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

type entKey struct{ context, normalized string }

// entitiesOf extracts the entities of ms, resolves them (one statement: an existing entity of
// the context with the normalized name, else a new one of the first extracted name and type,
// created in order of first mention as a memory-by-memory derivation would) and records the
// mentions (one statement). It returns each memory's sorted entity ids.
func (d *deriver) entitiesOf(ms []*db.ZbMemory) (map[int64][]int64, error) {
	type mention struct {
		memory     int64
		key        entKey
		start, end int32
	}
	var ments []mention
	var rp db.LcEntityResolveManyParams
	seen := map[entKey]bool{}
	for _, m := range ms {
		for _, e := range ExtractEntities(m.Content) {
			k := entKey{m.Context, truncate(e.Normalized, 400)}
			ments = append(ments, mention{m.ID, k, int32(e.Start), int32(e.End)})
			if !seen[k] {
				seen[k] = true
				rp.Contexts, rp.NormalizedNames = append(rp.Contexts, k.context), append(rp.NormalizedNames, k.normalized)
				rp.Names, rp.Types = append(rp.Names, truncate(e.Name, 400)), append(rp.Types, e.Type)
				rp.Ords = append(rp.Ords, int32(len(rp.Ords)))
			}
		}
	}
	out := map[int64][]int64{}
	if len(ments) == 0 {
		return out, nil
	}
	rp.TenantID, rp.Now = d.tenant, d.now
	rows, err := d.q.LcEntityResolveMany(d.ctx, rp)
	if err != nil {
		return nil, err
	}
	ids := make(map[entKey]int64, len(rows))
	for _, r := range rows {
		ids[entKey{r.Context, r.NormalizedName}] = r.ID
	}
	mp := db.LcMentionInsertManyParams{TenantID: d.tenant, Now: d.now}
	type pair struct{ m, e int64 }
	done := map[pair]bool{}
	for _, mn := range ments {
		id, ok := ids[mn.key]
		if !ok {
			return nil, fmt.Errorf("entity %q of context %q was not resolved", mn.key.normalized, mn.key.context)
		}
		d.entities[id] = true
		if done[pair{mn.memory, id}] {
			continue
		}
		done[pair{mn.memory, id}] = true
		out[mn.memory] = append(out[mn.memory], id)
		mp.MemoryIds, mp.EntityIds = append(mp.MemoryIds, mn.memory), append(mp.EntityIds, id)
		mp.SpanStarts, mp.SpanEnds = append(mp.SpanStarts, mn.start), append(mp.SpanEnds, mn.end)
	}
	n, err := d.q.LcMentionInsertMany(d.ctx, mp)
	if err != nil {
		return nil, err
	}
	d.rep.Mentions += int(n)
	for _, es := range out {
		slices.Sort(es)
	}
	return out, nil
}

// coOccur activates the co_occurs edge of every pair of entities (source < target) of each
// memory, in memory order (hebbian.Model.Activate, tag 1, activation 1: a pair in two memories is
// activated twice), locking the existing edges and writing the final states in one statement.
func (d *deriver) coOccur(ms []*db.ZbMemory, entsOf map[int64][]int64) error {
	type pair struct{ a, b int64 }
	var order []pair
	seen := map[pair]bool{}
	var lp db.LcEdgePairsLockParams
	for _, m := range ms {
		ents := entsOf[m.ID]
		for i := 0; i < len(ents); i++ {
			for j := i + 1; j < len(ents); j++ {
				p := pair{ents[i], ents[j]}
				if !seen[p] {
					seen[p] = true
					order = append(order, p)
					lp.SourceIDs, lp.TargetIds = append(lp.SourceIDs, p.a), append(lp.TargetIds, p.b)
				}
			}
		}
	}
	if len(order) == 0 {
		return nil
	}
	lp.TenantID, lp.Relation = d.tenant, string(db.ZbEdgeRelationCoOccurs)
	locked, err := d.q.LcEdgePairsLock(d.ctx, lp)
	if err != nil {
		return err
	}
	state := make(map[pair]hebbian.Edge, len(order))
	for _, e := range locked {
		state[pair{e.SourceID, e.TargetID}] = hebbian.Edge{
			Weight: e.Weight, Variance: e.Variance,
			ActivationCount: int(e.ActivationCount), LastActivated: e.LastActivatedAt,
		}
	}
	for _, m := range ms {
		ents := entsOf[m.ID]
		for i := 0; i < len(ents); i++ {
			for j := i + 1; j < len(ents); j++ {
				p := pair{ents[i], ents[j]}
				e, err := d.c.hebb.Activate(state[p], 1, 1, d.now)
				if err != nil {
					return err
				}
				state[p] = e
				d.rep.Edges++
			}
		}
	}
	slices.SortFunc(order, func(x, y pair) int {
		if x.a != y.a {
			return cmp.Compare(x.a, y.a)
		}
		return cmp.Compare(x.b, y.b)
	})
	var p db.LcEdgeUpsertParams
	for _, k := range order {
		e := state[k]
		at := e.LastActivated
		if at.IsZero() {
			at = d.now
		}
		p.SourceIDs, p.TargetIds = append(p.SourceIDs, k.a), append(p.TargetIds, k.b)
		p.Weights, p.Variances = append(p.Weights, lcClamp(e.Weight, 0, 10)), append(p.Variances, lcClamp(e.Variance, 0.01, 100))
		p.ActivationCounts, p.ActivatedAt = append(p.ActivationCounts, int32(e.ActivationCount)), append(p.ActivatedAt, at)
	}
	p.TenantID, p.Relation, p.Origin, p.Now = d.tenant, string(db.ZbEdgeRelationCoOccurs), "extraction", d.now
	return d.q.LcEdgeUpsert(d.ctx, p)
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
		d.dirty = d.dirty || n > 0
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
		d.dirty = d.dirty || n > 0
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
// debate. Its similar-fact candidates are pre when prefetched is true (the batch's search), else
// they are searched now (when m has an embedding). It reports whether the debate rejected m.
func (d *deriver) contradictions(m *db.ZbMemory, hasVec bool, pre []db.LcFactsSimilarManyRow, prefetched bool) (bool, error) {
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
	if hasVec && !prefetched {
		rows, err := q.LcFactsSimilarMany(ctx, db.LcFactsSimilarManyParams{TenantID: d.tenant, Ids: []int64{m.ID}, K: ContradictionCandidates})
		if err != nil {
			return false, err
		}
		pre = d.visible(m, rows)
	}
	for _, r := range pre {
		if r.Cosine >= ContradictionMinCosine && !resolved(r.ID, r.SupersededBy) {
			cands[r.ID] = factCand{r.ID, r.Content, coalesceTime(r.ValidFrom, r.CreatedAt), r.ConfAlpha, r.ConfBeta, r.Confidence}
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
		n, err := q.LcLinkInsert(ctx, db.LcLinkInsertParams{
			TenantID: d.tenant, SourceID: m.ID, TargetID: f.id,
			Relation: string(db.ZbEdgeRelationContradicts), Weight: 1, Origin: "derive", Now: d.now,
		})
		if err != nil {
			return false, err
		}
		if n == 0 {
			continue
		}
		d.rep.Contradictions++
		d.dirty = true
		d.events = append(d.events, neuroEvent{Type: pma.EventPredictionError, Magnitude: 1, MemoryID: &m.ID})
		d.propagate[m.ID], d.propagate[f.id] = true, true
		if d.sw.enabled("bayesian_confidence") {
			b, err := bayes.Belief{Alpha: f.alpha, Beta: f.beta}.Observe(bayes.Evidence{Kind: bayes.Contradict, Reliability: ContradictionReliability}, nil)
			if err != nil {
				return false, err
			}
			if err := q.LcSetBelief(ctx, db.LcSetBeliefParams{
				TenantID: d.tenant, ID: f.id, ConfAlpha: b.Alpha, ConfBeta: b.Beta,
				Confidence: lcClamp(b.Mean(), 0, 1), Now: d.now,
			}); err != nil {
				return false, err
			}
			src := m.ID
			if err := q.LcEvidenceInsert(ctx, db.LcEvidenceInsertParams{
				TenantID: d.tenant, MemoryID: f.id, Kind: "contradict",
				Weight: ContradictionReliability, Source: "derive", SourceMemoryID: &src, Now: d.now,
			}); err != nil {
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
	ch := debate.Fact{
		ID: fmt.Sprint(m.ID), Statement: m.Content, RecordedAt: coalesceTime(m.ValidFrom, m.CreatedAt),
		Confidence: lcClamp(m.ConfAlpha/(m.ConfAlpha+m.ConfBeta), 0, 1), SourceReliability: rel(m.AiGenerated), Supports: int(m.AccessCount),
	}
	inc := make([]debate.Fact, len(contradicted))
	ids := make([]int64, len(contradicted))
	for i, f := range contradicted {
		inc[i] = debate.Fact{
			ID: fmt.Sprint(f.id), Statement: f.content, RecordedAt: f.recorded,
			Confidence: lcClamp(f.alpha/(f.alpha+f.beta), 0, 1), SourceReliability: 0.8,
		}
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
	did, err := q.LcDebateInsert(ctx, db.LcDebateInsertParams{
		TenantID: d.tenant, MemoryID: m.ID, Contradicted: ids,
		Positions: mustJSON(positions), Outcome: outcome, Reason: reason, Judge: res.Verdict.Judge, Now: d.now,
	})
	if err != nil {
		return false, err
	}
	d.rep.Debates++
	d.dirty = true
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
		if err := q.LcSetKindMeta(ctx, db.LcSetKindMetaParams{
			TenantID: d.tenant, Ids: []int64{m.ID}, Kind: m.Kind,
			Metadata: mustJSON(map[string]any{"debate_id": did, "debate_outcome": outcome}), Now: d.now,
		}); err != nil {
			return false, err
		}
		if _, err := q.LcArchive(ctx, db.LcArchiveParams{TenantID: d.tenant, Ids: []int64{m.ID}, Now: d.now}); err != nil {
			return false, err
		}
		rejected = true
	case debate.KeepBothAsHypotheses:
		if err := q.LcSetKindMeta(ctx, db.LcSetKindMetaParams{
			TenantID: d.tenant, Ids: append([]int64{m.ID}, ids...), Kind: "hypothesis",
			Metadata: mustJSON(map[string]any{"hypothesis_group": did}), Now: d.now,
		}); err != nil {
			return false, err
		}
	}
	return rejected, d.c.audit(ctx, q, d.tenant, "memory.debate", &m.ID, d.now, map[string]any{
		"debate_id": did,
		"outcome":   outcome, "contradicted": ids, "margin": res.Verdict.Margin,
	})
}
