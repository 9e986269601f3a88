package spectral

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Default parameters.
const (
	// FragmentationThresholdDefault is the λ₂ below which a graph is flagged as fragmented.
	FragmentationThresholdDefault = 0.01
	// MaxNodesDefault is the node count above which the graph is sampled.
	MaxNodesDefault = 500
)

// ErrInvalidInput reports an edge with an empty endpoint or a non-finite or
// negative weight, or a parameter out of range.
var ErrInvalidInput = errors.New("invalid spectral input")

// ErrNoConvergence reports that the eigensolver did not converge.
var ErrNoConvergence = errors.New("eigendecomposition did not converge")

// Edge is an undirected weighted edge.
type Edge struct {
	// A is one endpoint.
	A string `json:"a"`
	// B is the other endpoint.
	B string `json:"b"`
	// Weight is the edge weight, finite and non-negative; a zero weight is no edge.
	Weight float64 `json:"weight"`
}

// Config holds the analysis parameters. A zero field takes its default.
type Config struct {
	// FragmentationThreshold is the λ₂ below which Fragmented is set.
	// Defaults to FragmentationThresholdDefault (0.01).
	FragmentationThreshold float64
	// MaxNodes is the largest graph analysed whole; larger graphs are sampled.
	// Defaults to MaxNodesDefault (500). Must be at least 2.
	MaxNodes int
}

// DefaultConfig returns the configuration with every default filled in.
func DefaultConfig() Config { return Config{}.WithDefaults() }

// WithDefaults returns a copy of c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	c.FragmentationThreshold = cmp.Or(c.FragmentationThreshold, FragmentationThresholdDefault)
	c.MaxNodes = cmp.Or(c.MaxNodes, MaxNodesDefault)
	return c
}

// Validate reports the first field out of range, naming it.
func (c Config) Validate() error {
	switch {
	case math.IsNaN(c.FragmentationThreshold) || math.IsInf(c.FragmentationThreshold, 0) || c.FragmentationThreshold <= 0:
		return fmt.Errorf("%w: FragmentationThreshold must be positive and finite, got %v", ErrInvalidInput, c.FragmentationThreshold)
	case c.MaxNodes < 2:
		return fmt.Errorf("%w: MaxNodes must be at least 2, got %d", ErrInvalidInput, c.MaxNodes)
	}
	return nil
}

// Report is the health of one graph.
type Report struct {
	// Nodes is the number of nodes of the whole graph.
	Nodes int `json:"nodes"`
	// Edges is the number of distinct undirected edges with positive weight.
	Edges int `json:"edges"`
	// Components is the number of connected components (isolated nodes included).
	Components int `json:"components"`
	// LargestComponent is the node count of the largest component.
	LargestComponent int `json:"largest_component"`
	// Sampled reports that λ₂ was computed on a BFS sample of MaxNodes nodes.
	Sampled bool `json:"sampled"`
	// AnalyzedNodes is the number of nodes whose Laplacian was decomposed.
	AnalyzedNodes int `json:"analyzed_nodes"`
	// Fiedler is λ₂ of the normalized Laplacian of the analysed graph, floored at 0.
	Fiedler float64 `json:"fiedler"`
	// Fragmented reports Fiedler < FragmentationThreshold on a graph of at least 2 nodes.
	Fragmented bool `json:"fragmented"`
}

// Graph is an undirected weighted graph with nodes indexed 0 … n − 1 in
// ascending id order. Build one with [NewGraph].
type Graph struct {
	ids []string
	adj []map[int]float64
}

// NewGraph builds a graph from nodes (which may list isolated nodes; it may be
// nil) and edges, whose endpoints are added as nodes. Self-loops are ignored,
// as is an edge of weight 0; an edge listed twice (in either direction) keeps
// its larger weight. It returns an error wrapping ErrInvalidInput for an empty
// node id or endpoint, or a negative or non-finite weight.
func NewGraph(nodes []string, edges []Edge) (*Graph, error) {
	set := make(map[string]struct{}, len(nodes)+2*len(edges))
	for _, n := range nodes {
		if n == "" {
			return nil, fmt.Errorf("%w: empty node id", ErrInvalidInput)
		}
		set[n] = struct{}{}
	}
	for i, e := range edges {
		if e.A == "" || e.B == "" {
			return nil, fmt.Errorf("%w: edge %d has an empty endpoint", ErrInvalidInput, i)
		}
		if math.IsNaN(e.Weight) || math.IsInf(e.Weight, 0) || e.Weight < 0 {
			return nil, fmt.Errorf("%w: edge %q–%q weight must be finite and non-negative, got %v", ErrInvalidInput, e.A, e.B, e.Weight)
		}
		set[e.A] = struct{}{}
		set[e.B] = struct{}{}
	}
	g := &Graph{ids: make([]string, 0, len(set))}
	for id := range set {
		g.ids = append(g.ids, id)
	}
	slices.Sort(g.ids)
	g.adj = make([]map[int]float64, len(g.ids))
	for i := range g.adj {
		g.adj[i] = map[int]float64{}
	}
	for _, e := range edges {
		if e.A == e.B || e.Weight == 0 {
			continue
		}
		a, b := g.index(e.A), g.index(e.B)
		w := math.Max(g.adj[a][b], e.Weight)
		g.adj[a][b], g.adj[b][a] = w, w
	}
	return g, nil
}

func (g *Graph) index(id string) int {
	i, _ := slices.BinarySearch(g.ids, id)
	return i
}

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.ids) }

// EdgeCount returns the number of distinct undirected edges with positive weight.
func (g *Graph) EdgeCount() int {
	n := 0
	for i, nb := range g.adj {
		for j := range nb {
			if j > i {
				n++
			}
		}
	}
	return n
}

// Components returns the connected components as sorted id lists, largest
// first, ties broken by the smallest id.
func (g *Graph) Components() [][]string {
	seen := make([]bool, len(g.ids))
	var comps [][]string
	for s := range g.ids {
		if seen[s] {
			continue
		}
		var comp []string
		for _, v := range g.bfs(s, len(g.ids), seen) {
			comp = append(comp, g.ids[v])
		}
		slices.Sort(comp)
		comps = append(comps, comp)
	}
	slices.SortStableFunc(comps, func(a, b []string) int {
		return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a[0], b[0]))
	})
	return comps
}

// bfs visits from s in breadth-first order with neighbours in index (id)
// order, marking seen, and stops after limit nodes.
func (g *Graph) bfs(s, limit int, seen []bool) []int {
	order := []int{s}
	seen[s] = true
	for head := 0; head < len(order) && len(order) < limit; head++ {
		v := order[head]
		nb := make([]int, 0, len(g.adj[v]))
		for u := range g.adj[v] {
			nb = append(nb, u)
		}
		slices.Sort(nb)
		for _, u := range nb {
			if !seen[u] && len(order) < limit {
				seen[u] = true
				order = append(order, u)
			}
		}
	}
	return order
}

func (g *Graph) degree(v int) float64 {
	d := 0.0
	for _, w := range g.adj[v] {
		d += w
	}
	return d
}

// Sample returns the ids of at most limit nodes reached by a breadth-first
// search from the node of highest weighted degree in the largest component
// (ties to the smaller id), sorted by id.
func (g *Graph) Sample(limit int) []string {
	if len(g.ids) == 0 || limit <= 0 {
		return nil
	}
	largest := g.Components()[0]
	start := g.index(largest[0])
	for _, id := range largest[1:] {
		if v := g.index(id); g.degree(v) > g.degree(start) {
			start = v
		}
	}
	order := g.bfs(start, limit, make([]bool, len(g.ids)))
	out := make([]string, len(order))
	for i, v := range order {
		out[i] = g.ids[v]
	}
	slices.Sort(out)
	return out
}

// NormalizedLaplacian returns L = I − D^{−1/2}·W·D^{−1/2} over the nodes in
// ids (the induced subgraph, in the given order), with L_ii = 0 for a node
// without edges in the subgraph. Unknown ids are isolated nodes.
func (g *Graph) NormalizedLaplacian(ids []string) *mat.SymDense {
	n := len(ids)
	pos := make(map[int]int, n)
	for i, id := range ids {
		if j, ok := slices.BinarySearch(g.ids, id); ok {
			pos[j] = i
		}
	}
	deg := make([]float64, n)
	for v, i := range pos {
		for u, w := range g.adj[v] {
			if _, in := pos[u]; in {
				deg[i] += w
			}
		}
	}
	l := mat.NewSymDense(max(n, 1), nil)
	if n == 0 {
		return l
	}
	for v, i := range pos {
		if deg[i] > 0 {
			l.SetSym(i, i, 1)
		}
		for u, w := range g.adj[v] {
			if j, in := pos[u]; in && j > i {
				l.SetSym(i, j, -w/math.Sqrt(deg[i]*deg[j]))
			}
		}
	}
	return l
}

// Eigenvalues returns the eigenvalues of the normalized Laplacian over ids in
// ascending order.
func (g *Graph) Eigenvalues(ids []string) ([]float64, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var es mat.EigenSym
	if !es.Factorize(g.NormalizedLaplacian(ids), false) {
		return nil, ErrNoConvergence
	}
	vals := es.Values(nil)
	slices.Sort(vals)
	return vals, nil
}

// Fiedler returns λ₂ of the normalized Laplacian over ids, floored at 0; a
// set of fewer than 2 nodes returns 0.
func (g *Graph) Fiedler(ids []string) (float64, error) {
	if len(ids) < 2 {
		return 0, nil
	}
	vals, err := g.Eigenvalues(ids)
	if err != nil {
		return 0, err
	}
	return math.Max(0, vals[1]), nil
}

// Analyze builds the graph of nodes and edges (see [NewGraph]) and reports its
// size, components, Fiedler value and fragmentation with cfg (nil means
// DefaultConfig). A graph of fewer than 2 nodes reports Fiedler 0 and is not
// flagged as fragmented.
func Analyze(nodes []string, edges []Edge, cfg *Config) (Report, error) {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	c = c.WithDefaults()
	if err := c.Validate(); err != nil {
		return Report{}, fmt.Errorf("error analyzing graph: %w", err)
	}
	g, err := NewGraph(nodes, edges)
	if err != nil {
		return Report{}, fmt.Errorf("error analyzing graph: %w", err)
	}
	r := Report{Nodes: g.Len(), Edges: g.EdgeCount()}
	if g.Len() == 0 {
		return r, nil
	}
	comps := g.Components()
	r.Components, r.LargestComponent = len(comps), len(comps[0])
	ids := g.ids
	if g.Len() > c.MaxNodes {
		ids = g.Sample(c.MaxNodes)
		r.Sampled = true
	}
	r.AnalyzedNodes = len(ids)
	if r.Fiedler, err = g.Fiedler(ids); err != nil {
		return Report{}, fmt.Errorf("error analyzing graph: %w", err)
	}
	r.Fragmented = len(ids) >= 2 && r.Fiedler < c.FragmentationThreshold
	return r, nil
}
