package locomo

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Metric cut-offs of SOURCE.md.
const (
	// MRRCutoffDefault is the rank beyond which MRR counts a question as 0.
	MRRCutoffDefault = 50
	// NDCGK is the depth of NDCG (NDCG@5) and of P@5.
	NDCGK = 5
)

// Group names of the aggregated figures.
const (
	// GroupAll averages over all scored questions (categories 1–5).
	GroupAll = "all"
	// Group1to4 averages over categories 1–4 (without adversarial questions).
	Group1to4 = "1-4"
)

// ErrNoEvidence is returned by [ScoreHits] for a question without evidence.
var ErrNoEvidence = errors.New("question has no evidence")

// QuestionScore holds one question's figures (see the package documentation
// for the formulas).
type QuestionScore struct {
	// Recall5 is the covered fraction of evidence ids in the top 5 hits.
	Recall5 float64 `json:"recall_5"`
	// Recall10 is the covered fraction of evidence ids in the top 10 hits.
	Recall10 float64 `json:"recall_10"`
	// P5 is the number of relevant hits among the top 5, divided by 5.
	P5 float64 `json:"p_5"`
	// MRR is 1 / FirstRelevant, or 0.
	MRR float64 `json:"mrr"`
	// NDCG5 is the binary-gain NDCG@5, clamped to 1.
	NDCG5 float64 `json:"ndcg_5"`
	// FirstRelevant is the 1-based rank of the first relevant hit within the
	// MRR cut-off, or 0 when there is none.
	FirstRelevant int `json:"first_relevant"`
	// Budgets are the figures at each context budget of [Budgets]; [ScoreHits] leaves them
	// empty and [Run] fills them.
	Budgets []BudgetFigures `json:"budgets,omitempty"`
}

// ScoreHits scores ranked hits against a question's evidence ids; ranks
// beyond mrrCutoff (≤ 0 means [MRRCutoffDefault]) do not count for MRR. A hit
// is relevant iff one of its SourceIDs is in evidence. Repeated evidence ids
// count once. Empty evidence gives [ErrNoEvidence].
func ScoreHits(evidence []string, hits []Hit, mrrCutoff int) (QuestionScore, error) {
	if mrrCutoff <= 0 {
		mrrCutoff = MRRCutoffDefault
	}
	ev := make(map[string]bool, len(evidence))
	for _, id := range evidence {
		ev[id] = false
	}
	if len(ev) == 0 {
		return QuestionScore{}, ErrNoEvidence
	}
	var s QuestionScore
	covered := 0
	relevantTop5 := 0
	dcg := 0.0
	for i, h := range hits {
		rank := i + 1
		relevant := false
		for _, id := range h.SourceIDs {
			seen, ok := ev[id]
			if !ok {
				continue
			}
			relevant = true
			if !seen {
				ev[id] = true
				covered++
			}
		}
		if rank == 5 || (rank < 5 && rank == len(hits)) {
			s.Recall5 = float64(covered) / float64(len(ev))
		}
		if rank == 10 || (rank < 10 && rank == len(hits)) {
			s.Recall10 = float64(covered) / float64(len(ev))
		}
		if !relevant {
			continue
		}
		if rank <= NDCGK {
			relevantTop5++
			dcg += 1 / math.Log2(float64(rank)+1)
		}
		if s.FirstRelevant == 0 && rank <= mrrCutoff {
			s.FirstRelevant = rank
			s.MRR = 1 / float64(rank)
		}
	}
	s.P5 = float64(relevantTop5) / NDCGK
	s.NDCG5 = math.Min(1, dcg/idealDCG(len(ev)))
	return s, nil
}

// idealDCG returns Σ_{i≤min(n, 5)} 1/log2(i+1).
func idealDCG(n int) float64 {
	idcg := 0.0
	for i := 1; i <= n && i <= NDCGK; i++ {
		idcg += 1 / math.Log2(float64(i)+1)
	}
	return idcg
}

// GroupMetrics holds the macro averages of one group of questions.
type GroupMetrics struct {
	// Group is [GroupAll], [Group1to4] or a category "1".."5".
	Group string `json:"group"`
	// Questions is the number of questions averaged (0 gives all-zero
	// figures).
	Questions int `json:"questions"`
	// Recall5 is the mean Recall@5 of the questions.
	Recall5 float64 `json:"recall_5"`
	// Recall10 is the mean Recall@10.
	Recall10 float64 `json:"recall_10"`
	// P5 is the mean P@5.
	P5 float64 `json:"p_5"`
	// MRR is the mean reciprocal rank (cut at the run's MRR cut-off).
	MRR float64 `json:"mrr"`
	// NDCG5 is the mean NDCG@5.
	NDCG5 float64 `json:"ndcg_5"`
	// Budgets are the mean figures at each context budget, in the questions' order; empty when
	// the questions carry none. ContextStrict and ContextChars average the questions that
	// carry them.
	Budgets []BudgetFigures `json:"budgets,omitempty"`
}

// Summarize macro-averages the scores of questions with the given categories
// (cats[i] belongs to scores[i]) into the groups [GroupAll], [Group1to4] and
// each category "1".."5", in that order. Categories outside 1..5 count only
// for [GroupAll]. Mismatched lengths, or scores whose budgets differ from the
// first score's, give an error.
func Summarize(cats []int, scores []QuestionScore) ([]GroupMetrics, error) {
	if len(cats) != len(scores) {
		return nil, errors.New("error summarizing scores: categories and scores differ in length")
	}
	var tokens []int
	if len(scores) > 0 {
		for _, b := range scores[0].Budgets {
			tokens = append(tokens, b.Tokens)
		}
	}
	for i, s := range scores {
		if len(s.Budgets) != len(tokens) {
			return nil, fmt.Errorf("error summarizing scores: score %d has %d budgets, the first has %d", i, len(s.Budgets), len(tokens))
		}
		for j, b := range s.Budgets {
			if b.Tokens != tokens[j] {
				return nil, fmt.Errorf("error summarizing scores: score %d has budget %d where the first has %d", i, b.Tokens, tokens[j])
			}
		}
	}
	groups := make([]GroupMetrics, 2+NumCategories)
	withContext := make([][]int, len(groups)) // questions carrying a context figure, per group and budget
	for i := range groups {
		if len(tokens) > 0 {
			groups[i].Budgets = make([]BudgetFigures, len(tokens))
			for j, t := range tokens {
				groups[i].Budgets[j].Tokens = t
			}
		}
		withContext[i] = make([]int, len(tokens))
	}
	groups[0].Group, groups[1].Group = GroupAll, Group1to4
	for c := 1; c <= NumCategories; c++ {
		groups[1+c].Group = strconv.Itoa(c)
	}
	add := func(gi int, s QuestionScore) {
		g := &groups[gi]
		g.Questions++
		g.Recall5 += s.Recall5
		g.Recall10 += s.Recall10
		g.P5 += s.P5
		g.MRR += s.MRR
		g.NDCG5 += s.NDCG5
		for j, f := range s.Budgets {
			b := &g.Budgets[j]
			b.Chars += f.Chars
			b.Strict += f.Strict
			b.Lenient += f.Lenient
			if f.ContextStrict == nil || f.ContextChars == nil {
				continue
			}
			if b.ContextStrict == nil {
				b.ContextStrict, b.ContextChars = new(0.0), new(0.0)
			}
			*b.ContextStrict += *f.ContextStrict
			*b.ContextChars += *f.ContextChars
			withContext[gi][j]++
		}
	}
	for i, s := range scores {
		add(0, s)
		c := cats[i]
		if c >= 1 && c <= NumCategories {
			add(1+c, s)
			if c <= 4 {
				add(1, s)
			}
		}
	}
	for i := range groups {
		g := &groups[i]
		if g.Questions == 0 {
			continue
		}
		n := float64(g.Questions)
		g.Recall5 /= n
		g.Recall10 /= n
		g.P5 /= n
		g.MRR /= n
		g.NDCG5 /= n
		for j := range g.Budgets {
			b := &g.Budgets[j]
			b.Chars /= n
			b.Strict /= n
			b.Lenient /= n
			if m := withContext[i][j]; m > 0 {
				*b.ContextStrict /= float64(m)
				*b.ContextChars /= float64(m)
			}
		}
	}
	return groups, nil
}
