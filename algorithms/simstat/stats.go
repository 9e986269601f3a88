package simstat

import (
	"errors"
	"fmt"
	"math"
)

// ErrEmpty is returned when a statistic needs at least one value and got none.
var ErrEmpty = errors.New("simstat: no values")

// ErrTooFew is returned when a statistic needs more values than it was given,
// for example a sample standard deviation of a single value.
var ErrTooFew = errors.New("simstat: too few values")

// ErrNotFinite is returned when an input contains NaN or ±Inf.
var ErrNotFinite = errors.New("simstat: value is NaN or infinite")

// ErrLengthMismatch is returned when paired samples have different lengths.
var ErrLengthMismatch = errors.New("simstat: paired samples differ in length")

// ErrZeroVariance is returned by [CohenD] when both samples have zero spread
// but different means, so the effect size is unbounded.
var ErrZeroVariance = errors.New("simstat: both samples have zero variance")

// ErrZeroBase is returned by [RelativeChange] when the base value is zero.
var ErrZeroBase = errors.New("simstat: relative change against a zero base")

func checkFinite(xs []float64) error {
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("error checking value %d (%v): %w", i, x, ErrNotFinite)
		}
	}
	return nil
}

// Mean returns the arithmetic mean Σx/n of xs. It returns [ErrEmpty] for no
// values and [ErrNotFinite] if any value is NaN or ±Inf.
func Mean(xs []float64) (float64, error) {
	if len(xs) == 0 {
		return 0, ErrEmpty
	}
	if err := checkFinite(xs); err != nil {
		return 0, err
	}
	return mean(xs), nil
}

// mean assumes a non-empty, finite slice.
func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// sumSquares returns Σ(x − m)² for the mean m of xs.
func sumSquares(xs []float64) float64 {
	m := mean(xs)
	s := 0.0
	for _, x := range xs {
		d := x - m
		s += d * d
	}
	return s
}

// SD returns the sample standard deviation √(Σ(x − x̄)²/(n − 1)), the one the
// ZenBrain ablation and integration suites report. It returns [ErrTooFew] for
// fewer than two values and [ErrNotFinite] for NaN or ±Inf.
func SD(xs []float64) (float64, error) {
	if len(xs) < 2 {
		return 0, fmt.Errorf("error computing sample sd of %d values: %w", len(xs), ErrTooFew)
	}
	if err := checkFinite(xs); err != nil {
		return 0, err
	}
	return math.Sqrt(sumSquares(xs) / float64(len(xs)-1)), nil
}

// PopSD returns the population standard deviation √(Σ(x − x̄)²/n), the one the
// ZenBrain PMA suite reports. It returns [ErrEmpty] for no values and
// [ErrNotFinite] for NaN or ±Inf.
func PopSD(xs []float64) (float64, error) {
	if len(xs) == 0 {
		return 0, ErrEmpty
	}
	if err := checkFinite(xs); err != nil {
		return 0, err
	}
	return math.Sqrt(sumSquares(xs) / float64(len(xs))), nil
}

// CohenD returns Cohen's d for two samples as the harnesses define it:
//
//	d = (mean(a) − mean(b)) / √((s_a² + s_b²)/2)
//
// with s the sample standard deviations (n − 1). A positive d means a is
// larger. Each sample needs at least two values ([ErrTooFew]); the lengths may
// differ. When both standard deviations are zero, d is 0 if the means are equal
// and the call returns [ErrZeroVariance] otherwise.
func CohenD(a, b []float64) (float64, error) {
	sa, err := SD(a)
	if err != nil {
		return 0, fmt.Errorf("error computing Cohen's d, first sample: %w", err)
	}
	sb, err := SD(b)
	if err != nil {
		return 0, fmt.Errorf("error computing Cohen's d, second sample: %w", err)
	}
	delta := mean(a) - mean(b)
	pooled := math.Sqrt((sa*sa + sb*sb) / 2)
	if pooled == 0 {
		if delta == 0 {
			return 0, nil
		}
		return 0, ErrZeroVariance
	}
	return delta / pooled, nil
}

// RelativeChange returns ΔQ = (ablated − base)/base, the relative change of a
// quality figure when a mechanism is switched off. It returns [ErrZeroBase]
// when base is zero and [ErrNotFinite] for NaN or ±Inf inputs.
func RelativeChange(base, ablated float64) (float64, error) {
	if err := checkFinite([]float64{base, ablated}); err != nil {
		return 0, err
	}
	if base == 0 {
		return 0, ErrZeroBase
	}
	return (ablated - base) / base, nil
}
