package locomo

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/budget"
)

func TestMaxWords(t *testing.T) {
	t.Parallel()
	for budgetTokens, want := range map[int]int{-5: 0, 0: 0, 1: 0, 2: 1, 13: 10, 14: 10, 250: 192, 1000: 769, 2000: 1538} {
		got := maxWords(budgetTokens)
		require.Equal(t, want, got, "budget %d", budgetTokens)
		require.LessOrEqual(t, budget.Tokens(strings.Repeat("w ", got)), max(budgetTokens, 0))
		require.Greater(t, budget.Tokens(strings.Repeat("w ", got+1)), budgetTokens)
	}
}

func TestPackCutsTheLastHit(t *testing.T) {
	t.Parallel()
	// 13 tokens hold 10 words: the first hit (5 words) fits, the second (7) is cut after 5.
	hits := []Hit{
		{SourceIDs: []string{"D1:1"}, Text: "Ann: I adopted a dog."},
		{SourceIDs: []string{"D1:2"}, Text: "Bob: The dog is named Rex today."},
		{SourceIDs: []string{"D1:3"}, Text: "Ann: Never delivered."},
	}
	d := Pack(hits, 13)
	require.Equal(t, Delivery{
		Text: "Ann: I adopted a dog.\nBob: The dog is named", Tokens: 13, Whole: 1, Cut: true,
		Sources: []string{"D1:1"},
	}, d)
	ev := []string{"D1:1", "D1:2"}
	text := []string{"I adopted a dog.", "The dog is named Rex today."}
	strict, err := StrictCredit(d.Text, ev, text)
	require.NoError(t, err)
	require.InDelta(t, 0.5, strict, 1e-12, "D1:2's text is split by the cut")
	lenient, err := LenientCredit(d, ev, text)
	require.NoError(t, err)
	require.InDelta(t, 0.5, lenient, 1e-12, "the cut hit does not credit its source")

	// A budget the first hit fills exactly ends the delivery without a cut.
	d = Pack(hits, budget.Tokens(hits[0].Text))
	require.Equal(t, Delivery{Text: "Ann: I adopted a dog.", Tokens: 7, Whole: 1, Sources: []string{"D1:1"}}, d)
	// A large budget delivers everything.
	d = Pack(hits, 100)
	require.Equal(t, 3, d.Whole)
	require.False(t, d.Cut)
	require.Equal(t, []string{"D1:1", "D1:2", "D1:3"}, d.Sources)
	require.Equal(t, budget.Tokens(d.Text), d.Tokens)
	require.Equal(t, 3, strings.Count(d.Text, "\n")+1)
}

func TestPackCutHitCreditsWhatItDelivers(t *testing.T) {
	t.Parallel()
	// An episode of two turns cut after its first: only the first turn is credited, strictly
	// and leniently.
	ep := Hit{SourceIDs: []string{"D2:1", "D2:2"}, Text: "Ann: Hello  there.\nBob: I like jazz a lot."}
	d := Pack([]Hit{ep}, 5) // 3 words
	require.Equal(t, "Ann: Hello  there.", d.Text, "cut at a word boundary, spacing kept")
	require.True(t, d.Cut)
	require.Zero(t, d.Whole)
	require.Empty(t, d.Sources)
	ev := []string{"D2:1", "D2:2"}
	text := []string{"Hello there.", "I like jazz a lot."}
	strict, err := StrictCredit(d.Text, ev, text)
	require.NoError(t, err)
	require.InDelta(t, 0.5, strict, 1e-12)
	lenient, err := LenientCredit(d, ev, text)
	require.NoError(t, err)
	require.InDelta(t, 0.5, lenient, 1e-12)
}

func TestPackEpisodeLikeHit(t *testing.T) {
	t.Parallel()
	// A consolidated memory carrying 8 turns, of which it quotes two and summarises the rest.
	ids := []string{"D3:1", "D3:2", "D3:3", "D3:4", "D3:5", "D3:6", "D3:7", "D3:8"}
	ep := Hit{SourceIDs: ids, Text: "Ann and Bob talked about pets. Ann: I adopted a dog. Bob: The dog is named Rex."}
	d := Pack([]Hit{ep}, 250)
	require.Equal(t, 1, d.Whole)
	require.False(t, d.Cut)
	ev := []string{"D3:1", "D3:2", "D3:5", "D3:8"}
	text := []string{"I adopted a dog.", "The dog is named Rex.", "We went to the vet on Monday.", "He likes the park."}
	strict, err := StrictCredit(d.Text, ev, text)
	require.NoError(t, err)
	require.InDelta(t, 0.5, strict, 1e-12, "only the quoted turns are delivered")
	lenient, err := LenientCredit(d, ev, text)
	require.NoError(t, err)
	require.InDelta(t, 1.0, lenient, 1e-12, "a hit delivered whole credits all its sources")
}

func TestCreditWhiteSpaceAndEdgeCases(t *testing.T) {
	t.Parallel()
	d := Pack([]Hit{{SourceIDs: []string{"D1:9"}, Text: "  Ann: I adopted   a\tdog.\n"}}, 250)
	require.Equal(t, "Ann: I adopted   a\tdog.", d.Text, "trimmed, inner spacing kept")
	s, err := StrictCredit(d.Text, []string{"D1:1"}, []string{" I  adopted\n a dog. "})
	require.NoError(t, err)
	require.InDelta(t, 1.0, s, 1e-12, "white space is normalised on both sides")

	// Repeated evidence ids count once; an empty evidence text is never covered.
	s, err = StrictCredit("Ann: I adopted a dog.", []string{"D1:1", "D1:1", "D1:2"}, []string{"I adopted a dog.", "I adopted a dog.", " "})
	require.NoError(t, err)
	require.InDelta(t, 0.5, s, 1e-12)
	// Case matters: the text must be delivered as it is.
	s, err = StrictCredit("ann: i adopted a dog.", []string{"D1:1"}, []string{"I adopted a dog."})
	require.NoError(t, err)
	require.Zero(t, s)

	_, err = StrictCredit("x", nil, nil)
	require.ErrorIs(t, err, ErrNoEvidence)
	_, err = StrictCredit("x", []string{"D1:1"}, nil)
	require.ErrorContains(t, err, "1 ids but 0 texts")
	_, err = LenientCredit(Delivery{}, []string{"D1:1", "D1:2"}, []string{"a"})
	require.Error(t, err)
}

func TestPackZeroBudgetAndEmptyHits(t *testing.T) {
	t.Parallel()
	hits := []Hit{{SourceIDs: []string{"D1:1"}, Text: "Ann: I adopted a dog."}}
	for _, b := range []int{0, -1, 1} {
		d := Pack(hits, b)
		require.Equal(t, Delivery{}, d, "budget %d", b)
		l, err := LenientCredit(d, []string{"D1:1"}, []string{"I adopted a dog."})
		require.NoError(t, err)
		require.Zero(t, l)
	}
	require.Equal(t, Delivery{}, Pack(nil, 250))
	// Hits without words deliver nothing and credit nothing; the next hit is packed.
	d := Pack([]Hit{{SourceIDs: []string{"D9:9"}}, {SourceIDs: []string{"D9:8"}, Text: " \n "}, hits[0]}, 250)
	require.Equal(t, Delivery{Text: "Ann: I adopted a dog.", Tokens: 7, Whole: 1, Sources: []string{"D1:1"}}, d)
	l, err := LenientCredit(d, []string{"D9:9", "D1:1"}, []string{"Nothing.", "I adopted a dog."})
	require.NoError(t, err)
	require.InDelta(t, 0.5, l, 1e-12)
}

// TestPackNeverExceedsTheBudget packs random hits into random budgets.
func TestPackNeverExceedsTheBudget(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "bb", "ccc", "dd\td", "e\n", "  f"}
	for range 500 {
		var hits []Hit
		for range rng.IntN(6) {
			var b strings.Builder
			for range rng.IntN(40) {
				b.WriteString(words[rng.IntN(len(words))] + " ")
			}
			hits = append(hits, Hit{SourceIDs: []string{"x"}, Text: b.String()})
		}
		bt := rng.IntN(120)
		d := Pack(hits, bt)
		require.LessOrEqual(t, d.Tokens, max(bt, 0))
		require.Equal(t, budget.Tokens(d.Text), d.Tokens)
		if d.Cut {
			require.Equal(t, maxWords(bt), len(strings.Fields(d.Text)), "a cut fills the budget")
		}
	}
}

// contextFake is a fake system that also assembles context blocks.
type contextFake struct {
	fakeSystem
	block func(query string, budgetTokens int) (string, error)
}

func (c *contextFake) Context(_ context.Context, _, query string, _ time.Time, budgetTokens int) (string, error) {
	return c.block(query, budgetTokens)
}

// textOracle answers every question with its evidence turns as single-turn hits carrying
// their text.
func textOracle(t *testing.T, ds *Dataset) func(tenant, query string) ([]Hit, error) {
	t.Helper()
	answers := map[string][]Hit{}
	for _, m := range []Mode{PerConversation, SharedPool} {
		plans, err := BuildPlan(ds, m)
		require.NoError(t, err)
		for _, p := range plans {
			for _, q := range p.Queries {
				var hs []Hit
				for i, id := range q.Evidence {
					hs = append(hs, Hit{SourceIDs: []string{id}, Text: "X: " + q.EvidenceText[i]})
				}
				answers[p.Tenant+"|"+q.Text] = hs
			}
		}
	}
	return func(tenant, query string) ([]Hit, error) { return answers[tenant+"|"+query], nil }
}

func TestRunBudgets(t *testing.T) {
	t.Parallel()
	ds := parseString(t, fixture)
	answer := textOracle(t, ds)
	plain := &fakeSystem{name: "plain", answer: answer}
	withContext := &contextFake{
		fakeSystem: fakeSystem{name: "ctx", answer: answer},
		// The block delivers the dog's name, nothing else.
		block: func(_ string, _ int) (string, error) { return "## Recalled\n- Bob: The dog is named Rex.", nil },
	}
	rep, err := Run(context.Background(), ds, []System{plain, withContext}, Options{Mode: PerConversation, PerQuestion: true})
	require.NoError(t, err)
	require.Equal(t, []int{250, 1000, 2000}, rep.Settings.Budgets)
	require.Equal(t, PackingDescription, rep.Settings.Packing)

	p := rep.Result(PerConversation, "plain")
	require.Len(t, p.Budgets, 3)
	all, _ := p.Group(GroupAll)
	require.Equal(t, all.Budgets, p.Budgets, "the result's budgets are the all group's")
	for _, f := range p.Budgets {
		require.InDelta(t, 1.0, f.Strict, 1e-12, "the oracle delivers every evidence turn")
		require.InDelta(t, 1.0, f.Lenient, 1e-12)
		require.Nil(t, f.ContextStrict)
		require.Nil(t, f.ContextChars)
		require.Positive(t, f.Chars)
	}
	for _, g := range p.Groups {
		require.Len(t, g.Budgets, 3, g.Group)
	}
	require.InDelta(t, 1.0, p.Top5Sources, 1e-12)
	require.Positive(t, p.Top5Chars)
	require.Zero(t, p.ContextSeconds)
	for _, q := range p.PerQuestion {
		require.Len(t, q.Score.Budgets, 3, "per-question budget figures")
	}

	// Six questions; the block delivers D10:1, the evidence of "What is the dog called?" and
	// one of the two of "What did Bob show?": (1 + 0.5) / 6.
	c := rep.Result(PerConversation, "ctx")
	for _, f := range c.Budgets {
		require.NotNil(t, f.ContextStrict)
		require.InDelta(t, 0.25, *f.ContextStrict, 1e-12)
		require.InDelta(t, float64(len("## Recalled\n- Bob: The dog is named Rex.")), *f.ContextChars, 1e-12)
	}
	cat4, _ := c.Group("4")
	require.InDelta(t, 1.0/3, *cat4.Budgets[0].ContextStrict, 1e-12, "category 4 holds three questions")
	require.Positive(t, c.ContextSeconds)
	q := c.PerQuestion[1]
	require.Equal(t, 1, q.Index)
	require.InDelta(t, 1.0, *q.Score.Budgets[0].ContextStrict, 1e-12)

	// The JSON carries the budgets, with context_strict only for the context system.
	raw, err := json.Marshal(p)
	require.NoError(t, err)
	require.Contains(t, string(raw), `"budgets":[{"tokens":250,"chars":`)
	require.NotContains(t, string(raw), "context_strict")
	require.Contains(t, string(raw), `"top5_sources":1`)
	raw, err = json.Marshal(c)
	require.NoError(t, err)
	require.Contains(t, string(raw), `"context_strict":0.25`)

	// A block over the budget, or a failing block, stops the run.
	for _, block := range []func(string, int) (string, error){
		func(_ string, b int) (string, error) { return strings.Repeat("w ", b), nil },
		func(string, int) (string, error) { return "", errors.New("boom") },
	} {
		bad := &contextFake{fakeSystem: fakeSystem{name: "bad", answer: answer}, block: block}
		_, err := Run(context.Background(), ds, []System{bad}, Options{Mode: PerConversation})
		require.ErrorContains(t, err, "context at 250 tokens")
	}
}
