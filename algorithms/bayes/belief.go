package bayes

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Default evidence parameters.
const (
	// PriorAlphaDefault is α of the uniform prior Beta(1, 1).
	PriorAlphaDefault = 1.0
	// PriorBetaDefault is β of the uniform prior Beta(1, 1).
	PriorBetaDefault = 1.0
	// ConfirmWeightDefault is the α added by one confirmation from a fully reliable source.
	ConfirmWeightDefault = 1.0
	// ContradictWeightDefault is the β added by one contradiction from a fully reliable source.
	ContradictWeightDefault = 1.0
	// IntervalLevel95 is the coverage of the interval returned by [Belief.Interval95].
	IntervalLevel95 = 0.95
)

// ErrInvalidInput reports a non-finite or out-of-range belief, evidence,
// link or parameter.
var ErrInvalidInput = errors.New("invalid bayes input")

// Belief is a Beta(α, β) belief that a fact is true. Both parameters must be
// positive and finite; the zero Belief is invalid, use [Prior].
type Belief struct {
	// Alpha is α, the pseudo-count of confirmations.
	Alpha float64 `json:"alpha"`
	// Beta is β, the pseudo-count of contradictions.
	Beta float64 `json:"beta"`
}

// Prior returns the uniform prior Beta(1, 1), mean 0.5.
func Prior() Belief { return Belief{Alpha: PriorAlphaDefault, Beta: PriorBetaDefault} }

// FromMean returns the Beta with mean m ∈ (0, 1) and evidence mass
// α + β = strength > 0, i.e. Beta(m·strength, (1 − m)·strength).
func FromMean(m, strength float64) (Belief, error) {
	if !finite(m) || m <= 0 || m >= 1 {
		return Belief{}, fmt.Errorf("%w: mean must be in (0, 1), got %v", ErrInvalidInput, m)
	}
	if !finite(strength) || strength <= 0 {
		return Belief{}, fmt.Errorf("%w: strength must be positive and finite, got %v", ErrInvalidInput, strength)
	}
	return Belief{Alpha: m * strength, Beta: (1 - m) * strength}, nil
}

// Validate returns an error wrapping ErrInvalidInput unless α and β are
// positive and finite.
func (b Belief) Validate() error {
	if !finite(b.Alpha) || b.Alpha <= 0 || !finite(b.Beta) || b.Beta <= 0 {
		return fmt.Errorf("%w: Beta parameters must be positive and finite, got α=%v β=%v", ErrInvalidInput, b.Alpha, b.Beta)
	}
	return nil
}

// Mean returns the point estimate α/(α + β), or NaN for an invalid belief.
func (b Belief) Mean() float64 {
	if b.Validate() != nil {
		return math.NaN()
	}
	return b.Alpha / (b.Alpha + b.Beta)
}

// Mass returns the evidence mass α + β.
func (b Belief) Mass() float64 { return b.Alpha + b.Beta }

// Interval is a central credible interval.
type Interval struct {
	// Lower is the lower bound.
	Lower float64 `json:"lower"`
	// Upper is the upper bound.
	Upper float64 `json:"upper"`
}

// Interval returns the central interval of coverage level ∈ (0, 1): the
// (1 − level)/2 and (1 + level)/2 quantiles of Beta(α, β).
func (b Belief) Interval(level float64) (Interval, error) {
	if err := b.Validate(); err != nil {
		return Interval{}, err
	}
	if !finite(level) || level <= 0 || level >= 1 {
		return Interval{}, fmt.Errorf("%w: interval level must be in (0, 1), got %v", ErrInvalidInput, level)
	}
	d := distuv.Beta{Alpha: b.Alpha, Beta: b.Beta}
	return Interval{Lower: d.Quantile((1 - level) / 2), Upper: d.Quantile((1 + level) / 2)}, nil
}

// Interval95 returns the central 95 % interval, or [0, 1] for an invalid belief.
func (b Belief) Interval95() Interval {
	iv, err := b.Interval(IntervalLevel95)
	if err != nil {
		return Interval{Lower: 0, Upper: 1}
	}
	return iv
}

// EvidenceKind says whether evidence confirms or contradicts a fact.
type EvidenceKind string

// Evidence kinds.
const (
	// Confirm is evidence that the fact is true.
	Confirm EvidenceKind = "confirm"
	// Contradict is evidence that the fact is false.
	Contradict EvidenceKind = "contradict"
)

// Evidence is one observation about a fact.
type Evidence struct {
	// Kind is Confirm or Contradict.
	Kind EvidenceKind `json:"kind"`
	// Reliability is the source's reliability q in [0, 1]; it scales the update.
	Reliability float64 `json:"reliability"`
}

// Observe returns b updated by ev with cfg's evidence weights (nil means the
// defaults): α += ConfirmWeight·q for a confirmation, β += ContradictWeight·q
// for a contradiction.
func (b Belief) Observe(ev Evidence, cfg *Config) (Belief, error) {
	c, err := cfg.effective()
	if err != nil {
		return b, err
	}
	if err := b.Validate(); err != nil {
		return b, fmt.Errorf("error observing evidence: %w", err)
	}
	if !finite(ev.Reliability) || ev.Reliability < 0 || ev.Reliability > 1 {
		return b, fmt.Errorf("error observing evidence: %w: reliability must be in [0, 1], got %v", ErrInvalidInput, ev.Reliability)
	}
	switch ev.Kind {
	case Confirm:
		b.Alpha += c.ConfirmWeight * ev.Reliability
	case Contradict:
		b.Beta += c.ContradictWeight * ev.Reliability
	default:
		return b, fmt.Errorf("error observing evidence: %w: unknown evidence kind %q", ErrInvalidInput, ev.Kind)
	}
	return b, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
