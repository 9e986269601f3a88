package budget

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBetaOrderingAndReferenceCases(t *testing.T) {
	t.Parallel()
	c := (*IBConfig)(nil).WithDefaults()
	require.Greater(t, c.Beta("finance"), c.Beta("people"))
	require.Greater(t, c.Beta("people"), c.Beta("operations"))
	require.Greater(t, c.Beta("operations"), c.Beta("strategy"))
	require.InDelta(t, BetaDefault, c.Beta("unknown-context"), 0)
	// The reference tests: (cost 0.3, gain 0.8, finance) retains; (cost 0.5,
	// gain 0.4, strategy) does not; cost(0, 0, 0) = 0.
	require.True(t, Retain(0.8, 0.3, c.Beta("finance")))
	require.False(t, Retain(0.4, 0.5, c.Beta("strategy")))
	require.InDelta(t, 0.0, Cost(0, 0, 0), 0)
}

func TestGainCost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"gain midpoint", Gain(5, 0.8, 45), 0.4*0.5 + 0.3*0.8 + 0.3*0.5},
		{"gain saturated", Gain(50, 1, 0), 1},
		{"gain nothing", Gain(0, 0, 90), 0},
		{"gain beyond horizon", Gain(0, 0, 400), 0},
		{"gain negative days count as 0", Gain(0, 0, -3), 0.3},
		{"gain never accessed", Gain(0, 0, math.Inf(1)), 0},
		{"gain confidence clamped", Gain(0, 1.7, 90), 0.3},
		{"cost midpoint", Cost(2500, 10, 0.5), 0.2 + 0.15 + 0.15},
		{"cost saturated", Cost(1e6, 100, 3), 1},
		{"cost negative inputs", Cost(-1, -1, -1), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.InDelta(t, tt.want, tt.got, 1e-12)
		})
	}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		item   Item
		action Action
		margin float64
	}{
		{
			// gain 1, cost 0.4·0.04 + 0.3·0.1 + 0.3·0.2 = 0.106, β 0.4.
			name:   "fresh useful memory kept",
			item:   Item{Context: "personal", Retrievals: 10, Confidence: 1, DaysSinceAccess: 0, Length: 200, Entities: 2, EmbeddingVariance: 0.2},
			action: ActionKeep, margin: 0.4 - 0.106,
		},
		{
			// gain 0.59, cost 0.5, β 0.8 → 0.472 < 0.5.
			name:   "middling long memory compressed",
			item:   Item{Context: "finance", Retrievals: 5, Confidence: 0.8, DaysSinceAccess: 45, Length: 2500, Entities: 10, EmbeddingVariance: 0.5},
			action: ActionCompress, margin: 0.472 - 0.5,
		},
		{
			// Recency really is in days: the same memory 1 day after access
			// (gain 0.4·0.3 + 0.3·0.9 + 0.3·89/90) is kept in work (β 0.8)...
			name:   "recent access keeps",
			item:   Item{Context: "work", Retrievals: 3, Confidence: 0.9, DaysSinceAccess: 1, Length: 2500, Entities: 4, EmbeddingVariance: 0.4},
			action: ActionKeep, margin: (0.12+0.27+0.3*89.0/90)*0.8 - (0.2 + 0.06 + 0.12),
		},
		{
			// ...and compressed 80 days later (recency 0.3·10/90).
			name:   "old access compresses",
			item:   Item{Context: "work", Retrievals: 3, Confidence: 0.9, DaysSinceAccess: 81, Length: 2500, Entities: 4, EmbeddingVariance: 0.4},
			action: ActionCompress, margin: (0.12+0.27+0.3*9.0/90)*0.8 - (0.2 + 0.06 + 0.12),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := Decide(tt.item, nil)
			require.NoError(t, err)
			require.Equal(t, tt.action, d.Action)
			require.InDelta(t, tt.margin, d.Margin, 1e-12)
		})
	}
}

func TestDecideErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		item Item
		cfg  *IBConfig
	}{
		{"negative retrievals", Item{Retrievals: -1}, nil},
		{"negative length", Item{Length: -5}, nil},
		{"NaN confidence", Item{Confidence: math.NaN()}, nil},
		{"Inf variance", Item{EmbeddingVariance: math.Inf(1)}, nil},
		{"NaN days", Item{DaysSinceAccess: math.NaN()}, nil},
		{"negative beta", Item{Context: "x"}, &IBConfig{Betas: map[string]float64{"x": -1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Decide(tt.item, tt.cfg)
			require.ErrorContains(t, err, "error deciding IB budget")
		})
	}
}

func TestDaysSince(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 5, 15, 12, 0, 0, 0, time.UTC)
	require.InDelta(t, 1.5, DaysSince(now.Add(-36*time.Hour), now), 1e-12)
	require.InDelta(t, 0.0, DaysSince(now.Add(time.Hour), now), 0)
	require.True(t, math.IsInf(DaysSince(time.Time{}, now), 1))
}

func TestEmbeddingVariance(t *testing.T) {
	t.Parallel()
	v := []float64{1, 0}
	tests := []struct {
		name string
		ns   [][]float64
		want float64
	}{
		{"none", nil, EmbeddingVarianceUnknown},
		{"identical", [][]float64{{2, 0}}, 0},
		{"orthogonal", [][]float64{{0, 1}}, 0.5},
		{"opposite", [][]float64{{-1, 0}}, 1},
		{"mean", [][]float64{{1, 0}, {-1, 0}}, 0.5},
		{"zero vector", [][]float64{{0, 0}}, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := EmbeddingVariance(v, tt.ns)
			require.NoError(t, err)
			require.InDelta(t, tt.want, got, 1e-12)
		})
	}
	_, err := EmbeddingVariance(v, [][]float64{{1, 0, 0}})
	require.ErrorContains(t, err, "dimension mismatch")
	_, err = EmbeddingVariance([]float64{math.NaN(), 0}, [][]float64{{1, 0}})
	require.ErrorContains(t, err, "non-finite")
}
