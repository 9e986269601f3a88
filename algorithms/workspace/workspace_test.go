package workspace

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/simstat"
	"github.com/zenbrain/zb/pma"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func items(prefix string, n, tokens int, score float64) []Item {
	out := make([]Item, n)
	for i := range out {
		out[i] = Item{ID: fmt.Sprintf("%s%d", prefix, i), Text: fmt.Sprintf("%s item number %d", prefix, i), Score: score, Tokens: tokens}
	}
	return out
}

func decisionOf(t *testing.T, res Result, m Module) Decision {
	t.Helper()
	for _, s := range res.Scores {
		if s.Module == m {
			return s.Decision
		}
	}
	t.Fatalf("module %q not scored", m)
	return ""
}

func TestHysteresis(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		cfg      *Config
		previous []Module
		want     Decision
		winner   bool
		eff      float64
	}{
		// With the blend, eff = 0.85·0.4 + 0.0375 = 0.3775: ≥ 0.3, < 0.5.
		{name: "blend previous winner kept", previous: []Module{Episodic}, want: DecisionHysteresis, winner: true, eff: 0.3775},
		{name: "blend newcomer rejected", previous: nil, want: DecisionBelow, eff: 0.3775},
		{name: "blend other previous does not help", previous: []Module{Procedural}, want: DecisionBelow, eff: 0.3775},
		{name: "raw previous winner kept", cfg: &Config{DisablePriority: true}, previous: []Module{Episodic}, want: DecisionHysteresis, winner: true, eff: 0.4},
		{name: "raw newcomer rejected", cfg: &Config{DisablePriority: true}, want: DecisionBelow, eff: 0.4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := NewAssembler(tt.cfg)
			require.NoError(t, err)
			res, err := a.Assemble(Input{
				Candidates: []Candidate{
					{Module: Semantic, Salience: 0.9, Items: items("s", 2, 10, 0.9)},
					{Module: Episodic, Salience: 0.4, Items: items("e", 2, 10, 0.4)},
				},
				Previous: tt.previous,
			})
			require.NoError(t, err)
			require.Equal(t, tt.want, decisionOf(t, res, Episodic))
			require.Contains(t, res.Winners, Semantic)
			require.Equal(t, tt.winner, containsModule(res.Winners, Episodic))
			require.False(t, res.Fallback)
			for _, s := range res.Scores {
				if s.Module == Episodic {
					require.InDelta(t, tt.eff, s.Effective, 1e-12)
				}
			}
		})
	}
}

func containsModule(ms []Module, m Module) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

func TestMaxBroadcast(t *testing.T) {
	t.Parallel()
	mods := []Module{Working, Episodic, Semantic, Procedural, Prospective, CrossContext, MetacogAlerts}
	var cands []Candidate
	for i, m := range mods {
		cands = append(cands, Candidate{Module: m, Salience: 0.95 - 0.05*float64(i), Items: items(string(m), 1, 5, 0.5)})
	}
	cands = append(cands, Candidate{Module: Core, Salience: 1, Items: items("core", 1, 5, 1)})
	a, err := NewAssembler(nil)
	require.NoError(t, err)
	res, err := a.Assemble(Input{Candidates: cands, Previous: mods})
	require.NoError(t, err)
	require.Len(t, res.Sections, 5) // core + 4
	require.Equal(t, Core, res.Sections[0].Module)
	got := []Module{}
	for _, s := range res.Sections[1:] {
		got = append(got, s.Module)
	}
	require.Equal(t, []Module{Working, Episodic, Semantic, Procedural}, got)
	require.Equal(t, []Module{Episodic, Procedural, Semantic, Working}, res.Winners)
	for _, m := range []Module{Prospective, CrossContext, MetacogAlerts} {
		require.Equal(t, DecisionCapped, decisionOf(t, res, m))
	}
}

func TestFallback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		cfg       *Config
		saliences map[Module]float64
		want      []Module // competing modules broadcast, in order
		fallback  bool
	}{
		{
			name:      "top two above floor",
			cfg:       &Config{DisablePriority: true},
			saliences: map[Module]float64{Episodic: 0.29, Semantic: 0.25, Procedural: 0.21, Working: 0.1},
			want:      []Module{Episodic, Semantic}, fallback: true,
		},
		{
			name:      "only one above floor",
			cfg:       &Config{DisablePriority: true},
			saliences: map[Module]float64{Episodic: 0.19, Semantic: 0.2, Working: 0.05},
			want:      []Module{Semantic}, fallback: true,
		},
		{
			name:      "nothing above floor",
			cfg:       &Config{DisablePriority: true},
			saliences: map[Module]float64{Episodic: 0.19, Semantic: 0.1},
			want:      nil,
		},
		{
			name:      "fallback disabled",
			cfg:       &Config{DisablePriority: true, FallbackMax: -1},
			saliences: map[Module]float64{Episodic: 0.29},
			want:      nil,
		},
		{
			// blend: 0.85·0.2 + 0.0375 = 0.2075 ≥ 0.2; 0.85·0.15 + 0.0375 = 0.165.
			name:      "blend lifts a weak module over the floor",
			saliences: map[Module]float64{Episodic: 0.2, Semantic: 0.15},
			want:      []Module{Episodic}, fallback: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := NewAssembler(tt.cfg)
			require.NoError(t, err)
			cands := []Candidate{{Module: Core, Salience: 1, Items: items("core", 1, 5, 1)}}
			for m, s := range tt.saliences {
				cands = append(cands, Candidate{Module: m, Salience: s, Items: items(string(m), 2, 10, s)})
			}
			res, err := a.Assemble(Input{Candidates: cands})
			require.NoError(t, err)
			var got []Module
			for _, s := range res.Sections[1:] {
				got = append(got, s.Module)
				require.Equal(t, DecisionFallback, s.Decision)
			}
			require.Equal(t, tt.want, got)
			require.Equal(t, tt.fallback, res.Fallback)
			require.Empty(t, res.Winners, "fallback modules are not winners")
		})
	}
}

func TestBudgetSplit(t *testing.T) {
	t.Parallel()
	a, err := NewAssembler(&Config{DisablePriority: true, TotalTokens: 1000})
	require.NoError(t, err)
	res, err := a.Assemble(Input{Candidates: []Candidate{
		{Module: Core, Salience: 1, Items: []Item{{ID: "c", Text: "core", Tokens: 20}}},
		{Module: Semantic, Salience: 0.9, Items: items("s", 100, 10, 0.9)},
		{Module: Episodic, Salience: 0.6, Items: items("e", 100, 10, 0.6)},
		{Module: Working, Salience: 0.3, Items: items("w", 100, 10, 0.3)},
	}})
	require.NoError(t, err)
	require.Len(t, res.Sections, 3)
	// Core: header "## Core" = 2 tokens + 20 = 22; its share was
	// min(600, 1000/2) = 500.
	require.Equal(t, 500, res.Sections[0].Share)
	require.Equal(t, 22, res.Sections[0].Used)
	// The 978 tokens left split 0.9 : 0.6 → 586.8 / 391.2 → 587 / 391.
	// Semantic: header 2 + 58 items of 10 tokens = 582; episodic: header 3 +
	// 38 items = 383. The 13 unused tokens are redistributed 8 / 5 but buy no
	// further 10-token item, so the shares become 582+8 and 383+5.
	require.Equal(t, 590, res.Sections[1].Share)
	require.Equal(t, 388, res.Sections[2].Share)
	require.Equal(t, 582, res.Sections[1].Used)
	require.Equal(t, 383, res.Sections[2].Used)
	require.Equal(t, 22+582+383, res.Used)
	require.Equal(t, DecisionBelow, decisionOf(t, res, Working))
}

func TestRedistribution(t *testing.T) {
	t.Parallel()
	a, err := NewAssembler(&Config{DisablePriority: true, TotalTokens: 400, AlwaysInclude: []Module{}})
	require.NoError(t, err)
	res, err := a.Assemble(Input{Candidates: []Candidate{
		{Module: Semantic, Salience: 0.9, Items: items("s", 1, 10, 0.9)}, // needs 12 of its 240
		{Module: Episodic, Salience: 0.6, Items: items("e", 100, 10, 0.6)},
	}})
	require.NoError(t, err)
	require.Equal(t, 12, res.Sections[0].Used)
	// Episodic's share 160 grows by the 228 semantic left: 388 → 3 + 38·10.
	require.Equal(t, 388, res.Sections[1].Share)
	require.Equal(t, 383, res.Sections[1].Used)
	require.LessOrEqual(t, res.Used, 400)
}

// randomInput draws a random assembly input from r.
func randomInput(r *simstat.Mulberry32) Input {
	mods := []Module{Core, Working, Episodic, Semantic, Procedural, Prospective, CrossContext, MetacogAlerts}
	in := Input{Budget: 1 + r.Intn(5000)}
	for _, m := range mods {
		if r.Float64() < 0.2 {
			continue
		}
		c := Candidate{Module: m, Salience: r.Float64()}
		n := r.Intn(12)
		for k := range n {
			c.Items = append(c.Items, Item{
				ID:     fmt.Sprintf("%s-%d", m, k),
				Text:   fmt.Sprintf("%s memory %d about topic %d", m, k, r.Intn(5)),
				Score:  r.Float64(),
				Tokens: r.Intn(900),
			})
		}
		in.Candidates = append(in.Candidates, c)
		if r.Float64() < 0.3 {
			in.Previous = append(in.Previous, m)
		}
	}
	return in
}

func TestBudgetNeverExceededProperty(t *testing.T) {
	t.Parallel()
	for _, seed := range simstat.Seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			r := simstat.NewMulberry32(seed)
			for round := range 60 {
				cfg := &Config{DisablePriority: r.Float64() < 0.5, ReservedTokens: 1 + r.Intn(1000)}
				a, err := NewAssembler(cfg)
				require.NoError(t, err)
				in := randomInput(r)
				res, err := a.Assemble(in)
				require.NoError(t, err, "round %d", round)
				require.LessOrEqual(t, res.Used, in.Budget, "round %d", round)
				sum, shares, competing := 0, 0, 0
				for _, s := range res.Sections {
					require.LessOrEqual(t, s.Used, s.Share, "round %d module %s", round, s.Module)
					itemTokens := 0
					for _, it := range s.Items {
						itemTokens += it.Tokens
					}
					require.Equal(t, s.Used, itemTokens+len(header(s.Module))/4+min(1, len(header(s.Module))%4))
					sum += s.Used
					if s.Decision != DecisionAlways {
						competing++
						shares += s.Share
					} else {
						shares += s.Used
					}
				}
				require.Equal(t, res.Used, sum)
				require.LessOrEqual(t, shares, in.Budget)
				require.LessOrEqual(t, competing, MaxBroadcastDefault)
				require.LessOrEqual(t, len(res.Winners), MaxBroadcastDefault)
				again, err := a.Assemble(in)
				require.NoError(t, err)
				require.Equal(t, res, again)
			}
		})
	}
}

func TestDeterministicUnderReordering(t *testing.T) {
	t.Parallel()
	a, err := NewAssembler(nil)
	require.NoError(t, err)
	r := simstat.NewMulberry32(7)
	for range 20 {
		in := randomInput(r)
		want, err := a.Assemble(in)
		require.NoError(t, err)
		rev := in
		rev.Candidates = nil
		for i := len(in.Candidates) - 1; i >= 0; i-- {
			rev.Candidates = append(rev.Candidates, in.Candidates[i])
		}
		got, err := a.Assemble(rev)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	// Equal saliences tie-break by module name.
	res, err := a.Assemble(Input{Candidates: []Candidate{
		{Module: Working, Salience: 0.8, Items: items("w", 1, 5, 1)},
		{Module: Episodic, Salience: 0.8, Items: items("e", 1, 5, 1)},
	}})
	require.NoError(t, err)
	require.Equal(t, Episodic, res.Sections[0].Module)
	require.Equal(t, Working, res.Sections[1].Module)
}

func TestNeuromodulatedBlend(t *testing.T) {
	t.Parallel()
	a, err := NewAssembler(nil)
	require.NoError(t, err)
	in := Input{Candidates: []Candidate{{Module: Episodic, Salience: 0.55, Items: items("e", 1, 5, 1)}}}
	base, err := a.Assemble(in)
	require.NoError(t, err)
	// 0.85·0.55 + 0.0375 = 0.505: ignites at baseline.
	require.InDelta(t, 0.505, base.Scores[0].Effective, 1e-12)
	require.Equal(t, DecisionIgnited, base.Scores[0].Decision)
	// Own signals: relevance 1 raises the composite.
	in.Candidates[0].Signals = &pma.PriorityInput{Salience: 0.55, Relevance: 1, Goal: 0.55}
	own, err := a.Assemble(in)
	require.NoError(t, err)
	require.InDelta(t, 0.7*0.55+0.3*(0.5*0.55+0.25), own.Scores[0].Effective, 1e-12)
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	ok := items("x", 1, 5, 0.5)
	tests := []struct {
		name string
		in   Input
	}{
		{"nan salience", Input{Candidates: []Candidate{{Module: Episodic, Salience: math.NaN(), Items: ok}}}},
		{"salience above 1", Input{Candidates: []Candidate{{Module: Episodic, Salience: 1.2, Items: ok}}}},
		{"negative salience", Input{Candidates: []Candidate{{Module: Episodic, Salience: -0.1, Items: ok}}}},
		{"empty module", Input{Candidates: []Candidate{{Module: "", Salience: 0.5, Items: ok}}}},
		{"duplicate module", Input{Candidates: []Candidate{{Module: Episodic, Salience: 0.5}, {Module: Episodic, Salience: 0.6}}}},
		{"negative tokens", Input{Candidates: []Candidate{{Module: Episodic, Salience: 0.5, Items: []Item{{ID: "a", Text: "a", Tokens: -1}}}}}},
		{"inf item score", Input{Candidates: []Candidate{{Module: Episodic, Salience: 0.5, Items: []Item{{ID: "a", Text: "a", Score: math.Inf(1)}}}}}},
		{"negative budget", Input{Budget: -1}},
		{"bad levels", Input{Levels: &pma.Levels{DA: 2}}},
		{"bad signals", Input{Candidates: []Candidate{{Module: Episodic, Salience: 0.5, Items: ok, Signals: &pma.PriorityInput{Goal: math.NaN()}}}}},
	}
	a, err := NewAssembler(nil)
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := a.Assemble(tt.in)
			require.ErrorIs(t, err, ErrInvalidInput)
		})
	}
	badConfigs := []*Config{
		{TotalTokens: -5},
		{ReservedTokens: -2},
		{MaxBroadcast: -1},
		{Ignition: 0.2}, // below hysteresis 0.3
		{HysteresisIgnition: 0.6},
		{FallbackFloor: 0.4},
		{Ignition: math.NaN()},
		{SalienceWeight: 1.5},
		{FallbackMax: -3},
		{CharsPerToken: -1},
		{RedundancyPenalty: -0.5},
		{AlwaysInclude: []Module{Core, Core}},
		{Priority: &pma.PriorityConfig{AmygdalaThreshold: 3}},
	}
	for i, c := range badConfigs {
		_, err := NewAssembler(c)
		require.ErrorIs(t, err, ErrInvalidInput, "config %d", i)
	}
}

func TestEmptyAndBlank(t *testing.T) {
	t.Parallel()
	a, err := NewAssembler(nil)
	require.NoError(t, err)
	res, err := a.Assemble(Input{})
	require.NoError(t, err)
	require.Empty(t, res.Sections)
	require.Empty(t, res.Text)
	res, err = a.Assemble(Input{Candidates: []Candidate{
		{Module: Semantic, Salience: 0.9},
		{Module: Episodic, Salience: 0.9, Items: []Item{{ID: "blank", Text: "  ", Score: 1}, {ID: "a", Text: "a fact", Score: 1}}},
	}})
	require.NoError(t, err)
	require.Equal(t, DecisionEmpty, decisionOf(t, res, Semantic))
	require.Len(t, res.Sections, 1)
	require.Equal(t, []string{"blank"}, res.Sections[0].Skipped)
	require.Equal(t, "## Episodes\n- a fact\n", res.Text)
}

func TestSalienceFromScores(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		scores []float64
		want   float64
		err    bool
	}{
		{"none", nil, 0, false},
		{"one", []float64{0.8}, 0.8, false},
		{"three", []float64{0.2, 1, 0.6}, 0.7 + 0.3*0.6, false},
		{"top three of five", []float64{0.1, 0.9, 0.5, 0.4, 0.2}, 0.63 + 0.3*0.6, false},
		{"nan", []float64{math.NaN()}, 0, true},
		{"above one", []float64{1.1}, 0, true},
		{"negative", []float64{-0.1}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := SalienceFromScores(tt.scores)
			if tt.err {
				require.ErrorIs(t, err, ErrInvalidInput)
				return
			}
			require.NoError(t, err)
			require.InDelta(t, tt.want, got, 1e-12)
		})
	}
}

func TestApportion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		total   int
		weights []float64
		names   []Module
		want    []int
	}{
		{10, []float64{1, 1, 1}, []Module{"c", "b", "a"}, []int{3, 3, 4}},
		{100, []float64{0.5, 0.25, 0.25}, []Module{"a", "b", "c"}, []int{50, 25, 25}},
		{0, []float64{1}, []Module{"a"}, []int{0}},
		{7, nil, nil, []int{}},
	}
	for _, tt := range tests {
		got := apportion(tt.total, tt.weights, tt.names)
		require.Equal(t, tt.want, got)
	}
}

func TestGoldenAssembly(t *testing.T) {
	t.Parallel()
	a, err := NewAssembler(&Config{TotalTokens: 90})
	require.NoError(t, err)
	in := Input{
		Candidates: []Candidate{
			{Module: Semantic, Salience: 0.82, Items: []Item{
				{ID: "f-anna-city", Text: "Anna lives in Munich and works as an architect.", Score: 0.91},
				{ID: "f-anna-city-dup", Text: "Anna lives in Munich; she works as an architect.", Score: 0.88},
				{ID: "f-anna-cat", Text: "Anna has a cat called Pixel.", Score: 0.55},
				{ID: "f-sam-tea", Text: "Sam prefers green tea in the afternoon.", Score: 0.2},
			}},
			{Module: Episodic, Salience: 0.61, Items: []Item{
				{ID: "e-trip", Text: "2025-05-03: Sam and Anna planned a trip to Lisbon.", Score: 0.7},
				{ID: "e-call", Text: "2025-06-11: Anna called about the Lisbon flights.", Score: 0.64},
			}},
			{Module: Prospective, Salience: 0.45, Items: []Item{
				{ID: "i-ask", Text: "When talking to Anna: ask about the trip photos.", Score: 0.45},
			}},
			{Module: Procedural, Salience: 0.3, Items: []Item{
				{ID: "p-book", Text: "Booking flights: compare prices on two sites first.", Score: 0.3},
			}},
			{Module: Core, Salience: 1, Items: []Item{
				{ID: "c-name", Text: "The user is Sam, a teacher in Vienna.", Score: 1},
			}},
			{Module: MetacogAlerts, Salience: 0.1},
		},
		Previous: []Module{Prospective, Working},
	}
	res, err := a.Assemble(in)
	require.NoError(t, err)
	var b strings.Builder
	fmt.Fprintf(&b, "budget %d used %d fallback %v winners %v\n", res.Budget, res.Used, res.Fallback, res.Winners)
	for _, s := range res.Scores {
		fmt.Fprintf(&b, "score %-14s sal=%.4f comp=%.4f eff=%.4f %s\n", s.Module, s.Salience, s.Composite, s.Effective, s.Decision)
	}
	for _, s := range res.Sections {
		fmt.Fprintf(&b, "section %-12s share=%3d used=%3d skipped=%v\n", s.Module, s.Share, s.Used, s.Skipped)
	}
	b.WriteString("---\n")
	b.WriteString(res.Text)
	js, err := json.Marshal(res.Winners)
	require.NoError(t, err)
	fmt.Fprintf(&b, "---\npersist %s\n", js)
	path := filepath.Join("testdata", "assemble.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), b.String())
}
