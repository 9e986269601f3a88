package simstat

import (
	"fmt"
	"math"
	"slices"
)

// BootstrapResamplesDefault is the default number of bootstrap resamples, as
// in the ZenBrain harnesses.
const BootstrapResamplesDefault = 1000

// BootstrapLevelDefault is the default confidence level of [BootstrapCI].
const BootstrapLevelDefault = 0.95

// BootstrapConfig configures [BootstrapCI].
type BootstrapConfig struct {
	// Seed seeds the [Mulberry32] generator that draws the resamples. The same
	// seed and values always give the same interval. Defaults to 0.
	Seed uint32

	// Resamples is the number of bootstrap resamples B. Defaults to
	// [BootstrapResamplesDefault] (1000) when zero; negative is an error.
	Resamples int

	// Level is the confidence level in (0, 1). Defaults to
	// [BootstrapLevelDefault] (0.95) when zero.
	Level float64
}

// WithDefaults returns a copy of c with zero fields replaced by their defaults.
// A nil c yields the defaults.
func (c *BootstrapConfig) WithDefaults() BootstrapConfig {
	var out BootstrapConfig
	if c != nil {
		out = *c
	}
	if out.Resamples == 0 {
		out.Resamples = BootstrapResamplesDefault
	}
	if out.Level == 0 {
		out.Level = BootstrapLevelDefault
	}
	return out
}

func (c BootstrapConfig) validate() error {
	if c.Resamples < 1 {
		return fmt.Errorf("simstat: BootstrapConfig.Resamples must be positive, got %d", c.Resamples)
	}
	if math.IsNaN(c.Level) || c.Level <= 0 || c.Level >= 1 {
		return fmt.Errorf("simstat: BootstrapConfig.Level must be in (0, 1), got %v", c.Level)
	}
	return nil
}

// CI is a confidence interval around a point estimate.
type CI struct {
	// Estimate is the statistic on the original sample (here the mean).
	Estimate float64
	// Lower is the lower bound of the interval.
	Lower float64
	// Upper is the upper bound of the interval.
	Upper float64
	// Level is the confidence level, e.g. 0.95.
	Level float64
	// Resamples is the number of bootstrap resamples used.
	Resamples int
}

// BootstrapCI returns the percentile bootstrap confidence interval of the mean
// of xs. Each of the B resamples draws len(xs) indices with
// ⌊u·n⌋ from a [Mulberry32] stream seeded with cfg.Seed (resample by resample,
// index by index); the B resample means are sorted and the bounds are the
// values at indices ⌊B·(1 − L)/2⌋ and ⌊B·(1 + L)/2⌋ (clamped to B − 1), which for
// B = 1000 and L = 0.95 are 25 and 975 as in the ZenBrain harnesses. Unlike
// the harnesses, which use an unseeded Math.random, the interval is
// reproducible. A nil cfg means the defaults. It returns [ErrEmpty] for no
// values and [ErrNotFinite] for NaN or ±Inf.
func BootstrapCI(xs []float64, cfg *BootstrapConfig) (CI, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return CI{}, err
	}
	if len(xs) == 0 {
		return CI{}, ErrEmpty
	}
	if err := checkFinite(xs); err != nil {
		return CI{}, err
	}
	rng := NewMulberry32(c.Seed)
	n := len(xs)
	means := make([]float64, c.Resamples)
	for b := range means {
		s := 0.0
		for range n {
			s += xs[rng.Intn(n)]
		}
		means[b] = s / float64(n)
	}
	slices.Sort(means)
	// The 1e-9 guards the floor against binary rounding (1000·0.975 must be 975).
	lo := int(math.Floor(float64(c.Resamples)*(1-c.Level)/2 + 1e-9))
	hi := min(int(math.Floor(float64(c.Resamples)*(1+c.Level)/2+1e-9)), c.Resamples-1)
	return CI{
		Estimate:  mean(xs),
		Lower:     means[lo],
		Upper:     means[hi],
		Level:     c.Level,
		Resamples: c.Resamples,
	}, nil
}
