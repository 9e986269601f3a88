package pma

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/simstat"
)

func newPriority(t *testing.T) *PriorityMap {
	t.Helper()
	p, err := NewPriorityMap(nil)
	require.NoError(t, err)
	return p
}

func TestPriorityFormula(t *testing.T) {
	t.Parallel()
	p := newPriority(t)
	tests := []struct {
		name string
		in   PriorityInput
		want float64
		fast bool
	}{
		{"zero", PriorityInput{}, 0, false},
		{"all one", PriorityInput{Salience: 1, Valence: 1, Relevance: 1, Goal: 1}, 1, true},
		{"salience only", PriorityInput{Salience: 1}, 0.2, false},
		{"negative valence counts by magnitude", PriorityInput{Valence: -0.4}, 0.1, false},
		{"relevance only", PriorityInput{Relevance: 1}, 0.25, false},
		{"goal only", PriorityInput{Goal: 1}, 0.3, false},
		{"mixed", PriorityInput{Salience: 0.5, Valence: 0.2, Relevance: 0.8, Goal: 0.4}, 0.1 + 0.05 + 0.2 + 0.12, false},
		{"valence 0.6 is not the fast path", PriorityInput{Valence: 0.6}, 0.15, false},
		{"amygdala raises to 0.5", PriorityInput{Salience: 0.1, Valence: -0.9, Relevance: 0.1, Goal: 0.1}, 0.5, true},
		{"amygdala keeps a higher score", PriorityInput{Salience: 1, Valence: 0.7, Relevance: 1, Goal: 1}, 0.2 + 0.175 + 0.25 + 0.3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := p.Score(tt.in, BaselineLevels())
			require.NoError(t, err)
			require.InDelta(t, tt.want, got.Score, 1e-12)
			require.Equal(t, tt.fast, got.FastPath)
		})
	}
	// The harness's amygdala case: (0.1, −0.9, 0.1, 0.1) beats (0.3, 0.1, 0.3, 0.3).
	a, err := p.Score(PriorityInput{Salience: 0.1, Valence: -0.9, Relevance: 0.1, Goal: 0.1}, BaselineLevels())
	require.NoError(t, err)
	b, err := p.Score(PriorityInput{Salience: 0.3, Valence: 0.1, Relevance: 0.3, Goal: 0.3}, BaselineLevels())
	require.NoError(t, err)
	require.Greater(t, a.Score, b.Score)
}

func TestPriorityFastPathHoldsEverywhere(t *testing.T) {
	t.Parallel()
	p := newPriority(t)
	grid := []float64{0, 0.1, 0.25, 0.5, 0.75, 0.9, 1}
	for _, seed := range simstat.Seeds {
		r := simstat.NewMulberry32(seed)
		l := Levels{DA: r.Float64(), NE: r.Float64(), Serotonin: r.Float64(), ACh: r.Float64()}
		for _, s := range grid {
			for _, rel := range grid {
				for _, g := range grid {
					for _, v := range []float64{0.6000001, 0.65, 0.8, 1, -0.61, -0.9, -1} {
						got, err := p.Score(PriorityInput{Salience: s, Valence: v, Relevance: rel, Goal: g}, l)
						require.NoError(t, err)
						require.True(t, got.FastPath)
						require.GreaterOrEqual(t, got.Score, 0.5, "s %v v %v r %v g %v levels %+v", s, v, rel, g, l)
					}
				}
			}
		}
	}
}

func TestPriorityWeightsFollowNeuromodulators(t *testing.T) {
	t.Parallel()
	p := newPriority(t)
	base := p.Weights(BaselineLevels())
	require.InDelta(t, 0.2, base.Salience, 1e-12)
	require.InDelta(t, 0.25, base.Valence, 1e-12)
	require.InDelta(t, 0.25, base.Relevance, 1e-12)
	require.InDelta(t, 0.3, base.Goal, 1e-12)
	tests := []struct {
		name   string
		l      Levels
		raised func(PriorityWeights) float64
	}{
		{"NE raises salience", Levels{DA: 0.5, NE: 1, Serotonin: 0.5, ACh: 0.5}, func(w PriorityWeights) float64 { return w.Salience }},
		{"NE raises valence", Levels{DA: 0.5, NE: 1, Serotonin: 0.5, ACh: 0.5}, func(w PriorityWeights) float64 { return w.Valence }},
		{"low 5HT raises valence", Levels{DA: 0.5, NE: 0.5, Serotonin: 0, ACh: 0.5}, func(w PriorityWeights) float64 { return w.Valence }},
		{"ACh raises relevance", Levels{DA: 0.5, NE: 0.5, Serotonin: 0.5, ACh: 1}, func(w PriorityWeights) float64 { return w.Relevance }},
		{"DA raises goal", Levels{DA: 1, NE: 0.5, Serotonin: 0.5, ACh: 0.5}, func(w PriorityWeights) float64 { return w.Goal }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := p.Weights(tt.l)
			require.Greater(t, tt.raised(w), tt.raised(base))
			require.InDelta(t, 1, w.sum(), 1e-12, "renormalised")
		})
	}
	// DA at 1: goal weight 0.3·1.2 = 0.36, renormalised by 1.06.
	w := p.Weights(Levels{DA: 1, NE: 0.5, Serotonin: 0.5, ACh: 0.5})
	require.InDelta(t, 0.36/1.06, w.Goal, 1e-12)
	// NaN levels count as baseline.
	require.Equal(t, base, p.Weights(Levels{DA: math.NaN(), NE: math.NaN(), Serotonin: math.NaN(), ACh: math.NaN()}))
}

// ndcgAt returns NDCG@k of order against graded gains.
func ndcgAt(k int, order []int, gains []float64) float64 {
	dcg := func(idx []int) float64 {
		s := 0.0
		for i := 0; i < k && i < len(idx); i++ {
			s += gains[idx[i]] / math.Log2(float64(i)+2)
		}
		return s
	}
	ideal := make([]int, len(gains))
	for i := range ideal {
		ideal[i] = i
	}
	sort.SliceStable(ideal, func(a, b int) bool { return gains[ideal[a]] > gains[ideal[b]] })
	return dcg(order) / dcg(ideal)
}

// TestPriorityNDCG ranks 50 synthetic items per seed against a ground truth
// that weights the signals differently from the map (0.15s + 0.3|v| + 0.25r
// + 0.3g, the harness's "true importance") and compares with chronological
// order (newest first; creation order is independent of importance).
func TestPriorityNDCG(t *testing.T) {
	t.Parallel()
	p := newPriority(t)
	sumP, sumC := 0.0, 0.0
	for _, seed := range simstat.Seeds {
		r := simstat.NewMulberry32(seed)
		items := make([]PriorityInput, 50)
		truth := make([]float64, 50)
		for i := range items {
			v := 2*r.Float64() - 1
			items[i] = PriorityInput{Salience: r.Float64(), Valence: v, Relevance: r.Float64(), Goal: r.Float64()}
			truth[i] = 0.15*items[i].Salience + 0.3*math.Abs(v) + 0.25*items[i].Relevance + 0.3*items[i].Goal
		}
		order, _, err := p.Rank(items, BaselineLevels())
		require.NoError(t, err)
		chrono := make([]int, 50)
		for i := range chrono {
			chrono[i] = 49 - i
		}
		np, nc := ndcgAt(10, order, truth), ndcgAt(10, chrono, truth)
		t.Logf("seed %d: NDCG@10 priority %.4f, chronological %.4f", seed, np, nc)
		require.GreaterOrEqual(t, np, 0.95, "seed %d", seed)
		require.Greater(t, np, nc, "seed %d", seed)
		sumP += np
		sumC += nc
	}
	t.Logf("mean NDCG@10: priority %.4f, chronological %.4f", sumP/10, sumC/10)
}

func TestPriorityBadInput(t *testing.T) {
	t.Parallel()
	p := newPriority(t)
	for _, in := range []PriorityInput{
		{Salience: math.NaN()},
		{Salience: 1.2},
		{Valence: -1.5},
		{Valence: math.Inf(-1)},
		{Relevance: -0.1},
		{Goal: 2},
	} {
		_, err := p.Score(in, BaselineLevels())
		require.ErrorIs(t, err, ErrInvalidInput, "%+v", in)
	}
	_, _, err := p.Rank([]PriorityInput{{}, {Goal: math.NaN()}}, BaselineLevels())
	require.ErrorIs(t, err, ErrInvalidInput)
	require.ErrorContains(t, err, "item 1")
	for _, cfg := range []PriorityConfig{
		{Weights: PriorityWeights{Salience: -1, Goal: 1}},
		{AmygdalaThreshold: 1.5},
		{AmygdalaFloor: -1},
		{Modulation: 3},
	} {
		_, err := NewPriorityMap(&cfg)
		require.ErrorIs(t, err, ErrInvalidInput, "%+v", cfg)
	}
}

// TestPriorityGolden records the ranking of 20 seeded items at baseline and
// in an aroused, goal-driven state (NE 0.9, DA 0.8), the order GWT salience
// blending consumes.
func TestPriorityGolden(t *testing.T) {
	t.Parallel()
	p := newPriority(t)
	r := simstat.NewMulberry32(42)
	items := make([]PriorityInput, 20)
	for i := range items {
		items[i] = PriorityInput{Salience: r.Float64(), Valence: 2*r.Float64() - 1, Relevance: r.Float64(), Goal: r.Float64()}
	}
	var b bytes.Buffer
	for _, st := range []struct {
		name string
		l    Levels
	}{{"baseline", BaselineLevels()}, {"aroused", Levels{DA: 0.8, NE: 0.9, Serotonin: 0.4, ACh: 0.5}}} {
		w := p.Weights(st.l)
		fmt.Fprintf(&b, "# %s weights s %.4f v %.4f r %.4f g %.4f\n", st.name, w.Salience, w.Valence, w.Relevance, w.Goal)
		order, scores, err := p.Rank(items, st.l)
		require.NoError(t, err)
		for rank, i := range order {
			in := items[i]
			fmt.Fprintf(&b, "%2d item%02d s %.3f v %+.3f r %.3f g %.3f  P %.4f fast %v\n",
				rank+1, i, in.Salience, in.Valence, in.Relevance, in.Goal, scores[i].Score, scores[i].FastPath)
		}
	}
	requireGolden(t, "priority.golden", b.Bytes())
}
