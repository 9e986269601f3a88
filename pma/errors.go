package pma

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// ErrInvalidInput is wrapped by every error this package returns for bad
// input: NaN or infinite numbers, values outside their documented range,
// unknown enum values, empty required text and times that run backwards.
var ErrInvalidInput = errors.New("pma: invalid input")

// invalidf returns an error wrapping [ErrInvalidInput] with a formatted
// description of the offending input.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrInvalidInput)
}

// finite reports whether x is neither NaN nor ±Inf.
func finite(x float64) bool {
	return !math.IsNaN(x) && !math.IsInf(x, 0)
}

// checkUnit returns an error unless x is finite and within [0, 1].
func checkUnit(name string, x float64) error {
	if !finite(x) || x < 0 || x > 1 {
		return invalidf("%s must be in [0, 1], got %v", name, x)
	}
	return nil
}

// clamp01 limits x to [0, 1].
func clamp01(x float64) float64 {
	return math.Max(0, math.Min(1, x))
}

// days converts a duration to fractional days.
func days(d time.Duration) float64 {
	return d.Hours() / 24
}
