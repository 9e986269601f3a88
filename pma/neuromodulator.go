package pma

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"time"
)

// Defaults of [NeuromodulatorConfig].
const (
	// NeuromodulatorBaselineDefault is the tonic baseline every channel is
	// pulled back to.
	NeuromodulatorBaselineDefault = 0.5
	// NeuromodulatorPullDefault is the homeostatic factor: each tick the tonic
	// level becomes baseline + 0.95·(level − baseline).
	NeuromodulatorPullDefault = 0.95
	// NeuromodulatorTickDefault is the length of one homeostatic tick; with
	// the 0.95 pull a tonic deviation halves in about 68 minutes, so the tonic
	// level is a mood over the last hour while phasic bursts last minutes.
	NeuromodulatorTickDefault = 5 * time.Minute
	// NeuromodulatorHalfLifeDefault is the half-life of phasic bursts.
	NeuromodulatorHalfLifeDefault = 5 * time.Minute
	// NeuromodulatorTonicShareDefault is the share of each burst that also
	// moves the tonic level (the slow trace that homeostasis pulls back).
	NeuromodulatorTonicShareDefault = 0.1
	// NeuromodulatorOppositionDefault is the DA–5HT opposition: a rise of x in
	// one of the two pushes the other down by 0.3·x.
	NeuromodulatorOppositionDefault = 0.3
)

// Levels holds one value per neuromodulator channel. Depending on where it
// appears it is a level in [0, 1], a phasic component in [−1, 1] or a
// per-event delta.
type Levels struct {
	// DA is dopamine: reward, novelty, drive to explore.
	DA float64 `json:"da"`
	// NE is noradrenaline: arousal, surprise, prediction error.
	NE float64 `json:"ne"`
	// Serotonin is 5HT: patience, stability, satisfaction with the status quo.
	Serotonin float64 `json:"serotonin"`
	// ACh is acetylcholine: attention to incoming information.
	ACh float64 `json:"ach"`
}

func (l Levels) array() [4]float64 { return [4]float64{l.DA, l.NE, l.Serotonin, l.ACh} }

func levelsFrom(a [4]float64) Levels { return Levels{DA: a[0], NE: a[1], Serotonin: a[2], ACh: a[3]} }

// BaselineLevels returns all four channels at [NeuromodulatorBaselineDefault].
func BaselineLevels() Levels {
	b := NeuromodulatorBaselineDefault
	return Levels{DA: b, NE: b, Serotonin: b, ACh: b}
}

// Validate returns an error unless every channel is a finite value in [0, 1].
func (l Levels) Validate() error {
	names := [4]string{"DA", "NE", "5HT", "ACh"}
	for i, v := range l.array() {
		if err := checkUnit("neuromodulator level "+names[i], v); err != nil {
			return err
		}
	}
	return nil
}

// EventType names a kind of event that causes a phasic neuromodulator burst.
type EventType string

// The event types the engine understands. Their per-channel deltas are in
// [DefaultEventDeltas].
const (
	// EventNovelty is new, unfamiliar information (a stored memory unlike any
	// other, a novelty window opening).
	EventNovelty EventType = "novelty"
	// EventPredictionError is a recall or review whose outcome differed from
	// the expectation (a reconsolidation with a high prediction error).
	EventPredictionError EventType = "prediction_error"
	// EventReward is a recalled memory that was used, a successful procedure.
	EventReward EventType = "reward"
	// EventRejection is a recalled memory or suggestion the user rejected.
	EventRejection EventType = "rejection"
	// EventRoutine is an expected, repetitive interaction.
	EventRoutine EventType = "routine"
	// EventConfirmation is new information that confirmed a stored memory.
	EventConfirmation EventType = "confirmation"
	// EventStableFocus is sustained work on one topic.
	EventStableFocus EventType = "stable_focus"
	// EventExploration is a query into an unfamiliar area.
	EventExploration EventType = "exploration"
	// EventContextSwitch is a change of context or topic.
	EventContextSwitch EventType = "context_switch"
)

// EventTypes returns all event types in a fixed order.
func EventTypes() []EventType {
	return []EventType{
		EventNovelty, EventPredictionError, EventReward, EventRejection, EventRoutine,
		EventConfirmation, EventStableFocus, EventExploration, EventContextSwitch,
	}
}

// DefaultEventDeltas returns a fresh copy of the per-channel deltas of one
// event of magnitude 1, before the DA–5HT opposition and the headroom scaling
// described at [NeuromodulatorEngine.Apply]:
//
//	event             DA     NE     5HT    ACh
//	novelty          +0.40  +0.20   0     +0.20
//	prediction_error +0.10  +0.40   0     +0.10
//	reward           +0.50   0      0      0
//	rejection        −0.30  +0.30   0      0
//	routine          −0.10  −0.10  +0.20   0
//	confirmation     +0.10  −0.10  +0.20   0
//	stable_focus      0     −0.10  +0.30  +0.30
//	exploration      +0.30  +0.10   0     −0.10
//	context_switch    0     +0.30  −0.10  +0.30
//
// The table is this package's own: surprise (novelty, prediction error,
// rejection, context switch) raises NE; reward, novelty and exploration raise
// DA; routine, confirmation and stable focus raise 5HT; novelty, focus and
// context switches raise ACh. A DA rise also lowers 5HT (and vice versa)
// through the opposition, so novelty and reward lower 5HT without a table
// entry.
func DefaultEventDeltas() map[EventType]Levels {
	return map[EventType]Levels{
		EventNovelty:         {DA: 0.40, NE: 0.20, Serotonin: 0, ACh: 0.20},
		EventPredictionError: {DA: 0.10, NE: 0.40, Serotonin: 0, ACh: 0.10},
		EventReward:          {DA: 0.50, NE: 0, Serotonin: 0, ACh: 0},
		EventRejection:       {DA: -0.30, NE: 0.30, Serotonin: 0, ACh: 0},
		EventRoutine:         {DA: -0.10, NE: -0.10, Serotonin: 0.20, ACh: 0},
		EventConfirmation:    {DA: 0.10, NE: -0.10, Serotonin: 0.20, ACh: 0},
		EventStableFocus:     {DA: 0, NE: -0.10, Serotonin: 0.30, ACh: 0.30},
		EventExploration:     {DA: 0.30, NE: 0.10, Serotonin: 0, ACh: -0.10},
		EventContextSwitch:   {DA: 0, NE: 0.30, Serotonin: -0.10, ACh: 0.30},
	}
}

// Event is one typed occurrence that causes a phasic burst.
type Event struct {
	// Type selects the row of the delta table.
	Type EventType `json:"type"`
	// Magnitude scales the deltas; it must be in [0, 1].
	Magnitude float64 `json:"magnitude"`
	// At is when the event happened.
	At time.Time `json:"at"`
}

// NeuromodulatorConfig holds the parameters of a [NeuromodulatorEngine]. A
// zero field takes its default.
type NeuromodulatorConfig struct {
	// Baseline is the tonic level every channel returns to. Defaults to
	// [NeuromodulatorBaselineDefault] (0.5). Must be in (0, 1).
	Baseline float64
	// Pull is the homeostatic factor per tick. Defaults to
	// [NeuromodulatorPullDefault] (0.95). Must be in (0, 1).
	Pull float64
	// Tick is the length of one homeostatic tick. Defaults to
	// [NeuromodulatorTickDefault] (5 minutes).
	Tick time.Duration
	// HalfLife is the half-life of phasic components. Defaults to
	// [NeuromodulatorHalfLifeDefault] (5 minutes).
	HalfLife time.Duration
	// TonicShare is the fraction of each burst added to the tonic level.
	// Defaults to [NeuromodulatorTonicShareDefault] (0.1). Must be in (0, 1].
	TonicShare float64
	// Opposition is the DA–5HT opposition coefficient. Defaults to
	// [NeuromodulatorOppositionDefault] (0.3). Must be in (0, 1].
	Opposition float64
	// Deltas is the per-event delta table. Defaults to [DefaultEventDeltas]
	// when nil. Every delta must be finite and within [−1, 1].
	Deltas map[EventType]Levels
}

// WithDefaults returns a copy of c with every zero field set to its default.
func (c *NeuromodulatorConfig) WithDefaults() *NeuromodulatorConfig {
	if c == nil {
		c = &NeuromodulatorConfig{}
	}
	out := &NeuromodulatorConfig{
		Baseline:   cmp.Or(c.Baseline, NeuromodulatorBaselineDefault),
		Pull:       cmp.Or(c.Pull, NeuromodulatorPullDefault),
		Tick:       cmp.Or(c.Tick, NeuromodulatorTickDefault),
		HalfLife:   cmp.Or(c.HalfLife, NeuromodulatorHalfLifeDefault),
		TonicShare: cmp.Or(c.TonicShare, NeuromodulatorTonicShareDefault),
		Opposition: cmp.Or(c.Opposition, NeuromodulatorOppositionDefault),
		Deltas:     maps.Clone(c.Deltas),
	}
	if out.Deltas == nil {
		out.Deltas = DefaultEventDeltas()
	}
	return out
}

func (c *NeuromodulatorConfig) validate() error {
	switch {
	case !finite(c.Baseline) || c.Baseline <= 0 || c.Baseline >= 1:
		return invalidf("NeuromodulatorConfig.Baseline must be in (0, 1), got %v", c.Baseline)
	case !finite(c.Pull) || c.Pull <= 0 || c.Pull >= 1:
		return invalidf("NeuromodulatorConfig.Pull must be in (0, 1), got %v", c.Pull)
	case c.Tick <= 0:
		return invalidf("NeuromodulatorConfig.Tick must be positive, got %v", c.Tick)
	case c.HalfLife <= 0:
		return invalidf("NeuromodulatorConfig.HalfLife must be positive, got %v", c.HalfLife)
	case !finite(c.TonicShare) || c.TonicShare <= 0 || c.TonicShare > 1:
		return invalidf("NeuromodulatorConfig.TonicShare must be in (0, 1], got %v", c.TonicShare)
	case !finite(c.Opposition) || c.Opposition <= 0 || c.Opposition > 1:
		return invalidf("NeuromodulatorConfig.Opposition must be in (0, 1], got %v", c.Opposition)
	}
	for _, t := range slices.Sorted(maps.Keys(c.Deltas)) {
		for _, v := range c.Deltas[t].array() {
			if !finite(v) || v < -1 || v > 1 {
				return invalidf("NeuromodulatorConfig.Deltas[%s] must be in [-1, 1], got %v", t, v)
			}
		}
	}
	return nil
}

// NeuromodulatorState is the persisted neuromodulator state of one tenant, one
// field per column of the `neuromodulator_state` row. Phasic components are
// the sum of all bursts decayed to UpdatedAt (exponential decay is linear, so
// one number per channel carries every burst exactly).
type NeuromodulatorState struct {
	// TenantID identifies the tenant the state belongs to.
	TenantID string `json:"tenant_id"`
	// TonicDA is the tonic dopamine level in [0, 1] as of LastTickAt.
	TonicDA float64 `json:"tonic_da"`
	// TonicNE is the tonic noradrenaline level in [0, 1] as of LastTickAt.
	TonicNE float64 `json:"tonic_ne"`
	// TonicSerotonin is the tonic 5HT level in [0, 1] as of LastTickAt.
	TonicSerotonin float64 `json:"tonic_serotonin"`
	// TonicACh is the tonic acetylcholine level in [0, 1] as of LastTickAt.
	TonicACh float64 `json:"tonic_ach"`
	// PhasicDA is the phasic dopamine component as of UpdatedAt.
	PhasicDA float64 `json:"phasic_da"`
	// PhasicNE is the phasic noradrenaline component as of UpdatedAt.
	PhasicNE float64 `json:"phasic_ne"`
	// PhasicSerotonin is the phasic 5HT component as of UpdatedAt.
	PhasicSerotonin float64 `json:"phasic_serotonin"`
	// PhasicACh is the phasic acetylcholine component as of UpdatedAt.
	PhasicACh float64 `json:"phasic_ach"`
	// LastTickAt is the end of the last homeostatic tick applied to the tonic
	// levels.
	LastTickAt time.Time `json:"last_tick_at"`
	// UpdatedAt is the time the phasic components refer to.
	UpdatedAt time.Time `json:"updated_at"`
}

// Tonic returns the tonic levels as of LastTickAt.
func (s NeuromodulatorState) Tonic() Levels {
	return Levels{DA: s.TonicDA, NE: s.TonicNE, Serotonin: s.TonicSerotonin, ACh: s.TonicACh}
}

// Phasic returns the phasic components as of UpdatedAt.
func (s NeuromodulatorState) Phasic() Levels {
	return Levels{DA: s.PhasicDA, NE: s.PhasicNE, Serotonin: s.PhasicSerotonin, ACh: s.PhasicACh}
}

func (s *NeuromodulatorState) setTonic(l Levels) {
	s.TonicDA, s.TonicNE, s.TonicSerotonin, s.TonicACh = l.DA, l.NE, l.Serotonin, l.ACh
}

func (s *NeuromodulatorState) setPhasic(l Levels) {
	s.PhasicDA, s.PhasicNE, s.PhasicSerotonin, s.PhasicACh = l.DA, l.NE, l.Serotonin, l.ACh
}

func (s NeuromodulatorState) validate() error {
	if err := s.Tonic().Validate(); err != nil {
		return err
	}
	for _, v := range s.Phasic().array() {
		if !finite(v) || v < -1 || v > 1 {
			return invalidf("phasic component must be in [-1, 1], got %v", v)
		}
	}
	if s.LastTickAt.IsZero() || s.UpdatedAt.IsZero() {
		return invalidf("neuromodulator state of tenant %q has a zero timestamp; create it with NewState", s.TenantID)
	}
	return nil
}

// NeuromodulatorOutputs are the four control signals derived from the
// effective levels. Each is neutral at the baseline.
type NeuromodulatorOutputs struct {
	// LearningRate is a multiplier for learning rates (Hebbian η, stability
	// growth): 0.5 + NE, in [0.5, 1.5], 1 at baseline.
	LearningRate float64 `json:"learning_rate"`
	// ExplorationBias is a signed bias toward exploration (diversity in
	// recall, counterfactuals in sleep): DA − 0.5, in [−0.5, 0.5], 0 at
	// baseline.
	ExplorationBias float64 `json:"exploration_bias"`
	// ConsolidationPatience is a multiplier for how long and how selectively
	// consolidation waits (thresholds and intervals): 0.5 + 5HT, in
	// [0.5, 1.5], 1 at baseline.
	ConsolidationPatience float64 `json:"consolidation_patience"`
	// AttentionRatio is the share of attention given to incoming information
	// over stored context (for example the fraction of a context budget given
	// to recent working memory): ACh, in [0, 1], 0.5 at baseline.
	AttentionRatio float64 `json:"attention_ratio"`
}

// NeutralOutputs returns the outputs at baseline levels, which is also what a
// tenant with the neuromodulator switched off uses.
func NeutralOutputs() NeuromodulatorOutputs {
	return OutputsFor(BaselineLevels())
}

// OutputsFor maps levels to outputs with the formulas documented at
// [NeuromodulatorOutputs]. Levels outside [0, 1] are clamped first; NaN
// levels count as the baseline 0.5.
func OutputsFor(l Levels) NeuromodulatorOutputs {
	fix := func(x float64) float64 {
		if math.IsNaN(x) {
			return NeuromodulatorBaselineDefault
		}
		return clamp01(x)
	}
	return NeuromodulatorOutputs{
		LearningRate:          0.5 + fix(l.NE),
		ExplorationBias:       fix(l.DA) - 0.5,
		ConsolidationPatience: 0.5 + fix(l.Serotonin),
		AttentionRatio:        fix(l.ACh),
	}
}

// NeuromodulatorEngine advances and queries [NeuromodulatorState] values.
//
// The effective level of a channel at time t is
//
//	level(t) = clamp(tonic(t) + phasic·2^(−(t − UpdatedAt)/HalfLife), 0, 1)
//
// where tonic(t) applies n = ⌊(t − LastTickAt)/Tick⌋ homeostatic ticks
// tonic ← baseline + Pull·(tonic − baseline) to the stored tonic level. The
// engine holds only its configuration and is safe for concurrent use.
type NeuromodulatorEngine struct {
	cfg NeuromodulatorConfig
}

// NewNeuromodulatorEngine returns an engine with cfg (nil means all defaults).
func NewNeuromodulatorEngine(cfg *NeuromodulatorConfig) (*NeuromodulatorEngine, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &NeuromodulatorEngine{cfg: *c}, nil
}

// Config returns a copy of the engine's configuration with defaults applied.
func (e *NeuromodulatorEngine) Config() NeuromodulatorConfig {
	c := e.cfg
	c.Deltas = maps.Clone(c.Deltas)
	return c
}

// NewState returns the state of a tenant that has seen no events: every tonic
// level at the baseline, no phasic component, both timestamps at now.
func (e *NeuromodulatorEngine) NewState(tenantID string, now time.Time) NeuromodulatorState {
	s := NeuromodulatorState{TenantID: tenantID, LastTickAt: now, UpdatedAt: now}
	b := e.cfg.Baseline
	s.setTonic(Levels{DA: b, NE: b, Serotonin: b, ACh: b})
	return s
}

// Advance returns s moved forward to now: whole homeostatic ticks applied to
// the tonic levels (LastTickAt advances by whole ticks only, so calling
// Advance often or rarely gives the same result), phasic components decayed to
// now. A now earlier than UpdatedAt is treated as UpdatedAt (events that
// arrive out of order apply without time passing); an invalid state returns
// an error.
func (e *NeuromodulatorEngine) Advance(s NeuromodulatorState, now time.Time) (NeuromodulatorState, error) {
	if err := s.validate(); err != nil {
		return s, err
	}
	return e.advance(s, now), nil
}

func (e *NeuromodulatorEngine) advance(s NeuromodulatorState, now time.Time) NeuromodulatorState {
	if now.After(s.LastTickAt) {
		n := int64(now.Sub(s.LastTickAt) / e.cfg.Tick)
		if n > 0 {
			f := math.Pow(e.cfg.Pull, float64(n))
			t := s.Tonic().array()
			for i := range t {
				t[i] = clamp01(e.cfg.Baseline + f*(t[i]-e.cfg.Baseline))
			}
			s.setTonic(levelsFrom(t))
			s.LastTickAt = s.LastTickAt.Add(time.Duration(n) * e.cfg.Tick)
		}
	}
	if now.After(s.UpdatedAt) {
		f := e.decay(now.Sub(s.UpdatedAt))
		p := s.Phasic().array()
		for i := range p {
			p[i] *= f
		}
		s.setPhasic(levelsFrom(p))
		s.UpdatedAt = now
	}
	return s
}

// decay returns 2^(−d/HalfLife).
func (e *NeuromodulatorEngine) decay(d time.Duration) float64 {
	return math.Exp2(-d.Seconds() / e.cfg.HalfLife.Seconds())
}

// effective returns clamp(tonic + phasic) of a state already advanced.
func effective(s NeuromodulatorState) Levels {
	t, p := s.Tonic().array(), s.Phasic().array()
	var out [4]float64
	for i := range out {
		out[i] = clamp01(t[i] + p[i])
	}
	return levelsFrom(out)
}

// Levels returns the effective levels of s at now without changing s.
func (e *NeuromodulatorEngine) Levels(s NeuromodulatorState, now time.Time) (Levels, error) {
	if err := s.validate(); err != nil {
		return Levels{}, err
	}
	return effective(e.advance(s, now)), nil
}

// PhasicAt returns the phasic components of s decayed to now.
func (e *NeuromodulatorEngine) PhasicAt(s NeuromodulatorState, now time.Time) (Levels, error) {
	if err := s.validate(); err != nil {
		return Levels{}, err
	}
	return e.advance(s, now).Phasic(), nil
}

// Outputs returns the control outputs of s at now (see [OutputsFor]).
func (e *NeuromodulatorEngine) Outputs(s NeuromodulatorState, now time.Time) (NeuromodulatorOutputs, error) {
	l, err := e.Levels(s, now)
	if err != nil {
		return NeuromodulatorOutputs{}, err
	}
	return OutputsFor(l), nil
}

// Apply returns s after ev. The state is first advanced to ev.At (see
// [NeuromodulatorEngine.Advance]). Then, with L the effective levels at that
// moment and d the table deltas of ev.Type:
//
//  1. raw rise r_c = Magnitude·d_c, scaled by headroom: r_c·(1 − L_c) when
//     positive, r_c·L_c when negative, so bursts saturate instead of
//     overshooting [0, 1];
//  2. DA–5HT opposition on the realised rises: Δ_DA = r_DA − 0.3·max(0, r_5HT)
//     and Δ_5HT = r_5HT − 0.3·max(0, r_DA);
//  3. the effective level moves to clamp(L_c + Δ_c): the tonic level takes
//     TonicShare (10 %) of the change, tonic_c ← clamp(tonic_c + 0.1·Δ_c), and
//     the phasic component the rest, so the burst's immediate effect is Δ_c,
//     90 % of it fades with the 5-minute half-life and 10 % lingers in the
//     tonic level until homeostasis pulls it back. Tonic + phasic always
//     stays in [0, 1] (no hidden debt below 0 or above 1).
//
// An unknown event type, a magnitude outside [0, 1] or NaN, a zero At or an
// invalid state returns an error and s unchanged.
func (e *NeuromodulatorEngine) Apply(s NeuromodulatorState, ev Event) (NeuromodulatorState, error) {
	if err := s.validate(); err != nil {
		return s, err
	}
	d, ok := e.cfg.Deltas[ev.Type]
	if !ok {
		return s, invalidf("unknown neuromodulator event type %q", ev.Type)
	}
	if err := checkUnit("event magnitude", ev.Magnitude); err != nil {
		return s, err
	}
	if ev.At.IsZero() {
		return s, invalidf("event %q has a zero time", ev.Type)
	}
	s = e.advance(s, ev.At)
	level := effective(s).array()
	r := d.array()
	for i := range r {
		r[i] *= ev.Magnitude
		if r[i] > 0 {
			r[i] *= 1 - level[i]
		} else {
			r[i] *= level[i]
		}
	}
	const da, sht = 0, 2
	rDA, rSHT := r[da], r[sht]
	r[da] = rDA - e.cfg.Opposition*math.Max(0, rSHT)
	r[sht] = rSHT - e.cfg.Opposition*math.Max(0, rDA)

	t, p := s.Tonic().array(), s.Phasic().array()
	for i := range t {
		target := clamp01(t[i] + p[i] + r[i])
		t[i] = clamp01(t[i] + e.cfg.TonicShare*r[i])
		p[i] = target - t[i]
	}
	s.setTonic(levelsFrom(t))
	s.setPhasic(levelsFrom(p))
	return s, nil
}
