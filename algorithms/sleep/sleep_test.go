package sleep

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// craftedTenant is a tenant whose every TAG is worked out by hand in
// TestCraftedTenant. Without neuromodulation, TAG = 0.4|δ| + 0.35R + 0.25N.
func craftedTenant() Input {
	return Input{
		Episodes: []Episode{
			// δ = 0.9 − 0.2 = 0.7; TAG = 0.28 + 0.315 + 0.15 = 0.745.
			{ID: "m:a", Value: 0.2, Reward: 0.9, Retrievability: 0.9, Related: 3, EntityIDs: []string{"e:alpha", "e:beta"}, Stability: 10},
			// δ = 0; TAG = 0.105 + 0.05 = 0.155; faded → archived.
			{ID: "m:b", Value: 0.5, Reward: 0.5, Retrievability: 0.3, Related: 1, EntityIDs: []string{"e:gamma"}, Stability: 2, Faded: true, Valence: -0.9, Arousal: 0.9},
			// δ = 0.1 + 0.5·V(m:a) − 0.8 = −0.6; TAG = 0.24 + 0.21 + 0.1 = 0.55.
			{ID: "m:c", Value: 0.8, Reward: 0.1, Retrievability: 0.6, Related: 2, EntityIDs: []string{"e:delta", "e:alpha"}, Stability: 4, NextID: "m:a", Faded: true},
			// δ = 0.1; TAG = 0.04 + 0.175 = 0.215; faded → archived.
			{ID: "m:d", Value: 0.1, Reward: 0.2, Retrievability: 0.5, Related: 0, EntityIDs: []string{"e:beta", "e:eps"}, Stability: 1, Faded: true},
			// δ = 0.5; TAG = 0.2 + 0.245 + 0.25 = 0.695.
			{ID: "m:e", Value: 0.3, Reward: 0.8, Retrievability: 0.7, Related: 5, EntityIDs: []string{"e:eps", "e:beta", "e:eps"}, Stability: 300},
		},
		Edges: []Edge{
			{A: "e:alpha", B: "e:beta", Weight: 1.0},   // m:a 0.745 → LTP
			{A: "e:delta", B: "e:alpha", Weight: 0.5},  // m:c 0.55 → LTP
			{A: "e:beta", B: "e:eps", Weight: 0.08},    // max(m:d 0.215, m:e 0.695) → LTP
			{A: "e:gamma", B: "e:delta", Weight: 0.07}, // no episode holds both: untouched
			{A: "m:b", B: "e:gamma", Weight: 0.06},     // m:b 0.155 → LTD → 0.01 → pruned
			{A: "m:b", B: "e:zeta", Weight: 0.5},       // m:b 0.155 → LTD → 0.45
			{A: "m:e", B: "m:d", Weight: 0.3},          // max(m:d, m:e, cf:m:d->m:e) → LTP
			{A: "e:zeta", B: "e:eta", Weight: 0.03},    // untouched, already below 0.05 → pruned
		},
	}
}

func TestCraftedTenant(t *testing.T) {
	t.Parallel()

	plan, err := NewPlan(craftedTenant(), nil, 42)
	require.NoError(t, err)

	// Every candidate's TAG, by hand. Counterfactuals: low-reward {m:c, m:d},
	// successful {m:a, m:e}; m:c shares e:alpha with m:a only, m:d shares
	// e:beta with m:a and {e:beta, e:eps} with m:e.
	wantTAG := map[string]float64{
		"m:a": 0.745, "m:b": 0.155, "m:c": 0.55, "m:d": 0.215, "m:e": 0.695,
		// δ = 0.9 − 0.8, R = min(0.6, 0.9), N = 0.2·|{alpha, beta, delta}|: 0.04 + 0.21 + 0.15.
		"cf:m:c->m:a": 0.40,
		// δ = 0.9 − 0.1, R = 0.5, N = 0.2·|{alpha, beta, eps}|: 0.32 + 0.175 + 0.15.
		"cf:m:d->m:a": 0.645,
		// δ = 0.8 − 0.1, R = 0.5, N = 0.2·|{beta, eps}|: 0.28 + 0.175 + 0.1.
		"cf:m:d->m:e": 0.555,
	}
	require.Len(t, plan.Candidates, len(wantTAG))
	var selected []string
	for _, c := range plan.Candidates {
		want, ok := wantTAG[c.ID]
		require.True(t, ok, "unexpected candidate %s", c.ID)
		require.InDelta(t, want, c.TAG, 1e-12, c.ID)
		require.Equal(t, want >= 0.5, c.Selected, c.ID)
		if c.Selected {
			selected = append(selected, c.ID)
		}
	}
	require.Equal(t, []string{"m:a", "m:c", "m:e", "cf:m:d->m:a", "cf:m:d->m:e"}, selected)

	cf := plan.Candidates[5]
	require.Equal(t, SourceCounterfactual, cf.Source)
	require.Equal(t, []string{"m:c", "m:a"}, cf.Parents)
	require.Equal(t, []string{"e:alpha"}, cf.SharedEntities)
	require.Equal(t, []string{"e:beta", "e:eps"}, plan.Candidates[7].SharedEntities)

	// Selected real episodes, and only they, grow stability and are promoted.
	require.Equal(t, []StabilityUpdate{
		{ID: "m:a", Before: 10, After: 10 * 1.745},
		{ID: "m:c", Before: 4, After: 4 * 1.55},
		{ID: "m:e", Before: 300, After: 365}, // capped
	}, roundStability(plan.StabilityUpdates))
	require.Equal(t, []string{"m:a", "m:c", "m:e"}, promotionIDs(plan.Promotions))
	// m:c is faded but selected: rescued, not archived.
	require.Equal(t, []string{"m:b", "m:d"}, plan.Archives)

	// Edges: exactly those whose highest touching TAG is ≥ 0.5 get LTP.
	type kd struct {
		a, b string
		kind Plasticity
		tag  float64
		to   float64
	}
	var got []kd
	for _, d := range plan.EdgeDeltas {
		got = append(got, kd{d.A, d.B, d.Kind, math.Round(d.TAG*1e9) / 1e9, math.Round(d.After*1e9) / 1e9})
	}
	require.Equal(t, []kd{
		{"e:alpha", "e:beta", LTP, 0.745, 1.1},
		{"e:alpha", "e:delta", LTP, 0.55, 0.6},
		{"e:beta", "e:eps", LTP, 0.695, 0.18},
		{"e:gamma", "m:b", LTD, 0.155, 0.01},
		{"e:zeta", "m:b", LTD, 0.155, 0.45},
		{"m:d", "m:e", LTP, 0.695, 0.4},
	}, got)
	// cf:m:d->m:a creates the association m:a–m:d; cf:m:d->m:e potentiated an existing edge instead.
	require.Equal(t, []NewEdge{{A: "m:a", B: "m:d", Weight: 0.10, CandidateID: "cf:m:d->m:a", TAG: plan.Candidates[6].TAG}}, plan.NewEdges)
	require.Equal(t, []EdgeKey{{"e:eta", "e:zeta"}, {"e:gamma", "m:b"}}, plan.Prunes)

	// TD(0): V ← V + 0.2·δ.
	require.InDelta(t, 0.8+0.2*-0.6, valueAfter(plan, "m:c"), 1e-12)
	require.InDelta(t, 0.2+0.2*0.7, valueAfter(plan, "m:a"), 1e-12)

	require.Equal(t, Summary{
		Real: 5, Counterfactual: 3, Selected: 5, SelectedReal: 3, SelectedCounterfactual: 2,
		LTP: 4, LTD: 2, NewEdges: 1, StabilityUpdates: 3, Promotions: 3, Archives: 2, Prunes: 2,
		EdgesBefore: 8, EdgesAfter: 7, MeanTAG: plan.Summary.MeanTAG,
	}, plan.Summary)
	require.InDelta(t, (0.745+0.155+0.55+0.215+0.695+0.40+0.645+0.555)/8, plan.Summary.MeanTAG, 1e-12)

	after := plan.ApplyEdges(craftedTenant().Edges)
	require.Len(t, after, plan.Summary.EdgesAfter)
	require.Contains(t, after, Edge{A: "m:a", B: "m:d", Weight: 0.10})
}

func TestNeuromodulation(t *testing.T) {
	t.Parallel()

	plan, err := NewPlan(craftedTenant(), &Params{Neuromodulation: true}, 42)
	require.NoError(t, err)
	c := plan.Candidates[1]
	require.Equal(t, "m:b", c.ID)
	// 0.34·0 + 0.30·0.3 + 0.21·0.2 + 0.15·0.9·0.9.
	require.InDelta(t, 0.09+0.042+0.1215, c.TAG, 1e-12)
	require.InDelta(t, 0.81, c.Emotion, 1e-12)
	// m:a: 0.34·0.7 + 0.30·0.9 + 0.21·0.6.
	require.InDelta(t, 0.238+0.27+0.126, plan.Candidates[0].TAG, 1e-12)
}

func TestTAG(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name       string
		d, r, n, e float64
		neuro      bool
		want       float64
	}{
		{name: "all zero", want: 0},
		{name: "all one", d: 1, r: 1, n: 1, e: 1, want: 1},
		{name: "all one neuro", d: 1, r: 1, n: 1, e: 1, neuro: true, want: 1},
		{name: "negative delta counts by magnitude", d: -0.5, r: 0, n: 0, want: 0.2},
		{name: "delta clipped to 1", d: 1.8, r: 0, n: 0, want: 0.4},
		{name: "emotion ignored without neuro", d: 0, r: 0, n: 0, e: 1, want: 0},
		{name: "emotion with neuro", d: 0, r: 0, n: 0, e: 1, neuro: true, want: 0.15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.InDelta(t, tt.want, TAG(tt.d, tt.r, tt.n, tt.e, tt.neuro), 1e-12)
		})
	}
}

func TestDeterminism(t *testing.T) {
	t.Parallel()

	// One low-reward episode with five equally good partners and a cap of 3:
	// the seed breaks the tie.
	in := Input{Episodes: []Episode{{ID: "low", Reward: 0.1, Retrievability: 0.9, EntityIDs: []string{"x"}, Stability: 1}}}
	for _, id := range []string{"s1", "s2", "s3", "s4", "s5"} {
		in.Episodes = append(in.Episodes, Episode{ID: id, Reward: 0.9, Retrievability: 0.9, EntityIDs: []string{"x", id + "-own"}, Stability: 1})
	}
	a, err := NewPlan(in, nil, 7)
	require.NoError(t, err)
	b, err := NewPlan(in, nil, 7)
	require.NoError(t, err)
	require.Equal(t, a, b)
	require.Equal(t, 3, a.Summary.Counterfactual)

	// Input order does not matter.
	rev := Input{Episodes: slices.Clone(in.Episodes)}
	slices.Reverse(rev.Episodes)
	c, err := NewPlan(rev, nil, 7)
	require.NoError(t, err)
	require.Equal(t, a, c)

	// Some other seed picks a different set of partners.
	partners := func(p Plan) string {
		var ids []string
		for _, c := range p.Candidates {
			if c.Source == SourceCounterfactual {
				ids = append(ids, c.Parents[1])
			}
		}
		return strings.Join(ids, ",")
	}
	differs := false
	for seed := uint32(1); seed < 50 && !differs; seed++ {
		p, err := NewPlan(in, nil, seed)
		require.NoError(t, err)
		differs = partners(p) != partners(a)
	}
	require.True(t, differs, "the seed must break ties among equal partners")

	// The crafted tenant has no ties: every seed gives the same plan but for Seed.
	x, err := NewPlan(craftedTenant(), nil, 1)
	require.NoError(t, err)
	y, err := NewPlan(craftedTenant(), nil, 2)
	require.NoError(t, err)
	y.Seed = 1
	require.Equal(t, x, y)
}

func TestCounterfactualCaps(t *testing.T) {
	t.Parallel()

	var in Input
	for i := range 30 {
		in.Episodes = append(in.Episodes,
			Episode{ID: "low" + string(rune('A'+i)), Reward: 0.05, Retrievability: 0.5, EntityIDs: []string{"hub"}, Stability: 1},
			Episode{ID: "win" + string(rune('A'+i)), Reward: 0.95, Retrievability: 0.5, EntityIDs: []string{"hub"}, Stability: 1},
		)
	}
	tests := []struct {
		name   string
		params *Params
		want   int
	}{
		{name: "global cap 50", params: nil, want: 50},
		{name: "per-episode cap 1", params: &Params{MaxCounterfactualsPerEpisode: 1}, want: 30},
		{name: "global cap 7", params: &Params{MaxCounterfactuals: 7}, want: 7},
		{name: "disabled", params: &Params{MaxCounterfactualsPerEpisode: -1}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := NewPlan(in, tt.params, 42)
			require.NoError(t, err)
			require.Equal(t, tt.want, p.Summary.Counterfactual)
			perLow := map[string]int{}
			for _, c := range p.Candidates {
				if c.Source == SourceCounterfactual {
					perLow[c.Parents[0]]++
					require.Equal(t, []string{"hub"}, c.SharedEntities)
				}
			}
			for l, n := range perLow {
				require.LessOrEqual(t, n, p.Params.MaxCounterfactualsPerEpisode, l)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()

	ok := Episode{ID: "m:1", Reward: 0.5, Retrievability: 0.5, Stability: 1}
	with := func(f func(*Episode)) Input {
		e := ok
		f(&e)
		return Input{Episodes: []Episode{e}}
	}
	tests := []struct {
		name   string
		in     Input
		params *Params
		want   string
	}{
		{name: "empty id", in: with(func(e *Episode) { e.ID = "" }), want: "empty id"},
		{name: "reserved prefix", in: with(func(e *Episode) { e.ID = "cf:x" }), want: "reserved prefix"},
		{name: "duplicate id", in: Input{Episodes: []Episode{ok, ok}}, want: "duplicate episode"},
		{name: "NaN value", in: with(func(e *Episode) { e.Value = math.NaN() }), want: "value"},
		{name: "negative value", in: with(func(e *Episode) { e.Value = -1 }), want: "value"},
		{name: "reward above 1", in: with(func(e *Episode) { e.Reward = 1.1 }), want: "reward"},
		{name: "Inf retrievability", in: with(func(e *Episode) { e.Retrievability = math.Inf(1) }), want: "retrievability"},
		{name: "negative related", in: with(func(e *Episode) { e.Related = -1 }), want: "related"},
		{name: "valence out of range", in: with(func(e *Episode) { e.Valence = -2 }), want: "valence"},
		{name: "NaN arousal", in: with(func(e *Episode) { e.Arousal = math.NaN() }), want: "arousal"},
		{name: "zero stability", in: with(func(e *Episode) { e.Stability = 0 }), want: "stability"},
		{name: "Inf stability", in: with(func(e *Episode) { e.Stability = math.Inf(1) }), want: "stability"},
		{name: "edge empty endpoint", in: Input{Edges: []Edge{{A: "x", Weight: 1}}}, want: "empty endpoint"},
		{name: "edge self loop", in: Input{Edges: []Edge{{A: "x", B: "x", Weight: 1}}}, want: "self-loop"},
		{name: "edge NaN weight", in: Input{Edges: []Edge{{A: "x", B: "y", Weight: math.NaN()}}}, want: "weight"},
		{name: "edge negative weight", in: Input{Edges: []Edge{{A: "x", B: "y", Weight: -0.1}}}, want: "weight"},
		{name: "duplicate edge reversed", in: Input{Edges: []Edge{{A: "x", B: "y", Weight: 1}, {A: "y", B: "x", Weight: 1}}}, want: "duplicate edge"},
		{name: "params NaN threshold", params: &Params{SelectThreshold: math.NaN()}, want: "SelectThreshold"},
		{name: "params alpha above 1", params: &Params{TDLearningRate: 2}, want: "TDLearningRate"},
		{name: "params discount", params: &Params{Discount: -0.5}, want: "Discount"},
		{name: "params low above high", params: &Params{LowReward: 0.8, HighReward: 0.6}, want: "LowReward"},
		{name: "params negative cap", params: &Params{MaxCounterfactuals: -3}, want: "MaxCounterfactuals"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewPlan(tt.in, tt.params, 1)
			require.ErrorIs(t, err, ErrInvalidInput)
			require.ErrorContains(t, err, tt.want)
		})
	}

	empty, err := NewPlan(Input{}, nil, 1)
	require.NoError(t, err)
	require.Empty(t, empty.Candidates)
	require.Zero(t, empty.Summary.MeanTAG)

	// An unknown successor is terminal; a zero discount switch (-1) drops bootstrapping.
	p, err := NewPlan(Input{Episodes: []Episode{{ID: "a", Value: 0.5, Reward: 0.5, Retrievability: 1, Stability: 1, NextID: "gone"}}}, nil, 1)
	require.NoError(t, err)
	require.Zero(t, p.ValueUpdates[0].TDError)
}

func TestGoldenPlan(t *testing.T) {
	t.Parallel()

	plan, err := NewPlan(craftedTenant(), &Params{Neuromodulation: true}, 42)
	require.NoError(t, err)
	got, err := json.MarshalIndent(plan, "", "  ")
	require.NoError(t, err)
	golden := filepath.Join("testdata", "crafted_plan_neuro.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, append(got, '\n'), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(got))
}

func roundStability(us []StabilityUpdate) []StabilityUpdate {
	out := slices.Clone(us)
	for i := range out {
		out[i].After = math.Round(out[i].After*1e9) / 1e9
	}
	return out
}

func promotionIDs(ps []Promotion) []string {
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.ID)
	}
	return ids
}

func valueAfter(p Plan, id string) float64 {
	for _, v := range p.ValueUpdates {
		if v.ID == id {
			return v.After
		}
	}
	return math.NaN()
}
