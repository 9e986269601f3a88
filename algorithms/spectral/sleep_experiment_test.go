package spectral

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/simstat"
	"github.com/zenbrain/zb/algorithms/sleep"
)

// coAccessTenant builds a tenant whose memory co-access graph has 3 clusters
// of 8 memories (topics), densely linked inside (a ring plus random chords,
// weights 0.4–1) and joined by one weak bridge (weight 0.15) between
// consecutive clusters. The bridge endpoints are cross-topic insights: recent,
// well retrievable memories that turned out far more useful than expected
// (reward ≥ 0.8 against a value ≤ 0.3) and relate 4–5 entities. Every memory
// mentions one or two topic entities of its cluster; half of them also mention
// one of three cross-cutting tools. Other rewards are low (< 0.25) for 30 % of
// the memories, high (≥ 0.75) for 30 % and middling otherwise, so sleep also
// generates counterfactual associations between failures and successes that
// share a topic or a tool, many of them across clusters.
func coAccessTenant(seed uint32) sleep.Input {
	rng := simstat.NewMulberry32(seed)
	const clusters, size = 3, 8
	id := func(c, i int) string { return fmt.Sprintf("m:%d-%d", c, i) }
	var in sleep.Input
	bridgeEnd := map[string]bool{}
	for c := range clusters {
		for i := range size {
			in.Edges = append(in.Edges, sleep.Edge{A: id(c, i), B: id(c, (i+1)%size), Weight: 0.5 + 0.5*rng.Float64()})
			for j := i + 2; j < size; j++ {
				if (i == 0 && j == size-1) || rng.Float64() >= 0.5 {
					continue
				}
				in.Edges = append(in.Edges, sleep.Edge{A: id(c, i), B: id(c, j), Weight: 0.4 + 0.6*rng.Float64()})
			}
		}
		if c > 0 {
			a, b := id(c-1, rng.Intn(size)), id(c, rng.Intn(size))
			bridgeEnd[a], bridgeEnd[b] = true, true
			in.Edges = append(in.Edges, sleep.Edge{A: a, B: b, Weight: 0.15})
		}
	}
	for c := range clusters {
		for i := range size {
			ents := []string{fmt.Sprintf("e:topic%d-%d", c, rng.Intn(3))}
			if rng.Float64() < 0.5 {
				ents = append(ents, fmt.Sprintf("e:topic%d-%d", c, rng.Intn(3)))
			}
			if rng.Float64() < 0.5 {
				ents = append(ents, fmt.Sprintf("e:tool%d", rng.Intn(3)))
			}
			ep := sleep.Episode{
				ID: id(c, i), Value: 0.2 + 0.4*rng.Float64(), Retrievability: 0.3 + 0.7*rng.Float64(),
				Related: len(ents) + rng.Intn(3), EntityIDs: ents,
				Valence: 2*rng.Float64() - 1, Arousal: rng.Float64(), Stability: 1 + 9*rng.Float64(),
			}
			switch u := rng.Float64(); {
			case u < 0.3:
				ep.Reward = 0.25 * rng.Float64()
			case u < 0.6:
				ep.Reward = 0.75 + 0.25*rng.Float64()
			default:
				ep.Reward = 0.3 + 0.4*rng.Float64()
			}
			if bridgeEnd[ep.ID] {
				ep.Reward, ep.Value = 0.8+0.2*rng.Float64(), 0.3*rng.Float64()
				ep.Retrievability, ep.Related = 0.8+0.2*rng.Float64(), 4+rng.Intn(2)
			}
			ep.Faded = ep.Retrievability < 0.35
			in.Episodes = append(in.Episodes, ep)
		}
	}
	return in
}

func toSpectral(es []sleep.Edge) []Edge {
	out := make([]Edge, len(es))
	for i, e := range es {
		out[i] = Edge{A: e.A, B: e.B, Weight: e.Weight}
	}
	return out
}

// TestSleepRaisesFiedler applies a sleep plan to the co-access graph of a
// clustered tenant and checks that λ₂ rises in every seed, with and without
// neuromodulation: the plan's new cross-cluster associations (weight 0.10) and
// the LTP of the bridges (0.15 → 0.25) widen the bottlenecks more than LTP
// inside the clusters adds to their volume. Before sleep every seed's graph is
// below the fragmentation threshold (λ₂ ≈ 0.005).
func TestSleepRaisesFiedler(t *testing.T) {
	t.Parallel()

	totalCross := 0
	for _, neuro := range []bool{false, true} {
		for _, seed := range simstat.Seeds {
			in := coAccessTenant(seed)
			plan, err := sleep.NewPlan(in, &sleep.Params{Neuromodulation: neuro}, seed)
			require.NoError(t, err)
			before, err := Analyze(nil, toSpectral(in.Edges), nil)
			require.NoError(t, err)
			after, err := Analyze(nil, toSpectral(plan.ApplyEdges(in.Edges)), nil)
			require.NoError(t, err)
			t.Logf("neuro %-5v seed %4d: λ₂ %.4f → %.4f (%+.0f%%); edges %d → %d; counterfactuals %d (selected %d), LTP %d, LTD %d, prunes %d",
				neuro, seed, before.Fiedler, after.Fiedler, 100*(after.Fiedler/before.Fiedler-1), before.Edges, after.Edges,
				plan.Summary.Counterfactual, plan.Summary.SelectedCounterfactual, plan.Summary.LTP, plan.Summary.LTD, plan.Summary.Prunes)
			require.Equal(t, 1, before.Components, "seed %d", seed)
			require.True(t, before.Fragmented, "seed %d", seed)
			require.Greater(t, after.Fiedler, before.Fiedler, "neuro %v seed %d", neuro, seed)
			cross := 0
			for _, n := range plan.NewEdges {
				if n.A[:3] != n.B[:3] {
					cross++
				}
			}
			totalCross += cross
			for _, d := range plan.EdgeDeltas {
				if d.Before == 0.15 {
					require.Equal(t, sleep.LTP, d.Kind, "seed %d: bridge %s–%s", seed, d.A, d.B)
				}
			}
		}
	}
	t.Logf("new cross-cluster association edges over all runs: %d", totalCross)
	require.Positive(t, totalCross, "sleep adds cross-cluster associations")
}
