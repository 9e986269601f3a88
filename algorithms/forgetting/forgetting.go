package forgetting

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/zenbrain/zb/algorithms/layer"
)

// Day is 24 hours, the unit the formulas and defaults are stated in.
const Day = 24 * time.Hour

// Never is the effective stability and fade horizon of memories that never
// decay (the core layer), and the saturation value of durations that would
// overflow time.Duration (about 292 years).
const Never = time.Duration(math.MaxInt64)

const (
	// EmotionalMultiplierMin is the smallest m_emo, that of neutral content.
	EmotionalMultiplierMin = 1.0
	// EmotionalMultiplierMax is the cap of m_emo: emotional memories fade at
	// most three times slower.
	EmotionalMultiplierMax = 3.0
	// EmotionalGain is the slope 2 in m_emo = 1 + 2·max(|sentiment|, arousal,
	// significance).
	EmotionalGain = 2.0
)

// ArchiveThreshold is the retrievability below which a memory counts as faded
// (the archive candidate threshold of DESIGN.md §6).
const ArchiveThreshold = 0.1

const (
	// ShortStabilityDefault is the initial stability of working, short-term and
	// episodic memories: 1 day.
	ShortStabilityDefault = 1 * Day
	// LongStabilityDefault is the initial stability of semantic, procedural and
	// cross-context memories: 7 days.
	LongStabilityDefault = 7 * Day
	// MaxStabilityDefault caps S at 50 years, so that S_eff = 3·S still fits in
	// a time.Duration.
	MaxStabilityDefault = 50 * 365 * Day
	// maxStabilityLimit is the largest MaxStability whose S_eff cannot overflow.
	maxStabilityLimit = Never / 3

	// RecallBaseDefault is the base growth b of a used recall.
	RecallBaseDefault = 0.05
	// RecallSpacingGainDefault is the spacing gain k of a used recall.
	RecallSpacingGainDefault = 1.5
	// RecallMaxFactorDefault caps the growth factor of a used recall.
	RecallMaxFactorDefault = 2.0

	// ReviewBaseDefault is the base growth b of a successful review.
	ReviewBaseDefault = 0.3
	// ReviewSpacingGainDefault is the spacing gain k of a successful review.
	ReviewSpacingGainDefault = 2.0
	// ReviewMaxFactorDefault caps the growth factor of a successful review.
	ReviewMaxFactorDefault = 3.0

	// SleepGainDefault is the gain of sleep selection: S ← S·(1 + 0.5·TAG).
	SleepGainDefault = 0.5
)

var (
	// ErrUnknownLayer is returned for a layer name that is not one of the
	// seven layers.
	ErrUnknownLayer = errors.New("forgetting: unknown layer")
	// ErrNotFinite is returned when a numeric input is NaN or ±Inf.
	ErrNotFinite = errors.New("forgetting: value is NaN or infinite")
	// ErrOutOfRange is returned when a numeric input lies outside its
	// documented range.
	ErrOutOfRange = errors.New("forgetting: value out of range")
)

// Layer is one of the seven memory layers; it is [layer.Layer].
type Layer = layer.Layer

// The seven layers (aliases of the constants of package layer).
const (
	LayerWorking      = layer.Working
	LayerShortTerm    = layer.ShortTerm
	LayerEpisodic     = layer.Episodic
	LayerSemantic     = layer.Semantic
	LayerProcedural   = layer.Procedural
	LayerCore         = layer.Core
	LayerCrossContext = layer.CrossContext
)

func finite(name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("error checking %s (%v): %w", name, v, ErrNotFinite)
	}
	return nil
}

func inRange(name string, v, lo, hi float64) error {
	if err := finite(name, v); err != nil {
		return err
	}
	if v < lo || v > hi {
		return fmt.Errorf("error checking %s: %v not in [%v, %v]: %w", name, v, lo, hi, ErrOutOfRange)
	}
	return nil
}

// EmotionalMultiplier returns m_emo = clamp(1 + 2·max(|sentiment|, arousal,
// significance), 1, 3). Sentiment (valence) must lie in [−1, 1], arousal and
// significance in [0, 1]; NaN, ±Inf or values outside return an error.
func EmotionalMultiplier(sentiment, arousal, significance float64) (float64, error) {
	if err := inRange("sentiment", sentiment, -1, 1); err != nil {
		return 0, err
	}
	if err := inRange("arousal", arousal, 0, 1); err != nil {
		return 0, err
	}
	if err := inRange("significance", significance, 0, 1); err != nil {
		return 0, err
	}
	m := 1 + EmotionalGain*max(math.Abs(sentiment), arousal, significance)
	return min(max(m, EmotionalMultiplierMin), EmotionalMultiplierMax), nil
}

// scale returns d·f saturated at Never; d ≥ 0 and f ≥ 0 finite.
func scale(d time.Duration, f float64) time.Duration {
	x := float64(d) * f
	if x >= float64(Never) {
		return Never
	}
	return time.Duration(x)
}

// RetrievabilityAfter returns R = exp(−Δt/S_eff) for an elapsed time dt and an
// effective stability sEff. Documented values instead of errors, since it sits
// on the hot path of ranking: dt ≤ 0 (no time elapsed, or clock skew) gives 1;
// sEff == [Never] gives 1; sEff ≤ 0 with dt > 0 gives 0 (a trace without
// stability is gone as soon as time passes).
func RetrievabilityAfter(dt, sEff time.Duration) float64 {
	switch {
	case dt <= 0, sEff == Never:
		return 1
	case sEff <= 0:
		return 0
	}
	return math.Exp(-float64(dt) / float64(sEff))
}

// FadeAfter returns the elapsed time at which R = exp(−Δt/S_eff) falls to
// threshold: Δt = −S_eff·ln(threshold). The threshold must lie in (0, 1) and
// sEff must be positive; an sEff of [Never], or a result that would overflow,
// gives [Never].
func FadeAfter(sEff time.Duration, threshold float64) (time.Duration, error) {
	if err := finite("threshold", threshold); err != nil {
		return 0, err
	}
	if threshold <= 0 || threshold >= 1 {
		return 0, fmt.Errorf("error checking threshold: %v not in (0, 1): %w", threshold, ErrOutOfRange)
	}
	if sEff <= 0 {
		return 0, fmt.Errorf("error checking effective stability %v: must be positive: %w", sEff, ErrOutOfRange)
	}
	if sEff == Never {
		return Never, nil
	}
	return scale(sEff, -math.Log(threshold)), nil
}

// RecallMultiplier returns the floored retrievability f + (1 − f)·R that
// recall multiplies a score by (DESIGN.md §6): forgetting reorders results but
// never drives a score below the fraction f of its undecayed value. R and f are
// clamped to [0, 1]; NaN counts as 0.
func RecallMultiplier(r, floor float64) float64 {
	clamp01 := func(v float64) float64 {
		if math.IsNaN(v) {
			return 0
		}
		return min(max(v, 0), 1)
	}
	r, floor = clamp01(r), clamp01(floor)
	return floor + (1-floor)*r
}

// Params configures a [Model]. Zero fields take their defaults (WithDefaults);
// as a consequence a parameter cannot be set to exactly zero.
type Params struct {
	// ShortStability is the initial stability S of working, short-term and
	// episodic memories. Defaults to [ShortStabilityDefault] (1 day).
	ShortStability time.Duration
	// LongStability is the initial stability S of semantic, procedural and
	// cross-context memories. Defaults to [LongStabilityDefault] (7 days).
	LongStability time.Duration
	// MaxStability caps S after growth. Defaults to [MaxStabilityDefault]
	// (50 years); at most about 97 years, so that 3·S fits in a time.Duration.
	MaxStability time.Duration

	// RecallBase is b in the recall growth factor min(g_max, 1 + b + k·(1 − R)).
	// Defaults to [RecallBaseDefault] (0.05).
	RecallBase float64
	// RecallSpacingGain is k in the recall growth factor. Defaults to
	// [RecallSpacingGainDefault] (1.5).
	RecallSpacingGain float64
	// RecallMaxFactor is g_max of the recall growth factor, at least 1.
	// Defaults to [RecallMaxFactorDefault] (2).
	RecallMaxFactor float64

	// ReviewBase is b in the review growth factor. Defaults to
	// [ReviewBaseDefault] (0.3).
	ReviewBase float64
	// ReviewSpacingGain is k in the review growth factor. Defaults to
	// [ReviewSpacingGainDefault] (2).
	ReviewSpacingGain float64
	// ReviewMaxFactor is g_max of the review growth factor, at least 1.
	// Defaults to [ReviewMaxFactorDefault] (3).
	ReviewMaxFactor float64

	// SleepGain is the gain of sleep selection, S ← S·(1 + SleepGain·TAG) with
	// TAG clamped to [0, 1]. Defaults to [SleepGainDefault] (0.5).
	SleepGain float64
}

// DefaultParams returns the default parameters.
func DefaultParams() Params {
	var p *Params
	return p.WithDefaults()
}

// WithDefaults returns a copy of p with every zero field replaced by its
// default. A nil p yields [DefaultParams].
func (p *Params) WithDefaults() Params {
	var out Params
	if p != nil {
		out = *p
	}
	out.ShortStability = cmp.Or(out.ShortStability, ShortStabilityDefault)
	out.LongStability = cmp.Or(out.LongStability, LongStabilityDefault)
	out.MaxStability = cmp.Or(out.MaxStability, MaxStabilityDefault)
	out.RecallBase = cmp.Or(out.RecallBase, RecallBaseDefault)
	out.RecallSpacingGain = cmp.Or(out.RecallSpacingGain, RecallSpacingGainDefault)
	out.RecallMaxFactor = cmp.Or(out.RecallMaxFactor, RecallMaxFactorDefault)
	out.ReviewBase = cmp.Or(out.ReviewBase, ReviewBaseDefault)
	out.ReviewSpacingGain = cmp.Or(out.ReviewSpacingGain, ReviewSpacingGainDefault)
	out.ReviewMaxFactor = cmp.Or(out.ReviewMaxFactor, ReviewMaxFactorDefault)
	out.SleepGain = cmp.Or(out.SleepGain, SleepGainDefault)
	return out
}

// Validate reports the first invalid field of p, by name.
func (p Params) Validate() error {
	durations := []struct {
		name string
		v    time.Duration
	}{
		{"ShortStability", p.ShortStability},
		{"LongStability", p.LongStability},
		{"MaxStability", p.MaxStability},
	}
	for _, d := range durations {
		if d.v <= 0 || d.v > maxStabilityLimit {
			return fmt.Errorf("forgetting: Params.%s must be in (0, %v], got %v", d.name, maxStabilityLimit, d.v)
		}
	}
	if p.ShortStability > p.MaxStability || p.LongStability > p.MaxStability {
		return fmt.Errorf("forgetting: Params.MaxStability %v is below an initial stability", p.MaxStability)
	}
	factors := []struct {
		name   string
		v, min float64
	}{
		{"RecallBase", p.RecallBase, 0},
		{"RecallSpacingGain", p.RecallSpacingGain, 0},
		{"RecallMaxFactor", p.RecallMaxFactor, 1},
		{"ReviewBase", p.ReviewBase, 0},
		{"ReviewSpacingGain", p.ReviewSpacingGain, 0},
		{"ReviewMaxFactor", p.ReviewMaxFactor, 1},
		{"SleepGain", p.SleepGain, 0},
	}
	for _, f := range factors {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < f.min {
			return fmt.Errorf("forgetting: Params.%s must be finite and at least %v, got %v", f.name, f.min, f.v)
		}
	}
	return nil
}

// Model applies the forgetting model with a fixed set of [Params]. It holds no
// mutable state and is safe for concurrent use.
type Model struct {
	p Params
}

// NewModel returns a Model for p with defaults applied (a nil p means
// [DefaultParams]), or the error naming the first invalid field.
func NewModel(p *Params) (*Model, error) {
	params := p.WithDefaults()
	if err := params.Validate(); err != nil {
		return nil, err
	}
	return &Model{p: params}, nil
}

// Params returns the model's parameters, defaults applied.
func (m *Model) Params() Params { return m.p }

// InitialStability returns the initial stability S of a new memory of layer l:
// 1 day for working, short-term and episodic, 7 days for semantic, procedural
// and cross-context, and [Never] for core.
func (m *Model) InitialStability(l Layer) (time.Duration, error) {
	switch l {
	case LayerWorking, LayerShortTerm, LayerEpisodic:
		return m.p.ShortStability, nil
	case LayerSemantic, LayerProcedural, LayerCrossContext:
		return m.p.LongStability, nil
	case LayerCore:
		return Never, nil
	}
	return 0, fmt.Errorf("error choosing initial stability for layer %q: %w", string(l), ErrUnknownLayer)
}

// Trace is the forgetting state of one memory, as stored with it.
type Trace struct {
	// Layer is the memory's layer; core traces never decay.
	Layer Layer
	// Stability is the base stability S, positive. For core traces it is
	// ignored (NewTrace sets it to [Never]).
	Stability time.Duration
	// EmotionalMultiplier is m_emo in [1, 3] (see [EmotionalMultiplier]).
	EmotionalMultiplier float64
	// LastAccess is the time of the last access (creation, used recall or
	// review) from which Δt is measured.
	LastAccess time.Time
}

// NewTrace returns the trace of a memory of layer l created (or last accessed)
// at created, with its layer's initial stability and emotional multiplier
// mEmo in [1, 3].
func (m *Model) NewTrace(l Layer, created time.Time, mEmo float64) (Trace, error) {
	s, err := m.InitialStability(l)
	if err != nil {
		return Trace{}, err
	}
	t := Trace{Layer: l, Stability: s, EmotionalMultiplier: mEmo, LastAccess: created}
	if err := t.Validate(); err != nil {
		return Trace{}, err
	}
	return t, nil
}

// Validate reports whether t is usable: a known layer, m_emo in [1, 3], and
// for decaying layers a positive stability small enough that S·m_emo fits in a
// time.Duration.
func (t Trace) Validate() error {
	if !t.Layer.Valid() {
		return fmt.Errorf("error validating trace with layer %q: %w", string(t.Layer), ErrUnknownLayer)
	}
	if err := inRange("emotional multiplier", t.EmotionalMultiplier, EmotionalMultiplierMin, EmotionalMultiplierMax); err != nil {
		return err
	}
	if t.Layer.Decays() && (t.Stability <= 0 || t.Stability > maxStabilityLimit) {
		return fmt.Errorf("error validating trace: stability %v not in (0, %v]: %w", t.Stability, maxStabilityLimit, ErrOutOfRange)
	}
	return nil
}

// EffectiveStability returns S_eff = S·m_emo, or [Never] for core traces.
func (t Trace) EffectiveStability() (time.Duration, error) {
	if err := t.Validate(); err != nil {
		return 0, err
	}
	if !t.Layer.Decays() {
		return Never, nil
	}
	return scale(t.Stability, t.EmotionalMultiplier), nil
}

// Retrievability returns R = exp(−(now − LastAccess)/S_eff). Core traces
// always give 1, and so does a now before LastAccess (clock skew).
func (t Trace) Retrievability(now time.Time) (float64, error) {
	sEff, err := t.EffectiveStability()
	if err != nil {
		return 0, err
	}
	return RetrievabilityAfter(now.Sub(t.LastAccess), sEff), nil
}

// FadeAt returns the time at which R falls to threshold (in (0, 1)):
// LastAccess − S_eff·ln(threshold). The boolean is false, with a zero time,
// for core traces, which never fade.
func (t Trace) FadeAt(threshold float64) (time.Time, bool, error) {
	sEff, err := t.EffectiveStability()
	if err != nil {
		return time.Time{}, false, err
	}
	d, err := FadeAfter(sEff, threshold)
	if err != nil {
		return time.Time{}, false, err
	}
	if d == Never {
		return time.Time{}, false, nil
	}
	return t.LastAccess.Add(d), true, nil
}

// spacingFactor returns min(gMax, 1 + b + k·(1 − r)).
func spacingFactor(r, b, k, gMax float64) float64 {
	return min(gMax, 1+b+k*(1-r))
}

// grow multiplies the stability of t by g, capped at MaxStability.
func (m *Model) grow(t Trace, g float64) Trace {
	if !t.Layer.Decays() {
		return t
	}
	s := scale(t.Stability, g)
	t.Stability = min(max(s, t.Stability), max(m.p.MaxStability, t.Stability))
	return t
}

// touch moves LastAccess to now unless now is earlier (clock skew).
func touch(t Trace, now time.Time) Trace {
	if now.After(t.LastAccess) {
		t.LastAccess = now
	}
	return t
}

// RecallGrowth returns the stability growth factor of a used recall at
// retrievability r: min(RecallMaxFactor, 1 + RecallBase + RecallSpacingGain·(1 − r)).
// With the defaults it is 1.2 at r = 0.9, 1.8 at r = 0.5 and 2 (the cap) at
// r ≤ 0.3667. r must lie in [0, 1].
func (m *Model) RecallGrowth(r float64) (float64, error) {
	if err := inRange("retrievability", r, 0, 1); err != nil {
		return 0, err
	}
	return spacingFactor(r, m.p.RecallBase, m.p.RecallSpacingGain, m.p.RecallMaxFactor), nil
}

// ReviewGrowth returns the stability growth factor of a successful review at
// retrievability r: min(ReviewMaxFactor, 1 + ReviewBase + ReviewSpacingGain·(1 − r)).
// With the defaults it is 1.5 at r = 0.9, 2.3 at r = 0.5 and 3 (the cap) at
// r ≤ 0.15. r must lie in [0, 1].
func (m *Model) ReviewGrowth(r float64) (float64, error) {
	if err := inRange("retrievability", r, 0, 1); err != nil {
		return 0, err
	}
	return spacingFactor(r, m.p.ReviewBase, m.p.ReviewSpacingGain, m.p.ReviewMaxFactor), nil
}

// SleepGrowth returns the stability growth factor of selection in sleep,
// 1 + SleepGain·clamp(tag, 0, 1): 1.25 at the selection threshold TAG = 0.5
// and 1.5 at TAG ≥ 1 with the defaults. A NaN or infinite tag is an error.
func (m *Model) SleepGrowth(tag float64) (float64, error) {
	if err := finite("tag", tag); err != nil {
		return 0, err
	}
	return 1 + m.p.SleepGain*min(max(tag, 0), 1), nil
}

// Recall applies a used recall at now: S grows by [Model.RecallGrowth] of the
// retrievability at now, and LastAccess moves to now (unless now is earlier,
// in which case R is 1 and LastAccess stays). Core traces are returned
// unchanged apart from LastAccess.
func (m *Model) Recall(t Trace, now time.Time) (Trace, error) {
	r, err := t.Retrievability(now)
	if err != nil {
		return Trace{}, err
	}
	g, err := m.RecallGrowth(r)
	if err != nil {
		return Trace{}, err
	}
	return touch(m.grow(t, g), now), nil
}

// Review applies a successful review at now: S grows by [Model.ReviewGrowth]
// of the retrievability at now, and LastAccess moves to now as in
// [Model.Recall].
func (m *Model) Review(t Trace, now time.Time) (Trace, error) {
	r, err := t.Retrievability(now)
	if err != nil {
		return Trace{}, err
	}
	g, err := m.ReviewGrowth(r)
	if err != nil {
		return Trace{}, err
	}
	return touch(m.grow(t, g), now), nil
}

// Sleep applies selection in a sleep run with the memory's TAG: S grows by
// [Model.SleepGrowth]. Replay in sleep is not an access, so LastAccess is
// unchanged; R rises because S_eff grew.
func (m *Model) Sleep(t Trace, tag float64) (Trace, error) {
	if err := t.Validate(); err != nil {
		return Trace{}, err
	}
	g, err := m.SleepGrowth(tag)
	if err != nil {
		return Trace{}, err
	}
	return m.grow(t, g), nil
}
