package bayes

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/simstat"
)

// truthExperiment is the Bayesian experiment of issue 3: 30 facts, half of
// them true, with noisy priors that carry no information about the truth
// (means drawn from U[0.3, 0.7], evidence mass 4), and 40 typed relations: 24
// "supports" from a true fact to another true fact and 16 "contradicts" between
// a true and a false fact, in random directions, with strengths from U[0.5, 1].
type truthExperiment struct {
	aucBefore, aucAfter float64
	aucOneSweep         float64 // after a single sweep (one hop)
	trueGain, falseGain float64 // mean Propagated − Own over true and over false facts
	iterations          int
}

func runTruthExperiment(t *testing.T, seed uint32) truthExperiment {
	t.Helper()
	const nFacts, nSupports, nContradicts = 30, 24, 16
	rng := simstat.NewMulberry32(seed)

	truth := make(map[string]bool, nFacts)
	var trues, falses []string
	order := perm(rng, nFacts)
	facts := make([]Fact, nFacts)
	for i := range nFacts {
		id := fmt.Sprintf("f%02d", i)
		isTrue := order[i] < nFacts/2
		truth[id] = isTrue
		if isTrue {
			trues = append(trues, id)
		} else {
			falses = append(falses, id)
		}
		b, err := FromMean(0.3+0.4*rng.Float64(), 4)
		require.NoError(t, err)
		facts[i] = Fact{ID: id, Belief: b}
	}

	seen := map[[2]string]bool{}
	var links []Link
	for len(links) < nSupports {
		a, b := trues[rng.Intn(len(trues))], trues[rng.Intn(len(trues))]
		if a == b || seen[[2]string{a, b}] {
			continue
		}
		seen[[2]string{a, b}] = true
		links = append(links, Link{From: a, To: b, Relation: Supports, Strength: 0.5 + 0.5*rng.Float64()})
	}
	for len(links) < nSupports+nContradicts {
		a, b := trues[rng.Intn(len(trues))], falses[rng.Intn(len(falses))]
		if rng.Float64() < 0.5 {
			a, b = b, a // the direction of a contradiction carries no information
		}
		if seen[[2]string{a, b}] || seen[[2]string{b, a}] {
			continue
		}
		seen[[2]string{a, b}] = true
		links = append(links, Link{From: a, To: b, Relation: Contradicts, Strength: 0.5 + 0.5*rng.Float64()})
	}

	res, err := Propagate(facts, links, nil)
	require.NoError(t, err)
	oneHop, err := Propagate(facts, links, &Config{MaxIterations: 1})
	require.NoError(t, err)

	var ex truthExperiment
	var ownT, ownF, propT, propF []float64
	for _, f := range res.Facts {
		if truth[f.ID] {
			ownT, propT = append(ownT, f.Own), append(propT, f.Propagated)
			ex.trueGain += (f.Propagated - f.Own) / float64(len(trues))
		} else {
			ownF, propF = append(ownF, f.Own), append(propF, f.Propagated)
			ex.falseGain += (f.Propagated - f.Own) / float64(len(falses))
		}
	}
	ex.aucBefore = auc(ownT, ownF)
	ex.aucAfter = auc(propT, propF)
	ex.iterations = res.Iterations
	var oneT, oneF []float64
	for _, f := range oneHop.Facts {
		if truth[f.ID] {
			oneT = append(oneT, f.Propagated)
		} else {
			oneF = append(oneF, f.Propagated)
		}
	}
	ex.aucOneSweep = auc(oneT, oneF)
	return ex
}

func TestTruthExperiment(t *testing.T) {
	t.Parallel()

	var before, after, one float64
	reached := 0
	for _, seed := range simstat.Seeds {
		ex := runTruthExperiment(t, seed)
		t.Logf("seed %4d: AUC %.3f → %.3f after one sweep → %.3f after %d; mean gain true %+.3f, false %+.3f",
			seed, ex.aucBefore, ex.aucOneSweep, ex.aucAfter, ex.iterations, ex.trueGain, ex.falseGain)
		if ex.aucAfter >= 0.75 {
			reached++
		}
		one += ex.aucOneSweep
		require.Equal(t, 3, ex.iterations, "seed %d", seed)
		require.Greater(t, ex.aucAfter, ex.aucBefore+0.1, "seed %d", seed)
		require.Positive(t, ex.trueGain, "seed %d", seed)
		require.Negative(t, ex.falseGain, "seed %d", seed)
		before += ex.aucBefore
		after += ex.aucAfter
	}
	n := float64(len(simstat.Seeds))
	t.Logf("mean AUC over %d seeds: %.3f → %.3f after one sweep → %.3f after three; %d seeds reach 0.75",
		len(simstat.Seeds), before/n, one/n, after/n, reached)
	require.InDelta(t, 0.5, before/n, 0.1, "uninformative priors give AUC ≈ 0.5")
	require.GreaterOrEqual(t, after/n, 0.75)
	require.GreaterOrEqual(t, reached, 8, "at least 8 of 10 seeds reach AUC 0.75")
	require.Greater(t, after/n, one/n, "multi-hop sweeps add to a single hop")
}

// auc returns P(a > b) + ½·P(a = b) over all pairs.
func auc(pos, neg []float64) float64 {
	var s float64
	for _, a := range pos {
		for _, b := range neg {
			switch {
			case a > b:
				s++
			case a == b:
				s += 0.5
			}
		}
	}
	return s / float64(len(pos)*len(neg))
}

func perm(rng *simstat.Mulberry32, n int) []int {
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
