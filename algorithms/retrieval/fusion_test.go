package retrieval

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func TestMinMax(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []float64
		want []float64
	}{
		{"empty", nil, []float64{}},
		{"spread", []float64{0.2, 0.6, 1.0}, []float64{0, 0.5, 1}},
		{"negative cosine", []float64{-1, 0, 1}, []float64{0, 0.5, 1}},
		{"constant positive", []float64{0.3, 0.3}, []float64{1, 1}},
		{"constant zero", []float64{0, 0}, []float64{0, 0}},
		{"single negative", []float64{-0.2}, []float64{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := MinMax(tt.in)
			require.Len(t, got, len(tt.want))
			for i := range got {
				require.InDelta(t, tt.want[i], got[i], 1e-12)
			}
		})
	}
}

func TestBoostFactor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		w, imp  float64
		want    float64
		comment string
	}{
		{"unit edge", 1, 1, 1.2, "1 + 0.2·1·1"},
		{"strongest mature edge", 10, 100, 1 + 2*math.Pow(100, 0.1), "≈ 4.1698"},
		{"floor edge", 0.05, 1, 1.01, "1 + 0.2·0.05"},
		{"no edge", 0, 0, 1, ""},
		{"negative weight", -1, 1, 1, ""},
		{"NaN importance", 1, math.NaN(), 1, ""},
		{"Inf weight", math.Inf(1), 1, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.InDelta(t, tt.want, BoostFactor(tt.w, tt.imp, BoostScaleDefault, BoostExponentDefault), 1e-12, tt.comment)
		})
	}
	require.InDelta(t, 4.169786384922228, BoostFactor(10, 100, BoostScaleDefault, BoostExponentDefault), 1e-12)
}

func TestForgettingFactor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		r, f, want float64
	}{
		{0.2, 0.5, 0.6},
		{0, 0.5, 0.5},
		{1, 0.5, 1},
		{0.2, 0, 0.2},
		{0.2, 1, 1},
		{math.NaN(), 0.3, 0.3},
		{1.7, 0.3, 1},
		{-0.5, 0.3, 0.3},
		{0.5, math.NaN(), ForgettingFloorDefault + (1-ForgettingFloorDefault)*0.5},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("R=%v,f=%v", tt.r, tt.f), func(t *testing.T) {
			t.Parallel()
			require.InDelta(t, tt.want, ForgettingFactor(tt.r, tt.f), 1e-12)
		})
	}
}

func TestRankLayerWeights(t *testing.T) {
	t.Parallel()
	// Two memories with identical signals in different layers; the third sets
	// the normalization range.
	same := func(layerA, layerB Layer) []Candidate {
		return []Candidate{
			{ID: "a", Layer: layerA, Text: "alpha memory", Cosine: 0.8, BM25: 2, Retrievability: 1},
			{ID: "b", Layer: layerB, Text: "beta memory", Cosine: 0.8, BM25: 2, Retrievability: 1},
			{ID: "z", Layer: LayerSemantic, Text: "zeta", Cosine: 0.0, BM25: 0, Retrievability: 1},
		}
	}
	tests := []struct {
		class      QueryClass
		a, b       Layer
		wantFirst  string
		wantScoreA float64
		disable    bool
	}{
		{ClassTemporal, LayerSemantic, LayerEpisodic, "b", 1.0, false},
		{ClassFactual, LayerEpisodic, LayerSemantic, "b", 1.0, false},
		{ClassProcedural, LayerSemantic, LayerProcedural, "b", 1.0, false},
		{ClassGeneral, LayerSemantic, LayerEpisodic, "a", 1.0, false}, // tie → ID order
		{ClassTemporal, LayerSemantic, LayerEpisodic, "a", 1.0, true}, // weights off → tie
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/disable=%v", tt.class, tt.disable), func(t *testing.T) {
			t.Parallel()
			got, err := Rank(tt.class, same(tt.a, tt.b), &Config{DisableLayerWeights: tt.disable})
			require.NoError(t, err)
			require.Len(t, got, 3)
			require.Equal(t, tt.wantFirst, got[0].ID)
			for _, r := range got {
				if r.ID == "a" {
					require.InDelta(t, tt.wantScoreA, r.Score, 1e-12)
				}
				if r.ID == "b" && !tt.disable {
					require.InDelta(t, DefaultWeights().Weight(tt.class, tt.b), r.Score, 1e-12)
				}
			}
		})
	}
}

func TestRankMagnitudeNotRank(t *testing.T) {
	t.Parallel()
	// A weak episodic hit (hybrid 0.4, weighted 0.8) loses to a strong
	// semantic hit (hybrid 1.0) even for a temporal query: fusion compares
	// weighted magnitudes, not ranks within layers.
	cands := []Candidate{
		{ID: "ep", Layer: LayerEpisodic, Text: "went hiking", Cosine: 0.4, Retrievability: 1},
		{ID: "sem", Layer: LayerSemantic, Text: "likes hiking", Cosine: 1.0, Retrievability: 1},
		{ID: "low", Layer: LayerSemantic, Text: "unrelated", Cosine: 0.0, Retrievability: 1},
	}
	got, err := Rank(ClassTemporal, cands, &Config{HybridAlpha: 1})
	require.NoError(t, err)
	require.Equal(t, []string{"sem", "ep", "low"}, ids(got))
	require.InDelta(t, 1.0, got[0].Score, 1e-12)
	require.InDelta(t, 0.8, got[1].Score, 1e-12)
}

func TestRankBoostForgettingDedup(t *testing.T) {
	t.Parallel()
	cands := []Candidate{
		{ID: "m1", Layer: LayerSemantic, Text: "Alice works at the bakery on Main Street every day of the week", Cosine: 1.0, BM25: 4, Retrievability: 0.2},
		{ID: "m2", Layer: LayerSemantic, Text: "alice works at the bakery on main street every day of the week!", Cosine: 0.9, BM25: 4, Retrievability: 1},
		{ID: "m3", Layer: LayerSemantic, Text: "Bob likes tea", Cosine: 0.5, BM25: 2, EdgeWeight: 1, EdgeImportance: 1, Retrievability: 1},
		{ID: "m4", Layer: LayerSemantic, Text: "Carol owns a boat", Cosine: 0.0, BM25: 0, Retrievability: 1},
		{ID: "m3", Layer: LayerWorking, Text: "Bob likes tea", Cosine: 0.4, BM25: 2, EdgeWeight: 1, EdgeImportance: 1, Retrievability: 1},
	}
	got, err := Rank(ClassGeneral, cands, nil)
	require.NoError(t, err)
	// m1: hybrid 1.0, retention 0.5+0.5·0.2 = 0.6 → 0.6.
	// m2: vector (0.9−0)/(1−0) = 0.9 → hybrid 0.3·0.9 + 0.7·1 = 0.97, retention 1 → 0.97.
	// m1 and m2 have identical tokens (Jaccard 1 > 0.9): m2 (higher) stays.
	// m3: semantic appearance wins (hybrid 0.3·0.5 + 0.7·0.5 = 0.5 vs 0.47),
	//     boost 1.2 → 0.6.
	require.Equal(t, []string{"m2", "m3", "m4"}, ids(got))
	require.InDelta(t, 0.97, got[0].Score, 1e-12)
	require.InDelta(t, 0.6, got[1].Score, 1e-12)
	require.Equal(t, LayerSemantic, got[1].Layer)
	require.InDelta(t, 1.2, got[1].Signals.Boost, 1e-12)
	require.InDelta(t, 0.5, got[1].Signals.Hybrid, 1e-12)

	// With everything switched off the dedup alone decides: m1 (1.0) beats m2.
	got, err = Rank(ClassGeneral, cands, &Config{DisableForgetting: true, DisableTwoFactorBoost: true})
	require.NoError(t, err)
	require.Equal(t, []string{"m1", "m3", "m4"}, ids(got))

	// Dedup disabled keeps both near-duplicates; K limits the list.
	got, err = Rank(ClassGeneral, cands, &Config{DedupThreshold: 1, K: 2})
	require.NoError(t, err)
	require.Equal(t, []string{"m2", "m1"}, ids(got))
}

func TestDedupThreshold(t *testing.T) {
	t.Parallel()
	base := "one two three four five six seven eight nine"
	rs := []Result{
		{ID: "a", Text: base + " ten", Score: 0.5},
		{ID: "b", Text: base + " ten eleven", Score: 0.9}, // Jaccard with a = 10/11 > 0.9
		{ID: "c", Text: base + " twelve", Score: 0.1},     // Jaccard with b = 9/12, with a = 9/11
		{ID: "d", Text: base, Score: 0.2},                 // Jaccard with a = 9/10 = 0.9, not > 0.9
	}
	got := Dedup(rs, DedupThresholdDefault)
	require.Equal(t, []string{"b", "d", "c"}, ids(got))
	require.Equal(t, "a", rs[0].ID, "input not modified")
}

func TestRankErrors(t *testing.T) {
	t.Parallel()
	ok := Candidate{ID: "x", Layer: LayerSemantic, Cosine: 0.5, Retrievability: 1}
	tests := []struct {
		name  string
		class QueryClass
		cand  func(Candidate) Candidate
		cfg   *Config
		msg   string
	}{
		{"NaN cosine", ClassGeneral, func(c Candidate) Candidate { c.Cosine = math.NaN(); return c }, nil, "cosine is NaN"},
		{"Inf BM25", ClassGeneral, func(c Candidate) Candidate { c.BM25 = math.Inf(1); return c }, nil, "BM25 is +Inf"},
		{"negative BM25", ClassGeneral, func(c Candidate) Candidate { c.BM25 = -1; return c }, nil, "BM25 is -1"},
		{"R above 1", ClassGeneral, func(c Candidate) Candidate { c.Retrievability = 1.5; return c }, nil, "retrievability"},
		{"unknown layer", ClassGeneral, func(c Candidate) Candidate { c.Layer = "limbo"; return c }, nil, "unknown layer"},
		{"empty ID", ClassGeneral, func(c Candidate) Candidate { c.ID = ""; return c }, nil, "empty ID"},
		{"unknown class", "musical", func(c Candidate) Candidate { return c }, nil, "unknown query class"},
		{"alpha above 1", ClassGeneral, func(c Candidate) Candidate { return c }, &Config{HybridAlpha: 2}, "HybridAlpha"},
		{"NaN floor", ClassGeneral, func(c Candidate) Candidate { return c }, &Config{ForgettingFloor: math.NaN()}, "ForgettingFloor"},
		{"K below -1", ClassGeneral, func(c Candidate) Candidate { return c }, &Config{K: -3}, "K is -3"},
		{"negative weight", ClassGeneral, func(c Candidate) Candidate { return c }, &Config{Weights: Weights{ClassFactual: {LayerCore: -1}}}, "layer core"},
		{"weights unknown layer", ClassGeneral, func(c Candidate) Candidate { return c }, &Config{Weights: Weights{ClassFactual: {"attic": 1}}}, "unknown layer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Rank(tt.class, []Candidate{tt.cand(ok)}, tt.cfg)
			require.ErrorContains(t, err, tt.msg)
		})
	}
	got, err := Rank(ClassGeneral, nil, nil)
	require.NoError(t, err)
	require.Empty(t, got)
}

// goldenCandidates is a fixed candidate set spread over all layers, with
// decay, edges, a cross-layer duplicate ID and a near-duplicate text.
func goldenCandidates() []Candidate {
	return []Candidate{
		{ID: "ep-hike", Layer: LayerEpisodic, Text: "Yesterday I went hiking on the Zugspitze with Anna", Cosine: 0.71, BM25: 3.2, Retrievability: 0.9},
		{ID: "ep-dentist", Layer: LayerEpisodic, Text: "Dentist appointment went fine, next check in six months", Cosine: 0.42, BM25: 0.0, Retrievability: 0.35},
		{ID: "ep-hike-dup", Layer: LayerEpisodic, Text: "yesterday I went hiking on the Zugspitze with Anna.", Cosine: 0.69, BM25: 3.2, Retrievability: 0.95},
		{ID: "sem-anna", Layer: LayerSemantic, Text: "Anna is my sister and lives in Munich", Cosine: 0.66, BM25: 1.1, EdgeWeight: 2.5, EdgeImportance: 40, Retrievability: 0.8},
		{ID: "sem-zugspitze", Layer: LayerSemantic, Text: "The Zugspitze is the highest mountain in Germany", Cosine: 0.74, BM25: 2.0, EdgeWeight: 0.6, EdgeImportance: 5, Retrievability: 0.6},
		{ID: "sem-boots", Layer: LayerSemantic, Text: "My hiking boots are size 43", Cosine: 0.55, BM25: 1.6, Retrievability: 0.3},
		{ID: "proc-pack", Layer: LayerProcedural, Text: "Packing for a hike: water, map, rain jacket, snacks", Cosine: 0.61, BM25: 1.9, Retrievability: 0.7},
		{ID: "proc-wax", Layer: LayerProcedural, Text: "Waxing boots: clean, dry, apply wax, buff", Cosine: 0.38, BM25: 0.4, Retrievability: 0.5},
		{ID: "core-name", Layer: LayerCore, Text: "The user's name is Sam", Cosine: 0.21, BM25: 0.0, Retrievability: 1},
		{ID: "wm-plan", Layer: LayerWorking, Text: "Current task: plan the next hike", Cosine: 0.64, BM25: 1.2, Retrievability: 1},
		{ID: "sem-anna", Layer: LayerCrossContext, Text: "Anna is my sister and lives in Munich", Cosine: 0.66, BM25: 1.1, EdgeWeight: 2.5, EdgeImportance: 40, Retrievability: 0.8},
		{ID: "st-chat", Layer: LayerShortTerm, Text: "User asked about weekend weather", Cosine: 0.33, BM25: 0.2, Retrievability: 1},
	}
}

func TestRankGolden(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, class := range Classes() {
		got, err := Rank(class, goldenCandidates(), &Config{K: -1})
		require.NoError(t, err)
		fmt.Fprintf(&b, "class %s\n", class)
		for i, r := range got {
			s := r.Signals
			fmt.Fprintf(&b, "%2d %-14s %-13s score=%.6f hybrid=%.6f w=%.1f fused=%.6f boost=%.6f ret=%.6f\n",
				i+1, r.ID, r.Layer, r.Score, s.Hybrid, s.LayerWeight, s.Fused, s.Boost, s.Retention)
		}
	}
	path := filepath.Join("testdata", "fused_ranking.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), b.String())
}

func ids(rs []Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}
