package simstat

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMeanSD(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name            string
		xs              []float64
		mean, sd, popSD float64
		meanErr, sdErr  error
		popErr          error
	}{
		{
			// The textbook example: population sd exactly 2, sample sd √(32/7).
			name: "textbook", xs: []float64{2, 4, 4, 4, 5, 5, 7, 9},
			mean: 5, sd: math.Sqrt(32.0 / 7), popSD: 2,
		},
		{name: "single", xs: []float64{3}, mean: 3, popSD: 0, sdErr: ErrTooFew},
		{name: "empty", xs: nil, meanErr: ErrEmpty, sdErr: ErrTooFew, popErr: ErrEmpty},
		{name: "nan", xs: []float64{1, math.NaN()}, meanErr: ErrNotFinite, sdErr: ErrNotFinite, popErr: ErrNotFinite},
		{name: "inf", xs: []float64{1, math.Inf(-1)}, meanErr: ErrNotFinite, sdErr: ErrNotFinite, popErr: ErrNotFinite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			m, err := Mean(tt.xs)
			if tt.meanErr != nil {
				require.ErrorIs(t, err, tt.meanErr)
			} else {
				require.NoError(t, err)
				require.InDelta(t, tt.mean, m, 1e-12)
			}
			s, err := SD(tt.xs)
			if tt.sdErr != nil {
				require.ErrorIs(t, err, tt.sdErr)
			} else {
				require.NoError(t, err)
				require.InDelta(t, tt.sd, s, 1e-12)
			}
			p, err := PopSD(tt.xs)
			if tt.popErr != nil {
				require.ErrorIs(t, err, tt.popErr)
			} else {
				require.NoError(t, err)
				require.InDelta(t, tt.popSD, p, 1e-12)
			}
		})
	}
}

func TestCohenD(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		a, b []float64
		want float64
		err  error
	}{
		// Both sds are √2.5, so d = (3 − 4)/√2.5.
		{name: "shifted", a: []float64{1, 2, 3, 4, 5}, b: []float64{2, 3, 4, 5, 6}, want: -1 / math.Sqrt(2.5)},
		// sd_a = 1, sd_b = 3: pooled √5, Δ = 4.
		{name: "unequal spread", a: []float64{9, 10, 11}, b: []float64{3, 6, 9}, want: 4 / math.Sqrt(5)},
		{name: "identical constants", a: []float64{1, 1}, b: []float64{1, 1}, want: 0},
		{name: "distinct constants", a: []float64{1, 1}, b: []float64{2, 2}, err: ErrZeroVariance},
		{name: "too few", a: []float64{1}, b: []float64{2, 3}, err: ErrTooFew},
		{name: "nan", a: []float64{1, 2}, b: []float64{math.NaN(), 3}, err: ErrNotFinite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			d, err := CohenD(tt.a, tt.b)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.InDelta(t, tt.want, d, 1e-12)
		})
	}
}

func TestRelativeChange(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name          string
		base, ablated float64
		want          float64
		err           error
	}{
		{name: "drop", base: 0.8, ablated: 0.6, want: -0.25},
		{name: "gain", base: 0.5, ablated: 0.75, want: 0.5},
		{name: "zero base", base: 0, ablated: 1, err: ErrZeroBase},
		{name: "nan", base: math.NaN(), ablated: 1, err: ErrNotFinite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			got, err := RelativeChange(tt.base, tt.ablated)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.InDelta(t, tt.want, got, 1e-12)
		})
	}
}

func TestBootstrapCI(t *testing.T) {
	t.Parallel()

	// Twenty Bernoulli values, half ones: resample means follow
	// Binomial(20, ½)/20, whose 2.5 % and 97.5 % quantiles are 6/20 and 14/20.
	half := make([]float64, 20)
	for i := range 10 {
		half[i] = 1
	}

	t.Run("binomial quantiles", func(t *testing.T) {
		t.Parallel()

		ci, err := BootstrapCI(half, &BootstrapConfig{Seed: 42, Resamples: 20000})
		require.NoError(t, err)
		require.InDelta(t, 0.5, ci.Estimate, 1e-12)
		require.InDelta(t, 0.30, ci.Lower, 1e-12)
		require.InDelta(t, 0.70, ci.Upper, 1e-12)
		require.Equal(t, 0.95, ci.Level)
		require.Equal(t, 20000, ci.Resamples)
	})

	t.Run("seeded and reproducible", func(t *testing.T) {
		t.Parallel()

		xs := []float64{0.61, 0.58, 0.66, 0.70, 0.59, 0.63, 0.65, 0.60, 0.68, 0.62}
		a, err := BootstrapCI(xs, &BootstrapConfig{Seed: 123})
		require.NoError(t, err)
		b, err := BootstrapCI(xs, &BootstrapConfig{Seed: 123})
		require.NoError(t, err)
		require.Equal(t, a, b)
		require.Equal(t, BootstrapResamplesDefault, a.Resamples)
		require.Less(t, a.Lower, a.Estimate)
		require.Greater(t, a.Upper, a.Estimate)

		c, err := BootstrapCI(xs, &BootstrapConfig{Seed: 456})
		require.NoError(t, err)
		require.NotEqual(t, a, c, "another seed draws other resamples")

		narrow, err := BootstrapCI(xs, &BootstrapConfig{Seed: 123, Level: 0.5})
		require.NoError(t, err)
		require.Greater(t, narrow.Lower, a.Lower)
		require.Less(t, narrow.Upper, a.Upper)
	})

	t.Run("constant sample", func(t *testing.T) {
		t.Parallel()

		ci, err := BootstrapCI([]float64{0.5, 0.5, 0.5}, nil)
		require.NoError(t, err)
		require.Equal(t, CI{Estimate: 0.5, Lower: 0.5, Upper: 0.5, Level: 0.95, Resamples: 1000}, ci)
	})

	t.Run("bad input", func(t *testing.T) {
		t.Parallel()

		_, err := BootstrapCI(nil, nil)
		require.ErrorIs(t, err, ErrEmpty)
		_, err = BootstrapCI([]float64{1, math.Inf(1)}, nil)
		require.ErrorIs(t, err, ErrNotFinite)
		_, err = BootstrapCI(half, &BootstrapConfig{Resamples: -1})
		require.ErrorContains(t, err, "Resamples")
		_, err = BootstrapCI(half, &BootstrapConfig{Level: 1.5})
		require.ErrorContains(t, err, "Level")
		_, err = BootstrapCI(half, &BootstrapConfig{Level: math.NaN()})
		require.ErrorContains(t, err, "Level")
	})
}
