package coordinator

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/zenbrain/zb/algorithms/budget"
	"github.com/zenbrain/zb/db"
)

// TokensPerWord is the token estimate per whitespace-separated word: tokens ≈ ⌈words·1.3⌉,
// a common rule of thumb for English BPE vocabularies (German runs a little higher; the
// section headings' cost is reserved separately, so the block never exceeds the budget).
const TokensPerWord = 1.3

// ContextRecallK is how many memories Context recalls before budgeting.
const ContextRecallK = 20

// EstimateTokens returns ⌈words(text)·TokensPerWord⌉.
func EstimateTokens(text string) int {
	return int(math.Ceil(float64(len(strings.Fields(text))) * TokensPerWord))
}

// ContextItem is one memory in an assembled context.
type ContextItem struct {
	// ID is the memory's id.
	ID int64 `json:"id"`
	// Section is "core", "working" or "recalled".
	Section string `json:"section"`
	// Content is its text.
	Content string `json:"content"`
	// Tokens is its estimated size.
	Tokens int `json:"tokens"`
	// Score is its recall score (0 for core and working items).
	Score float64 `json:"score"`
}

// ContextBlock is a token-budgeted context.
type ContextBlock struct {
	// Items are the chosen memories: core first, then working, then recalled.
	Items []ContextItem `json:"items"`
	// Text is the rendered block with "## Core", "## Working" and "## Recalled" sections.
	Text string `json:"text"`
	// Budget and Used are in estimated tokens; EstimateTokens(Text) ≤ Used ≤ Budget.
	Budget int `json:"budget"`
	Used   int `json:"used"`
}

var sectionTitles = map[string]string{"core": "## Core", "working": "## Working", "recalled": "## Recalled"}

// Context assembles core memories (always first, pinned), the session's working-memory slots
// (pinned, after core) and recalled memories (by score, redundancy-aware) into a block of at
// most budgetTokens estimated tokens with budget.Select. session may be nil.
func (c *Coordinator) Context(ctx context.Context, tenant string, session *uuid.UUID, query string, budgetTokens int) (*ContextBlock, error) {
	if budgetTokens < 0 {
		return nil, fmt.Errorf("%w: budget must not be negative", ErrInvalidInput)
	}
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	core, err := tenantRead(ctx, c, tenant, func(q *db.Queries) ([]db.MemoryListCoreRow, error) { return q.MemoryListCore(ctx, tenant) })
	if err != nil {
		return nil, interpretError("listing core memories", err)
	}
	var working []db.WorkingSlotListWithMemoryRow
	if session != nil {
		if working, err = tenantRead(ctx, c, tenant, func(q *db.Queries) ([]db.WorkingSlotListWithMemoryRow, error) {
			return q.WorkingSlotListWithMemory(ctx, db.WorkingSlotListWithMemoryParams{TenantID: tenant, SessionID: *session})
		}); err != nil {
			return nil, interpretError("listing working memory", err)
		}
	}
	var recalled []Result
	if strings.TrimSpace(query) != "" {
		rr, err := c.Recall(ctx, tenant, query, &RecallOpts{K: ContextRecallK})
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
		pieces = append(pieces, budget.Piece{ID: key, Text: content, Score: score, Tokens: it.Tokens, Pinned: pinned})
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
		add("recalled", r.ID, r.Content, r.Score, false)
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
		cand, err := budget.Select(sub, budget.SelectConfig{Budget: budgetTokens - reserve})
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
