package simstat

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWilcoxonTextbook(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name          string
		x, y          []float64
		n, zeros      int
		wPlus, wMinus float64
		method        WilcoxonMethod
		ties          bool
		p             float64
	}{
		{
			// Ten seeds, every difference positive: only the all-positive
			// sign pattern (and its mirror) is as extreme, p = 2/2¹⁰.
			name:  "n=10 all positive",
			x:     []float64{1.1, 2.2, 3.3, 4.4, 5.5, 6.6, 7.7, 8.8, 9.9, 11},
			y:     make([]float64, 10),
			n:     10,
			wPlus: 55, method: WilcoxonExact, p: 2.0 / 1024,
		},
		{
			// Hollander & Wolfe (1973, p. 29) depression scores, the example
			// of R's wilcox.test: V = 40, exact p-value = 0.03906 (= 20/512).
			name:  "Hollander-Wolfe",
			x:     []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30},
			y:     []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29},
			n:     9,
			wPlus: 40, wMinus: 5, method: WilcoxonExact, p: 20.0 / 512,
		},
		{
			// Zeros dropped; ties |d| = 1,1 average to rank 1.5 each; d = +1,
			// −1, +2, +3 → ranks 1.5, 1.5, 3, 4: W⁺ = 8.5, W⁻ = 1.5.
			// Doubled ranks 3,3,6,8: subsets with sum ≤ 3 are {}, {3a}, {3b}
			// → p = 2·3/16.
			name: "ties and zeros",
			x:    []float64{1, 0, 2, 3, 5, 5},
			y:    []float64{0, 1, 0, 0, 5, 5},
			n:    4, zeros: 2,
			wPlus: 8.5, wMinus: 1.5, method: WilcoxonExact, ties: true, p: 6.0 / 16,
		},
		{
			// n = 30, differences −1..−5 and 6..30: W⁻ = 15, W⁺ = 450,
			// z = (|450 − 232.5| − ½)/√2363.75 = 4.4633, p = erfc(z/√2).
			name:  "n=30 normal approximation",
			x:     seq(-5, 30),
			y:     make([]float64, 30),
			n:     30,
			wPlus: 450, wMinus: 15, method: WilcoxonNormal,
			p: 8.06957614199733e-06,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			res, err := WilcoxonSignedRank(tt.x, tt.y)
			require.NoError(t, err)
			require.Equal(t, tt.n, res.N)
			require.Equal(t, tt.zeros, res.Zeros)
			require.Equal(t, tt.ties, res.Ties)
			require.InDelta(t, tt.wPlus, res.WPlus, 1e-12)
			require.InDelta(t, tt.wMinus, res.WMinus, 1e-12)
			require.InDelta(t, math.Min(tt.wPlus, tt.wMinus), res.W, 1e-12)
			require.Equal(t, tt.method, res.Method)
			require.InEpsilon(t, tt.p, res.P, 1e-9)

			// Swapping the samples mirrors W⁺/W⁻ and keeps p.
			sw, err := WilcoxonSignedRank(tt.y, tt.x)
			require.NoError(t, err)
			require.InDelta(t, res.WPlus, sw.WMinus, 1e-12)
			require.InDelta(t, res.P, sw.P, 1e-15)
		})
	}
}

// seq returns −1, −2, …, −neg followed by neg+1 … n, i.e. the ranks 1..n with
// the neg smallest negated.
func seq(neg, n int) []float64 {
	neg = -neg
	out := make([]float64, n)
	for i := range n {
		out[i] = float64(i + 1)
		if i < neg {
			out[i] = -out[i]
		}
	}
	return out
}

// bruteForceP enumerates all 2ⁿ sign patterns of |d| with average ranks
// computed by counting, independently of WilcoxonSignedRankDiffs.
func bruteForceP(d []float64) float64 {
	var abs []float64
	var sign []bool
	for _, v := range d {
		if v != 0 {
			abs = append(abs, math.Abs(v))
			sign = append(sign, v > 0)
		}
	}
	n := len(abs)
	rank := make([]float64, n)
	for i := range abs {
		less, equal := 0, 0
		for j := range abs {
			switch {
			case abs[j] < abs[i]:
				less++
			case abs[j] == abs[i]:
				equal++
			}
		}
		rank[i] = float64(less) + float64(equal+1)/2
	}
	obsPlus, total := 0.0, 0.0
	for i := range rank {
		total += rank[i]
		if sign[i] {
			obsPlus += rank[i]
		}
	}
	obs := math.Min(obsPlus, total-obsPlus)
	extreme := 0
	for mask := range 1 << n {
		s := 0.0
		for i := range n {
			if mask&(1<<i) != 0 {
				s += rank[i]
			}
		}
		if s <= obs+1e-9 {
			extreme++
		}
	}
	return math.Min(1, 2*float64(extreme)/float64(int(1)<<n))
}

func TestWilcoxonExactMatchesBruteForce(t *testing.T) {
	t.Parallel()

	g := NewMulberry32(2048)
	sawTies := 0
	for trial := range 300 {
		n := 1 + trial%14
		d := make([]float64, n)
		for i := range d {
			// Values on a coarse grid so that ties and zeros are common.
			d[i] = float64(g.Intn(9) - 3)
		}
		res, err := WilcoxonSignedRankDiffs(d)
		require.NoError(t, err)
		require.Equal(t, WilcoxonExact, res.Method)
		require.InDelta(t, bruteForceP(d), res.P, 1e-12, "d=%v", d)
		if res.Ties {
			sawTies++
		}
	}
	require.Greater(t, sawTies, 100, "the trials must exercise tied ranks")
}

func TestWilcoxonNormalCloseToExact(t *testing.T) {
	t.Parallel()

	// For n = 30 without ties the exact distribution is cheap to build in the
	// test; the continuity-corrected normal approximation must be close to it
	// in the usual range of p (the largest gap, at W⁻ = 180, is 0.0045).
	n := 30
	total := n * (n + 1) / 2
	counts := make([]float64, total+1)
	counts[0] = 1
	for r := 1; r <= n; r++ {
		for s := total - r; s >= 0; s-- {
			counts[s+r] += counts[s]
		}
	}
	for _, wMinus := range []int{120, 150, 180, 200, 232} {
		exact := 0.0
		for s := 0; s <= wMinus; s++ {
			exact += counts[s]
		}
		exact = math.Min(1, 2*exact/math.Ldexp(1, n))

		d := make([]float64, n)
		for i := range d {
			d[i] = float64(i + 1)
		}
		// Make a set of negative ranks summing to wMinus, greedily from the top.
		rest := wMinus
		for r := n; r >= 1 && rest > 0; r-- {
			if r <= rest {
				d[r-1] = -d[r-1]
				rest -= r
			}
		}
		res, err := WilcoxonSignedRankDiffs(d)
		require.NoError(t, err)
		require.Equal(t, WilcoxonNormal, res.Method)
		require.InDelta(t, float64(wMinus), res.WMinus, 1e-12)
		require.InDelta(t, exact, res.P, 0.006, "W⁻=%d", wMinus)
	}
}

func TestWilcoxonTieCorrection(t *testing.T) {
	t.Parallel()

	// 30 differences: 26 at |d| = 1..26 plus a tie group of four at 27;
	// the group takes ranks 27..30 → 28.5 each. All positive except rank 1.
	d := make([]float64, 0, 30)
	d = append(d, -1)
	for i := 2; i <= 26; i++ {
		d = append(d, float64(i))
	}
	d = append(d, 27, 27, 27, 27)
	res, err := WilcoxonSignedRankDiffs(d)
	require.NoError(t, err)
	require.True(t, res.Ties)
	require.Equal(t, WilcoxonNormal, res.Method)
	require.InDelta(t, 1.0, res.WMinus, 1e-12)
	require.InDelta(t, 464.0, res.WPlus, 1e-12)
	sigma := math.Sqrt(30.0*31*61/24 - (64.0-4)/48)
	z := (464 - 232.5 - 0.5) / sigma
	require.InDelta(t, z, res.Z, 1e-12)
	require.InDelta(t, math.Erfc(z/math.Sqrt2), res.P, 1e-15)
}

func TestWilcoxonBadInput(t *testing.T) {
	t.Parallel()

	_, err := WilcoxonSignedRank([]float64{1, 2}, []float64{1})
	require.ErrorIs(t, err, ErrLengthMismatch)
	_, err = WilcoxonSignedRank(nil, nil)
	require.ErrorIs(t, err, ErrEmpty)
	_, err = WilcoxonSignedRank([]float64{math.NaN()}, []float64{1})
	require.ErrorIs(t, err, ErrNotFinite)
	_, err = WilcoxonSignedRankDiffs([]float64{1, math.Inf(1)})
	require.ErrorIs(t, err, ErrNotFinite)

	res, err := WilcoxonSignedRankDiffs([]float64{0, 0, 0})
	require.NoError(t, err)
	require.Equal(t, WilcoxonResult{Zeros: 3, Method: WilcoxonExact, P: 1}, res)
}
