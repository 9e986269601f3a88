package coordinator

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/algorithms/compose"
	"github.com/zenbrain/zb/algorithms/workspace"
	"github.com/zenbrain/zb/db"
)

// ComposeCandidateK is the most memories of other contexts the compositional context reads per
// Context call before compose.Compose keeps at most compose.MaxPerContextDefault per context.
const ComposeCandidateK = 32

// ComposeCrossDiscount multiplies the relevance of a memory of another context in the
// compositional context (compose.Config.CrossDiscount). The reference's cross-context hint
// relevance is 0.5 (compose.CrossDiscountDefault), but under the global workspace that caps the
// cross_context module's salience at 0.5 and its effective salience below the ignition
// threshold (0.43 measured in TestContextCompositional for a memory linked through the query's
// own entity), so nothing composed would ever be broadcast while another module ignites. 0.8
// still ranks a cross item below a home item of equal relevance.
const ComposeCrossDiscount = 0.8

// ComposeReport says what the compositional context [compositional_context] did in one Context.
type ComposeReport struct {
	// Target is the reading context: the session's context.
	Target string `json:"target"`
	// Readable lists the other contexts zb.context_policy lets Target read.
	Readable []string `json:"readable"`
	// Anchors are the entity names (Target's namespace) cross-context links were sought for: the
	// query's and those of the recalled memories of Target.
	Anchors []string `json:"anchors"`
	// Cross counts the memories of other contexts composed into the cross_context module.
	Cross int `json:"cross"`
	// Denied counts recalled memories of contexts the policy does not let Target read (left out);
	// Unlinked those of readable contexts linked to no anchor (left out).
	Denied   int `json:"denied"`
	Unlinked int `json:"unlinked"`
}

// composition is the compositional context's output for the workspace.
type composition struct {
	report ComposeReport
	// items are the cross_context module's items.
	items []wsItem
	// taken are the recalled memories of other contexts: composition decides about them (placed
	// in cross_context or left out), so the layer modules do not offer them.
	taken map[int64]bool
}

// composeCross runs the compositional context for a Context call with a session: the reading
// context is the session's; the recalled memories of that context are the home memories; the
// memories of other contexts the policy lets it read that mention an entity linked to an anchor
// (same normalized name, or a same_as edge) are composed by compose.Compose (score discounted by
// ComposeCrossDiscount, at most compose.MaxPerContextDefault per context) into the
// cross_context module; recalled memories of other contexts that are denied or unlinked are
// left out. A candidate's relevance is that of its best anchor: 1 for a query entity, else the
// best relevance (score / best score) of the home memories mentioning it, or its own recall
// relevance when higher. It returns nil without a session.
func (c *Coordinator) composeCross(ctx context.Context, tenant string, session *uuid.UUID, query string, recalled []Result,
	best float64,
) (*composition, error) {
	if session == nil || !(best > 0) {
		return nil, nil
	}
	rel := func(score float64) float64 { return clamp(score/best, 0, 1) }
	queryNames := entityNames(query)
	var target string
	var grants []string
	var mentions []db.McMentionNamesRow
	var cands []db.McComposeCandidatesRow
	anchorRel := map[string]float64{}
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		var err error
		if target, err = q.McSessionContext(ctx, db.McSessionContextParams{TenantID: tenant, ID: *session}); err != nil {
			return err
		}
		if grants, err = q.McContextGrants(ctx, db.McContextGrantsParams{TenantID: tenant, Target: target}); err != nil {
			return err
		}
		ids := make([]int64, len(recalled))
		for i, r := range recalled {
			ids[i] = r.ID
		}
		if mentions, err = q.McMentionNames(ctx, db.McMentionNamesParams{TenantID: tenant, Ids: ids}); err != nil {
			return err
		}
		for _, n := range queryNames {
			anchorRel[n] = 1
		}
		home := map[int64]float64{}
		for _, r := range recalled {
			if r.Provenance.Context == target {
				home[r.ID] = rel(r.Score)
			}
		}
		for _, m := range mentions {
			if hr, ok := home[m.MemoryID]; ok && hr > anchorRel[m.NormalizedName] {
				anchorRel[m.NormalizedName] = hr
			}
		}
		if len(grants) == 0 || len(anchorRel) == 0 {
			return nil
		}
		names := make([]string, 0, len(anchorRel))
		for n := range anchorRel {
			names = append(names, n)
		}
		slices.Sort(names)
		cands, err = q.McComposeCandidates(ctx, db.McComposeCandidatesParams{
			TenantID: tenant, Target: target, Names: names,
			K: ComposeCandidateK,
		})
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil // an unknown session has no context: nothing to compose
	}
	if err != nil {
		return nil, interpretError("reading the compositional context", err)
	}
	out := &composition{report: ComposeReport{Target: target, Readable: nonNil(grants), Anchors: []string{}}, taken: map[int64]bool{}}
	for n := range anchorRel {
		out.report.Anchors = append(out.report.Anchors, n)
	}
	slices.Sort(out.report.Anchors)

	names := map[int64][]string{}
	for _, m := range mentions {
		names[m.MemoryID] = append(names[m.MemoryID], m.NormalizedName)
	}
	req := compose.Request{Target: target, QueryEntities: queryNames, Policy: compose.NewPolicy()}
	var gs []compose.Grant
	for _, g := range grants {
		gs = append(gs, compose.Grant{Reader: target, Source: g})
	}
	req.Policy = compose.NewPolicy(gs...)
	byKey := map[string]wsItem{}
	idx := map[string]int{}
	add := func(id int64, cx, text string, score float64, ents []string) {
		key := "m" + strconv.FormatInt(id, 10)
		if i, ok := idx[key]; ok {
			m := &req.Memories[i]
			m.Score = max(m.Score, score)
			for _, e := range ents {
				if !slices.Contains(m.Entities, e) {
					m.Entities = append(m.Entities, e)
				}
			}
			return
		}
		idx[key] = len(req.Memories)
		req.Memories = append(req.Memories, compose.Memory{ID: key, Context: cx, Text: text, Score: score, Entities: slices.Clone(ents)})
		byKey[key] = wsItem{id: id}
	}
	for _, r := range recalled {
		add(r.ID, r.Provenance.Context, r.Line(), rel(r.Score), names[r.ID])
		if r.Provenance.Context != target {
			out.taken[r.ID] = true
		}
	}
	for _, cd := range cands {
		s := 0.0
		for i, a := range cd.AnchorNames {
			s = max(s, anchorRel[a])
			if i < len(cd.EntityNames) {
				req.Links = append(req.Links, compose.Link{
					A: compose.EntityRef{Context: target, Entity: a},
					B: compose.EntityRef{Context: cd.Context, Entity: cd.EntityNames[i]},
				})
			}
		}
		add(cd.ID, cd.Context, cd.Content, s, cd.EntityNames)
	}
	res, err := compose.Compose(req, &compose.Config{CrossDiscount: ComposeCrossDiscount})
	if err != nil {
		return nil, err
	}
	out.report.Denied = res.Denied
	for _, sec := range res.Sections {
		if sec.Kind != compose.SectionCross {
			continue
		}
		for _, it := range sec.Items {
			text := "(" + sec.Context + ", via " + strings.Join(it.Via, ", ") + ") " + it.Memory.Text
			w := byKey[it.Memory.ID]
			w.score = it.Score
			w.item = workspace.Item{ID: it.Memory.ID, Text: text, Score: clamp(it.Score, 0, 1), Tokens: max(1, EstimateTokens("- "+text))}
			out.items = append(out.items, w)
			out.report.Cross++
		}
	}
	out.report.Unlinked = res.Unlinked
	return out, nil
}
