package locomo

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// perQuestion returns a per-conversation result of hand-made questions: question i of
// conversation "c" has the strict credits s250[i] and s1000[i] and, when ctx250 is not nil,
// the context credit ctx250[i] at 250 tokens.
func perQuestion(system string, s250, s1000, ctx250 []float64) *Result {
	r := &Result{Mode: PerConversation, System: system, SearchMeanMillis: 2.5}
	for i := range s250 {
		bs := []BudgetFigures{{Tokens: 250, Strict: s250[i]}, {Tokens: 1000, Strict: s1000[i]}, {Tokens: 2000, Strict: 1}}
		if ctx250 != nil {
			bs[0].ContextStrict = new(ctx250[i])
		}
		r.PerQuestion = append(r.PerQuestion, QuestionResult{
			Conversation: "c", Index: i, Category: 1, Score: QuestionScore{Budgets: bs}, Top: [][]string{{"D1:1"}},
		})
	}
	return r
}

// repeat returns n copies of v.
func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestCompareArm(t *testing.T) {
	t.Parallel()
	ones := repeat(1, 10)
	full := perQuestion("full", ones, ones, ones)

	// An arm with the same figures on every question does nothing on this path.
	same, err := CompareArm("gwt", full, perQuestion("same", ones, ones, ones))
	require.NoError(t, err)
	require.Equal(t, AblationRow{
		ID: "gwt", System: "same", Identical: true, SearchMeanMillis: 2.5,
		Strict250: PairedDelta{P: 1}, Strict1000: PairedDelta{P: 1}, Context250: &PairedDelta{P: 1},
	}, same)

	// Every question loses half its evidence at 250 tokens: Δ = −0.5 over 10 non-zero pairs all
	// on one side, exact p = 2/2¹⁰. One question gains at 1000 tokens: Δ = 0.1, p = 1.
	s1000 := repeat(1, 10)
	s1000[3] = 2
	ctx := repeat(1, 10)
	ctx[0], ctx[1] = 0, 0.5
	shifted, err := CompareArm("decay", full, perQuestion("shifted", repeat(0.5, 10), s1000, ctx))
	require.NoError(t, err)
	require.Equal(t, PairedDelta{Delta: -0.5, P: 2.0 / 1024, N: 10}, shifted.Strict250)
	require.Equal(t, PairedDelta{Delta: 0.1, P: 1, N: 1}, shifted.Strict1000)
	// Context: differences −1 and −0.5 (ranks 2 and 1, both negative): Δ = −0.15, p = 2·¼.
	require.Equal(t, PairedDelta{Delta: -0.15, P: 0.5, N: 2}, *shifted.Context250)
	require.False(t, shifted.Identical)

	// 30 questions shifted by −0.25: the normal approximation gives a small p.
	big, err := CompareArm("decay", perQuestion("full", repeat(0.75, 30), repeat(0.75, 30), nil),
		perQuestion("arm", repeat(0.5, 30), repeat(0.75, 30), nil))
	require.NoError(t, err)
	require.Equal(t, -0.25, big.Strict250.Delta)
	require.Equal(t, 30, big.Strict250.N)
	require.Less(t, big.Strict250.P, 1e-5)
	require.Equal(t, PairedDelta{P: 1}, big.Strict1000)
	require.Nil(t, big.Context250, "no context blocks")

	// Equal figures but another top hit: not identical.
	other := perQuestion("other", ones, ones, ones)
	other.PerQuestion[9].Top = [][]string{{"D1:2"}}
	row, err := CompareArm("gwt", full, other)
	require.NoError(t, err)
	require.False(t, row.Identical)
	require.Equal(t, PairedDelta{P: 1}, row.Strict250)

	// Context blocks on one side only are not compared.
	row, err = CompareArm("gwt", full, perQuestion("noctx", ones, ones, nil))
	require.NoError(t, err)
	require.Nil(t, row.Context250)
	require.False(t, row.Identical)

	// Unpaired questions are an error.
	short := perQuestion("short", ones[:9], ones[:9], nil)
	_, err = CompareArm("gwt", full, short)
	require.ErrorContains(t, err, "9 questions against 10")
	swapped := perQuestion("swapped", ones, ones, ones)
	swapped.PerQuestion[2].Index = 7
	_, err = CompareArm("gwt", full, swapped)
	require.ErrorContains(t, err, "question 2 is c qa[7] against c qa[2]")
	noBudget := perQuestion("nobudget", ones, ones, ones)
	noBudget.PerQuestion[0].Score.Budgets = noBudget.PerQuestion[0].Score.Budgets[1:]
	_, err = CompareArm("gwt", full, noBudget)
	require.ErrorContains(t, err, "no figures at 250 tokens")
	_, err = CompareArm("gwt", nil, full)
	require.Error(t, err)
}

// fillerFirst answers like textOracle after a hit of 300 words, so nothing of the evidence
// fits into 250 tokens.
func fillerFirst(t *testing.T, ds *Dataset) func(tenant, query string) ([]Hit, error) {
	t.Helper()
	answer := textOracle(t, ds)
	filler := Hit{SourceIDs: []string{"none"}, Text: strings.Repeat("word ", 300)}
	return func(tenant, query string) ([]Hit, error) {
		hs, err := answer(tenant, query)
		return append([]Hit{filler}, hs...), err
	}
}

func TestAblate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ds := parseString(t, fixture)
	answer := textOracle(t, ds)
	rep, err := Run(ctx, ds, []System{&fakeSystem{name: "full", answer: answer}}, Options{Mode: PerConversation, PerQuestion: true})
	require.NoError(t, err)
	full := rep.Result(PerConversation, "full")
	arms := []AblationArm{
		{ID: "noop", System: &fakeSystem{name: "full-no-noop", answer: answer}},
		{ID: "filler", System: &fakeSystem{name: "full-no-filler", answer: fillerFirst(t, ds)}},
	}
	var progress strings.Builder
	abl, err := Ablate(ctx, ds, full, arms, Options{Progress: &progress, PlainProgress: true})
	require.NoError(t, err)
	require.Contains(t, progress.String(), "per-conversation full-no-noop: 100%")
	require.Contains(t, progress.String(), "per-conversation full-no-filler: 100%")
	require.Equal(t, []string{"conv-a", "conv-b"}, abl.Conversations)
	require.Equal(t, full.Queries, abl.Questions)
	require.Equal(t, KDefault, abl.K)
	require.Equal(t, AblationFull{System: "full", Strict250: 1, Strict1000: 1, SearchMeanMillis: full.SearchMeanMillis}, abl.Full)
	require.Len(t, abl.Arms, 2)
	require.Equal(t, "noop", abl.Arms[0].ID)
	require.Equal(t, "full-no-noop", abl.Arms[0].System)
	require.True(t, abl.Arms[0].Identical)
	require.Equal(t, PairedDelta{P: 1}, abl.Arms[0].Strict250)
	f := abl.Arms[1]
	require.False(t, f.Identical)
	require.Equal(t, -1.0, f.Strict250.Delta, "the filler fills 250 tokens")
	require.Equal(t, abl.Questions, f.Strict250.N)
	require.Equal(t, PairedDelta{P: 1}, f.Strict1000, "the evidence still fits into 1000 tokens")
	require.Nil(t, f.Context250)

	for _, tc := range []struct {
		name string
		full *Result
		arms []AblationArm
		opts Options
		want string
	}{
		{"no per-question figures", &Result{Mode: PerConversation, System: "full"}, arms, Options{}, "every question's figures"},
		{"pool", full, arms, Options{Mode: SharedPool}, "mode shared-pool"},
		{"no arms", full, nil, Options{}, "no arms"},
		{"nil system", full, []AblationArm{{ID: "x"}}, Options{}, "arm 0 (x) has no system"},
		{"full's name", full, []AblationArm{{ID: "x", System: &fakeSystem{name: "full", answer: answer}}}, Options{}, `repeats the system name "full"`},
		{"bad k", full, arms[:1], Options{K: 1}, "error ablating noop on LoCoMo"},
	} {
		_, err := Ablate(ctx, ds, tc.full, tc.arms, tc.opts)
		require.ErrorContains(t, err, tc.want, tc.name)
	}
	_, err = Ablate(ctx, nil, full, arms, Options{})
	require.ErrorIs(t, err, ErrNoData)
}

// handAblation is a fixed ablation report for the writers' tests.
func handAblation() *AblationReport {
	return &AblationReport{
		Source: "locomo-dev.json", Conversations: []string{"conv-26", "conv-30"}, Questions: 12, Mode: PerConversation,
		K: 100, Test: AblationTest, StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Seconds: 42.5,
		Full: AblationFull{System: "zenbrain", Strict250: 0.625, Strict1000: 0.75, Context250: new(0.5), SearchMeanMillis: 40},
		Arms: []AblationRow{
			{
				ID: "decay", System: "zenbrain-no-decay", Strict250: PairedDelta{Delta: -0.125, P: 0.0039, N: 9},
				Strict1000: PairedDelta{Delta: 0.0625, P: 0.5, N: 3}, Context250: &PairedDelta{Delta: -0.25, P: 0.01, N: 7},
				SearchMeanMillis: 38.25,
			},
			{
				ID: "gwt", System: "zenbrain-no-gwt", Strict250: PairedDelta{P: 1}, Strict1000: PairedDelta{P: 1},
				Identical: true, SearchMeanMillis: 41,
			},
		},
	}
}

func TestWriteAblation(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, WriteAblationMarkdown(&b, handAblation()))
	golden(t, "ablation.md.golden", b.Bytes())
	md := b.String()
	require.Less(t, strings.Index(md, "| decay |"), strings.Index(md, "| gwt |"), "rows in the report's order")

	dir := filepath.Join(t.TempDir(), "out")
	require.NoError(t, WriteAblation(dir, handAblation()))
	raw, err := os.ReadFile(filepath.Join(dir, AblationJSON))
	require.NoError(t, err)
	var back AblationReport
	require.NoError(t, json.Unmarshal(raw, &back))
	require.Equal(t, *handAblation(), back)
	got, err := os.ReadFile(filepath.Join(dir, AblationMarkdown))
	require.NoError(t, err)
	require.Equal(t, md, string(got))

	require.Error(t, WriteAblation(dir, nil))
	require.Error(t, WriteAblationJSON(&b, nil))
	require.Error(t, WriteAblationMarkdown(&b, nil))
}

func TestSelect(t *testing.T) {
	t.Parallel()
	ds := parseString(t, fixture)
	b, err := ds.Select([]string{"conv-b", "conv-b"})
	require.NoError(t, err)
	require.Len(t, b.Conversations, 1)
	require.Equal(t, "conv-b", b.Conversations[0].SampleID)
	require.Equal(t, ds.Source, b.Source)
	require.Empty(t, b.Cleaning.Fixes, "conv-b's evidence needed no repair")
	require.Empty(t, b.Cleaning.EmptyEvidence)
	require.Equal(t, 1, b.Stats().Scored)

	// conv-a holds every repair: its cleaning report is the whole file's.
	a, err := ds.Select([]string{"conv-a"})
	require.NoError(t, err)
	require.Equal(t, ds.Cleaning, a.Cleaning)
	both, err := ds.Select([]string{"conv-b", "conv-a"})
	require.NoError(t, err)
	require.Equal(t, ds, both, "the dataset's order")

	_, err = ds.Select([]string{"conv-a", "conv-z"})
	require.ErrorContains(t, err, `unknown "conv-z" (known: conv-a, conv-b)`)
	_, err = ds.Select(nil)
	require.ErrorContains(t, err, "none given (known: conv-a, conv-b)")
}
