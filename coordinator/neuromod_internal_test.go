package coordinator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/pma"
)

// The replay of a tenant's events equals applying them one by one with the engine, whatever
// order they arrive in, and a time before every event reads as the baseline.
func TestNeuroLogReplay(t *testing.T) {
	t.Parallel()
	eng, err := pma.NewNeuromodulatorEngine(nil)
	require.NoError(t, err)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	start := now.Add(-NeuroWindow).Truncate(eng.Config().Tick)
	evs := []pma.Event{
		{Type: pma.EventNovelty, Magnitude: 0.8, At: now.Add(-3 * time.Hour)},
		{Type: pma.EventReward, Magnitude: 1, At: now.Add(-2 * time.Hour)},
		{Type: pma.EventRejection, Magnitude: 1, At: now.Add(-7 * time.Minute)},
		{Type: pma.EventPredictionError, Magnitude: 0.5, At: now.Add(-time.Minute)},
	}
	want := eng.NewState("t", start)
	for _, ev := range evs {
		want, err = eng.Apply(want, ev)
		require.NoError(t, err)
	}
	want, err = eng.Advance(want, now)
	require.NoError(t, err)

	l := &neuroLog{tenant: "t", eng: eng, start: start}
	for _, i := range []int{2, 0, 3, 1} { // out of order, as concurrent transactions commit
		l.add(evs[i].At, []neuroEvent{{Type: evs[i].Type, Magnitude: evs[i].Magnitude}})
	}
	require.Equal(t, want, l.stateAt(now))
	lv, err := eng.Levels(want, now)
	require.NoError(t, err)
	require.Equal(t, lv, l.levelsAt(now))
	require.Greater(t, lv.NE, 0.5)
	require.Equal(t, pma.BaselineLevels(), l.levelsAt(now.Add(-4*time.Hour)))
	l.off = true
	require.Equal(t, pma.BaselineLevels(), l.levelsAt(now))
}
