package hebbian

import (
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/simstat"
)

// clusterExperiment is the Two-Factor experiment of issue 3: 50 entities in 5
// clusters of 10, 200 co-activation events of 4 entities each, 80 % of them
// within one cluster and 20 % across 4 different clusters. Every pair in an
// event is activated with tag 1 and activation a_i·a_j, a ~ U[0.5, 1]; events
// are one hour apart and weights decay between them.
type clusterExperiment struct {
	precision5 float64 // mean P@5 of neighbours ranked by weight·importance
	uniformP5  float64 // mean P@5 of a uniform-edge ranking (ties broken by a seeded shuffle)
	ratioAll   float64 // mean intra-cluster weight / mean inter-cluster weight over all pairs (absent or pruned = 0)
	ratioEdges float64 // the same ratio over edges that exist (were activated and not pruned)
}

const (
	expEntities = 50
	expClusters = 5
	expEvents   = 200
	expPerEvent = 4
)

func runClusterExperiment(t *testing.T, seed uint32, cfg *Config) clusterExperiment {
	t.Helper()
	m, err := New(cfg)
	require.NoError(t, err)
	rng := simstat.NewMulberry32(seed)

	// Random cluster membership, so that no id order favours a cluster.
	perm := shuffle(rng, expEntities)
	cluster := make([]int, expEntities)
	members := make([][]int, expClusters)
	for pos, id := range perm {
		c := pos / (expEntities / expClusters)
		cluster[id] = c
		members[c] = append(members[c], id)
	}

	edges := make(map[[2]int]Edge)
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for ev := range expEvents {
		now := start.Add(time.Duration(ev) * time.Hour)
		var group []int
		if rng.Float64() < 0.8 {
			c := rng.Intn(expClusters)
			for _, i := range shuffle(rng, len(members[c]))[:expPerEvent] {
				group = append(group, members[c][i])
			}
		} else {
			for _, c := range shuffle(rng, expClusters)[:expPerEvent] {
				group = append(group, members[c][rng.Intn(len(members[c]))])
			}
		}
		act := make([]float64, len(group))
		for i := range act {
			act[i] = 0.5 + 0.5*rng.Float64()
		}
		for i := range group {
			for j := i + 1; j < len(group); j++ {
				k := pairKey(group[i], group[j])
				e, err := m.Activate(edges[k], 1, act[i]*act[j], now)
				require.NoError(t, err)
				edges[k] = e
			}
		}
	}
	end := start.Add(expEvents * time.Hour)

	strength := func(a, b int) float64 {
		e, ok := edges[pairKey(a, b)]
		if !ok || m.Prunable(e, end) {
			return 0
		}
		return m.Strength(e, end)
	}
	weight := func(a, b int) float64 {
		e, ok := edges[pairKey(a, b)]
		if !ok || m.Prunable(e, end) {
			return 0
		}
		return m.WeightAt(e, end)
	}

	var res clusterExperiment
	for a := range expEntities {
		var nb []int
		for b := range expEntities {
			if b != a && strength(a, b) > 0 {
				nb = append(nb, b)
			}
		}
		sort.SliceStable(nb, func(i, j int) bool {
			si, sj := strength(a, nb[i]), strength(a, nb[j])
			if si != sj {
				return si > sj
			}
			return nb[i] < nb[j]
		})
		hits := 0
		for _, b := range nb[:min(5, len(nb))] {
			if cluster[b] == cluster[a] {
				hits++
			}
		}
		res.precision5 += float64(hits) / 5

		// Uniform edges: every neighbour ties, so the order is a seeded shuffle.
		others := make([]int, 0, expEntities-1)
		for b := range expEntities {
			if b != a {
				others = append(others, b)
			}
		}
		uhits := 0
		for _, i := range shuffle(rng, len(others))[:5] {
			if cluster[others[i]] == cluster[a] {
				uhits++
			}
		}
		res.uniformP5 += float64(uhits) / 5
	}
	res.precision5 /= expEntities
	res.uniformP5 /= expEntities

	var intraSum, interSum float64
	var intraN, interN, intraE, interE int
	for a := range expEntities {
		for b := a + 1; b < expEntities; b++ {
			w := weight(a, b)
			if cluster[a] == cluster[b] {
				intraSum += w
				intraN++
				if w > 0 {
					intraE++
				}
			} else {
				interSum += w
				interN++
				if w > 0 {
					interE++
				}
			}
		}
	}
	res.ratioAll = (intraSum / float64(intraN)) / (interSum / float64(interN))
	res.ratioEdges = (intraSum / float64(intraE)) / (interSum / float64(interE))
	return res
}

func TestClusterExperiment(t *testing.T) {
	t.Parallel()

	var sumP5, sumUniform, sumRatio float64
	for _, seed := range simstat.Seeds {
		res := runClusterExperiment(t, seed, nil)
		t.Logf("seed %4d: P@5 %.3f  uniform %.3f  intra/inter (all pairs) %.1f  (existing edges) %.2f",
			seed, res.precision5, res.uniformP5, res.ratioAll, res.ratioEdges)
		require.GreaterOrEqual(t, res.precision5, 0.9, "seed %d", seed)
		require.GreaterOrEqual(t, res.ratioAll, 10.0, "seed %d", seed)
		sumP5 += res.precision5
		sumUniform += res.uniformP5
		sumRatio += res.ratioAll
	}
	n := float64(len(simstat.Seeds))
	t.Logf("mean over %d seeds: P@5 %.3f, uniform P@5 %.3f, ratio %.1f", len(simstat.Seeds), sumP5/n, sumUniform/n, sumRatio/n)
	// A uniform ranking picks 5 of 49 neighbours of which 9 share the cluster: 9/49 ≈ 0.18.
	require.InDelta(t, 9.0/49, sumUniform/n, 0.05)
	require.GreaterOrEqual(t, sumP5/n, 0.9)
}

func pairKey(a, b int) [2]int {
	if a > b {
		a, b = b, a
	}
	return [2]int{a, b}
}

// shuffle returns a Fisher–Yates permutation of 0..n-1 drawn from rng.
func shuffle(rng *simstat.Mulberry32, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := rng.Intn(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}
