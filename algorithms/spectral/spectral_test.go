package spectral

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func path(n int) []Edge {
	var es []Edge
	for i := range n - 1 {
		es = append(es, Edge{A: fmt.Sprintf("p%02d", i), B: fmt.Sprintf("p%02d", i+1), Weight: 1})
	}
	return es
}

func complete(prefix string, n int, w float64) []Edge {
	var es []Edge
	for i := range n {
		for j := i + 1; j < n; j++ {
			es = append(es, Edge{A: fmt.Sprintf("%s%d", prefix, i), B: fmt.Sprintf("%s%d", prefix, j), Weight: w})
		}
	}
	return es
}

func TestKnownSpectra(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name        string
		nodes       []string
		edges       []Edge
		wantFiedler float64
		wantComps   int
		fragmented  bool
	}{
		// K_n: eigenvalues 0 and n/(n − 1).
		{name: "K3", edges: complete("k", 3, 1), wantFiedler: 1.5, wantComps: 1},
		{name: "K4", edges: complete("k", 4, 1), wantFiedler: 4.0 / 3, wantComps: 1},
		{name: "K3 weights scaled", edges: complete("k", 3, 7.5), wantFiedler: 1.5, wantComps: 1},
		// P_n: 1 − cos(π/(n − 1)).
		{name: "P2", edges: path(2), wantFiedler: 2, wantComps: 1},
		{name: "P3", edges: path(3), wantFiedler: 1, wantComps: 1},
		{name: "P4", edges: path(4), wantFiedler: 1 - math.Cos(math.Pi/3), wantComps: 1},
		{name: "P5", edges: path(5), wantFiedler: 1 - math.Cos(math.Pi/4), wantComps: 1},
		{name: "P10", edges: path(10), wantFiedler: 1 - math.Cos(math.Pi/9), wantComps: 1},
		{name: "two disconnected triangles", edges: append(complete("a", 3, 1), complete("b", 3, 1)...), wantFiedler: 0, wantComps: 2, fragmented: true},
		{name: "two disconnected edges", edges: []Edge{{A: "a", B: "b", Weight: 1}, {A: "c", B: "d", Weight: 1}}, wantFiedler: 0, wantComps: 2, fragmented: true},
		{name: "K3 plus an isolated node", nodes: []string{"lonely"}, edges: complete("k", 3, 1), wantFiedler: 0, wantComps: 2, fragmented: true},
		{name: "single node", nodes: []string{"x"}, wantFiedler: 0, wantComps: 1},
		{name: "self-loop and zero weight ignored", edges: append(complete("k", 3, 1), Edge{A: "k0", B: "k0", Weight: 5}, Edge{A: "k1", B: "z", Weight: 0}), wantFiedler: 0, wantComps: 2, fragmented: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := Analyze(tt.nodes, tt.edges, nil)
			require.NoError(t, err)
			require.InDelta(t, tt.wantFiedler, r.Fiedler, 1e-9)
			require.Equal(t, tt.wantComps, r.Components)
			require.Equal(t, tt.fragmented, r.Fragmented)
			require.False(t, r.Sampled)
		})
	}
}

func TestK3Laplacian(t *testing.T) {
	t.Parallel()

	g, err := NewGraph(nil, complete("k", 3, 1))
	require.NoError(t, err)
	l := g.NormalizedLaplacian([]string{"k0", "k1", "k2"})
	for i := range 3 {
		require.Equal(t, 1.0, l.At(i, i))
		for j := range 3 {
			if i != j {
				require.InDelta(t, -0.5, l.At(i, j), 1e-15)
			}
		}
	}
	vals, err := g.Eigenvalues([]string{"k0", "k1", "k2"})
	require.NoError(t, err)
	require.InDeltaSlice(t, []float64{0, 1.5, 1.5}, vals, 1e-12)
}

func TestWeakBridgeLowersFiedler(t *testing.T) {
	t.Parallel()

	prev := math.Inf(1)
	// Two K5 joined by one edge: the volume of each side is 20 + bridge, so a
	// bridge of 0.1 already gives λ₂ ≈ 0.0096 < 0.01.
	for _, tc := range []struct {
		bridge     float64
		fragmented bool
	}{{1, false}, {0.2, false}, {0.1, true}, {0.0001, true}} {
		bridge := tc.bridge
		es := append(complete("a", 5, 1), complete("b", 5, 1)...)
		es = append(es, Edge{A: "a0", B: "b0", Weight: bridge})
		r, err := Analyze(nil, es, nil)
		require.NoError(t, err)
		require.Equal(t, 1, r.Components)
		require.Less(t, r.Fiedler, prev, "bridge %v", bridge)
		prev = r.Fiedler
		require.Equal(t, tc.fragmented, r.Fragmented, "bridge %v gives λ₂ %v", bridge, r.Fiedler)
	}
}

func TestComponentsAndDuplicates(t *testing.T) {
	t.Parallel()

	g, err := NewGraph([]string{"z"}, []Edge{
		{A: "a", B: "b", Weight: 1},
		{A: "b", B: "a", Weight: 3},
		{A: "b", B: "c", Weight: 1},
		{A: "x", B: "y", Weight: 1},
	})
	require.NoError(t, err)
	require.Equal(t, [][]string{{"a", "b", "c"}, {"x", "y"}, {"z"}}, g.Components())
	require.Equal(t, 3, g.EdgeCount())
	require.Equal(t, 3.0, g.adj[g.index("a")][g.index("b")], "a duplicate keeps the larger weight")
}

func TestSampling(t *testing.T) {
	t.Parallel()

	// A ring of 600 nodes with a hub linked to every tenth node, plus a small separate triangle.
	var es []Edge
	id := func(i int) string { return fmt.Sprintf("r%03d", i%600) }
	for i := range 600 {
		es = append(es, Edge{A: id(i), B: id(i + 1), Weight: 1})
		if i%10 == 0 {
			es = append(es, Edge{A: "hub", B: id(i), Weight: 1})
		}
	}
	es = append(es, complete("t", 3, 1)...)

	r, err := Analyze(nil, es, &Config{MaxNodes: 100})
	require.NoError(t, err)
	require.True(t, r.Sampled)
	require.Equal(t, 100, r.AnalyzedNodes)
	require.Equal(t, 604, r.Nodes)
	require.Equal(t, 2, r.Components)
	require.Equal(t, 601, r.LargestComponent)
	require.Positive(t, r.Fiedler, "a BFS sample is connected")

	g, err := NewGraph(nil, es)
	require.NoError(t, err)
	s := g.Sample(100)
	require.Len(t, s, 100)
	require.Contains(t, s, "hub", "the sample starts at the highest-degree node")
	require.NotContains(t, s, "t0", "the sample stays in the largest component")
	require.True(t, slices.IsSorted(s))
	require.Equal(t, s, g.Sample(100), "sampling is deterministic")

	again, err := Analyze(nil, es, &Config{MaxNodes: 100})
	require.NoError(t, err)
	require.Equal(t, r, again)
}

func TestBadInput(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name  string
		nodes []string
		edges []Edge
		cfg   *Config
		want  string
	}{
		{name: "empty node", nodes: []string{""}, want: "empty node"},
		{name: "empty endpoint", edges: []Edge{{A: "a", Weight: 1}}, want: "empty endpoint"},
		{name: "NaN weight", edges: []Edge{{A: "a", B: "b", Weight: math.NaN()}}, want: "weight"},
		{name: "Inf weight", edges: []Edge{{A: "a", B: "b", Weight: math.Inf(1)}}, want: "weight"},
		{name: "negative weight", edges: []Edge{{A: "a", B: "b", Weight: -1}}, want: "weight"},
		{name: "MaxNodes 1", cfg: &Config{MaxNodes: 1}, want: "MaxNodes"},
		{name: "NaN threshold", cfg: &Config{FragmentationThreshold: math.NaN()}, want: "FragmentationThreshold"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Analyze(tt.nodes, tt.edges, tt.cfg)
			require.ErrorIs(t, err, ErrInvalidInput)
			require.ErrorContains(t, err, tt.want)
		})
	}

	r, err := Analyze(nil, nil, nil)
	require.NoError(t, err)
	require.Equal(t, Report{}, r)
}
