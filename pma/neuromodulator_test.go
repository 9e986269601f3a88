package pma

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/simstat"
)

var t0 = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

func newNeuro(t *testing.T) *NeuromodulatorEngine {
	t.Helper()
	e, err := NewNeuromodulatorEngine(nil)
	require.NoError(t, err)
	return e
}

func TestNeuromodulatorConfigValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  NeuromodulatorConfig
	}{
		{"baseline above 1", NeuromodulatorConfig{Baseline: 1.5}},
		{"pull 1", NeuromodulatorConfig{Pull: 1}},
		{"negative tick", NeuromodulatorConfig{Tick: -time.Second}},
		{"negative half-life", NeuromodulatorConfig{HalfLife: -time.Minute}},
		{"NaN share", NeuromodulatorConfig{TonicShare: math.NaN()}},
		{"opposition above 1", NeuromodulatorConfig{Opposition: 2}},
		{"delta out of range", NeuromodulatorConfig{Deltas: map[EventType]Levels{EventReward: {DA: 3}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewNeuromodulatorEngine(&tt.cfg)
			require.ErrorIs(t, err, ErrInvalidInput)
		})
	}
	e, err := NewNeuromodulatorEngine(nil)
	require.NoError(t, err)
	c := e.Config()
	require.Equal(t, 0.5, c.Baseline)
	require.Equal(t, 0.95, c.Pull)
	require.Equal(t, 5*time.Minute, c.HalfLife)
	require.Equal(t, 0.3, c.Opposition)
	require.Len(t, c.Deltas, len(EventTypes()))
}

func TestNeuromodulatorHomeostaticPull(t *testing.T) {
	t.Parallel()
	e := newNeuro(t)
	s := e.NewState("t1", t0)
	s.TonicDA, s.TonicSerotonin = 0.9, 0.1
	tick := e.Config().Tick
	tests := []struct {
		ticks  int
		wantDA float64
	}{
		{0, 0.9},
		{1, 0.5 + 0.95*0.4},
		{2, 0.5 + 0.95*0.95*0.4},
		{10, 0.5 + math.Pow(0.95, 10)*0.4},
		{100, 0.5 + math.Pow(0.95, 100)*0.4},
	}
	for _, tt := range tests {
		l, err := e.Levels(s, t0.Add(time.Duration(tt.ticks)*tick+tick/2))
		require.NoError(t, err)
		require.InDelta(t, tt.wantDA, l.DA, 1e-12, "ticks %d", tt.ticks)
		require.InDelta(t, 1-tt.wantDA, l.Serotonin, 1e-12, "5HT mirrors DA around 0.5")
	}
	// Advancing in many small steps equals one large step.
	a := s
	for i := 1; i <= 37; i++ {
		var err error
		a, err = e.Advance(a, t0.Add(time.Duration(i)*time.Minute+17*time.Second))
		require.NoError(t, err)
	}
	b, err := e.Advance(s, t0.Add(37*time.Minute+17*time.Second))
	require.NoError(t, err)
	require.InDelta(t, b.TonicDA, a.TonicDA, 1e-12)
	require.Equal(t, b.LastTickAt, a.LastTickAt)
}

func TestNeuromodulatorPhasicHalfLife(t *testing.T) {
	t.Parallel()
	e := newNeuro(t)
	for _, typ := range EventTypes() {
		s, err := e.Apply(e.NewState("t1", t0), Event{Type: typ, Magnitude: 1, At: t0})
		require.NoError(t, err)
		p0, err := e.PhasicAt(s, t0)
		require.NoError(t, err)
		p5, err := e.PhasicAt(s, t0.Add(5*time.Minute))
		require.NoError(t, err)
		p10, err := e.PhasicAt(s, t0.Add(10*time.Minute))
		require.NoError(t, err)
		for i, v := range p0.array() {
			if v == 0 {
				continue
			}
			require.InEpsilon(t, 0.5, p5.array()[i]/v, 0.01, "%s channel %d halves in 5 min", typ, i)
			require.InEpsilon(t, 0.25, p10.array()[i]/v, 0.01, "%s channel %d quarters in 10 min", typ, i)
		}
	}
}

func TestNeuromodulatorEventDeltas(t *testing.T) {
	t.Parallel()
	e := newNeuro(t)
	// From baseline (all levels 0.5) an event of magnitude 1 realises half of
	// each table delta (headroom 0.5), then the DA–5HT opposition applies.
	tests := []struct {
		typ  EventType
		want Levels // effective levels right after the event
	}{
		{EventNovelty, Levels{DA: 0.70, NE: 0.60, Serotonin: 0.5 - 0.3*0.20, ACh: 0.60}},
		{EventPredictionError, Levels{DA: 0.55, NE: 0.70, Serotonin: 0.5 - 0.3*0.05, ACh: 0.55}},
		{EventReward, Levels{DA: 0.75, NE: 0.50, Serotonin: 0.5 - 0.3*0.25, ACh: 0.50}},
		{EventRejection, Levels{DA: 0.35, NE: 0.65, Serotonin: 0.50, ACh: 0.50}},
		{EventRoutine, Levels{DA: 0.45 - 0.3*0.10, NE: 0.45, Serotonin: 0.60, ACh: 0.50}},
		{EventConfirmation, Levels{DA: 0.55 - 0.3*0.10, NE: 0.45, Serotonin: 0.60 - 0.3*0.05, ACh: 0.50}},
		{EventStableFocus, Levels{DA: 0.50 - 0.3*0.15, NE: 0.45, Serotonin: 0.65, ACh: 0.65}},
		{EventExploration, Levels{DA: 0.65, NE: 0.55, Serotonin: 0.5 - 0.3*0.15, ACh: 0.45}},
		{EventContextSwitch, Levels{DA: 0.50, NE: 0.65, Serotonin: 0.45, ACh: 0.65}},
	}
	for _, tt := range tests {
		t.Run(string(tt.typ), func(t *testing.T) {
			t.Parallel()
			s, err := e.Apply(e.NewState("t1", t0), Event{Type: tt.typ, Magnitude: 1, At: t0})
			require.NoError(t, err)
			got, err := e.Levels(s, t0)
			require.NoError(t, err)
			for i, w := range tt.want.array() {
				require.InDelta(t, w, got.array()[i], 1e-12, "channel %d", i)
			}
			// The tonic level takes 10 % of the change, the phasic part 90 %.
			for i, w := range tt.want.array() {
				require.InDelta(t, 0.5+0.1*(w-0.5), s.Tonic().array()[i], 1e-12, "tonic channel %d", i)
				require.InDelta(t, 0.9*(w-0.5), s.Phasic().array()[i], 1e-12, "phasic channel %d", i)
			}
		})
	}
}

func TestNeuromodulatorSaturates(t *testing.T) {
	t.Parallel()
	e := newNeuro(t)
	s := e.NewState("t1", t0)
	var err error
	for i := range 200 {
		s, err = e.Apply(s, Event{Type: EventReward, Magnitude: 1, At: t0.Add(time.Duration(i) * time.Second)})
		require.NoError(t, err)
	}
	l, err := e.Levels(s, s.UpdatedAt)
	require.NoError(t, err)
	require.LessOrEqual(t, l.DA, 1.0)
	require.Greater(t, l.DA, 0.99, "bursts saturate toward 1")
	require.GreaterOrEqual(t, l.Serotonin, 0.0)
	// Opposition follows the realised DA rises, which sum to about 0.5 as DA
	// saturates, so 5HT falls by about 0.3·0.5 and then stays.
	require.InDelta(t, 0.35, l.Serotonin, 0.02, "DA rises push 5HT down")
	require.NoError(t, s.validate())
}

func TestNeuromodulatorTonicStaysNearBaseline(t *testing.T) {
	t.Parallel()
	e := newNeuro(t)
	types := EventTypes()
	for _, seed := range simstat.Seeds {
		r := simstat.NewMulberry32(seed)
		s := e.NewState("t1", t0)
		now := t0
		sum, n := 0.0, 0
		for range 1000 {
			now = now.Add(time.Duration(30+r.Intn(270)) * time.Second)
			var err error
			s, err = e.Apply(s, Event{Type: types[r.Intn(len(types))], Magnitude: 0.3 + 0.7*r.Float64(), At: now})
			require.NoError(t, err)
			for _, v := range s.Tonic().array() {
				sum += math.Abs(v - 0.5)
				n++
			}
		}
		mean := sum / float64(n)
		t.Logf("seed %d: mean |tonic - 0.5| = %.4f", seed, mean)
		require.LessOrEqual(t, mean, 0.1, "seed %d", seed)
		require.Greater(t, mean, 0.0, "seed %d: events must move the tonic level", seed)
	}
}

func pearson(x, y []float64) float64 {
	mx, my := 0.0, 0.0
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	sxy, sxx, syy := 0.0, 0.0, 0.0
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	return sxy / math.Sqrt(sxx*syy)
}

func TestNeuromodulatorDASerotoninOpposition(t *testing.T) {
	t.Parallel()
	e := newNeuro(t)
	for _, seed := range simstat.Seeds {
		r := simstat.NewMulberry32(seed)
		s := e.NewState("t1", t0)
		now := t0
		var da, sht []float64
		for range 500 {
			now = now.Add(time.Duration(60+r.Intn(540)) * time.Second)
			var err error
			s, err = e.Apply(s, Event{Type: EventNovelty, Magnitude: 0.5 + 0.5*r.Float64(), At: now})
			require.NoError(t, err)
			l, err := e.Levels(s, now)
			require.NoError(t, err)
			da = append(da, l.DA-0.5)
			sht = append(sht, l.Serotonin-0.5)
		}
		rho := pearson(da, sht)
		t.Logf("seed %d: corr(DA - 0.5, 5HT - 0.5) = %.3f", seed, rho)
		require.Less(t, rho, -0.5, "seed %d", seed)
	}
}

func TestNeuromodulatorOutputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		l    Levels
		want NeuromodulatorOutputs
	}{
		{"baseline", BaselineLevels(), NeuromodulatorOutputs{LearningRate: 1, ExplorationBias: 0, ConsolidationPatience: 1, AttentionRatio: 0.5}},
		{"aroused explorer", Levels{DA: 0.9, NE: 0.8, Serotonin: 0.2, ACh: 0.7}, NeuromodulatorOutputs{LearningRate: 1.3, ExplorationBias: 0.4, ConsolidationPatience: 0.7, AttentionRatio: 0.7}},
		{"all zero", Levels{}, NeuromodulatorOutputs{LearningRate: 0.5, ExplorationBias: -0.5, ConsolidationPatience: 0.5, AttentionRatio: 0}},
		{"out of range and NaN", Levels{DA: 2, NE: math.NaN(), Serotonin: -1, ACh: 1}, NeuromodulatorOutputs{LearningRate: 1, ExplorationBias: 0.5, ConsolidationPatience: 0.5, AttentionRatio: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := OutputsFor(tt.l)
			require.InDelta(t, tt.want.LearningRate, got.LearningRate, 1e-12)
			require.InDelta(t, tt.want.ExplorationBias, got.ExplorationBias, 1e-12)
			require.InDelta(t, tt.want.ConsolidationPatience, got.ConsolidationPatience, 1e-12)
			require.InDelta(t, tt.want.AttentionRatio, got.AttentionRatio, 1e-12)
		})
	}
	require.Equal(t, OutputsFor(BaselineLevels()), NeutralOutputs())
}

func TestNeuromodulatorStateRoundTrip(t *testing.T) {
	t.Parallel()
	e := newNeuro(t)
	types := EventTypes()
	s := e.NewState("tenant-7", t0)
	now := t0
	var err error
	step := func(s NeuromodulatorState, i int) NeuromodulatorState {
		s, err := e.Apply(s, Event{Type: types[i%len(types)], Magnitude: 0.7, At: now.Add(time.Duration(i) * time.Minute)})
		require.NoError(t, err)
		return s
	}
	for i := range 50 {
		s = step(s, i)
	}
	// Persist and reload the row (JSON stands in for the table row).
	b, err := json.Marshal(s)
	require.NoError(t, err)
	var loaded NeuromodulatorState
	require.NoError(t, json.Unmarshal(b, &loaded))
	require.Equal(t, s.TenantID, loaded.TenantID)
	require.True(t, s.UpdatedAt.Equal(loaded.UpdatedAt))
	require.True(t, s.LastTickAt.Equal(loaded.LastTickAt))
	a, c := s, loaded
	for i := 50; i < 80; i++ {
		a, c = step(a, i), step(c, i)
	}
	la, err := e.Levels(a, now.Add(3*time.Hour))
	require.NoError(t, err)
	lc, err := e.Levels(c, now.Add(3*time.Hour))
	require.NoError(t, err)
	require.Equal(t, la, lc, "a reloaded state evolves identically")
}

func TestNeuromodulatorBadInput(t *testing.T) {
	t.Parallel()
	e := newNeuro(t)
	s := e.NewState("t1", t0)
	tests := []struct {
		name string
		s    NeuromodulatorState
		ev   Event
	}{
		{"unknown type", s, Event{Type: "panic", Magnitude: 1, At: t0}},
		{"NaN magnitude", s, Event{Type: EventReward, Magnitude: math.NaN(), At: t0}},
		{"magnitude above 1", s, Event{Type: EventReward, Magnitude: 1.5, At: t0}},
		{"negative magnitude", s, Event{Type: EventReward, Magnitude: -0.1, At: t0}},
		{"zero time", s, Event{Type: EventReward, Magnitude: 1, At: time.Time{}}},
		{"corrupt tonic", func() NeuromodulatorState { c := s; c.TonicNE = math.Inf(1); return c }(), Event{Type: EventReward, Magnitude: 1, At: t0}},
		{"zero state", NeuromodulatorState{}, Event{Type: EventReward, Magnitude: 1, At: t0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := e.Apply(tt.s, tt.ev)
			require.ErrorIs(t, err, ErrInvalidInput)
			require.Equal(t, tt.s, got, "state unchanged on error")
		})
	}
	_, err := e.Levels(NeuromodulatorState{}, t0)
	require.ErrorIs(t, err, ErrInvalidInput)
	_, err = e.Outputs(NeuromodulatorState{}, t0)
	require.ErrorIs(t, err, ErrInvalidInput)
}

func TestNeuromodulatorOutOfOrderEvent(t *testing.T) {
	t.Parallel()
	e := newNeuro(t)
	s, err := e.Apply(e.NewState("t1", t0), Event{Type: EventReward, Magnitude: 1, At: t0.Add(10 * time.Minute)})
	require.NoError(t, err)
	late, err := e.Apply(s, Event{Type: EventRejection, Magnitude: 1, At: t0.Add(5 * time.Minute)})
	require.NoError(t, err)
	require.Equal(t, s.UpdatedAt, late.UpdatedAt, "time does not run backwards")
	require.Less(t, late.PhasicDA, s.PhasicDA, "the late rejection still applies")
}
