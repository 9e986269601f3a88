package integration

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/forgetting"
	"github.com/zenbrain/zb/internal/zbtest"
)

// TestRetrievabilityInfiniteTimestamps checks zb.retrievability on infinite timestamps, which
// PostgreSQL accepts in timestamptz columns and parameters but cannot subtract: an infinitely
// old last access (or an infinitely late now) gives R = 0, the limit of exp(−Δt/S) as Δt → ∞;
// a last access in the infinite future (or now = −∞) gives 1 like any now ≤ last_access; a core
// memory gives 1 whatever the times. Finite times at the edge of Go's time.Duration range still
// agree with the Go twin.
func TestRetrievabilityInfiniteTimestamps(t *testing.T) {
	t.Parallel()
	pool := zbtest.Pool(t, nil)
	ctx := t.Context()
	cases := []struct {
		stab      *float64
		m         float64
		last, now string
		want      float64
	}{
		{ptr[float64](7.0), 1, "-infinity", "2025-01-01Z", 0},
		{ptr[float64](7.0), 1, "infinity", "2025-01-01Z", 1},
		{ptr[float64](7.0), 1, "2025-01-01Z", "infinity", 0},
		{ptr[float64](7.0), 1, "2025-01-01Z", "-infinity", 1},
		{ptr[float64](7.0), 1, "-infinity", "infinity", 0},
		{ptr[float64](7.0), 1, "infinity", "-infinity", 1},
		{ptr[float64](7.0), 1, "infinity", "infinity", 1},
		{ptr[float64](7.0), 1, "-infinity", "-infinity", 1},
		{ptr[float64](1e4), 3, "-infinity", "2025-01-01Z", 0},
		// S·m_emo beyond time.Duration is "never fades" in the Go twin, and so in SQL.
		{ptr[float64](1e5), 3, "-infinity", "2025-01-01Z", 1},
		{ptr[float64](1e-3), 1, "-infinity", "2025-01-01Z", 0},
		{nil, 1, "-infinity", "2025-01-01Z", 1},
		{nil, 1, "2025-01-01Z", "infinity", 1},
	}
	for _, c := range cases {
		var got float64
		err := pool.QueryRow(ctx, "SELECT zb.retrievability($1, $2, $3::timestamptz, $4::timestamptz)", c.stab, c.m, c.last, c.now).Scan(&got)
		require.NoError(t, err, "last %s, now %s", c.last, c.now)
		require.Equal(t, c.want, got, "stability %v, last %s, now %s", c.stab, c.last, c.now)
	}

	// Finite extremes: 250 years apart (inside time.Duration's ±292 years) agree with Go.
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, s := range []float64{1e-3, 7, 1e4} {
		for _, last := range []time.Time{now.AddDate(-250, 0, 0), now.AddDate(250, 0, 0)} {
			tr := forgetting.Trace{
				Layer: forgetting.LayerSemantic, Stability: time.Duration(s * float64(forgetting.Day)),
				EmotionalMultiplier: 2, LastAccess: last,
			}
			want, err := tr.Retrievability(now)
			require.NoError(t, err)
			var got float64
			require.NoError(t, pool.QueryRow(ctx, "SELECT zb.retrievability($1, 2, $2, $3)", s, last, now).Scan(&got))
			require.InDelta(t, want, got, parityTol, "stability %v days, last access %v", s, last)
		}
	}
}
