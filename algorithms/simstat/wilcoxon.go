package simstat

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// WilcoxonMethod names how [WilcoxonSignedRank] computed its p-value.
type WilcoxonMethod string

const (
	// WilcoxonExact is the exact permutation null distribution of W⁺: every one
	// of the 2ⁿ sign assignments of the (average) ranks is equally likely.
	WilcoxonExact WilcoxonMethod = "exact"

	// WilcoxonNormal is the normal approximation with continuity and tie
	// correction.
	WilcoxonNormal WilcoxonMethod = "normal"
)

// WilcoxonExactMaxN is the largest number of non-zero differences for which
// [WilcoxonSignedRank] enumerates the exact null distribution. Above it the
// normal approximation is used.
const WilcoxonExactMaxN = 25

// WilcoxonResult is the outcome of a two-sided Wilcoxon signed-rank test.
type WilcoxonResult struct {
	// N is the number of non-zero differences that were ranked.
	N int
	// Zeros is the number of zero differences dropped before ranking.
	Zeros int
	// Ties reports whether tied absolute differences received average ranks.
	Ties bool
	// WPlus is the sum of the ranks of positive differences (W⁺).
	WPlus float64
	// WMinus is the sum of the ranks of negative differences (W⁻).
	WMinus float64
	// W is the test statistic min(W⁺, W⁻).
	W float64
	// Method is [WilcoxonExact] for N ≤ [WilcoxonExactMaxN] and
	// [WilcoxonNormal] above.
	Method WilcoxonMethod
	// Z is the continuity-corrected z statistic of the normal approximation,
	// signed like W⁺ − n(n+1)/4. It is 0 when Method is [WilcoxonExact].
	Z float64
	// P is the two-sided p-value, at most 1.
	P float64
}

// WilcoxonSignedRank runs the two-sided Wilcoxon signed-rank test on the paired
// samples x and y, using the differences dᵢ = xᵢ − yᵢ. See
// [WilcoxonSignedRankDiffs] for the procedure. It returns [ErrLengthMismatch]
// when the lengths differ, [ErrEmpty] for no pairs and [ErrNotFinite] for NaN
// or ±Inf.
func WilcoxonSignedRank(x, y []float64) (WilcoxonResult, error) {
	if len(x) != len(y) {
		return WilcoxonResult{}, fmt.Errorf("error running Wilcoxon test on %d and %d values: %w", len(x), len(y), ErrLengthMismatch)
	}
	if err := checkFinite(x); err != nil {
		return WilcoxonResult{}, err
	}
	if err := checkFinite(y); err != nil {
		return WilcoxonResult{}, err
	}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	return WilcoxonSignedRankDiffs(d)
}

// WilcoxonSignedRankDiffs runs the two-sided Wilcoxon signed-rank test on the
// paired differences d:
//
//  1. differences exactly equal to 0 are dropped (counted in Zeros);
//  2. the remaining n values are ranked by |d| ascending, tied |d| getting
//     the average of the ranks they span (the ZenBrain harnesses do not
//     average; this does);
//  3. W⁺ and W⁻ sum the ranks of positive and negative differences;
//  4. for n ≤ [WilcoxonExactMaxN] the p-value is exact: the null distribution
//     of W⁺ over all 2ⁿ sign assignments of the actual (tie-averaged) ranks is
//     enumerated by dynamic programming on doubled ranks, and
//     p = min(1, 2·P(W⁺ ≤ min(W⁺, W⁻))), which is symmetric in W⁺ and W⁻;
//  5. above that, z = (|W⁺ − μ| − ½)/σ with μ = n(n+1)/4 and
//     σ² = n(n+1)(2n+1)/24 − Σ(t³ − t)/48 over tie groups of size t, and
//     p = 2·(1 − Φ(z)).
//
// With no non-zero difference the result has N = 0, Method [WilcoxonExact] and
// P = 1 (the null distribution is a point mass). It returns [ErrEmpty] for an
// empty d and [ErrNotFinite] for NaN or ±Inf.
func WilcoxonSignedRankDiffs(d []float64) (WilcoxonResult, error) {
	if len(d) == 0 {
		return WilcoxonResult{}, ErrEmpty
	}
	if err := checkFinite(d); err != nil {
		return WilcoxonResult{}, err
	}
	nz := make([]float64, 0, len(d))
	for _, v := range d {
		if v != 0 {
			nz = append(nz, v)
		}
	}
	res := WilcoxonResult{N: len(nz), Zeros: len(d) - len(nz), Method: WilcoxonExact, P: 1}
	n := len(nz)
	if n == 0 {
		return res, nil
	}

	slices.SortStableFunc(nz, func(a, b float64) int { return cmp.Compare(math.Abs(a), math.Abs(b)) })
	// Doubled ranks keep average ranks integral: a tie group spanning ranks
	// i+1..j has average rank (i+1+j)/2, doubled i+1+j.
	ranks2 := make([]int, n)
	var tieTerm float64
	for i := 0; i < n; {
		j := i + 1
		for j < n && math.Abs(nz[j]) == math.Abs(nz[i]) {
			j++
		}
		t := j - i
		if t > 1 {
			res.Ties = true
			tieTerm += float64(t*t*t - t)
		}
		for k := i; k < j; k++ {
			ranks2[k] = i + 1 + j
		}
		i = j
	}
	wPlus2, wMinus2 := 0, 0
	for i, v := range nz {
		if v > 0 {
			wPlus2 += ranks2[i]
		} else {
			wMinus2 += ranks2[i]
		}
	}
	res.WPlus = float64(wPlus2) / 2
	res.WMinus = float64(wMinus2) / 2
	res.W = math.Min(res.WPlus, res.WMinus)

	if n <= WilcoxonExactMaxN {
		res.P = exactSignedRankP(ranks2, min(wPlus2, wMinus2))
		return res, nil
	}

	nf := float64(n)
	mu := nf * (nf + 1) / 4
	variance := nf*(nf+1)*(2*nf+1)/24 - tieTerm/48
	res.Method = WilcoxonNormal
	dev := res.WPlus - mu
	z := math.Max(0, math.Abs(dev)-0.5) / math.Sqrt(variance)
	res.Z = math.Copysign(z, dev)
	res.P = math.Min(1, math.Erfc(z/math.Sqrt2))
	return res, nil
}

// exactSignedRankP returns min(1, 2·P(T ≤ w2)) where T is the doubled-rank sum
// of a uniformly random subset of ranks2 (each rank positive with
// probability ½). Counts fit in uint64 since n ≤ 25 gives at most 2²⁵ subsets.
func exactSignedRankP(ranks2 []int, w2 int) float64 {
	total := 0
	for _, r := range ranks2 {
		total += r
	}
	counts := make([]uint64, total+1)
	counts[0] = 1
	reach := 0
	for _, r := range ranks2 {
		for s := reach; s >= 0; s-- {
			if counts[s] != 0 {
				counts[s+r] += counts[s]
			}
		}
		reach += r
	}
	var le uint64
	for s := 0; s <= w2; s++ {
		le += counts[s]
	}
	p := 2 * float64(le) / math.Ldexp(1, len(ranks2))
	return math.Min(1, p)
}
