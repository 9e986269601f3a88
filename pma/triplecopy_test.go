package pma

import (
	"bytes"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/simstat"
)

const day = 24 * time.Hour

func newTripleCopy(t *testing.T) *TripleCopyMemory {
	t.Helper()
	m, err := NewTripleCopyMemory(nil)
	require.NoError(t, err)
	return m
}

func TestTripleCopyFormulas(t *testing.T) {
	t.Parallel()
	m := newTripleCopy(t)
	tc, err := m.Store("e1", 1, t0)
	require.NoError(t, err)
	require.Equal(t, 1.0, tc.FastStrength)
	require.Equal(t, 0.8, tc.MediumStrength)
	require.False(t, tc.Promoted())
	promoted, err := m.Promote(tc, 1, t0.Add(day))
	require.NoError(t, err)
	tests := []struct {
		age                    time.Duration
		fast, medium, deepProm float64
	}{
		{time.Hour, math.Exp(-0.25), 0.8 * math.Exp(-1.0/24/14), 0},
		{6 * time.Hour, math.Exp(-1.5), 0.8 * math.Exp(-0.25/14), 0},
		{3 * day, math.Exp(-18), 0.8 * math.Exp(-3.0/14), 1 - math.Exp(-2.0/7)},
		{30 * day, math.Exp(-180), 0.8 * math.Exp(-30.0/14), 1 - math.Exp(-29.0/7)},
	}
	for _, tt := range tests {
		s := m.Strengths(tc, t0.Add(tt.age))
		require.InDelta(t, tt.fast, s.Fast, 1e-12, "fast at %v", tt.age)
		require.InDelta(t, tt.medium, s.Medium, 1e-12, "medium at %v", tt.age)
		require.Zero(t, s.Deep, "no deep copy before promotion")
		require.Equal(t, math.Max(s.Fast, s.Medium), s.Strength)
		p := m.Strengths(promoted, t0.Add(tt.age))
		require.InDelta(t, tt.deepProm, p.Deep, 1e-12, "deep at %v", tt.age)
		require.Equal(t, math.Max(p.Fast, math.Max(p.Medium, p.Deep)), p.Strength, "strength is the max of the copies")
	}
}

func TestTripleCopyDominance(t *testing.T) {
	t.Parallel()
	m := newTripleCopy(t)
	for _, seed := range simstat.Seeds {
		r := simstat.NewMulberry32(seed)
		s0 := 0.8 + 0.2*r.Float64()
		tc, err := m.Store("e", s0, t0)
		require.NoError(t, err)
		at15 := m.Strengths(tc, t0.Add(15*time.Minute))
		require.Equal(t, CopyFast, at15.Dominant, "seed %d: fast dominates at 15 minutes", seed)
		require.Greater(t, at15.Fast, at15.Medium)
		at2d := m.Strengths(tc, t0.Add(2*day))
		require.Equal(t, CopyMedium, at2d.Dominant, "seed %d: medium dominates at 2 days", seed)
		require.Greater(t, at2d.Medium, at2d.Fast)
		at30 := m.Strengths(tc, t0.Add(30*day))
		require.Less(t, at30.Strength, 0.2, "seed %d: without promotion", seed)
		require.False(t, m.Retrieve(tc, t0.Add(30*day)).Retrievable)

		promoted, err := m.Promote(tc, s0, t0.Add(day))
		require.NoError(t, err)
		p30 := m.Strengths(promoted, t0.Add(30*day))
		require.GreaterOrEqual(t, p30.Strength, 0.8, "seed %d: promoted at day 1", seed)
		require.Equal(t, CopyDeep, p30.Dominant)
		t.Logf("seed %d: S0 %.3f, at 30 d %.3f without and %.3f with promotion", seed, s0, at30.Strength, p30.Strength)
	}
}

func TestTripleCopyRetrieve(t *testing.T) {
	t.Parallel()
	m := newTripleCopy(t)
	tc, err := m.Store("e", 1, t0)
	require.NoError(t, err)
	promoted, err := m.Promote(tc, 1, t0.Add(day))
	require.NoError(t, err)
	tests := []struct {
		name   string
		tc     TripleCopy
		age    time.Duration
		want   CopyKind
		ok     bool
		sudden bool
	}{
		{"fresh", tc, time.Minute, CopyFast, true, false},
		{"two days", tc, 2 * day, CopyMedium, true, false},
		{"faded", tc, 30 * day, CopyNone, false, false},
		{"medium still above threshold at 10 d, deep stronger", promoted, 10 * day, CopyDeep, true, false},
		{"medium below threshold at 14 d", promoted, 14 * day, CopyDeep, true, true},
		{"only deep at 30 d", promoted, 30 * day, CopyDeep, true, true},
		{"before storage", tc, -time.Hour, CopyNone, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := m.Retrieve(tt.tc, t0.Add(tt.age))
			require.Equal(t, tt.ok, r.Retrievable)
			require.Equal(t, tt.want, r.Copy)
			require.Equal(t, tt.sudden, r.SuddenRecall)
		})
	}
}

func TestTripleCopyPromoteTwice(t *testing.T) {
	t.Parallel()
	m := newTripleCopy(t)
	tc, err := m.Store("e", 1, t0)
	require.NoError(t, err)
	p1, err := m.Promote(tc, 0.6, t0.Add(day))
	require.NoError(t, err)
	p2, err := m.Promote(p1, 0.9, t0.Add(5*day))
	require.NoError(t, err)
	require.Equal(t, t0.Add(day), p2.PromotedAt, "the first promotion time is kept")
	require.Equal(t, 0.9, p2.DeepStrength)
	p3, err := m.Promote(p2, 0.5, t0.Add(6*day))
	require.NoError(t, err)
	require.Equal(t, 0.9, p3.DeepStrength, "a weaker promotion does not lower S_d")
}

func TestTripleCopyBadInput(t *testing.T) {
	t.Parallel()
	m := newTripleCopy(t)
	for _, s0 := range []float64{0, -1, 1.1, math.NaN(), math.Inf(1)} {
		_, err := m.Store("e", s0, t0)
		require.ErrorIs(t, err, ErrInvalidInput, "S0 %v", s0)
	}
	_, err := m.Store("e", 1, time.Time{})
	require.ErrorIs(t, err, ErrInvalidInput)
	tc, err := m.Store("e", 1, t0)
	require.NoError(t, err)
	_, err = m.Promote(tc, 1, t0.Add(-time.Hour))
	require.ErrorIs(t, err, ErrInvalidInput, "promotion before storage")
	_, err = m.Promote(tc, math.NaN(), t0)
	require.ErrorIs(t, err, ErrInvalidInput)
	corrupt := TripleCopy{EventID: "x", StoredAt: t0, FastStrength: math.NaN(), MediumStrength: -3}
	s := m.Strengths(corrupt, t0)
	require.Zero(t, s.Strength, "corrupt copies read as absent")
	require.Equal(t, CopyNone, s.Dominant)
	_, err = NewTripleCopyMemory(&TripleCopyConfig{MediumFactor: 2})
	require.ErrorIs(t, err, ErrInvalidInput)
}

// TestTripleCopyGolden records the strengths that feed ranking at the ages
// of the paper's retention table, for S0 = 1 without promotion and with a
// sleep promotion (S_d = 1) one day after storage.
func TestTripleCopyGolden(t *testing.T) {
	t.Parallel()
	m := newTripleCopy(t)
	tc, err := m.Store("e", 1, t0)
	require.NoError(t, err)
	promoted, err := m.Promote(tc, 1, t0.Add(day))
	require.NoError(t, err)
	var b bytes.Buffer
	fmt.Fprintln(&b, "# age   fast    medium  deep    strength  dominant  | promoted@1d: deep    strength  dominant  sudden")
	for _, age := range []time.Duration{time.Hour, 6 * time.Hour, day, 3 * day, 7 * day, 14 * day, 30 * day} {
		s := m.Strengths(tc, t0.Add(age))
		p := m.Strengths(promoted, t0.Add(age))
		r := m.Retrieve(promoted, t0.Add(age))
		fmt.Fprintf(&b, "%-6s  %.4f  %.4f  %.4f  %.4f    %-8s  |              %.4f  %.4f    %-8s  %v\n",
			fmtAge(age), s.Fast, s.Medium, s.Deep, s.Strength, s.Dominant, p.Deep, p.Strength, p.Dominant, r.SuddenRecall)
	}
	requireGolden(t, "triplecopy.golden", b.Bytes())
}

func fmtAge(d time.Duration) string {
	if d < day {
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
