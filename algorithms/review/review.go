package review

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"time"

	fsrs "github.com/open-spaced-repetition/go-fsrs/v3"
)

var (
	// ErrInvalidGrade is returned for a grade outside Again..Easy.
	ErrInvalidGrade = errors.New("review: invalid grade")
	// ErrInvalidCard is returned for a card whose fields FSRS cannot use.
	ErrInvalidCard = errors.New("review: invalid card")
	// ErrDimensionMismatch is returned when two context vectors differ in length.
	ErrDimensionMismatch = errors.New("review: context vectors differ in dimension")
	// ErrNotFinite is returned when a context vector holds NaN or ±Inf.
	ErrNotFinite = errors.New("review: value is NaN or infinite")
)

// Grade is the outcome of a review, as in FSRS.
type Grade int8

// The four FSRS grades.
const (
	// Again means the memory was forgotten.
	Again Grade = Grade(fsrs.Again)
	// Hard means it was recalled with serious difficulty.
	Hard Grade = Grade(fsrs.Hard)
	// Good means it was recalled after some hesitation.
	Good Grade = Grade(fsrs.Good)
	// Easy means it was recalled effortlessly.
	Easy Grade = Grade(fsrs.Easy)
)

// Valid reports whether g is one of Again, Hard, Good, Easy.
func (g Grade) Valid() bool { return g >= Again && g <= Easy }

// String returns the FSRS name of g, or "unknown".
func (g Grade) String() string { return fsrs.Rating(g).String() }

// State is the FSRS learning state of a card. Its values equal fsrs.State.
type State int8

// The four FSRS states.
const (
	// StateNew is a card never reviewed.
	StateNew State = State(fsrs.New)
	// StateLearning is a card in its first, minute-scale learning steps.
	StateLearning State = State(fsrs.Learning)
	// StateReview is a card on day-scale review intervals.
	StateReview State = State(fsrs.Review)
	// StateRelearning is a card that lapsed and is in relearning steps.
	StateRelearning State = State(fsrs.Relearning)
)

// Valid reports whether s is one of the four states.
func (s State) Valid() bool { return s >= StateNew && s <= StateRelearning }

// String returns "new", "learning", "review", "relearning" or "unknown".
func (s State) String() string {
	switch s {
	case StateNew:
		return "new"
	case StateLearning:
		return "learning"
	case StateReview:
		return "review"
	case StateRelearning:
		return "relearning"
	}
	return "unknown"
}

// Card is the FSRS review state of one memory, as a plain value.
type Card struct {
	// Stability is the FSRS stability in days: the interval after which
	// FSRS's retrievability falls to 90 %. Zero for new cards.
	Stability float64
	// Difficulty is the FSRS difficulty in [1, 10]. Zero for new cards.
	Difficulty float64
	// Due is when the next review is due, vmPFC multiplier included.
	Due time.Time
	// Reps is the number of reviews so far.
	Reps uint64
	// Lapses is the number of times a card in review was forgotten.
	Lapses uint64
	// State is the FSRS state.
	State State
	// LastReview is the time of the last review; zero for new cards.
	LastReview time.Time
	// ElapsedDays is the number of whole days between the last two reviews.
	ElapsedDays uint64
	// ScheduledDays is the FSRS interval in whole days chosen at the last
	// review, before the vmPFC multiplier (Due includes it).
	ScheduledDays uint64
}

// NewCard returns a card that has never been reviewed.
func NewCard() Card { return CardFromFSRS(fsrs.NewCard()) }

// FSRS converts c to an fsrs.Card.
func (c Card) FSRS() fsrs.Card {
	return fsrs.Card{
		Due:           c.Due,
		Stability:     c.Stability,
		Difficulty:    c.Difficulty,
		ElapsedDays:   c.ElapsedDays,
		ScheduledDays: c.ScheduledDays,
		Reps:          c.Reps,
		Lapses:        c.Lapses,
		State:         fsrs.State(c.State),
		LastReview:    c.LastReview,
	}
}

// CardFromFSRS converts an fsrs.Card to a Card.
func CardFromFSRS(fc fsrs.Card) Card {
	return Card{
		Stability:     fc.Stability,
		Difficulty:    fc.Difficulty,
		Due:           fc.Due,
		Reps:          fc.Reps,
		Lapses:        fc.Lapses,
		State:         State(fc.State),
		LastReview:    fc.LastReview,
		ElapsedDays:   fc.ElapsedDays,
		ScheduledDays: fc.ScheduledDays,
	}
}

// Validate reports whether FSRS can review c: a known state, finite
// non-negative stability and difficulty, and for cards already reviewed a
// positive stability and a difficulty in [1, 10].
func (c Card) Validate() error {
	if !c.State.Valid() {
		return fmt.Errorf("error validating card: state %d: %w", c.State, ErrInvalidCard)
	}
	for _, v := range []float64{c.Stability, c.Difficulty} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("error validating card: stability %v, difficulty %v: %w", c.Stability, c.Difficulty, ErrInvalidCard)
		}
	}
	if c.State != StateNew && (c.Stability <= 0 || c.Difficulty < 1 || c.Difficulty > 10) {
		return fmt.Errorf("error validating %s card: stability %v, difficulty %v: %w", c.State, c.Stability, c.Difficulty, ErrInvalidCard)
	}
	return nil
}

// ReviewLog records one review.
type ReviewLog struct {
	// Grade is the grade given.
	Grade Grade
	// State is the card's state before the review.
	State State
	// ElapsedDays is the number of whole days since the previous review.
	ElapsedDays uint64
	// ScheduledDays is the card's FSRS interval in whole days before this review.
	ScheduledDays uint64
	// Reviewed is the time of the review.
	Reviewed time.Time
	// BaseInterval is the interval FSRS chose (its due minus the review time).
	BaseInterval time.Duration
	// Interval is the interval applied: BaseInterval·Multiplier, capped at
	// the larger of the maximum interval and BaseInterval.
	Interval time.Duration
	// Multiplier is the vmPFC multiplier applied; exactly 1 when vmPFC was
	// not applied.
	Multiplier float64
	// PredictionError is the context PE when contexts were given (even if the
	// multiplier was not applied); 0 otherwise.
	PredictionError float64
	// VMPFCApplied reports whether the vmPFC multiplier was applied: vmPFC
	// enabled, contexts given, and the review ended in the Review state.
	VMPFCApplied bool
}

// Defaults of [Config] and [VMPFCConfig].
const (
	// RequestRetentionDefault is the target retrievability FSRS schedules for.
	RequestRetentionDefault = 0.9
	// MaximumIntervalDaysDefault is the longest interval FSRS schedules.
	MaximumIntervalDaysDefault = 36500.0

	// VMPFCSteepnessDefault is the slope 6 of ρ = σ(6·(PE − 0.5)).
	VMPFCSteepnessDefault = 6.0
	// VMPFCThresholdDefault is the PE 0.5 at which ρ = ½ and the multiplier is 1.
	VMPFCThresholdDefault = 0.5
	// VMPFCGainDefault is the gain 0.6 of m = 1 + 0.6·(1 − 2ρ).
	VMPFCGainDefault = 0.6
	// VMPFCMinMultiplierDefault is the lower clamp 0.3 of the multiplier.
	VMPFCMinMultiplierDefault = 0.3
	// VMPFCMaxMultiplierDefault is the upper clamp 2.0 of the multiplier.
	VMPFCMaxMultiplierDefault = 2.0
	// NeutralPredictionError is the PE of contexts that carry no information
	// (empty or zero vectors): it yields ρ = ½ and a multiplier of exactly 1
	// with the default threshold.
	NeutralPredictionError = 0.5
)

// VMPFCConfig configures the vmPFC coupling. Zero fields take defaults.
type VMPFCConfig struct {
	// Disabled switches the coupling off: every review gets exactly the FSRS
	// interval. Defaults to false (enabled).
	Disabled bool
	// Steepness is s in ρ = σ(s·(PE − θ)). Defaults to 6.
	Steepness float64
	// Threshold is θ in ρ = σ(s·(PE − θ)). Defaults to 0.5.
	Threshold float64
	// Gain is g in m = 1 + g·(1 − 2ρ). Defaults to 0.6.
	Gain float64
	// MinMultiplier is the lower clamp of m. Defaults to 0.3.
	MinMultiplier float64
	// MaxMultiplier is the upper clamp of m. Defaults to 2.0.
	MaxMultiplier float64
}

// WithDefaults returns a copy of c with zero fields replaced by defaults.
func (c VMPFCConfig) WithDefaults() VMPFCConfig {
	c.Steepness = cmp.Or(c.Steepness, VMPFCSteepnessDefault)
	c.Threshold = cmp.Or(c.Threshold, VMPFCThresholdDefault)
	c.Gain = cmp.Or(c.Gain, VMPFCGainDefault)
	c.MinMultiplier = cmp.Or(c.MinMultiplier, VMPFCMinMultiplierDefault)
	c.MaxMultiplier = cmp.Or(c.MaxMultiplier, VMPFCMaxMultiplierDefault)
	return c
}

func (c VMPFCConfig) validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"Steepness", c.Steepness},
		{"Threshold", c.Threshold},
		{"Gain", c.Gain},
		{"MinMultiplier", c.MinMultiplier},
		{"MaxMultiplier", c.MaxMultiplier},
	} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("review: VMPFCConfig.%s must be finite, got %v", f.name, f.v)
		}
	}
	if c.MinMultiplier <= 0 || c.MaxMultiplier < c.MinMultiplier {
		return fmt.Errorf("review: VMPFCConfig needs 0 < MinMultiplier ≤ MaxMultiplier, got %v and %v", c.MinMultiplier, c.MaxMultiplier)
	}
	return nil
}

// ReencodingProbability returns ρ = σ(Steepness·(pe − Threshold)), the
// probability that reviewing in the current context re-encodes the memory.
// Call it on a config with defaults applied.
func (c VMPFCConfig) ReencodingProbability(pe float64) float64 {
	return 1 / (1 + math.Exp(-c.Steepness*(pe-c.Threshold)))
}

// Multiplier returns clamp(1 + Gain·(1 − 2ρ), MinMultiplier, MaxMultiplier)
// with ρ = [VMPFCConfig.ReencodingProbability](pe). A NaN pe gives 1. Call it
// on a config with defaults applied.
func (c VMPFCConfig) Multiplier(pe float64) float64 {
	if math.IsNaN(pe) {
		return 1
	}
	rho := c.ReencodingProbability(pe)
	return min(max(1+c.Gain*(1-2*rho), c.MinMultiplier), c.MaxMultiplier)
}

// PredictionError returns PE = clamp(1 − cos(a, b), 0, 1) between the context
// embedding at the last review (a) and the current one (b). Anti-correlated
// contexts count as fully changed (PE 1). If either vector is empty or has zero
// norm, the contexts carry no information and PE is [NeutralPredictionError].
// Vectors of different lengths return [ErrDimensionMismatch]; NaN or ±Inf
// components return [ErrNotFinite].
func PredictionError(a, b []float32) (float64, error) {
	if len(a) != len(b) && len(a) != 0 && len(b) != 0 {
		return 0, fmt.Errorf("error computing prediction error of %d- and %d-dimensional contexts: %w", len(a), len(b), ErrDimensionMismatch)
	}
	for _, v := range [][]float32{a, b} {
		for i, x := range v {
			f := float64(x)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return 0, fmt.Errorf("error computing prediction error: component %d is %v: %w", i, x, ErrNotFinite)
			}
		}
	}
	if len(a) == 0 || len(b) == 0 {
		return NeutralPredictionError, nil
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return NeutralPredictionError, nil
	}
	cos := dot / (math.Sqrt(na) * math.Sqrt(nb))
	return min(max(1-cos, 0), 1), nil
}

// Config configures a [Scheduler]. Zero fields take defaults.
type Config struct {
	// RequestRetention is the retrievability FSRS aims for at the due time,
	// in (0, 1). Defaults to [RequestRetentionDefault] (0.9).
	RequestRetention float64
	// MaximumIntervalDays caps FSRS intervals and the vmPFC-multiplied
	// interval, in days, at least 1. Defaults to
	// [MaximumIntervalDaysDefault] (36500).
	MaximumIntervalDays float64
	// Weights are the 19 FSRS weights. Nil means go-fsrs's defaults.
	Weights *fsrs.Weights
	// EnableFuzz turns on FSRS's deterministic interval fuzz. Defaults to
	// false.
	EnableFuzz bool
	// DisableShortTerm removes FSRS's minute-scale learning steps, so every
	// review schedules whole days. Defaults to false.
	DisableShortTerm bool
	// VMPFC configures the context coupling.
	VMPFC VMPFCConfig
}

// WithDefaults returns a copy of c with zero fields replaced by defaults. A
// nil c yields all defaults.
func (c *Config) WithDefaults() Config {
	var out Config
	if c != nil {
		out = *c
	}
	out.RequestRetention = cmp.Or(out.RequestRetention, RequestRetentionDefault)
	out.MaximumIntervalDays = cmp.Or(out.MaximumIntervalDays, MaximumIntervalDaysDefault)
	out.VMPFC = out.VMPFC.WithDefaults()
	return out
}

func (c Config) validate() error {
	if math.IsNaN(c.RequestRetention) || c.RequestRetention <= 0 || c.RequestRetention >= 1 {
		return fmt.Errorf("review: Config.RequestRetention must be in (0, 1), got %v", c.RequestRetention)
	}
	// The upper bound keeps interval·24h within a time.Duration.
	if math.IsNaN(c.MaximumIntervalDays) || c.MaximumIntervalDays < 1 || c.MaximumIntervalDays > 36500*2 {
		return fmt.Errorf("review: Config.MaximumIntervalDays must be in [1, 73000], got %v", c.MaximumIntervalDays)
	}
	if c.Weights != nil {
		for i, w := range c.Weights {
			if math.IsNaN(w) || math.IsInf(w, 0) {
				return fmt.Errorf("review: Config.Weights[%d] must be finite, got %v", i, w)
			}
		}
	}
	return c.VMPFC.validate()
}

// Scheduler reviews cards with FSRS and the vmPFC coupling. It holds no
// mutable state and is safe for concurrent use (go-fsrs's FSRS value is not,
// so each review uses a fresh one).
type Scheduler struct {
	cfg    Config
	params fsrs.Parameters
}

// NewScheduler returns a Scheduler for cfg with defaults applied (nil means
// all defaults), or an error naming the first invalid field.
func NewScheduler(cfg *Config) (*Scheduler, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	p := fsrs.DefaultParam()
	p.RequestRetention = c.RequestRetention
	p.MaximumInterval = c.MaximumIntervalDays
	if c.Weights != nil {
		p.W = *c.Weights
	}
	p.EnableFuzz = c.EnableFuzz
	p.EnableShortTerm = !c.DisableShortTerm
	return &Scheduler{cfg: c, params: p}, nil
}

// Config returns the scheduler's configuration, defaults applied.
func (s *Scheduler) Config() Config { return s.cfg }

// Review applies one review graded grade at now with plain FSRS: the vmPFC
// multiplier is not applied since no contexts are given. A now earlier than
// the card's last review (clock skew) counts as no elapsed time.
func (s *Scheduler) Review(card Card, grade Grade, now time.Time) (Card, ReviewLog, error) {
	return s.review(card, grade, now, nil)
}

// ReviewInContext applies one review graded grade at now, and, when vmPFC is
// enabled and the review ends in the Review state, multiplies the FSRS
// interval by the vmPFC multiplier of PE(contextAtLastReview, contextNow). The
// caller stores contextNow as the new context of the card.
func (s *Scheduler) ReviewInContext(card Card, grade Grade, now time.Time, contextAtLastReview, contextNow []float32) (Card, ReviewLog, error) {
	pe, err := PredictionError(contextAtLastReview, contextNow)
	if err != nil {
		return Card{}, ReviewLog{}, err
	}
	return s.review(card, grade, now, &pe)
}

func (s *Scheduler) review(card Card, grade Grade, now time.Time, pe *float64) (Card, ReviewLog, error) {
	if !grade.Valid() {
		return Card{}, ReviewLog{}, fmt.Errorf("error reviewing card with grade %d: %w", grade, ErrInvalidGrade)
	}
	if err := card.Validate(); err != nil {
		return Card{}, ReviewLog{}, err
	}
	in := card.FSRS()
	if !in.LastReview.IsZero() && now.Before(in.LastReview) {
		// go-fsrs would convert the negative elapsed days to a huge uint64.
		in.LastReview = now
	}
	// A fresh FSRS per call: go-fsrs writes its fuzz seed into Parameters.
	info := fsrs.NewFSRS(s.params).Next(in, now, fsrs.Rating(grade))
	out := CardFromFSRS(info.Card)
	if err := out.Validate(); err != nil {
		// Only reachable with custom weights that drive FSRS out of range.
		return Card{}, ReviewLog{}, fmt.Errorf("error reviewing card: FSRS produced an invalid card: %w", err)
	}
	base := out.Due.Sub(now)
	log := ReviewLog{
		Grade:         grade,
		State:         State(info.ReviewLog.State),
		ElapsedDays:   info.ReviewLog.ElapsedDays,
		ScheduledDays: card.ScheduledDays,
		Reviewed:      now,
		BaseInterval:  base,
		Interval:      base,
		Multiplier:    1,
	}
	if pe != nil {
		log.PredictionError = *pe
	}
	if pe == nil || s.cfg.VMPFC.Disabled || out.State != StateReview {
		return out, log, nil
	}
	m := s.cfg.VMPFC.Multiplier(*pe)
	maxInterval := time.Duration(s.cfg.MaximumIntervalDays * float64(24*time.Hour))
	// FSRS's own Easy interval can exceed its maximum by a day; the
	// multiplier never pushes past the larger of the two.
	interval := time.Duration(min(float64(base)*m, float64(max(maxInterval, base))))
	out.Due = now.Add(interval)
	log.Interval = interval
	log.Multiplier = m
	log.VMPFCApplied = true
	return out, log, nil
}

// Retrievability returns FSRS's retrievability of card at now (its power
// forgetting curve), 0 for new cards. A now before the last review gives 1.
func (s *Scheduler) Retrievability(card Card, now time.Time) (float64, error) {
	if err := card.Validate(); err != nil {
		return 0, err
	}
	if card.State != StateNew && now.Before(card.LastReview) {
		return 1, nil
	}
	f := fsrs.NewFSRS(s.params)
	return f.GetRetrievability(card.FSRS(), now), nil
}
