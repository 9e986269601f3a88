package locomo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/retrieval"
)

func TestTopK(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	for _, tc := range []struct {
		name   string
		scores []float64
		k      int
		keep   func(float64) bool
		want   []int
	}{
		{"ordered", []float64{0.1, 0.9, 0.5, 0.7}, 2, nil, []int{1, 3}},
		{"ties by index", []float64{1, 2, 2, 1, 2}, 4, nil, []int{1, 2, 4, 0}},
		{"k beyond n", []float64{3, 1, 2}, 10, nil, []int{0, 2, 1}},
		{"NaN skipped", []float64{nan, 1, nan, 0}, 3, nil, []int{1, 3}},
		{"keep positive", []float64{0, 2, -1, 1}, 3, func(x float64) bool { return x > 0 }, []int{1, 3}},
		{"empty", nil, 3, nil, []int{}},
	} {
		got := topK(tc.scores, tc.k, tc.keep)
		idx := []int{}
		for _, s := range got {
			idx = append(idx, s.idx)
		}
		require.Equal(t, tc.want, idx, tc.name)
	}
}

// fixtureMessages returns the fixture's per-conversation plans.
func fixturePlans(t *testing.T) []TenantPlan {
	t.Helper()
	plans, err := BuildPlan(parseString(t, fixture), PerConversation)
	require.NoError(t, err)
	return plans
}

// ingestAll ingests every plan into s.
func ingestAll(t *testing.T, s System, plans []TenantPlan) {
	t.Helper()
	ctx := context.Background()
	for _, p := range plans {
		require.NoError(t, s.Ingest(ctx, p.Tenant, p.Messages))
		require.NoError(t, s.AfterIngest(ctx, p.Tenant, p.Now))
	}
}

func sourceIDs(hs []Hit) []string {
	out := []string{}
	for _, h := range hs {
		out = append(out, h.SourceIDs...)
	}
	return out
}

func TestBM25System(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := NewBM25System(nil)
	require.NoError(t, err)
	require.Equal(t, "bm25", s.Name())
	ingestAll(t, s, fixturePlans(t))

	hs, err := s.Search(ctx, "conv-a", "What is the dog named?", time.Time{}, 10)
	require.NoError(t, err)
	require.Len(t, hs, 3, "only documents sharing a term")
	require.Equal(t, []string{"D10:1"}, hs[0].SourceIDs, "dog and name")
	require.Greater(t, hs[0].Score, hs[1].Score)
	require.ElementsMatch(t, []string{"D2:1", "D10:2"}, sourceIDs(hs[1:]), "dog or name")
	require.Equal(t, "Bob: The dog is named Rex.", hs[0].Text)

	hs, err = s.Search(ctx, "conv-b", "Which instrument does Cy play? violin", time.Time{}, 10)
	require.NoError(t, err)
	require.Equal(t, []string{"D1:1"}, sourceIDs(hs), "tenants are isolated")
	hs, err = s.Search(ctx, "conv-a", "dog", time.Time{}, 1)
	require.NoError(t, err)
	require.Len(t, hs, 1)
	hs, err = s.Search(ctx, "conv-a", "quantum chromodynamics", time.Time{}, 10)
	require.NoError(t, err)
	require.Empty(t, hs)

	// A later Ingest is searchable without another AfterIngest.
	require.NoError(t, s.Ingest(ctx, "conv-a", []Message{{DiaID: "D11:1", Text: "Ann: quantum physics"}}))
	hs, err = s.Search(ctx, "conv-a", "quantum", time.Time{}, 10)
	require.NoError(t, err)
	require.Equal(t, []string{"D11:1"}, sourceIDs(hs))

	require.NoError(t, s.ResetTenant(ctx, "conv-a"))
	_, err = s.Search(ctx, "conv-a", "dog", time.Time{}, 10)
	require.ErrorIs(t, err, ErrUnknownTenant)
	require.NoError(t, s.ResetTenant(ctx, "never-seen"))

	named, err := NewBM25System(&BM25SystemConfig{Name: "bm25-de", BM25: retrieval.BM25Config{K1: 2, B: -1, Lang: "de"}})
	require.NoError(t, err)
	require.Equal(t, "bm25-de", named.Name())
	require.Equal(t, "Okapi BM25 over turns (k1 2, b 0, language de)", named.Describe())
	_, err = NewBM25System(&BM25SystemConfig{BM25: retrieval.BM25Config{K1: -1}})
	require.Error(t, err)
	_, err = NewBM25System(&BM25SystemConfig{BM25: retrieval.BM25Config{B: 2}})
	require.Error(t, err)
}

func TestBM25Windows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := NewBM25System(&BM25SystemConfig{Window: BM25WindowSmall})
	require.NoError(t, err)
	require.Equal(t, "bm25-w4", s.Name())
	require.Equal(t, "Okapi BM25 over non-overlapping windows of 4 turns of one session (k1 1.2, b 0.75, language detected per text)",
		s.Describe())

	// The fixture's conv-a in one Ingest call: sessions 1 (2 turns), 2 (1) and 10 (2) give
	// three windows, none across sessions.
	ingestAll(t, s, fixturePlans(t))
	hs, err := s.Search(ctx, "conv-a", "dog named Rex garden Hi violin adopted", time.Time{}, 10)
	require.NoError(t, err)
	var windows [][]string
	for _, h := range hs {
		windows = append(windows, h.SourceIDs)
	}
	require.ElementsMatch(t, [][]string{{"D1:1", "D1:2"}, {"D2:1"}, {"D10:1", "D10:2"}}, windows)
	for _, h := range hs {
		if h.SourceIDs[0] == "D10:1" {
			require.Equal(t, "Bob: The dog is named Rex.\nAnn: Rex is a nice name.", h.Text, "a window delivers its turns' lines")
		}
	}

	// Nine turns: six of session a, three of session b, windows of 4.
	var msgs []Message
	for i := range 9 {
		key := "a"
		if i >= 6 {
			key = "b"
		}
		msgs = append(msgs, Message{SessionKey: key, DiaID: fmt.Sprintf("T%d", i), Text: fmt.Sprintf("X: word%d common", i)})
	}
	require.NoError(t, s.Ingest(ctx, "nine", msgs))
	hs, err = s.Search(ctx, "nine", "common", time.Time{}, 10)
	require.NoError(t, err)
	windows = nil
	for _, h := range hs {
		windows = append(windows, h.SourceIDs)
	}
	require.ElementsMatch(t, [][]string{{"T0", "T1", "T2", "T3"}, {"T4", "T5"}, {"T6", "T7", "T8"}}, windows)

	w8, err := NewBM25System(&BM25SystemConfig{Window: BM25WindowLarge})
	require.NoError(t, err)
	require.NoError(t, w8.Ingest(ctx, "nine", msgs))
	hs, err = w8.Search(ctx, "nine", "common", time.Time{}, 10)
	require.NoError(t, err)
	windows = nil
	for _, h := range hs {
		windows = append(windows, h.SourceIDs)
	}
	require.ElementsMatch(t, [][]string{{"T0", "T1", "T2", "T3", "T4", "T5"}, {"T6", "T7", "T8"}}, windows)

	// Hits do not share the index's slices.
	hs[0].SourceIDs[0] = "changed"
	again, err := w8.Search(ctx, "nine", "common", time.Time{}, 10)
	require.NoError(t, err)
	require.NotContains(t, sourceIDs(again), "changed")

	require.Equal(t, "bm25", BM25WindowName(1))
	require.Equal(t, "bm25", BM25WindowName(0))
	require.Equal(t, "bm25-w8", BM25WindowName(8))
	one, err := NewBM25System(&BM25SystemConfig{Window: 1})
	require.NoError(t, err)
	require.Equal(t, "bm25", one.Name())
	_, err = NewBM25System(&BM25SystemConfig{Window: -1})
	require.ErrorContains(t, err, "window -1 is negative")
}

func TestBaselines(t *testing.T) {
	t.Parallel()
	bl, err := Baselines()
	require.NoError(t, err)
	var names []string
	for _, s := range bl {
		names = append(names, s.Name())
	}
	require.Equal(t, []string{"bm25", "bm25-w4", "bm25-w8", "flat"}, names)
}

// wordEmbedder embeds a text as counts over a tiny vocabulary; other words
// are ignored.
type wordEmbedder struct {
	vocab []string
	calls int
	fail  func(texts []string) ([][]float32, error)
}

func (w *wordEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	w.calls++
	if w.fail != nil {
		return w.fail(texts)
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, len(w.vocab))
		for _, tok := range strings.Fields(strings.ToLower(strings.Trim(t, ".?!"))) {
			for j, word := range w.vocab {
				if strings.Trim(tok, ".?!,:") == word {
					v[j]++
				}
			}
		}
		out[i] = v
	}
	return out, nil
}

func TestFlatSystem(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	emb := &wordEmbedder{vocab: []string{"dog", "rex", "violin", "garden", "cat"}}
	s, err := NewFlatSystem(emb, &FlatConfig{Batch: 2})
	require.NoError(t, err)
	require.Equal(t, "flat", s.Name())
	plans := fixturePlans(t)
	ingestAll(t, s, plans)
	require.Equal(t, 3+1, emb.calls, "5 texts in batches of 2, then 2 texts")

	hs, err := s.Search(ctx, "conv-a", "the dog rex", time.Time{}, 10)
	require.NoError(t, err)
	require.Len(t, hs, 5, "a flat index returns k hits whatever their similarity")
	require.Equal(t, []string{"D10:1"}, hs[0].SourceIDs, "dog + rex")
	require.InDelta(t, 1.0, hs[0].Score, 1e-6)
	require.Equal(t, []string{"D2:1"}, hs[1].SourceIDs, "dog; ties in ingest order")
	require.InDelta(t, math.Sqrt(0.5), hs[1].Score, 1e-6)
	require.Equal(t, []string{"D10:2"}, hs[2].SourceIDs, "rex")
	require.InDelta(t, math.Sqrt(0.5), hs[2].Score, 1e-6)
	require.Equal(t, []string{"D1:1", "D1:2"}, sourceIDs(hs[3:]), "zero similarity, in ingest order")
	require.Zero(t, hs[3].Score)

	hs, err = s.Search(ctx, "conv-b", "violin", time.Time{}, 1)
	require.NoError(t, err)
	require.Equal(t, []string{"D1:1"}, sourceIDs(hs))

	require.NoError(t, s.ResetTenant(ctx, "conv-b"))
	_, err = s.Search(ctx, "conv-b", "violin", time.Time{}, 1)
	require.ErrorIs(t, err, ErrUnknownTenant)

	_, err = NewFlatSystem(nil, nil)
	require.Error(t, err)
	_, err = NewFlatSystem(emb, &FlatConfig{Batch: -1})
	require.Error(t, err)
	named, err := NewFlatSystem(emb, &FlatConfig{Name: "flat-ollama"})
	require.NoError(t, err)
	require.Equal(t, "flat-ollama", named.Name())
	require.Equal(t, "exhaustive cosine over embeddings", named.Describe())
	hashed, err := NewFlatSystem(hashEmbedder(t), nil)
	require.NoError(t, err)
	require.Equal(t, "exhaustive cosine over hash-v1-768 embeddings", hashed.Describe())
}

func TestFlatSystemBadEmbeddings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	msgs := []Message{{DiaID: "D1:1", Text: "A: one"}, {DiaID: "D1:2", Text: "B: two"}}
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		fail func([]string) ([][]float32, error)
		want error
	}{
		{"error", func([]string) ([][]float32, error) { return nil, boom }, boom},
		{"too few", func([]string) ([][]float32, error) { return [][]float32{{1}}, nil }, ErrBadEmbedding},
		{"NaN", func(ts []string) ([][]float32, error) { return [][]float32{{1, 0}, {float32(math.NaN()), 0}}, nil }, ErrBadEmbedding},
		{"Inf", func(ts []string) ([][]float32, error) { return [][]float32{{float32(math.Inf(1)), 0}, {1, 0}}, nil }, ErrBadEmbedding},
		{"nil vectors", func(ts []string) ([][]float32, error) { return make([][]float32, len(ts)), nil }, ErrBadEmbedding},
		{"empty vector", func(ts []string) ([][]float32, error) { return [][]float32{{}, {}}, nil }, ErrBadEmbedding},
		{"mixed dimensions", func(ts []string) ([][]float32, error) { return [][]float32{{1, 0}, {1, 0, 0}}, nil }, ErrBadEmbedding},
	} {
		s, err := NewFlatSystem(&wordEmbedder{fail: tc.fail}, nil)
		require.NoError(t, err)
		err = s.Ingest(ctx, "t", msgs)
		require.ErrorIs(t, err, tc.want, tc.name)
		require.ErrorIs(t, s.AfterIngest(ctx, "t", time.Time{}), ErrUnknownTenant, "%s: nothing stored", tc.name)
	}

	// A later batch of another dimension, or a query of another dimension.
	dim := 2
	emb := &wordEmbedder{fail: func(ts []string) ([][]float32, error) {
		out := make([][]float32, len(ts))
		for i := range out {
			out[i] = make([]float32, dim)
			out[i][0] = 1
		}
		return out, nil
	}}
	s, err := NewFlatSystem(emb, nil)
	require.NoError(t, err)
	require.NoError(t, s.Ingest(ctx, "t", msgs))
	dim = 3
	require.ErrorIs(t, s.Ingest(ctx, "t", msgs), ErrBadEmbedding)
	_, err = s.Search(ctx, "t", "q", time.Time{}, 5)
	require.ErrorIs(t, err, ErrBadEmbedding)
	dim = 2
	hs, err := s.Search(ctx, "t", "q", time.Time{}, 5)
	require.NoError(t, err)
	require.Len(t, hs, 2, "the failed ingest added nothing")
}

func TestSystemsBadInput(t *testing.T) {
	t.Parallel()
	bm, err := NewBM25System(nil)
	require.NoError(t, err)
	flat, err := NewFlatSystem(&wordEmbedder{vocab: []string{"one"}}, nil)
	require.NoError(t, err)
	ctx := context.Background()
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	ok := []Message{{TenantID: "t", DiaID: "D1:1", Text: "A: one"}}
	for _, s := range []System{bm, flat} {
		require.NoError(t, s.Ingest(ctx, "t", ok), s.Name())
		for _, tc := range []struct {
			name string
			msgs []Message
			ctx  context.Context
			ten  string
			want error
		}{
			{"empty tenant", ok, ctx, "", ErrEmptyTenant},
			{"no dia_id", []Message{{Text: "A: x"}}, ctx, "t", ErrBadMessage},
			{"empty text", []Message{{DiaID: "D1:2", Text: "  "}}, ctx, "t", ErrBadMessage},
			{"other tenant", []Message{{TenantID: "u", DiaID: "D1:2", Text: "A: x"}}, ctx, "t", ErrBadMessage},
			{"canceled", ok, canceled, "t", context.Canceled},
		} {
			require.ErrorIs(t, s.Ingest(tc.ctx, tc.ten, tc.msgs), tc.want, "%s %s", s.Name(), tc.name)
		}
		for _, tc := range []struct {
			name, tenant, query string
			k                   int
			ctx                 context.Context
			want                error
		}{
			{"k zero", "t", "one", 0, ctx, ErrBadK},
			{"k negative", "t", "one", -1, ctx, ErrBadK},
			{"k too large", "t", "one", KMax + 1, ctx, ErrBadK},
			{"empty query", "t", " \n", 5, ctx, ErrEmptyQuery},
			{"empty tenant", "", "one", 5, ctx, ErrEmptyTenant},
			{"unknown tenant", "nobody", "one", 5, ctx, ErrUnknownTenant},
			{"canceled", "t", "one", 5, canceled, context.Canceled},
		} {
			_, err := s.Search(tc.ctx, tc.tenant, tc.query, time.Time{}, tc.k)
			require.ErrorIs(t, err, tc.want, "%s %s", s.Name(), tc.name)
		}
		require.ErrorIs(t, s.AfterIngest(ctx, "nobody", time.Time{}), ErrUnknownTenant, s.Name())
		require.ErrorIs(t, s.AfterIngest(ctx, "", time.Time{}), ErrEmptyTenant, s.Name())
		require.ErrorIs(t, s.AfterIngest(canceled, "t", time.Time{}), context.Canceled, s.Name())
		hs, err := s.Search(ctx, "t", "one", time.Time{}, KMax)
		require.NoError(t, err, s.Name())
		require.Equal(t, []string{"D1:1"}, sourceIDs(hs), "%s: failed ingests added nothing", s.Name())
	}
}
