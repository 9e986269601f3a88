package pma

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSTCTag(t *testing.T) {
	t.Parallel()
	s, err := NewCaptureRescue(nil)
	require.NoError(t, err)
	for _, tt := range []struct {
		c    float64
		want bool
	}{{0.2, true}, {0, true}, {0.399, true}, {0.4, false}, {0.8, false}} {
		tag, ok, err := s.Tag("m", tt.c, t0)
		require.NoError(t, err)
		require.Equal(t, tt.want, ok, "confidence %v", tt.c)
		if ok {
			require.Equal(t, STCTag{MemoryID: "m", TaggedAt: t0, Confidence: tt.c}, tag)
		}
	}
	_, _, err = s.Tag("m", math.NaN(), t0)
	require.ErrorIs(t, err, ErrInvalidInput)
}

func TestSTCRescue(t *testing.T) {
	t.Parallel()
	s, err := NewCaptureRescue(nil)
	require.NoError(t, err)
	tag, ok, err := s.Tag("weak", 0.2, t0)
	require.NoError(t, err)
	require.True(t, ok)
	now := t0.Add(2 * time.Hour)
	tests := []struct {
		name   string
		donors []STCDonor
		want   string
	}{
		{"no donors", nil, ""},
		{"strong related within 30 min", []STCDonor{{MemoryID: "d1", Confidence: 0.9, CreatedAt: t0.Add(20 * time.Minute), Related: true}}, "d1"},
		{"also before the tag", []STCDonor{{MemoryID: "d1", Confidence: 0.75, CreatedAt: t0.Add(-29 * time.Minute), Related: true}}, "d1"},
		{"too late", []STCDonor{{MemoryID: "d1", Confidence: 0.9, CreatedAt: t0.Add(31 * time.Minute), Related: true}}, ""},
		{"unrelated", []STCDonor{{MemoryID: "d1", Confidence: 0.9, CreatedAt: t0.Add(time.Minute)}}, ""},
		{"not strong enough", []STCDonor{{MemoryID: "d1", Confidence: 0.7, CreatedAt: t0.Add(time.Minute), Related: true}}, ""},
		{"not itself", []STCDonor{{MemoryID: "weak", Confidence: 0.9, CreatedAt: t0, Related: true}}, ""},
		{"the strongest wins", []STCDonor{
			{MemoryID: "d1", Confidence: 0.8, CreatedAt: t0.Add(time.Minute), Related: true},
			{MemoryID: "d2", Confidence: 0.95, CreatedAt: t0.Add(25 * time.Minute), Related: true},
			{MemoryID: "d3", Confidence: 0.9, CreatedAt: t0.Add(2 * time.Minute), Related: true},
		}, "d2"},
		{"ties go to the closest", []STCDonor{
			{MemoryID: "d1", Confidence: 0.9, CreatedAt: t0.Add(20 * time.Minute), Related: true},
			{MemoryID: "d2", Confidence: 0.9, CreatedAt: t0.Add(-5 * time.Minute), Related: true},
		}, "d2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := s.Rescue(tag, 0.35, 0.2, tt.donors, now)
			require.NoError(t, err)
			require.Equal(t, tt.want != "", res.Rescued)
			if tt.want == "" {
				require.Equal(t, 0.35, res.Strength)
				require.Equal(t, 0.2, res.DecayRate)
				require.Equal(t, tag, res.Tag)
				return
			}
			require.InDelta(t, 0.65, res.Strength, 1e-12, "strength + 0.3")
			require.InDelta(t, 0.1, res.DecayRate, 1e-12, "decay rate halved")
			require.Equal(t, tt.want, res.Tag.DonorID)
			require.True(t, res.Tag.Rescued)
			require.Equal(t, now, res.Tag.RescuedAt)
		})
	}
	// Strength caps at 1; a rescued tag is not rescued again.
	donor := []STCDonor{{MemoryID: "d", Confidence: 0.9, CreatedAt: t0, Related: true}}
	res, err := s.Rescue(tag, 0.9, 0.2, donor, now)
	require.NoError(t, err)
	require.Equal(t, 1.0, res.Strength)
	again, err := s.Rescue(res.Tag, res.Strength, res.DecayRate, donor, now)
	require.NoError(t, err)
	require.False(t, again.Rescued)
	require.Equal(t, res.DecayRate, again.DecayRate)
	// Bad input.
	_, err = s.Rescue(tag, 1.5, 0.2, nil, now)
	require.ErrorIs(t, err, ErrInvalidInput)
	_, err = s.Rescue(tag, 0.5, -1, nil, now)
	require.ErrorIs(t, err, ErrInvalidInput)
	_, err = s.Rescue(tag, 0.5, 0.1, []STCDonor{{Confidence: math.NaN()}}, now)
	require.ErrorIs(t, err, ErrInvalidInput)
	_, err = NewCaptureRescue(&STCConfig{TagBelow: 0.9, DonorAbove: 0.5})
	require.ErrorIs(t, err, ErrInvalidInput)
}
