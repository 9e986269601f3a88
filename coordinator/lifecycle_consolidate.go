package coordinator

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/algorithms/consolidation"
	"github.com/zenbrain/zb/algorithms/forgetting"
	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/jobs"
	"github.com/zenbrain/zb/pma"
)

// Episode grouping of Consolidate.
const (
	// EpisodeGap is the pause between two turns of a session that starts a new episodic event.
	EpisodeGap = 30 * time.Minute
	// EpisodeMaxTurns is the most turns one episodic event groups.
	EpisodeMaxTurns = 8
)

// ConsolidateReport counts what one Consolidate call wrote.
type ConsolidateReport struct {
	// AlreadyConsolidated reports that the session had been consolidated before and holds no
	// short-term memory stored since: nothing changed.
	AlreadyConsolidated bool `json:"already_consolidated,omitempty"`
	// Turns is the number of short-term memories consolidated.
	Turns int `json:"turns"`
	// Episodes are the episodic events created (adjacent turns grouped).
	Episodes []int64 `json:"episodes"`
	// Facts are the semantic facts created from turns that state a subject/attribute fact.
	Facts []int64 `json:"facts"`
	// Schemas are the semantic schema memories created by dual-process consolidation.
	Schemas []int64 `json:"schemas"`
	// Consolidated counts the turns moved to the episodic layer.
	Consolidated int `json:"consolidated"`
}

// Consolidate consolidates the short-term memories of a session (at its end or idle timeout) in
// one transaction with hook:
//
//   - adjacent turns (in time order; a pause over EpisodeGap or EpisodeMaxTurns turns starts a new
//     group) become one episodic event each: the turns' text one per line, occurred_at and the
//     event span from the first to the last turn, source_ids the union of the turns and their
//     own sources, the strongest emotional tag, the turns' mean embedding when they share a model;
//   - a turn that states a subject/attribute fact (the store's fact patterns) becomes a semantic
//     fact with that turn as its source (derivation then rechecks supersession);
//   - with dual_process on, System 1 clusters the turns (consolidation.ClusterEpisodes: cosine
//     and entity overlap) and System 2 (the offline writer) turns every cluster into a semantic
//     schema memory (kind 'schema') whose source_ids are the union of the cluster's;
//   - the turns move from the short-term to the episodic layer and stay active: the precise trace
//     is kept beside the episode, fact and schema that carry it (complementary learning systems),
//     recall delivers each turn at its own granularity and an episode as its best lines
//     (DeliverResults), and the session's consolidated_at is set;
//   - one derive job for the new memories (entities, edges, missing embeddings) is enqueued.
//
// New memories are AI-generated. A session consolidated before is left alone (idempotent) unless
// short-term memories were stored into it since (a late turn reopens the session): then those
// are consolidated. An unknown session gives ErrNotFound.
func (c *Coordinator) Consolidate(ctx context.Context, tenant string, sessionID uuid.UUID, hook TxHook) (*ConsolidateReport, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	now := c.clock.Now()
	rep := &ConsolidateReport{Episodes: []int64{}, Facts: []int64{}, Schemas: []int64{}}
	err := c.lifecycleTx(ctx, tenant, hook, func(tx pgx.Tx, q *db.Queries) error {
		sess, err := q.LcSessionLock(ctx, db.LcSessionLockParams{TenantID: tenant, ID: sessionID})
		if err != nil {
			return err
		}
		turns, err := q.LcSessionTurns(ctx, db.LcSessionTurnsParams{TenantID: tenant, SessionID: sessionID})
		if err != nil {
			return err
		}
		// A consolidated session is consolidated again only for turns stored after it was
		// (a late turn reopened it).
		if sess.ConsolidatedAt != nil && len(turns) == 0 {
			rep.AlreadyConsolidated = true
			return nil
		}
		sw, err := c.switches(ctx, q, tenant)
		if err != nil {
			return err
		}
		rep.Turns = len(turns)
		turnTime := func(t db.LcSessionTurnsRow) time.Time { return coalesceTime(t.OccurredAt, t.CreatedAt) }
		var created []int64
		needsEmbedding := false
		// Episodic events from adjacent turns.
		for start := 0; start < len(turns); {
			end := start + 1
			for end < len(turns) && end-start < EpisodeMaxTurns && turnTime(turns[end]).Sub(turnTime(turns[end-1])) <= EpisodeGap {
				end++
			}
			g := turns[start:end]
			dm := derivedMem{
				context: sess.Context, layer: LayerEpisodic, kind: "episode", session: &sessionID,
				metadata: map[string]any{"consolidated_from_session": sessionID.String(), "turns": len(g)},
			}
			var lines []string
			var vecs [][]float32
			models := map[string]bool{}
			for _, t := range g {
				lines = append(lines, t.Content)
				dm.sources = append(dm.sources, t.ID)
				dm.sources = append(dm.sources, t.SourceIDs...)
				dm.valence = maxAbs(dm.valence, float64(t.Valence))
				dm.arousal = max(dm.arousal, float64(t.Arousal))
				dm.signif = max(dm.signif, float64(t.Significance))
				dm.importance = max(dm.importance, float64(t.Importance))
				if t.Embedding != nil && t.EmbeddingModel != nil {
					vecs = append(vecs, t.Embedding)
					models[*t.EmbeddingModel] = true
				}
			}
			dm.content = truncate(strings.Join(lines, "\n"), 1<<20-4)
			from, to := turnTime(g[0]), turnTime(g[len(g)-1])
			if !to.After(from) {
				to = from.Add(time.Second)
			}
			dm.occurred, dm.from, dm.to = &from, &from, &to
			if len(vecs) == len(g) && len(models) == 1 {
				for m := range models {
					dm.model = &m
				}
				dm.emb = meanEmbedding(vecs)
			}
			id, err := c.insertDerived(ctx, q, tenant, now, dm)
			if err != nil {
				return err
			}
			needsEmbedding = needsEmbedding || dm.emb == nil
			rep.Episodes, created = append(rep.Episodes, id), append(created, id)
			start = end
		}
		// Semantic facts stated by turns.
		for _, t := range turns {
			f, ok := c.turnFact(t.Content)
			if !ok {
				continue
			}
			at := turnTime(t)
			dm := derivedMem{
				context: t.Context, layer: LayerSemantic, kind: "fact", content: t.Content, sources: []int64{t.ID},
				subject: &f.Subject, attribute: &f.Attribute, validFrom: &at, valence: float64(t.Valence), arousal: float64(t.Arousal),
				signif: float64(t.Significance), importance: float64(t.Importance), emb: t.Embedding, model: t.EmbeddingModel,
				metadata: map[string]any{"consolidated_from_session": sessionID.String()},
			}
			if dm.emb == nil || dm.model == nil {
				dm.emb, dm.model = nil, nil
			}
			id, err := c.insertDerived(ctx, q, tenant, now, dm)
			if err != nil {
				return err
			}
			needsEmbedding = needsEmbedding || dm.emb == nil
			rep.Facts, created = append(rep.Facts, id), append(created, id)
		}
		// Dual-process schemas.
		if sw.enabled("dual_process") && len(turns) >= 2 {
			eps := make([]consolidation.Episode, 0, len(turns))
			byID := map[string]db.LcSessionTurnsRow{}
			for _, t := range turns {
				if t.Embedding == nil {
					continue
				}
				idS := strconv.FormatInt(t.ID, 10)
				byID[idS] = t
				eps = append(eps, consolidation.Episode{
					ID: idS, Text: t.Content, Embedding: f64(t.Embedding),
					Entities: entityNames(t.Content), OccurredAt: turnTime(t), SourceIDs: int64Strings(t.SourceIDs),
				})
			}
			if len(eps) > consolidation.MaxEpisodesDefault {
				eps = eps[len(eps)-consolidation.MaxEpisodesDefault:]
			}
			ids, err := c.writeSchemas(ctx, q, tenant, now, sess.Context, &sessionID, eps, func(id string) ([]float32, *string) {
				t := byID[id]
				return t.Embedding, t.EmbeddingModel
			})
			if err != nil {
				return err
			}
			rep.Schemas, created = append(rep.Schemas, ids...), append(created, ids...)
		}
		turnIDs := make([]int64, len(turns))
		for i, t := range turns {
			turnIDs[i] = t.ID
		}
		if len(turnIDs) > 0 {
			n, err := q.LcTurnsToEpisodic(ctx, db.LcTurnsToEpisodicParams{TenantID: tenant, Ids: turnIDs, Now: now})
			if err != nil {
				return err
			}
			rep.Consolidated = int(n)
		}
		if err := q.SessionMarkConsolidated(ctx, db.SessionMarkConsolidatedParams{TenantID: tenant, ID: sessionID, Now: now}); err != nil {
			return err
		}
		if len(created) > 0 {
			if err := c.enqueueDerive(ctx, tx, jobs.DeriveArgs{
				TenantID: tenant, MemoryIDs: created, NeedsEmbedding: needsEmbedding,
				RecheckSupersede: len(rep.Facts) > 0,
			}); err != nil {
				return err
			}
		}
		return c.audit(ctx, q, tenant, "session.consolidate", nil, now, map[string]any{
			"session_id": sessionID.String(),
			"turns":      rep.Turns, "episodes": rep.Episodes, "facts": rep.Facts, "schemas": rep.Schemas,
		})
	})
	if err != nil {
		return nil, interpretError("consolidating session", err)
	}
	return rep, nil
}

// writeSchemas runs dual-process consolidation over eps and stores every schema as a semantic
// memory; emb gives a member's embedding and model. It returns the new ids.
func (c *Coordinator) writeSchemas(ctx context.Context, q *db.Queries, tenant string, now time.Time, context_ string,
	session *uuid.UUID, eps []consolidation.Episode, emb func(id string) ([]float32, *string),
) ([]int64, error) {
	if len(eps) < 2 {
		return nil, nil
	}
	schemas, err := consolidation.Consolidate(ctx, eps, consolidation.Config{})
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, s := range schemas {
		var vecs [][]float32
		var model *string
		same := true
		for _, id := range s.MemberIDs {
			v, m := emb(id)
			if v == nil || m == nil || (model != nil && *model != *m) {
				same = false
				continue
			}
			vecs, model = append(vecs, v), m
		}
		from, to := s.From, s.To
		if !to.After(from) {
			to = from.Add(time.Second)
		}
		dm := derivedMem{
			context: context_, layer: LayerSemantic, kind: "schema", content: s.Statement, session: session,
			sources: parseIDs(s.SourceIDs), occurred: &from, from: &from, to: &to, validFrom: &to, importance: 0.5,
			metadata: map[string]any{"schema": map[string]any{
				"members": s.MemberIDs, "shared_entities": s.SharedEntities,
				"summary": s.Summary, "representative_id": s.RepresentativeID, "confidence": s.Confidence, "writer": s.Writer,
			}},
		}
		if same && len(vecs) > 0 {
			dm.emb, dm.model = meanEmbedding(vecs), model
		}
		if strings.TrimSpace(dm.content) == "" {
			continue
		}
		id, err := c.insertDerived(ctx, q, tenant, now, dm)
		if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

// derivedMem is a memory the lifecycle creates (episodes, facts, schemas).
type derivedMem struct {
	context, kind, content        string
	layer                         Layer
	session                       *uuid.UUID
	occurred, from, to, validFrom *time.Time
	sources                       []int64
	metadata                      map[string]any
	valence, arousal, signif      float64
	importance                    float64
	emb                           []float32
	model                         *string
	subject, attribute            *string
}

// insertDerived stores dm (AI-generated, underived) and returns its id.
func (c *Coordinator) insertDerived(ctx context.Context, q *db.Queries, tenant string, now time.Time, dm derivedMem) (int64, error) {
	mEmo, err := forgetting.EmotionalMultiplier(lcClamp(dm.valence, -1, 1), lcClamp(dm.arousal, 0, 1), lcClamp(dm.signif, 0, 1))
	if err != nil {
		mEmo = 1
	}
	tr, err := c.forget.NewTrace(forgetting.Layer(dm.layer), now, mEmo)
	if err != nil {
		return 0, err
	}
	s := tr.Stability.Hours() / 24
	imp := lcClamp(dm.importance, 0, 1)
	if imp == 0 {
		imp = 0.5
	}
	pr, err := c.priority.Score(pma.PriorityInput{
		Salience: lcClamp(dm.arousal, 0, 1), Valence: lcClamp(dm.valence, -1, 1),
		Relevance: imp, Goal: lcClamp(dm.signif, 0, 1),
	}, pma.BaselineLevels())
	if err != nil {
		return 0, err
	}
	terms := textproc.Terms(dm.content, textproc.DetectLang(dm.content))
	srcs := slices.Clone(dm.sources)
	slices.Sort(srcs)
	srcs = slices.Compact(srcs)
	p := db.MemoryStoreParams{
		TenantID: tenant, Context: dm.context, Layer: string(dm.layer), Kind: dm.kind, Content: dm.content,
		SessionID: dm.session, Subject: dm.subject, Attribute: dm.attribute, OccurredAt: dm.occurred, Now: now, SourceIDs: nonNil(srcs),
		Metadata: mustJSON(dm.metadata), Valence: float32(lcClamp(dm.valence, -1, 1)), Arousal: float32(lcClamp(dm.arousal, 0, 1)),
		Significance: float32(lcClamp(dm.signif, 0, 1)), Importance: float32(imp), Priority: float32(pr.Score), Stability: &s,
		FadeAt: lcFadeAt(tr), AiGenerated: true, Terms: nonNil(terms), TermCount: int32(len(terms)), EventFrom: dm.from,
		EventTo: dm.to, ValidFrom: dm.validFrom,
	}
	if dm.emb != nil && dm.model != nil {
		p.Embedding, p.EmbeddingModel = toVector(dm.emb), dm.model
	}
	return q.MemoryStore(ctx, p)
}

// meanEmbedding returns the L2-normalized mean of vs (nil when empty, mismatched or zero).
func meanEmbedding(vs [][]float32) []float32 {
	if len(vs) == 0 {
		return nil
	}
	out := make([]float64, len(vs[0]))
	for _, v := range vs {
		if len(v) != len(out) {
			return nil
		}
		for i, x := range v {
			out[i] += float64(x)
		}
	}
	var n float64
	for _, x := range out {
		n += x * x
	}
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return nil
	}
	res := make([]float32, len(out))
	for i, x := range out {
		res[i] = float32(x / math.Sqrt(n))
	}
	return res
}

func maxAbs(a, b float64) float64 {
	if math.Abs(b) > math.Abs(a) {
		return b
	}
	return a
}

func entityNames(text string) []string {
	ms := ExtractEntities(text)
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Normalized
	}
	return out
}

func int64Strings(ids []int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.FormatInt(id, 10)
	}
	return out
}

func parseIDs(ss []string) []int64 {
	out := make([]int64, 0, len(ss))
	for _, s := range ss {
		if id, ok := parseID(s); ok {
			out = append(out, id)
		}
	}
	return out
}

// turnFact extracts a subject/attribute fact from a turn. A speaker prefix ("Melanie: ...") is
// removed first and becomes the subject of first-person facts ("My favourite color is blue").
func (c *Coordinator) turnFact(content string) (Fact, bool) {
	if f, ok := c.facts.extract(content); ok {
		return f, true
	}
	k := strings.IndexByte(content, ':')
	if k <= 0 || k > 60 || strings.ContainsAny(content[:k], "\n.!?") {
		return Fact{}, false
	}
	speaker := strings.Join(strings.Fields(textproc.Normalize(content[:k])), " ")
	f, ok := c.facts.extract(strings.TrimSpace(content[k+1:]))
	if !ok || speaker == "" {
		return Fact{}, false
	}
	if f.Subject == "user" {
		f.Subject = speaker
	}
	return f, true
}
