package bayes

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBeliefInterval(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name     string
		b        Belief
		wantMean float64
		wantLo   float64
		wantHi   float64
	}{
		// Beta(1, 1) is uniform: its quantiles are the probabilities themselves.
		{name: "uniform prior", b: Prior(), wantMean: 0.5, wantLo: 0.025, wantHi: 0.975},
		// Beta(2, 1) has CDF x², so the quantile of p is √p.
		{name: "Beta(2,1)", b: Belief{Alpha: 2, Beta: 1}, wantMean: 2.0 / 3, wantLo: math.Sqrt(0.025), wantHi: math.Sqrt(0.975)},
		// Beta(1, 3) has CDF 1 − (1 − x)³, so the quantile is 1 − (1 − p)^(1/3).
		{name: "Beta(1,3)", b: Belief{Alpha: 1, Beta: 3}, wantMean: 0.25, wantLo: 1 - math.Cbrt(0.975), wantHi: 1 - math.Cbrt(0.025)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.InDelta(t, tt.wantMean, tt.b.Mean(), 1e-12)
			iv := tt.b.Interval95()
			require.InDelta(t, tt.wantLo, iv.Lower, 1e-9)
			require.InDelta(t, tt.wantHi, iv.Upper, 1e-9)
		})
	}

	// More evidence narrows the interval around the same mean.
	narrow, err := FromMean(0.8, 100)
	require.NoError(t, err)
	wide, err := FromMean(0.8, 5)
	require.NoError(t, err)
	require.Less(t, narrow.Interval95().Upper-narrow.Interval95().Lower, (wide.Interval95().Upper-wide.Interval95().Lower)/3)

	_, err = Prior().Interval(1)
	require.ErrorIs(t, err, ErrInvalidInput)
	_, err = Prior().Interval(math.NaN())
	require.ErrorIs(t, err, ErrInvalidInput)
	require.Equal(t, Interval{Lower: 0, Upper: 1}, Belief{}.Interval95())
	require.True(t, math.IsNaN(Belief{Alpha: -1, Beta: 1}.Mean()))
}

func TestObserve(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		cfg     *Config
		ev      Evidence
		want    Belief
		wantErr bool
	}{
		{name: "confirm reliable", ev: Evidence{Kind: Confirm, Reliability: 1}, want: Belief{Alpha: 2, Beta: 1}},
		{name: "contradict half reliable", ev: Evidence{Kind: Contradict, Reliability: 0.5}, want: Belief{Alpha: 1, Beta: 1.5}},
		{name: "unreliable source changes nothing", ev: Evidence{Kind: Confirm, Reliability: 0}, want: Belief{Alpha: 1, Beta: 1}},
		{name: "custom contradict weight", cfg: &Config{ContradictWeight: 2}, ev: Evidence{Kind: Contradict, Reliability: 1}, want: Belief{Alpha: 1, Beta: 3}},
		{name: "unknown kind", ev: Evidence{Kind: "maybe", Reliability: 1}, wantErr: true},
		{name: "NaN reliability", ev: Evidence{Kind: Confirm, Reliability: math.NaN()}, wantErr: true},
		{name: "reliability above 1", ev: Evidence{Kind: Confirm, Reliability: 1.2}, wantErr: true},
		{name: "bad config", cfg: &Config{ConfirmWeight: -1}, ev: Evidence{Kind: Confirm, Reliability: 1}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Prior().Observe(tt.ev, tt.cfg)
			if tt.wantErr {
				require.ErrorIs(t, err, ErrInvalidInput)
				require.Equal(t, Prior(), got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}

	_, err := Belief{Alpha: math.Inf(1), Beta: 1}.Observe(Evidence{Kind: Confirm, Reliability: 1}, nil)
	require.ErrorIs(t, err, ErrInvalidInput)
	for _, bad := range [][2]float64{{0, 4}, {1, 4}, {math.NaN(), 4}, {0.5, 0}, {0.5, math.Inf(1)}} {
		_, err := FromMean(bad[0], bad[1])
		require.ErrorIs(t, err, ErrInvalidInput, "%v", bad)
	}
}

func TestRelationFactors(t *testing.T) {
	t.Parallel()

	tests := []struct {
		r         Relation
		factor    float64
		known     bool
		symmetric bool
	}{
		{Supports, 1, true, false},
		{Contradicts, -1, true, true},
		{Causes, 0.8, true, false},
		{Requires, 0.6, true, false},
		{PartOf, 0.3, true, false},
		{SimilarTo, 0.2, true, true},
		{CreatedBy, 0, true, false},
		{UsedBy, 0, true, false},
		{CoOccurs, 0, true, false},
		{"refutes", 0, false, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.r), func(t *testing.T) {
			t.Parallel()
			f, known := tt.r.Factor()
			require.Equal(t, tt.factor, f)
			require.Equal(t, tt.known, known)
			require.Equal(t, tt.symmetric, tt.r.Symmetric())
		})
	}
}

func fact(t *testing.T, id string, mean float64) Fact {
	t.Helper()
	b, err := FromMean(mean, 10)
	require.NoError(t, err)
	return Fact{ID: id, Belief: b}
}

// TestSingleLink checks one sweep against the reference rules: the target's
// message is c + f·w·s·(1 − c) or c·(1 − |f|·w·s), damped 0.7·new + 0.3·previous.
func TestSingleLink(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name     string
		rel      Relation
		strength float64
		message  float64 // the reference rule's value for target 0.5, source 0.8
	}{
		{name: "supports", rel: Supports, strength: 1, message: 0.9},
		{name: "contradicts", rel: Contradicts, strength: 1, message: 0.1},
		{name: "similar_to", rel: SimilarTo, strength: 1, message: 0.58},
		{name: "causes half strength", rel: Causes, strength: 0.5, message: 0.5 + 0.8*0.5*0.8*0.5},
		{name: "strength 0 means 1", rel: Requires, strength: 0, message: 0.5 + 0.6*0.8*0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			facts := []Fact{fact(t, "src", 0.8), fact(t, "tgt", 0.5)}
			res, err := Propagate(facts, []Link{{From: "src", To: "tgt", Relation: tt.rel, Strength: tt.strength}}, &Config{MaxIterations: 1})
			require.NoError(t, err)
			tgt, ok := res.Get("tgt")
			require.True(t, ok)
			require.InDelta(t, 0.7*tt.message+0.3*0.5, tgt.Propagated, 1e-12)
			src, _ := res.Get("src")
			if tt.rel.Symmetric() {
				require.NotEqual(t, 0.8, src.Propagated, "a symmetric relation acts back on its source")
			} else {
				require.Equal(t, 0.8, src.Propagated)
			}
		})
	}
}

// TestMultiHop shows influence travelling one hop per sweep along a → b → c.
func TestMultiHop(t *testing.T) {
	t.Parallel()

	facts := []Fact{fact(t, "a", 0.95), fact(t, "b", 0.5), fact(t, "c", 0.5)}
	links := []Link{{From: "a", To: "b", Relation: Supports, Strength: 1}, {From: "b", To: "c", Relation: Supports, Strength: 1}}
	var cAfter []float64
	for it := 1; it <= 3; it++ {
		res, err := Propagate(facts, links, &Config{MaxIterations: it, Tolerance: -1})
		require.NoError(t, err)
		require.Equal(t, it, res.Iterations)
		c, _ := res.Get("c")
		cAfter = append(cAfter, c.Propagated)
	}
	// c's first message uses b's own 0.5; later sweeps see b raised by a.
	require.InDelta(t, 0.7*0.75+0.3*0.5, cAfter[0], 1e-12)
	require.Greater(t, cAfter[1], cAfter[0])
	require.Greater(t, cAfter[2], cAfter[1])

	// A one-hop propagation (sources at their base confidence) would leave c at cAfter[0] forever.
	res, err := Propagate(facts, links, nil)
	require.NoError(t, err)
	require.Equal(t, 3, res.Iterations)
	c, _ := res.Get("c")
	require.InDelta(t, cAfter[2], c.Propagated, 1e-12)
	require.Greater(t, c.Interval.Lower, c.OwnInterval.Lower)
}

func TestOrderIndependence(t *testing.T) {
	t.Parallel()

	facts := []Fact{fact(t, "a", 0.9), fact(t, "b", 0.4), fact(t, "c", 0.6), fact(t, "d", 0.2)}
	links := []Link{
		{From: "a", To: "b", Relation: Supports, Strength: 0.9},
		{From: "d", To: "b", Relation: Contradicts, Strength: 0.7},
		{From: "c", To: "b", Relation: PartOf, Strength: 1},
		{From: "a", To: "c", Relation: Contradicts, Strength: 0.5},
		{From: "b", To: "d", Relation: "unknown_type", Strength: 1},
		{From: "c", To: "d", Relation: CoOccurs, Strength: 1},
	}
	want, err := Propagate(facts, links, nil)
	require.NoError(t, err)
	require.Equal(t, 2, want.Ignored)

	rf, rl := slices.Clone(facts), slices.Clone(links)
	slices.Reverse(rf)
	slices.Reverse(rl)
	got, err := Propagate(rf, rl, nil)
	require.NoError(t, err)
	require.Equal(t, want, got)

	// Isolated facts keep their own confidence.
	res, err := Propagate([]Fact{fact(t, "x", 0.3)}, nil, nil)
	require.NoError(t, err)
	require.InDelta(t, 0.3, res.Facts[0].Propagated, 1e-15)
	require.Equal(t, 1, res.Iterations, "nothing changes, so the first sweep converges")

	_, ok := res.Get("missing")
	require.False(t, ok)
}

func TestPropagateBadInput(t *testing.T) {
	t.Parallel()

	good := []Fact{{ID: "a", Belief: Prior()}, {ID: "b", Belief: Prior()}}
	tests := []struct {
		name  string
		facts []Fact
		links []Link
		cfg   *Config
		want  string
	}{
		{name: "empty id", facts: []Fact{{ID: "", Belief: Prior()}}, want: "empty fact id"},
		{name: "duplicate id", facts: []Fact{{ID: "a", Belief: Prior()}, {ID: "a", Belief: Prior()}}, want: "duplicate"},
		{name: "zero belief", facts: []Fact{{ID: "a"}}, want: "positive and finite"},
		{name: "NaN belief", facts: []Fact{{ID: "a", Belief: Belief{Alpha: math.NaN(), Beta: 1}}}, want: "positive and finite"},
		{name: "unknown fact", facts: good, links: []Link{{From: "a", To: "z", Relation: Supports}}, want: "unknown fact"},
		{name: "self link", facts: good, links: []Link{{From: "a", To: "a", Relation: Supports}}, want: "self-link"},
		{name: "NaN strength", facts: good, links: []Link{{From: "a", To: "b", Relation: Supports, Strength: math.NaN()}}, want: "strength"},
		{name: "strength above 1", facts: good, links: []Link{{From: "a", To: "b", Relation: Supports, Strength: 2}}, want: "strength"},
		{name: "damping above 1", facts: good, cfg: &Config{Damping: 1.5}, want: "Damping"},
		{name: "negative iterations", facts: good, cfg: &Config{MaxIterations: -1}, want: "MaxIterations"},
		{name: "NaN tolerance", facts: good, cfg: &Config{Tolerance: math.NaN()}, want: "Tolerance"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Propagate(tt.facts, tt.links, tt.cfg)
			require.ErrorIs(t, err, ErrInvalidInput)
			require.ErrorContains(t, err, tt.want)
		})
	}

	res, err := Propagate(nil, nil, nil)
	require.NoError(t, err)
	require.Empty(t, res.Facts)
}

// TestGoldenPropagation records a small propagated graph, since confidences
// and intervals are returned with recall results.
func TestGoldenPropagation(t *testing.T) {
	t.Parallel()

	facts := []Fact{
		{ID: "berlin-capital", Belief: Belief{Alpha: 9, Beta: 1}},
		{ID: "bonn-capital", Belief: Belief{Alpha: 2, Beta: 2}},
		{ID: "reichstag-in-berlin", Belief: Belief{Alpha: 4, Beta: 1}},
		{ID: "bundestag-sits-reichstag", Belief: Belief{Alpha: 3, Beta: 2}},
		{ID: "ministries-in-bonn", Belief: Belief{Alpha: 1.5, Beta: 1}},
	}
	links := []Link{
		{From: "berlin-capital", To: "bonn-capital", Relation: Contradicts, Strength: 1},
		{From: "reichstag-in-berlin", To: "berlin-capital", Relation: Supports, Strength: 0.6},
		{From: "bundestag-sits-reichstag", To: "reichstag-in-berlin", Relation: Supports, Strength: 0.8},
		{From: "ministries-in-bonn", To: "bonn-capital", Relation: Supports, Strength: 0.4},
		{From: "ministries-in-bonn", To: "berlin-capital", Relation: SimilarTo, Strength: 0.3},
	}
	res, err := Propagate(facts, links, nil)
	require.NoError(t, err)
	got, err := json.MarshalIndent(res, "", "  ")
	require.NoError(t, err)
	golden := filepath.Join("testdata", "propagation.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, append(got, '\n'), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(got))
}
