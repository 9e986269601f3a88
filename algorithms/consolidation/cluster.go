package consolidation

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// System 1 defaults.
const (
	// CosineWeightDefault weighs embedding cosine in the affinity.
	CosineWeightDefault = 0.7
	// EntityWeightDefault weighs entity Jaccard in the affinity.
	EntityWeightDefault = 0.3
	// CosineFloorDefault is the cosine below which two episodes have
	// affinity 0, however many entities they share.
	CosineFloorDefault = 0.5
	// MergeThresholdDefault is the least average affinity at which two
	// clusters merge.
	MergeThresholdDefault = 0.7
	// MinClusterSizeDefault is the smallest cluster returned.
	MinClusterSizeDefault = 2
	// MaxEpisodesDefault bounds one clustering run (the algorithm is cubic
	// in the number of episodes); callers batch larger sets by time.
	MaxEpisodesDefault = 500
)

// Episode is one episodic memory offered to consolidation.
type Episode struct {
	// ID identifies the episode; IDs must be unique.
	ID string
	// Text is the episode's content.
	Text string
	// Embedding is the content embedding. All non-empty embeddings must have
	// the same dimension; an empty one has cosine 0 with everything.
	Embedding []float64
	// Entities are the entities the episode mentions.
	Entities []string
	// OccurredAt is when the episode happened.
	OccurredAt time.Time
	// SourceIDs is the episode's own provenance (for example the turns it
	// came from); may be empty.
	SourceIDs []string
}

// ClusterConfig configures [ClusterEpisodes]. The zero value, or nil, means
// defaults.
type ClusterConfig struct {
	// CosineWeight defaults to CosineWeightDefault.
	CosineWeight float64
	// EntityWeight defaults to EntityWeightDefault; −1 means 0 (cosine
	// only).
	EntityWeight float64
	// CosineFloor defaults to CosineFloorDefault; −1 means no floor.
	CosineFloor float64
	// MergeThreshold defaults to MergeThresholdDefault.
	MergeThreshold float64
	// MinClusterSize defaults to MinClusterSizeDefault.
	MinClusterSize int
	// MaxEpisodes defaults to MaxEpisodesDefault; more episodes are an
	// error.
	MaxEpisodes int
}

// WithDefaults returns a copy of c with zero fields replaced by defaults and
// −1 sentinels resolved.
func (c *ClusterConfig) WithDefaults() *ClusterConfig {
	out := ClusterConfig{}
	if c != nil {
		out = *c
	}
	out.CosineWeight = cmp.Or(out.CosineWeight, CosineWeightDefault)
	out.EntityWeight = cmp.Or(out.EntityWeight, EntityWeightDefault)
	if out.EntityWeight == -1 {
		out.EntityWeight = 0
	}
	out.CosineFloor = cmp.Or(out.CosineFloor, CosineFloorDefault)
	out.MergeThreshold = cmp.Or(out.MergeThreshold, MergeThresholdDefault)
	out.MinClusterSize = cmp.Or(out.MinClusterSize, MinClusterSizeDefault)
	out.MaxEpisodes = cmp.Or(out.MaxEpisodes, MaxEpisodesDefault)
	return &out
}

func (c *ClusterConfig) validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"CosineWeight", c.CosineWeight}, {"EntityWeight", c.EntityWeight}, {"CosineFloor", c.CosineFloor}, {"MergeThreshold", c.MergeThreshold}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s is %v, want finite", f.name, f.v)
		}
	}
	if c.CosineWeight < 0 || c.EntityWeight < 0 {
		return fmt.Errorf("weights must be ≥ 0 (cosine %v, entity %v)", c.CosineWeight, c.EntityWeight)
	}
	if c.MinClusterSize < 1 {
		return fmt.Errorf("MinClusterSize is %d, want ≥ 1", c.MinClusterSize)
	}
	return nil
}

// Cluster is a group of similar episodes found by System 1.
type Cluster struct {
	// Members are in (OccurredAt, ID) order.
	Members []Episode
	// Cohesion is the mean pairwise affinity of the members.
	Cohesion float64
}

// Affinity returns the System 1 affinity of two episodes under cfg (nil:
// defaults); see the package documentation. It returns an error for
// mismatched embedding dimensions or non-finite components.
func Affinity(a, b Episode, cfg *ClusterConfig) (float64, error) {
	c := cfg.WithDefaults()
	return affinity(a, b, c)
}

func affinity(a, b Episode, c *ClusterConfig) (float64, error) {
	cos, err := cosine(a.Embedding, b.Embedding)
	if err != nil {
		return 0, err
	}
	if c.CosineFloor != -1 && cos < c.CosineFloor {
		return 0, nil
	}
	return c.CosineWeight*cos + c.EntityWeight*entityJaccard(a.Entities, b.Entities), nil
}

func cosine(a, b []float64) (float64, error) {
	if len(a) == 0 || len(b) == 0 {
		return 0, nil
	}
	if len(a) != len(b) {
		return 0, fmt.Errorf("embedding dimension mismatch %d vs %d", len(a), len(b))
	}
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if math.IsNaN(dot) || math.IsInf(dot, 0) || math.IsNaN(na+nb) || math.IsInf(na+nb, 0) {
		return 0, fmt.Errorf("non-finite embedding component")
	}
	if na == 0 || nb == 0 {
		return 0, nil
	}
	return min(1, max(-1, dot/math.Sqrt(na*nb))), nil
}

// entityJaccard is the Jaccard similarity of two entity sets, 0 when both
// are empty.
func entityJaccard(a, b []string) float64 {
	sa := map[string]bool{}
	for _, e := range a {
		sa[e] = true
	}
	sb := map[string]bool{}
	for _, e := range b {
		sb[e] = true
	}
	inter := 0
	for e := range sa {
		if sb[e] {
			inter++
		}
	}
	union := len(sa) + len(sb) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

func sortEpisodes(es []Episode) {
	slices.SortStableFunc(es, func(a, b Episode) int {
		if d := a.OccurredAt.Compare(b.OccurredAt); d != 0 {
			return d
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// ClusterEpisodes runs System 1 over episodes (see the package
// documentation). It returns the clusters of at least MinClusterSize
// members, ordered by their first member. It returns an error for an empty
// or duplicate ID, mismatched embedding dimensions, non-finite embedding
// components, an invalid config, or more than MaxEpisodes episodes.
func ClusterEpisodes(episodes []Episode, cfg *ClusterConfig) ([]Cluster, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("error clustering episodes: invalid config: %w", err)
	}
	if len(episodes) > c.MaxEpisodes {
		return nil, fmt.Errorf("error clustering episodes: %d episodes exceed MaxEpisodes %d", len(episodes), c.MaxEpisodes)
	}
	es := slices.Clone(episodes)
	sortEpisodes(es)
	seen := map[string]bool{}
	for _, e := range es {
		if e.ID == "" || seen[e.ID] {
			return nil, fmt.Errorf("error clustering episodes: empty or duplicate ID %q", e.ID)
		}
		seen[e.ID] = true
	}
	n := len(es)
	aff := make([][]float64, n)
	for i := range aff {
		aff[i] = make([]float64, n)
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			a, err := affinity(es[i], es[j], c)
			if err != nil {
				return nil, fmt.Errorf("error clustering episodes: %s and %s: %w", es[i].ID, es[j].ID, err)
			}
			aff[i][j], aff[j][i] = a, a
		}
	}

	// Average linkage: link[i][j] is the mean affinity between clusters i
	// and j (indexed by their first member), updated by Lance–Williams.
	link := make([][]float64, n)
	for i := range link {
		link[i] = slices.Clone(aff[i])
	}
	members := make([][]int, n)
	active := make([]bool, n)
	for i := range n {
		members[i] = []int{i}
		active[i] = true
	}
	for {
		bi, bj, best := -1, -1, math.Inf(-1)
		for i := range n {
			if !active[i] {
				continue
			}
			for j := i + 1; j < n; j++ {
				if active[j] && link[i][j] > best {
					bi, bj, best = i, j, link[i][j]
				}
			}
		}
		if bi < 0 || best < c.MergeThreshold {
			break
		}
		si, sj := float64(len(members[bi])), float64(len(members[bj]))
		for k := range n {
			if !active[k] || k == bi || k == bj {
				continue
			}
			v := (si*link[bi][k] + sj*link[bj][k]) / (si + sj)
			link[bi][k], link[k][bi] = v, v
		}
		members[bi] = append(members[bi], members[bj]...)
		slices.Sort(members[bi])
		active[bj] = false
	}

	var out []Cluster
	for i := range n {
		if !active[i] || len(members[i]) < c.MinClusterSize {
			continue
		}
		cl := Cluster{}
		for _, m := range members[i] {
			cl.Members = append(cl.Members, es[m])
		}
		cl.Cohesion = meanPairwise(members[i], aff)
		out = append(out, cl)
	}
	return out, nil
}

func meanPairwise(idx []int, aff [][]float64) float64 {
	if len(idx) < 2 {
		return 1
	}
	sum, cnt := 0.0, 0
	for a := range idx {
		for b := a + 1; b < len(idx); b++ {
			sum += aff[idx[a]][idx[b]]
			cnt++
		}
	}
	return sum / float64(cnt)
}
