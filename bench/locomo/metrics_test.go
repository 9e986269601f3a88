package locomo

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// hits builds ranked hits, one per argument, each with the given source ids
// separated by commas ("" = a hit without sources).
func hits(sources ...string) []Hit {
	out := make([]Hit, len(sources))
	for i, s := range sources {
		out[i] = Hit{SourceIDs: splitComma(s), Score: float64(len(sources) - i)}
	}
	return out
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// filler returns n irrelevant hits.
func filler(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "z"
	}
	return out
}

func TestScoreHits(t *testing.T) {
	t.Parallel()
	l2, l3, l4, l5, l6 := 1/math.Log2(2), 1/math.Log2(3), 1/math.Log2(4), 1/math.Log2(5), 1/math.Log2(6)
	for _, tc := range []struct {
		name     string
		evidence []string
		hits     []Hit
		cutoff   int
		want     QuestionScore
	}{
		{
			// Relevant at ranks 2 and 4 (the 4th hit covers b through a
			// multi-source memory): DCG = 1/log2 3 + 1/log2 5 = 1.06161,
			// IDCG(2) = 1 + 1/log2 3 = 1.63093.
			name: "two of two in top 5", evidence: []string{"a", "b"},
			hits: hits("x", "a", "y", "b,c", "z", "q"),
			want: QuestionScore{Recall5: 1, Recall10: 1, P5: 0.4, MRR: 0.5, NDCG5: (l3 + l5) / (l2 + l3), FirstRelevant: 2},
		},
		{
			// a twice at ranks 1–2, b at 7, c at 12: R@5 1/3, R@10 2/3,
			// DCG = 1 + 1/log2 3, IDCG(3) = 1 + 1/log2 3 + 1/2.
			name: "repeated and late evidence", evidence: []string{"a", "b", "c"},
			hits: hits(append(append([]string{"a", "a", "x", "x", "x", "x", "b"}, filler(4)...), "c")...),
			want: QuestionScore{Recall5: 1.0 / 3, Recall10: 2.0 / 3, P5: 0.4, MRR: 1, NDCG5: (l2 + l3) / (l2 + l3 + l4), FirstRelevant: 1},
		},
		{
			name: "NDCG clamped to 1", evidence: []string{"a"},
			hits: hits("a", "a,b"),
			want: QuestionScore{Recall5: 1, Recall10: 1, P5: 0.4, MRR: 1, NDCG5: 1, FirstRelevant: 1},
		},
		{
			name: "nothing relevant", evidence: []string{"a"},
			hits: hits(filler(20)...),
			want: QuestionScore{},
		},
		{
			name: "no hits", evidence: []string{"a"},
			want: QuestionScore{},
		},
		{
			name: "hits without sources", evidence: []string{"a"},
			hits: hits("", "", "a"),
			want: QuestionScore{Recall5: 1, Recall10: 1, P5: 0.2, MRR: 1.0 / 3, NDCG5: 0.5, FirstRelevant: 3},
		},
		{
			name: "fewer than five hits", evidence: []string{"a"},
			hits: hits("x", "a"),
			want: QuestionScore{Recall5: 1, Recall10: 1, P5: 0.2, MRR: 0.5, NDCG5: l3, FirstRelevant: 2},
		},
		{
			name: "fewer than ten hits", evidence: []string{"a", "b"},
			hits: hits("a", "x", "x", "x", "x", "x", "b"),
			want: QuestionScore{Recall5: 0.5, Recall10: 1, P5: 0.2, MRR: 1, NDCG5: 1 / (l2 + l3), FirstRelevant: 1},
		},
		{
			name: "relevant at 50 counts", evidence: []string{"a"},
			hits: hits(append(filler(49), "a")...),
			want: QuestionScore{MRR: 1.0 / 50, FirstRelevant: 50},
		},
		{
			name: "relevant at 51 is cut", evidence: []string{"a"},
			hits: hits(append(filler(50), "a")...),
			want: QuestionScore{},
		},
		{
			name: "custom cut-off", evidence: []string{"a"}, cutoff: 10,
			hits: hits(append(filler(10), "a")...),
			want: QuestionScore{},
		},
		{
			name: "repeated evidence ids count once", evidence: []string{"a", "a"},
			hits: hits("a"),
			want: QuestionScore{Recall5: 1, Recall10: 1, P5: 0.2, MRR: 1, NDCG5: 1, FirstRelevant: 1},
		},
		{
			// Seven evidence ids, five relevant at the top: the ideal count
			// is capped at 5, so NDCG@5 is 1 while R@5 is 5/7.
			name: "ideal capped at five", evidence: []string{"a", "b", "c", "d", "e", "f", "g"},
			hits: hits("a", "b", "c", "d", "e", "f"),
			want: QuestionScore{Recall5: 5.0 / 7, Recall10: 6.0 / 7, P5: 1, MRR: 1, NDCG5: 1, FirstRelevant: 1},
		},
		{
			name: "relevant at 5 only", evidence: []string{"a", "b"},
			hits: hits("x", "x", "x", "x", "a"),
			want: QuestionScore{Recall5: 0.5, Recall10: 0.5, P5: 0.2, MRR: 0.2, NDCG5: l6 / (l2 + l3), FirstRelevant: 5},
		},
	} {
		got, err := ScoreHits(tc.evidence, tc.hits, tc.cutoff)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want.FirstRelevant, got.FirstRelevant, tc.name)
		for _, f := range []struct {
			metric    string
			want, got float64
		}{
			{"R@5", tc.want.Recall5, got.Recall5},
			{"R@10", tc.want.Recall10, got.Recall10},
			{"P@5", tc.want.P5, got.P5},
			{"MRR", tc.want.MRR, got.MRR},
			{"NDCG@5", tc.want.NDCG5, got.NDCG5},
		} {
			require.InDelta(t, f.want, f.got, 1e-12, "%s %s", tc.name, f.metric)
		}
	}
	// The first case's NDCG@5 by hand: 1.06161 / 1.63093.
	got, err := ScoreHits([]string{"a", "b"}, hits("x", "a", "y", "b,c", "z"), 0)
	require.NoError(t, err)
	require.InDelta(t, 0.650920, got.NDCG5, 1e-6)

	_, err = ScoreHits(nil, hits("a"), 0)
	require.ErrorIs(t, err, ErrNoEvidence)
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	cats := []int{1, 2, 5, 9, 4}
	scores := []QuestionScore{
		{Recall5: 1, Recall10: 1, P5: 0.2, MRR: 1, NDCG5: 1},
		{Recall5: 0},
		{Recall5: 0.5, MRR: 0.5},
		{Recall5: 0.25},
		{Recall5: 0.5, Recall10: 1, P5: 0.4, MRR: 0.25, NDCG5: 0.5},
	}
	got, err := Summarize(cats, scores)
	require.NoError(t, err)
	want := []GroupMetrics{
		{Group: GroupAll, Questions: 5, Recall5: 2.25 / 5, Recall10: 2.0 / 5, P5: 0.6 / 5, MRR: 1.75 / 5, NDCG5: 1.5 / 5},
		{Group: Group1to4, Questions: 3, Recall5: 1.5 / 3, Recall10: 2.0 / 3, P5: 0.6 / 3, MRR: 1.25 / 3, NDCG5: 1.5 / 3},
		{Group: "1", Questions: 1, Recall5: 1, Recall10: 1, P5: 0.2, MRR: 1, NDCG5: 1},
		{Group: "2", Questions: 1},
		{Group: "3"},
		{Group: "4", Questions: 1, Recall5: 0.5, Recall10: 1, P5: 0.4, MRR: 0.25, NDCG5: 0.5},
		{Group: "5", Questions: 1, Recall5: 0.5, MRR: 0.5},
	}
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, want[i].Group, got[i].Group)
		require.Equal(t, want[i].Questions, got[i].Questions, want[i].Group)
		require.InDelta(t, want[i].Recall5, got[i].Recall5, 1e-12, want[i].Group)
		require.InDelta(t, want[i].Recall10, got[i].Recall10, 1e-12, want[i].Group)
		require.InDelta(t, want[i].P5, got[i].P5, 1e-12, want[i].Group)
		require.InDelta(t, want[i].MRR, got[i].MRR, 1e-12, want[i].Group)
		require.InDelta(t, want[i].NDCG5, got[i].NDCG5, 1e-12, want[i].Group)
	}

	_, err = Summarize([]int{1}, nil)
	require.Error(t, err)
	empty, err := Summarize(nil, nil)
	require.NoError(t, err)
	require.Len(t, empty, 7)
	require.Zero(t, empty[0].Questions)
}

func TestSummarizeBudgets(t *testing.T) {
	t.Parallel()
	fig := func(tokens int, chars, strict, lenient float64, ctx *float64) BudgetFigures {
		f := BudgetFigures{Tokens: tokens, Chars: chars, Strict: strict, Lenient: lenient, ContextStrict: ctx}
		if ctx != nil {
			f.ContextChars = new(2 * chars)
		}
		return f
	}
	scores := []QuestionScore{
		{Budgets: []BudgetFigures{fig(250, 100, 1, 1, new(0.5)), fig(1000, 400, 1, 1, new(1.0))}},
		{Budgets: []BudgetFigures{fig(250, 300, 0, 0.5, new(0.0)), fig(1000, 800, 0.5, 1, new(1.0))}},
		{Budgets: []BudgetFigures{fig(250, 200, 0.5, 0.5, nil), fig(1000, 600, 0.5, 0.5, nil)}},
	}
	got, err := Summarize([]int{4, 2, 5}, scores)
	require.NoError(t, err)
	all := got[0].Budgets
	require.Len(t, all, 2)
	require.Equal(t, 250, all[0].Tokens)
	require.InDelta(t, 200, all[0].Chars, 1e-12)
	require.InDelta(t, 0.5, all[0].Strict, 1e-12)
	require.InDelta(t, 2.0/3, all[0].Lenient, 1e-12)
	require.InDelta(t, 0.25, *all[0].ContextStrict, 1e-12, "averaged over the questions with a context figure")
	require.InDelta(t, 400, *all[0].ContextChars, 1e-12)
	require.InDelta(t, 1.0, *all[1].ContextStrict, 1e-12)
	four := got[1+4].Budgets
	require.InDelta(t, 1.0, four[0].Strict, 1e-12)
	require.InDelta(t, 0.5, *four[0].ContextStrict, 1e-12)
	five := got[1+5].Budgets
	require.Nil(t, five[0].ContextStrict, "no question of category 5 has a context figure")
	three := got[1+3]
	require.Equal(t, []BudgetFigures{{Tokens: 250}, {Tokens: 1000}}, three.Budgets, "an empty group has zero figures")

	// The budgets must match the first score's.
	_, err = Summarize([]int{1, 1}, []QuestionScore{scores[0], {}})
	require.ErrorContains(t, err, "score 1 has 0 budgets, the first has 2")
	_, err = Summarize([]int{1, 1}, []QuestionScore{scores[0], {Budgets: []BudgetFigures{{Tokens: 250}, {Tokens: 2000}}}})
	require.ErrorContains(t, err, "score 1 has budget 2000 where the first has 1000")
	plain, err := Summarize([]int{1}, []QuestionScore{{Recall5: 1}})
	require.NoError(t, err)
	require.Nil(t, plain[0].Budgets, "scores without budgets give groups without budgets")
}
