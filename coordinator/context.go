package coordinator

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/algorithms/budget"
	"github.com/zenbrain/zb/algorithms/hyperagent"
	"github.com/zenbrain/zb/algorithms/prospective"
	"github.com/zenbrain/zb/algorithms/workspace"
	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/pma"
)

// TokensPerWord is the token estimate per whitespace-separated word ([budget.TokensPerWord]); the
// section headings' cost is reserved separately, so the block never exceeds the budget.
const TokensPerWord = budget.TokensPerWord

// ContextRecallK is the fewest memories Context recalls before budgeting; a larger budget recalls
// one memory per ContextTokensPerMemory tokens (a short turn), so the block can fill.
const (
	ContextRecallK         = 20
	ContextTokensPerMemory = 25
)

// contextRecallK is how many memories Context recalls for a budget.
func contextRecallK(budgetTokens int) int {
	return min(max(ContextRecallK, budgetTokens/ContextTokensPerMemory), MaxK)
}

// EstimateTokens returns ⌈words(text)·TokensPerWord⌉, the project's one estimator
// ([budget.Tokens]).
func EstimateTokens(text string) int { return budget.Tokens(text) }

// ContextItem is one memory in an assembled context.
type ContextItem struct {
	// ID is the memory's id (the intention's id in the prospective section, the event's id in
	// the metacog_alerts section).
	ID int64 `json:"id"`
	// Section is the item's section: with the global workspace (gwt on) its module — "core",
	// "working", "episodic", "semantic", "procedural", "prospective", "cross_context" or
	// "metacog_alerts" —; with gwt off "core", "working" or "recalled".
	Section string `json:"section"`
	// Content is its text.
	Content string `json:"content"`
	// Tokens is its estimated size.
	Tokens int `json:"tokens"`
	// Score is its relevance: the recall score for recalled memories, relevance·recency for
	// working memory with the workspace (0 without), the priority weight of an intention, 1 for
	// core.
	Score float64 `json:"score"`
}

// ContextBlock is a token-budgeted context.
type ContextBlock struct {
	// Items are the chosen items in rendering order, core first.
	Items []ContextItem `json:"items"`
	// Text is the rendered block: "## Title" sections of "- item" lines.
	Text string `json:"text"`
	// Budget and Used are in estimated tokens; EstimateTokens(Text) ≤ Used ≤ Budget.
	Budget int `json:"budget"`
	Used   int `json:"used"`
	// Workspace reports the global workspace's competition; nil with gwt off.
	Workspace *WorkspaceReport `json:"workspace,omitempty"`
}

var sectionTitles = map[string]string{"core": "## Core", "working": "## Working", "recalled": "## Recalled"}

// contextBase reads the tenant's core memories and the session's working-memory slots (none
// without a session) in one transaction bound to the tenant.
func (c *Coordinator) contextBase(ctx context.Context, tenant string, session *uuid.UUID) ([]db.MemoryListCoreRow,
	[]db.WorkingSlotListWithMemoryRow, error,
) {
	var core []db.MemoryListCoreRow
	var working []db.WorkingSlotListWithMemoryRow
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		var err error
		if core, err = q.MemoryListCore(ctx, tenant); err != nil {
			return fmt.Errorf("error listing core memories: %w", err)
		}
		if session != nil {
			if working, err = q.WorkingSlotListWithMemory(ctx, db.WorkingSlotListWithMemoryParams{TenantID: tenant, SessionID: *session}); err != nil {
				return fmt.Errorf("error listing working memory: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, interpretError("reading core and working memory", err)
	}
	return core, working, nil
}

// contextPlain is the assembly with the global workspace switched off [gwt]: core memories
// (always first, pinned), the session's working-memory slots (pinned, after core) and recalled
// memories (by score, redundancy-aware) in at most budgetTokens estimated tokens with
// budget.Select, under the headings "## Core", "## Working" and "## Recalled".
func (c *Coordinator) contextPlain(ctx context.Context, tenant string, session *uuid.UUID, query string, budgetTokens int,
	lambda float64, readOnly bool,
) (*ContextBlock, error) {
	core, working, err := c.contextBase(ctx, tenant, session)
	if err != nil {
		return nil, err
	}
	var recalled []Result
	if strings.TrimSpace(query) != "" {
		rr, err := c.Recall(ctx, tenant, query, &RecallOpts{K: contextRecallK(budgetTokens), ReadOnly: readOnly})
		if err != nil {
			return nil, err
		}
		recalled = rr.Results
	}
	items := map[string]ContextItem{}
	var pieces []budget.Piece
	add := func(section string, id int64, content string, score float64, pinned bool) {
		key := strconv.FormatInt(id, 10)
		if _, dup := items[key]; dup {
			return
		}
		it := ContextItem{ID: id, Section: section, Content: content, Tokens: max(1, EstimateTokens("- "+content)), Score: score}
		items[key] = it
		pieces = append(pieces, budget.Piece{ID: key, Text: content, Score: budget.InformationValue(score, it.Tokens), Tokens: it.Tokens, Pinned: pinned})
	}
	for _, m := range core {
		label := ""
		if m.CoreLabel != nil {
			label = *m.CoreLabel + ": "
		}
		add("core", m.ID, label+m.Content, 1, true)
	}
	for _, w := range working {
		add("working", w.MemoryID, w.Content, w.Relevance, true)
	}
	for _, r := range recalled {
		add("recalled", r.ID, r.Line(), r.Score, false)
	}
	out := &ContextBlock{Budget: budgetTokens, Items: []ContextItem{}}
	if len(pieces) == 0 {
		return out, nil
	}
	// Reserve the headings: try all sections present, then core and working, then core alone,
	// and keep the first selection that fits together with its headings.
	present := map[string]bool{}
	for _, it := range items {
		present[it.Section] = true
	}
	var sel budget.Selection
	found := false
	for _, want := range [][]string{{"core", "working", "recalled"}, {"core", "working"}, {"core"}} {
		reserve := 0
		allowed := map[string]bool{}
		for _, s := range want {
			if present[s] {
				allowed[s] = true
				reserve += EstimateTokens(sectionTitles[s])
			}
		}
		var sub []budget.Piece
		for _, p := range pieces {
			if allowed[items[p.ID].Section] {
				sub = append(sub, p)
			}
		}
		if len(sub) == 0 || budgetTokens-reserve <= 0 {
			continue
		}
		cand, err := budget.Select(sub, budget.SelectConfig{Budget: budgetTokens - reserve, RedundancyPenalty: lambdaArg(lambda)})
		if err != nil {
			return nil, fmt.Errorf("error selecting context: %w", err)
		}
		if len(cand.Chosen) > 0 {
			sel, found = cand, true
			break
		}
	}
	if !found {
		return out, nil
	}
	chosen := map[string]bool{}
	for _, ch := range sel.Chosen {
		chosen[ch.Piece.ID] = true
	}
	var b strings.Builder
	used := 0
	for _, section := range []string{"core", "working", "recalled"} {
		first := true
		for _, p := range pieces {
			it := items[p.ID]
			if !chosen[p.ID] || it.Section != section {
				continue
			}
			if first {
				b.WriteString(sectionTitles[section] + "\n")
				used += EstimateTokens(sectionTitles[section])
				first = false
			}
			b.WriteString("- " + it.Content + "\n")
			used += it.Tokens
			out.Items = append(out.Items, it)
		}
	}
	out.Text, out.Used = b.String(), used
	return out, nil
}

// Parameters of the global-workspace assembly [gwt].
const (
	// WorkspaceCharsPerToken is the header-size estimate the workspace uses (characters per
	// token). 3 over-estimates every module title against EstimateTokens, so the block's
	// EstimateTokens never exceeds Used.
	WorkspaceCharsPerToken = 3
	// WorkspaceAlertWindow is how far back Context looks for metacognitive alerts.
	WorkspaceAlertWindow = 24 * time.Hour
	// WorkspaceAlertScore is the relevance of a metacognitive alert item.
	WorkspaceAlertScore = 0.6
	// WorkspaceMaxAlerts bounds the alerts one Context offers.
	WorkspaceMaxAlerts = 5
)

// IntentionScore returns the relevance of a fired intention in the workspace by priority:
// 0.6 low, 0.8 medium, 1.0 high.
func IntentionScore(p prospective.Priority) float64 {
	switch p {
	case prospective.PriorityLow:
		return 0.6
	case prospective.PriorityHigh:
		return 1
	}
	return 0.8
}

// WorkspaceReport is the global workspace's competition of one Context.
type WorkspaceReport struct {
	// Scores records every module offered: raw salience, PriorityMap composite, effective
	// salience and decision (ignited, hysteresis, capped, below_threshold, fallback, empty).
	Scores []workspace.Scored `json:"scores"`
	// Previous is the winner set the competition started from (hysteresis), Winners the new one.
	Previous []workspace.Module `json:"previous"`
	Winners  []workspace.Module `json:"winners"`
	// Fallback reports that nothing ignited and the fallback chose the modules.
	Fallback bool `json:"fallback"`
	// CoreTokens is what the pinned core section used before the competition; the modules
	// shared the rest of the budget.
	CoreTokens int `json:"core_tokens"`
	// Sections are the broadcast modules in rendering order with their token share (in
	// proportion to effective salience, after redistribution) and use.
	Sections []WorkspaceSection `json:"sections"`
	// Composition reports the compositional context [compositional_context] (the reading
	// context, the contexts it may read, the anchors and what was composed or left out); nil
	// without a session or with compositional_context off.
	Composition *ComposeReport `json:"composition,omitempty"`
	// RedundancyPenalty is λ of the modules' redundancy-aware selection when the HyperAgent
	// [hyperagent] has tuned it away from the default (budget.RedundancyPenaltyDefault, 1):
	// RedundancyPenaltyFor of the tenant's retrieval diversity. Nil means the default.
	RedundancyPenalty *float64 `json:"redundancy_penalty,omitempty"`
}

// WorkspaceSection is one broadcast module of a Context.
type WorkspaceSection struct {
	// Module names it; Decision says why it was broadcast; Effective is its effective salience.
	Module    workspace.Module   `json:"module"`
	Decision  workspace.Decision `json:"decision"`
	Effective float64            `json:"effective"`
	// Share is the tokens granted, Used the tokens spent (header and items), Items the items
	// rendered and Skipped the items that did not fit or were redundant.
	Share   int `json:"share"`
	Used    int `json:"used"`
	Items   int `json:"items"`
	Skipped int `json:"skipped"`
}

// Context assembles a token-budgeted context block for query (may be empty) of at most
// budgetTokens estimated tokens (EstimateTokens(Text) ≤ Used ≤ Budget). session may be nil.
//
// With the global workspace on (gwt, the default), core memories are pinned first (as many as
// fit; none fitting means an empty block), and the rest of the budget goes to a competition
// (algorithms/workspace) among the modules working (the session's slots, relevance ×
// exp(−age/Config.WorkingRecencyTau)), episodic (episodic and short-term), semantic,
// procedural and cross_context (the recalled memories by layer, relevance = score / best
// score), prospective (intentions fired within ProspectiveSurfaceWindow, by priority) and
// metacog_alerts (alerts of the last WorkspaceAlertWindow). A module's salience is
// 0.7·max + 0.3·mean(top 3) of its items' relevance, blended with the PriorityMap composite
// (priority_map): eff = 0.7·sal + 0.3·P(s = sal, |v| = valence of its best memory, r = mean
// stored priority of its top three memories, g = sal) under the tenant's neuromodulator levels.
// A module ignites at eff ≥ 0.5, or ≥ 0.3 if it won the previous assembly of the same tenant
// and session (persisted in zb.workspace_state); at most 4 are broadcast, sharing the budget in
// proportion to eff; when none ignites, at most 2 with eff ≥ 0.2 are. Equal inputs give equal
// blocks.
//
// With a session and compositional_context on (the default), the session's context is the
// reading context: recalled memories of other contexts leave the layer modules, and the
// cross_context module is composed by algorithms/compose from the memories of the contexts
// zb.context_policy lets it read that mention an entity linked to the query's or the home
// memories' entities (see ComposeReport, reported in Workspace.Composition); memories of
// contexts it may not read, or not linked, are left out.
//
// With gwt off, the previous plain assembly: core, then working slots (both pinned), then
// recalled memories by score, under "## Core", "## Working" and "## Recalled".
func (c *Coordinator) Context(ctx context.Context, tenant string, session *uuid.UUID, query string, budgetTokens int) (*ContextBlock, error) {
	return c.ContextWith(ctx, tenant, query, &ContextOpts{Session: session, Budget: budgetTokens})
}

// ContextOpts configures [Coordinator.ContextWith].
type ContextOpts struct {
	// Session is the reading session (working memory, compositional context); nil for none.
	Session *uuid.UUID
	// Budget is the block's size in estimated tokens ([EstimateTokens]).
	Budget int
	// ReadOnly assembles without recall's side effects and without saving the workspace's
	// winners (evaluation, previews); the previous winners are still read.
	ReadOnly bool
}

// ContextWith is [Coordinator.Context] with options; a nil opts is an empty block budget.
func (c *Coordinator) ContextWith(ctx context.Context, tenant, query string, opts *ContextOpts) (*ContextBlock, error) {
	var o ContextOpts
	if opts != nil {
		o = *opts
	}
	session, budgetTokens := o.Session, o.Budget
	if budgetTokens < 0 {
		return nil, fmt.Errorf("%w: budget must not be negative", ErrInvalidInput)
	}
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	var sw switchSet
	var params hyperagent.Params
	if err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		var err error
		if sw, err = c.switches(ctx, q, tenant); err != nil {
			return err
		}
		params, err = hyperagentParams(ctx, q, sw, tenant)
		return err
	}); err != nil {
		return nil, interpretError("reading algorithm switches", err)
	}
	// The HyperAgent's retrieval diversity sets the redundancy penalty [hyperagent].
	lambda := RedundancyPenaltyFor(params.RetrievalDiversity)
	if !sw.enabled("gwt") {
		return c.contextPlain(ctx, tenant, session, query, budgetTokens, lambda, o.ReadOnly)
	}
	return c.contextWorkspace(ctx, tenant, session, query, budgetTokens, sw, lambda, o.ReadOnly)
}

// wsItem is one item offered to the workspace with what the block reports about it.
type wsItem struct {
	item     workspace.Item
	id       int64
	score    float64
	priority float64
	valence  float64
}

func workspaceScope(session *uuid.UUID) string {
	if session == nil {
		return "tenant"
	}
	return "session:" + session.String()
}

// layerModule maps a recalled memory's layer to its workspace module ("" for core, whose
// memories are pinned before the competition).
func layerModule(l Layer) workspace.Module {
	switch l {
	case LayerEpisodic, LayerShortTerm:
		return workspace.Episodic
	case LayerSemantic:
		return workspace.Semantic
	case LayerProcedural:
		return workspace.Procedural
	case LayerCrossContext:
		return workspace.CrossContext
	case LayerWorking:
		return workspace.Working
	}
	return ""
}

func (c *Coordinator) contextWorkspace(ctx context.Context, tenant string, session *uuid.UUID, query string, budgetTokens int,
	sw switchSet, lambda float64, readOnly bool,
) (*ContextBlock, error) {
	now := c.clock.Now()
	out := &ContextBlock{Budget: budgetTokens, Items: []ContextItem{}, Workspace: &WorkspaceReport{
		Scores:   []workspace.Scored{},
		Previous: []workspace.Module{}, Winners: []workspace.Module{}, Sections: []WorkspaceSection{},
	}}
	if lambda != budget.RedundancyPenaltyDefault {
		out.Workspace.RedundancyPenalty = &lambda
	}
	core, working, err := c.contextBase(ctx, tenant, session)
	if err != nil {
		return nil, err
	}
	var recalled []Result
	if strings.TrimSpace(query) != "" {
		rr, err := c.Recall(ctx, tenant, query, &RecallOpts{K: contextRecallK(budgetTokens), ReadOnly: readOnly})
		if err != nil {
			return nil, err
		}
		recalled = rr.Results
	}

	// Core: pinned first, as in the plain assembly.
	seen := map[int64]bool{}
	var coreText strings.Builder
	if len(core) > 0 {
		head := EstimateTokens(sectionTitles["core"])
		items := map[string]ContextItem{}
		var pieces []budget.Piece
		for _, m := range core {
			label := ""
			if m.CoreLabel != nil {
				label = *m.CoreLabel + ": "
			}
			it := ContextItem{ID: m.ID, Section: "core", Content: label + m.Content, Score: 1}
			it.Tokens = max(1, EstimateTokens("- "+it.Content))
			key := strconv.FormatInt(m.ID, 10)
			items[key] = it
			pieces = append(pieces, budget.Piece{ID: key, Text: it.Content, Score: 1, Tokens: it.Tokens, Pinned: true})
			seen[m.ID] = true
		}
		if budgetTokens-head <= 0 {
			return out, nil
		}
		sel, err := budget.Select(pieces, budget.SelectConfig{Budget: budgetTokens - head})
		if err != nil {
			return nil, fmt.Errorf("error selecting core memories: %w", err)
		}
		if len(sel.Chosen) == 0 {
			return out, nil // core comes first: nothing goes in without it
		}
		chosen := map[string]bool{}
		for _, ch := range sel.Chosen {
			chosen[ch.Piece.ID] = true
		}
		coreText.WriteString(sectionTitles["core"] + "\n")
		out.Used = head
		for _, p := range pieces {
			if chosen[p.ID] {
				it := items[p.ID]
				coreText.WriteString("- " + it.Content + "\n")
				out.Used += it.Tokens
				out.Items = append(out.Items, it)
			}
		}
	}
	out.Workspace.CoreTokens = out.Used

	// The modules.
	mods := map[workspace.Module][]wsItem{}
	var memIDs []int64
	for _, w := range working {
		if seen[w.MemoryID] {
			continue
		}
		seen[w.MemoryID] = true
		rec := 1.0
		if tau := c.cfg.WorkingRecencyTau; tau > 0 {
			rec = math.Exp(-math.Max(0, now.Sub(w.TouchedAt).Seconds()) / tau.Seconds())
		}
		sc := clamp(w.Relevance*rec, 0, 1)
		mods[workspace.Working] = append(mods[workspace.Working], wsItem{
			id: w.MemoryID, score: sc,
			item: workspace.Item{
				ID: "m" + strconv.FormatInt(w.MemoryID, 10), Text: w.Content, Score: sc,
				Tokens: max(1, EstimateTokens("- "+w.Content)),
			},
		})
		memIDs = append(memIDs, w.MemoryID)
	}
	best := 0.0
	for _, r := range recalled {
		best = math.Max(best, r.Score)
	}
	// The compositional context [compositional_context] decides about the recalled memories of
	// other contexts than the session's and composes the cross_context module.
	var comp *composition
	if sw.enabled("compositional_context") {
		if comp, err = c.composeCross(ctx, tenant, session, query, recalled, best); err != nil {
			return nil, err
		}
	}
	for _, r := range recalled {
		m := layerModule(r.Layer)
		if m == "" || seen[r.ID] || !(best > 0) || (comp != nil && comp.taken[r.ID]) {
			continue
		}
		seen[r.ID] = true
		rel := clamp(r.Score/best, 0, 1)
		mods[m] = append(mods[m], wsItem{
			id: r.ID, score: r.Score,
			item: workspace.Item{
				ID: "m" + strconv.FormatInt(r.ID, 10), Text: r.Line(), Score: rel,
				Tokens: max(1, EstimateTokens("- "+r.Line())),
			},
		})
		memIDs = append(memIDs, r.ID)
	}
	if comp != nil {
		out.Workspace.Composition = &comp.report
		for _, w := range comp.items {
			if seen[w.id] {
				continue
			}
			seen[w.id] = true
			mods[workspace.CrossContext] = append(mods[workspace.CrossContext], w)
			memIDs = append(memIDs, w.id)
		}
	}
	var in wsInputs
	if err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		return c.workspaceInputs(ctx, c.q.WithTx(tx), tenant, session, memIDs, sw, now, &in)
	}); err != nil {
		return nil, interpretError("reading the workspace's inputs", err)
	}
	if len(memIDs) > 0 {
		sig := in.signals
		byID := map[int64]db.WorkspaceMemorySignalsRow{}
		for _, s := range sig {
			byID[s.ID] = s
		}
		for m, items := range mods {
			for i := range items {
				s, ok := byID[items[i].id]
				items[i].priority, items[i].valence = 0.5, 0
				if ok {
					items[i].priority, items[i].valence = clamp(float64(s.Priority), 0, 1), clamp(float64(s.Valence), -1, 1)
				}
			}
			mods[m] = items
		}
	}
	if sw.enabled("prospective") {
		for _, f := range in.fired {
			sc := IntentionScore(prospective.Priority(f.Priority))
			mods[workspace.Prospective] = append(mods[workspace.Prospective], wsItem{
				id: f.ID, score: sc, priority: sc,
				item: workspace.Item{
					ID: "i" + strconv.FormatInt(f.ID, 10), Text: f.Content, Score: sc,
					Tokens: max(1, EstimateTokens("- "+f.Content)),
				},
			})
		}
	}
	if sw.enabled("metacog_monitor") {
		for _, a := range in.alerts {
			text := alertText(a)
			mods[workspace.MetacogAlerts] = append(mods[workspace.MetacogAlerts], wsItem{
				id: a.ID, score: WorkspaceAlertScore,
				priority: 0.5, item: workspace.Item{
					ID: "a" + strconv.FormatInt(a.ID, 10), Text: text, Score: WorkspaceAlertScore,
					Tokens: max(1, EstimateTokens("- "+text)),
				},
			})
		}
	}

	rest := budgetTokens - out.Used
	var cands []workspace.Candidate
	for _, m := range []workspace.Module{
		workspace.Working, workspace.Episodic, workspace.Semantic, workspace.Procedural,
		workspace.Prospective, workspace.CrossContext, workspace.MetacogAlerts,
	} {
		items := mods[m]
		if len(items) == 0 {
			continue
		}
		slices.SortStableFunc(items, func(a, b wsItem) int {
			return cmp.Or(cmp.Compare(b.item.Score, a.item.Score), cmp.Compare(a.item.ID, b.item.ID))
		})
		cand := workspace.Candidate{Module: m}
		scores := make([]float64, len(items))
		for i, it := range items {
			scores[i] = it.item.Score
			cand.Items = append(cand.Items, it.item)
		}
		sal, err := workspace.SalienceFromScores(scores)
		if err != nil {
			return nil, fmt.Errorf("error scoring module %s: %w", m, err)
		}
		cand.Salience = sal
		prio := 0.0
		top := items[:min(3, len(items))]
		for _, it := range top {
			prio += it.priority
		}
		cand.Signals = &pma.PriorityInput{Salience: sal, Valence: items[0].valence, Relevance: prio / float64(len(top)), Goal: sal}
		cands = append(cands, cand)
		mods[m] = items
	}
	if rest < 1 || len(cands) == 0 {
		out.Text = coreText.String()
		return out, nil
	}
	previous, levels := in.previous, in.levels
	asm, err := workspace.NewAssembler(&workspace.Config{
		AlwaysInclude: []workspace.Module{}, CharsPerToken: WorkspaceCharsPerToken,
		DisablePriority: !sw.enabled("priority_map"), RedundancyPenalty: lambdaArg(lambda),
	})
	if err != nil {
		return nil, fmt.Errorf("error creating the workspace: %w", err)
	}
	res, err := asm.Assemble(workspace.Input{Candidates: cands, Previous: previous, Levels: &levels, Budget: rest})
	if err != nil {
		return nil, fmt.Errorf("error assembling the workspace: %w", err)
	}
	winners := make([]string, len(res.Winners))
	for i, w := range res.Winners {
		winners[i] = string(w)
	}
	if !readOnly {
		if err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
			return c.q.WithTx(tx).WorkspaceStateSave(ctx, db.WorkspaceStateSaveParams{
				TenantID: tenant, Scope: workspaceScope(session),
				Winners: winners, Scores: mustJSON(res.Scores), Now: now,
			})
		}); err != nil {
			return nil, interpretError("saving the workspace state", err)
		}
	}
	out.Workspace.Scores, out.Workspace.Previous, out.Workspace.Winners, out.Workspace.Fallback =
		res.Scores, nonNil(previous), nonNil(res.Winners), res.Fallback
	byItem := map[workspace.Module]map[string]wsItem{}
	for m, items := range mods {
		byItem[m] = map[string]wsItem{}
		for _, it := range items {
			byItem[m][it.item.ID] = it
		}
	}
	out.Workspace.Sections = []WorkspaceSection{}
	for _, sec := range res.Sections {
		out.Workspace.Sections = append(out.Workspace.Sections, WorkspaceSection{
			Module: sec.Module, Decision: sec.Decision,
			Effective: sec.Effective, Share: sec.Share, Used: sec.Used, Items: len(sec.Items), Skipped: len(sec.Skipped),
		})
		for _, it := range sec.Items {
			w := byItem[sec.Module][it.ID]
			out.Items = append(out.Items, ContextItem{
				ID: w.id, Section: string(sec.Module), Content: it.Text,
				Tokens: it.Tokens, Score: w.score,
			})
		}
	}
	out.Used += res.Used
	text := coreText.String()
	if text != "" && res.Text != "" {
		text += "\n"
	}
	out.Text = text + res.Text
	return out, nil
}

// wsInputs is what the workspace reads besides the recall, in one transaction.
type wsInputs struct {
	signals  []db.WorkspaceMemorySignalsRow
	fired    []db.ProspectiveFiredSinceRow
	alerts   []db.WorkspaceMetacogAlertsRow
	previous []workspace.Module
	levels   pma.Levels
}

// workspaceInputs reads the stored priorities and valences of the offered memories, the recently
// fired intentions (prospective), the recent metacognitive alerts (metacog_monitor), the previous
// winner set of the scope and the tenant's neuromodulator levels.
func (c *Coordinator) workspaceInputs(ctx context.Context, q *db.Queries, tenant string, session *uuid.UUID, memIDs []int64,
	sw switchSet, now time.Time, in *wsInputs,
) error {
	var err error
	if len(memIDs) > 0 {
		if in.signals, err = q.WorkspaceMemorySignals(ctx, db.WorkspaceMemorySignalsParams{TenantID: tenant, Ids: memIDs}); err != nil {
			return err
		}
	}
	if sw.enabled("prospective") {
		if in.fired, err = q.ProspectiveFiredSince(ctx, db.ProspectiveFiredSinceParams{
			TenantID: tenant,
			Since:    now.Add(-ProspectiveSurfaceWindow), K: ProspectiveSurfaceMax,
		}); err != nil {
			return err
		}
	}
	if sw.enabled("metacog_monitor") {
		if in.alerts, err = q.WorkspaceMetacogAlerts(ctx, db.WorkspaceMetacogAlertsParams{
			TenantID: tenant,
			Since:    now.Add(-WorkspaceAlertWindow), K: WorkspaceMaxAlerts,
		}); err != nil {
			return err
		}
	}
	prev, err := q.WorkspaceStateGet(ctx, db.WorkspaceStateGetParams{TenantID: tenant, Scope: workspaceScope(session)})
	if err != nil {
		return err
	}
	if len(prev) > 0 {
		for _, w := range prev[0].Winners {
			in.previous = append(in.previous, workspace.Module(w))
		}
	}
	nl, err := c.loadNeuro(ctx, q, tenant, sw, now)
	if err != nil {
		return err
	}
	in.levels = nl.levelsAt(now)
	return nil
}

// alertText renders a metacognitive alert: its kind and value, and its detail's "message" when
// it has one.
func alertText(a db.WorkspaceMetacogAlertsRow) string {
	s := fmt.Sprintf("%s %.2f", strings.ReplaceAll(a.Kind, "_", " "), a.Value)
	var d map[string]any
	if json.Unmarshal(a.Detail, &d) == nil {
		if msg, ok := d["message"].(string); ok && strings.TrimSpace(msg) != "" {
			s += ": " + truncate(msg, 300)
		}
	}
	return s
}
