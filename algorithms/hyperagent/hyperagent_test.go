package hyperagent

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/simstat"
)

var now = time.Date(2024, 5, 15, 3, 0, 0, 0, time.UTC)

// calm is a signal set on which no rule fires.
func calm() Signals {
	return Signals{ConfirmationBias: 0.1, RecencyBias: 0.1, RetrievalEfficiency: 0.8, ReviewLapseRate: 0.1, ForgettingRegret: 0, Samples: 100}
}

func TestPropose(t *testing.T) {
	t.Parallel()
	type change struct {
		param Param
		to    float64
	}
	tests := []struct {
		name   string
		mut    func(*Signals)
		params func(*Params)
		want   []change
		risk   Risk
	}{
		{"calm", func(*Signals) {}, nil, nil, RiskNone},
		// 0.5·(0.2 − 0.15) = 0.025, 0.2·0.05 = 0.01: both within half a step.
		{
			"mild confirmation bias", func(s *Signals) { s.ConfirmationBias = 0.2 }, nil,
			[]change{{ParamRetrievalDiversity, 0.325}, {ParamExploration, 0.06}},
			RiskLow,
		},
		// 0.5·0.2 = 0.1 (= MaxStep), 0.2·0.2 = 0.04 → capped at 0.03.
		{
			"strong confirmation bias", func(s *Signals) { s.ConfirmationBias = 0.35 }, nil,
			[]change{{ParamRetrievalDiversity, 0.4}, {ParamExploration, 0.08}},
			RiskMedium,
		},
		// −0.5·0.1 = −0.05, +0.25·0.1 = 0.025.
		{
			"recency bias", func(s *Signals) { s.RecencyBias = 0.25 }, nil,
			[]change{{ParamDecayFloor, 0.525}, {ParamRecencyWeight, 0.15}},
			RiskMedium,
		},
		// −0.5·(0.5 − 0.3) = −0.1.
		{
			"low efficiency", func(s *Signals) { s.RetrievalEfficiency = 0.3 }, nil,
			[]change{{ParamRetrievalDiversity, 0.2}},
			RiskMedium,
		},
		// Opposite pulls on diversity cancel; exploration still moves.
		{
			"bias and low efficiency cancel", func(s *Signals) { s.ConfirmationBias = 0.35; s.RetrievalEfficiency = 0.3 }, nil,
			[]change{{ParamExploration, 0.08}},
			RiskMedium,
		},
		{
			"high lapse rate", func(s *Signals) { s.ReviewLapseRate = 0.3 }, nil,
			[]change{{ParamReviewAggressiveness, 1.1}},
			RiskMedium,
		},
		{
			"very high lapse rate capped", func(s *Signals) { s.ReviewLapseRate = 0.9 }, nil,
			[]change{{ParamReviewAggressiveness, 1.15}},
			RiskMedium,
		},
		{
			"low lapse rate relaxes", func(s *Signals) { s.ReviewLapseRate = 0.01 }, nil,
			[]change{{ParamReviewAggressiveness, 0.98}},
			RiskLow,
		},
		{
			"forgetting regret", func(s *Signals) { s.ForgettingRegret = 0.1 }, nil,
			[]change{{ParamDecayFloor, 0.55}},
			RiskMedium,
		},
		{
			"clamped at the bound", func(s *Signals) { s.ForgettingRegret = 0.5 }, func(p *Params) { p.DecayFloor = 0.88 },
			[]change{{ParamDecayFloor, 0.9}},
			RiskLow,
		},
		{
			"already at the bound", func(s *Signals) { s.ForgettingRegret = 0.5 }, func(p *Params) { p.DecayFloor = 0.9 },
			nil, RiskNone,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := calm()
			tt.mut(&s)
			p := DefaultParams()
			if tt.params != nil {
				tt.params(&p)
			}
			e, err := Propose(s, p, nil, now, nil)
			require.NoError(t, err)
			require.Len(t, e.Adjustments, len(tt.want))
			for i, w := range tt.want {
				a := e.Adjustments[i]
				require.Equal(t, w.param, a.Param)
				require.InDelta(t, w.to, a.To, 1e-12)
				from, _ := p.Get(w.param)
				require.InDelta(t, from, a.From, 0)
				require.NotEmpty(t, a.Reason)
			}
			require.Equal(t, tt.risk, e.Risk)
			if len(tt.want) == 0 {
				require.Equal(t, "no adjustment needed", e.Note)
			}
		})
	}
}

func TestProposeReasons(t *testing.T) {
	t.Parallel()
	s := calm()
	s.RecencyBias = 0.25
	s.ForgettingRegret = 0.1
	e, err := Propose(s, DefaultParams(), nil, now, nil)
	require.NoError(t, err)
	// Two rules push the decay floor: 0.025 + 0.05 = 0.075 < MaxStep 0.08.
	require.Equal(t, ParamDecayFloor, e.Adjustments[0].Param)
	require.InDelta(t, 0.575, e.Adjustments[0].To, 1e-12)
	require.Equal(t, "recency bias 0.250 > 0.150: let older memories keep more weight; forgetting regret 0.100 > 0.050: forget more gently", e.Adjustments[0].Reason)
}

func TestProposeGates(t *testing.T) {
	t.Parallel()
	biased := calm()
	biased.ConfirmationBias = 0.4

	few := biased
	few.Samples = 19
	e, err := Propose(few, DefaultParams(), nil, now, nil)
	require.NoError(t, err)
	require.Empty(t, e.Adjustments)
	require.Equal(t, "insufficient samples: 19 < 20", e.Note)

	adj := []Adjustment{{Param: ParamExploration, From: 0.05, To: 0.06}}
	history := []Entry{
		{At: now.Add(-1 * time.Hour), Adjustments: adj},
		{At: now.Add(-5 * time.Hour), Adjustments: adj},
		{At: now.Add(-23 * time.Hour), Adjustments: adj},
	}
	e, err = Propose(biased, DefaultParams(), history, now, nil)
	require.NoError(t, err)
	require.Empty(t, e.Adjustments)
	require.Contains(t, e.Note, "daily budget exhausted: 3 of 3")

	// Older than 24 h, reverted entries, reverts and empty entries do not count.
	history[2].At = now.Add(-25 * time.Hour)
	history = append(history,
		Entry{At: now.Add(-2 * time.Hour), Adjustments: adj, Reverted: true},
		Entry{At: now.Add(-2 * time.Hour), Adjustments: adj, RevertOf: "x"},
		Entry{At: now.Add(-2 * time.Hour)},
	)
	e, err = Propose(biased, DefaultParams(), history, now, nil)
	require.NoError(t, err)
	require.NotEmpty(t, e.Adjustments)

	// −1 disables the budget.
	full := append(history, Entry{At: now, Adjustments: adj})
	e, err = Propose(biased, DefaultParams(), full, now, &Config{MaxEntriesPerDay: -1})
	require.NoError(t, err)
	require.NotEmpty(t, e.Adjustments)
}

func TestProposeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    func(*Signals)
		p    func(*Params)
		cfg  *Config
		msg  string
	}{
		{"NaN signal", func(s *Signals) { s.RecencyBias = math.NaN() }, nil, nil, "RecencyBias"},
		{"signal above 1", func(s *Signals) { s.ForgettingRegret = 1.5 }, nil, nil, "ForgettingRegret"},
		{"negative samples", func(s *Signals) { s.Samples = -1 }, nil, nil, "Samples"},
		{"param out of bounds", nil, func(p *Params) { p.DecayFloor = 0.95 }, nil, "decay_floor is 0.95"},
		{"param Inf", nil, func(p *Params) { p.Exploration = math.Inf(1) }, nil, "exploration is +Inf"},
		{"bad bounds", nil, nil, &Config{Bounds: map[Param]Bounds{ParamExploration: {Min: 1, Max: 0, MaxStep: 0.1}}}, "invalid bounds"},
		{"zero step", nil, nil, &Config{Bounds: map[Param]Bounds{ParamExploration: {Min: 0, Max: 1}}}, "invalid bounds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, p := calm(), DefaultParams()
			if tt.s != nil {
				tt.s(&s)
			}
			if tt.p != nil {
				tt.p(&p)
			}
			_, err := Propose(s, p, nil, now, tt.cfg)
			require.ErrorContains(t, err, tt.msg)
		})
	}
}

func TestApplyRevert(t *testing.T) {
	t.Parallel()
	s := calm()
	s.ConfirmationBias = 0.35
	s.ReviewLapseRate = 0.3
	p0 := DefaultParams()
	e, err := Propose(s, p0, nil, now, nil)
	require.NoError(t, err)
	e.ID = "meta-1"

	p1, err := Apply(p0, e)
	require.NoError(t, err)
	require.InDelta(t, 0.4, p1.RetrievalDiversity, 1e-12)
	require.InDelta(t, 1.1, p1.ReviewAggressiveness, 1e-12)
	require.InDelta(t, 0.08, p1.Exploration, 1e-12)

	// Applying twice fails: the parameters no longer match From.
	_, err = Apply(p1, e)
	require.ErrorContains(t, err, "entry expects")

	back, err := Revert(p1, e)
	require.NoError(t, err)
	require.Equal(t, p0, back)

	inv := Inverse(e, now.Add(time.Hour))
	require.Equal(t, "meta-1", inv.RevertOf)
	require.Equal(t, now.Add(time.Hour), inv.At)
	require.Len(t, inv.Adjustments, len(e.Adjustments))

	// Revert refuses when something else changed a parameter since.
	p2 := p1
	p2.Exploration = 0.2
	got, err := Revert(p2, e)
	require.ErrorContains(t, err, "error reverting entry \"meta-1\"")
	require.Equal(t, p2, got, "unchanged on error")

	_, err = Apply(p0, Entry{Adjustments: []Adjustment{{Param: "mood", From: 0, To: 1}}})
	require.ErrorContains(t, err, "unknown parameter")

	// Entries round-trip through JSON for the metacog_event log.
	raw, err := json.Marshal(e)
	require.NoError(t, err)
	var decoded Entry
	require.NoError(t, json.Unmarshal(raw, &decoded))
	require.Equal(t, e, decoded)
}

func TestProposeStaysBoundedAndReversible(t *testing.T) {
	t.Parallel()
	bounds := DefaultBounds()
	for _, seed := range simstat.Seeds {
		rng := simstat.NewMulberry32(seed)
		p := DefaultParams()
		var log []Entry
		for step := range 50 {
			s := Signals{
				ConfirmationBias: rng.Float64(), RecencyBias: rng.Float64(), RetrievalEfficiency: rng.Float64(),
				ReviewLapseRate: rng.Float64(), ForgettingRegret: rng.Float64() * 0.3, Samples: 10 + rng.Intn(100),
			}
			at := now.Add(time.Duration(step) * 6 * time.Hour)
			e, err := Propose(s, p, log, at, nil)
			require.NoError(t, err)
			for _, a := range e.Adjustments {
				b := bounds[a.Param]
				require.LessOrEqual(t, math.Abs(a.To-a.From), b.MaxStep+1e-12)
				require.GreaterOrEqual(t, a.To, b.Min)
				require.LessOrEqual(t, a.To, b.Max)
			}
			next, err := Apply(p, e)
			require.NoError(t, err)
			undone, err := Revert(next, e)
			require.NoError(t, err)
			require.Equal(t, p, undone)
			p = next
			log = append(log, e)
		}
		// Unwinding the whole log in reverse restores the defaults.
		for i := len(log) - 1; i >= 0; i-- {
			var err error
			p, err = Revert(p, log[i])
			require.NoError(t, err)
		}
		want := DefaultParams()
		for _, name := range AllParams() {
			g, _ := p.Get(name)
			w, _ := want.Get(name)
			require.InDelta(t, w, g, 1e-9, "seed %d %s", seed, name)
		}
	}
}
