package hebbian

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"time"
)

// Default parameters of the Two-Factor model (DESIGN.md §6, reference notes §4.7).
const (
	// LearningRateDefault is η, the Hebbian learning rate: Δw = η·t·a.
	LearningRateDefault = 0.1
	// MaturationRateDefault is β, the fraction by which an activation shrinks the variance at k = 0.
	MaturationRateDefault = 0.15
	// MaturationSlowdownDefault is the c in n(k) = 1/(1 + c·k), which makes later activations mature the edge less.
	MaturationSlowdownDefault = 0.1
	// InitialVarianceDefault is σ² of a fresh edge, giving importance 1.
	InitialVarianceDefault = 1.0
	// MinVarianceDefault is the variance floor σ²min, giving a maximum importance of 100.
	MinVarianceDefault = 0.01
	// MinWeightDefault is the lower clip of an updated weight.
	MinWeightDefault = 0.05
	// MaxWeightDefault is the upper clip of an updated weight.
	MaxWeightDefault = 10.0
	// PruneThresholdDefault is ε: an edge whose decayed weight is below it is prunable.
	PruneThresholdDefault = 0.05
	// DecayRateDefault is r, the base decay rate per day of a fresh edge's weight.
	DecayRateDefault = 0.02
	// DecayImportanceGateDefault is the g in r_eff = r/(1 + g·I).
	DecayImportanceGateDefault = 0.1
	// EWCLambdaDefault is λ of the elastic weight consolidation penalty (λ/2)·I·Δw².
	EWCLambdaDefault = 0.5
)

// maxHorizon bounds predicted prune times so they fit in a time.Duration.
const maxHorizon = 200 * 365 * 24 * time.Hour

// Errors returned for bad input. They are wrapped with the operation and field.
var (
	// ErrInvalidConfig reports a configuration value out of its range.
	ErrInvalidConfig = errors.New("invalid hebbian config")
	// ErrInvalidEdge reports an edge with a non-finite or out-of-range field.
	ErrInvalidEdge = errors.New("invalid edge")
	// ErrInvalidSignal reports a non-finite or out-of-range tag, activation or delta.
	ErrInvalidSignal = errors.New("invalid signal")
)

// Edge is the state of one Two-Factor synaptic edge.
//
// The zero Edge is a valid edge that has never been activated: weight 0,
// importance 1. Its first activation sets the variance to the configured
// initial variance before maturing it.
type Edge struct {
	// Weight is the association strength at LastActivated, in [MinWeight, MaxWeight] once activated.
	Weight float64
	// Variance is σ², the uncertainty of Weight; 0 only on a never-activated edge.
	Variance float64
	// ActivationCount is k, the number of activations so far.
	ActivationCount int
	// LastActivated is the time Weight refers to: the last activation or applied delta.
	LastActivated time.Time
}

// Importance returns I = 1/σ². An edge whose variance is not a positive finite
// number (in particular the zero Edge) has the importance of a fresh edge, 1.
func (e Edge) Importance() float64 {
	if !(e.Variance > 0) || math.IsInf(e.Variance, 0) {
		return 1
	}
	return 1 / e.Variance
}

// Config holds the parameters of the Two-Factor model. A zero field takes its
// default from the matching XxxDefault constant.
type Config struct {
	// LearningRate is η. Defaults to LearningRateDefault (0.1).
	LearningRate float64
	// MaturationRate is β. Defaults to MaturationRateDefault (0.15); must be below 1.
	MaturationRate float64
	// MaturationSlowdown is the c in n(k) = 1/(1 + c·k). Defaults to MaturationSlowdownDefault (0.1).
	MaturationSlowdown float64
	// InitialVariance is σ² of a fresh edge. Defaults to InitialVarianceDefault (1).
	InitialVariance float64
	// MinVariance is σ²min. Defaults to MinVarianceDefault (0.01); must not exceed InitialVariance.
	MinVariance float64
	// MinWeight is the lower clip of an updated weight. Defaults to MinWeightDefault (0.05).
	MinWeight float64
	// MaxWeight is the upper clip of an updated weight. Defaults to MaxWeightDefault (10).
	MaxWeight float64
	// PruneThreshold is ε. Defaults to PruneThresholdDefault (0.05).
	PruneThreshold float64
	// DecayRate is r per day. Defaults to DecayRateDefault (0.02). -1 disables decay.
	DecayRate float64
	// DecayImportanceGate is g in r/(1 + g·I). Defaults to DecayImportanceGateDefault (0.1).
	DecayImportanceGate float64
	// EWCLambda is λ. Defaults to EWCLambdaDefault (0.5).
	EWCLambda float64
	// EWCDisabled switches EWC damping off (ablation): proposals apply undamped.
	// Defaults to false, damping on.
	EWCDisabled bool
}

// DefaultConfig returns the configuration with every default filled in.
func DefaultConfig() Config {
	return Config{}.WithDefaults()
}

// WithDefaults returns a copy of c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	c.LearningRate = cmp.Or(c.LearningRate, LearningRateDefault)
	c.MaturationRate = cmp.Or(c.MaturationRate, MaturationRateDefault)
	c.MaturationSlowdown = cmp.Or(c.MaturationSlowdown, MaturationSlowdownDefault)
	c.InitialVariance = cmp.Or(c.InitialVariance, InitialVarianceDefault)
	c.MinVariance = cmp.Or(c.MinVariance, MinVarianceDefault)
	c.MinWeight = cmp.Or(c.MinWeight, MinWeightDefault)
	c.MaxWeight = cmp.Or(c.MaxWeight, MaxWeightDefault)
	c.PruneThreshold = cmp.Or(c.PruneThreshold, PruneThresholdDefault)
	c.DecayRate = cmp.Or(c.DecayRate, DecayRateDefault)
	c.DecayImportanceGate = cmp.Or(c.DecayImportanceGate, DecayImportanceGateDefault)
	c.EWCLambda = cmp.Or(c.EWCLambda, EWCLambdaDefault)
	return c
}

// Validate reports the first field of c that is out of range, naming it.
func (c Config) Validate() error {
	positive := []struct {
		name string
		v    float64
	}{
		{"LearningRate", c.LearningRate},
		{"MaturationRate", c.MaturationRate},
		{"MaturationSlowdown", c.MaturationSlowdown},
		{"InitialVariance", c.InitialVariance},
		{"MinVariance", c.MinVariance},
		{"MinWeight", c.MinWeight},
		{"MaxWeight", c.MaxWeight},
		{"PruneThreshold", c.PruneThreshold},
		{"DecayImportanceGate", c.DecayImportanceGate},
		{"EWCLambda", c.EWCLambda},
	}
	for _, p := range positive {
		if !(p.v > 0) || math.IsInf(p.v, 0) {
			return fmt.Errorf("%w: %s must be a positive finite number, got %v", ErrInvalidConfig, p.name, p.v)
		}
	}
	switch {
	case c.MaturationRate >= 1:
		return fmt.Errorf("%w: MaturationRate must be below 1, got %v", ErrInvalidConfig, c.MaturationRate)
	case c.MinVariance > c.InitialVariance:
		return fmt.Errorf("%w: MinVariance %v exceeds InitialVariance %v", ErrInvalidConfig, c.MinVariance, c.InitialVariance)
	case c.MinWeight > c.MaxWeight:
		return fmt.Errorf("%w: MinWeight %v exceeds MaxWeight %v", ErrInvalidConfig, c.MinWeight, c.MaxWeight)
	case c.DecayRate != -1 && (!(c.DecayRate > 0) || math.IsInf(c.DecayRate, 0)):
		return fmt.Errorf("%w: DecayRate must be positive and finite or -1, got %v", ErrInvalidConfig, c.DecayRate)
	}
	return nil
}

// Model applies the Two-Factor rules with one configuration. A Model is
// immutable and safe for concurrent use.
type Model struct {
	cfg Config
}

// New returns a Model for cfg with defaults applied. A nil cfg means
// DefaultConfig. It returns an error wrapping ErrInvalidConfig when a field is
// out of range.
func New(cfg *Config) (*Model, error) {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	c = c.WithDefaults()
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("error creating hebbian model: %w", err)
	}
	return &Model{cfg: c}, nil
}

// Config returns the effective configuration, defaults included.
func (m *Model) Config() Config { return m.cfg }

// Activate applies one co-activation with tag t in [-1, 1] (a reward or TAG
// score; negative values weaken) and activation product a in [0, 1] at time now.
//
// The weight is first decayed to now, then moved by the EWC-damped proposal
// η·t·a and clipped to [MinWeight, MaxWeight]; the activation count k grows by
// one and the variance matures to max(σ²min, σ²·(1 − β/(1 + c·k))). If now is
// before LastActivated (events applied out of order) no decay is applied and
// LastActivated is kept. Bad input returns an error and the edge unchanged.
func (m *Model) Activate(e Edge, tag, activation float64, now time.Time) (Edge, error) {
	if err := m.checkEdge(e); err != nil {
		return e, fmt.Errorf("error activating edge: %w", err)
	}
	if !finite(tag) || tag < -1 || tag > 1 {
		return e, fmt.Errorf("error activating edge: %w: tag must be in [-1, 1], got %v", ErrInvalidSignal, tag)
	}
	if !finite(activation) || activation < 0 || activation > 1 {
		return e, fmt.Errorf("error activating edge: %w: activation must be in [0, 1], got %v", ErrInvalidSignal, activation)
	}
	if e.ActivationCount == 0 && e.Variance == 0 {
		e.Variance = m.cfg.InitialVariance
	}
	w := m.WeightAt(e, now)
	delta := m.Damp(e, m.cfg.LearningRate*tag*activation)
	e.Weight = clamp(w+delta, m.cfg.MinWeight, m.cfg.MaxWeight)
	e.ActivationCount++
	n := 1 / (1 + m.cfg.MaturationSlowdown*float64(e.ActivationCount))
	e.Variance = math.Max(m.cfg.MinVariance, e.Variance*(1-m.cfg.MaturationRate*n))
	if now.After(e.LastActivated) {
		e.LastActivated = now
	}
	return e, nil
}

// ApplyDelta applies an externally proposed weight change (for example a sleep
// plan's LTP +0.10 or LTD −0.05) at time now: the weight is decayed to now, the
// EWC-damped delta is added and the result clipped to [MinWeight, MaxWeight].
// It does not count as an activation: variance and activation count are kept.
// A change that leaves the weight below PruneThreshold is still returned; the
// caller prunes with [Model.Prunable].
func (m *Model) ApplyDelta(e Edge, delta float64, now time.Time) (Edge, error) {
	if err := m.checkEdge(e); err != nil {
		return e, fmt.Errorf("error applying delta to edge: %w", err)
	}
	if !finite(delta) {
		return e, fmt.Errorf("error applying delta to edge: %w: delta must be finite, got %v", ErrInvalidSignal, delta)
	}
	w := m.WeightAt(e, now)
	e.Weight = clamp(w+m.Damp(e, delta), m.cfg.MinWeight, m.cfg.MaxWeight)
	if e.ActivationCount == 0 && e.Variance == 0 {
		e.Variance = m.cfg.InitialVariance
	}
	if now.After(e.LastActivated) {
		e.LastActivated = now
	}
	return e, nil
}

// Damp returns the effective change Δw/(1 + λ·I) that the EWC penalty allows
// for a proposed change Δw on e, or Δw itself when EWCDisabled is set.
func (m *Model) Damp(e Edge, delta float64) float64 {
	if m.cfg.EWCDisabled {
		return delta
	}
	return delta / (1 + m.cfg.EWCLambda*e.Importance())
}

// Penalty returns the EWC penalty (λ/2)·I·Δw² of a proposed change Δw on e.
func (m *Model) Penalty(e Edge, delta float64) float64 {
	return m.cfg.EWCLambda / 2 * e.Importance() * delta * delta
}

// DecayRate returns the effective decay rate per day r/(1 + g·I) of e, or 0
// when decay is disabled.
func (m *Model) DecayRate(e Edge) float64 {
	if m.cfg.DecayRate == -1 {
		return 0
	}
	return m.cfg.DecayRate / (1 + m.cfg.DecayImportanceGate*e.Importance())
}

// WeightAt returns the decayed weight w·exp(−r_eff·Δt) of e at now, with Δt
// in days since LastActivated. It returns e.Weight unchanged when now is not
// after LastActivated, and 0 when e.Weight is not a finite non-negative number.
func (m *Model) WeightAt(e Edge, now time.Time) float64 {
	if !finite(e.Weight) || e.Weight < 0 {
		return 0
	}
	if !now.After(e.LastActivated) {
		return e.Weight
	}
	days := now.Sub(e.LastActivated).Hours() / 24
	return e.Weight * math.Exp(-m.DecayRate(e)*days)
}

// Strength returns WeightAt(e, now)·I, the key by which neighbours are ranked.
func (m *Model) Strength(e Edge, now time.Time) float64 {
	return m.WeightAt(e, now) * e.Importance()
}

// Prunable reports whether the decayed weight of e at now is below the prune
// threshold ε.
func (m *Model) Prunable(e Edge, now time.Time) bool {
	return m.WeightAt(e, now) < m.cfg.PruneThreshold
}

// PruneAt predicts the time at which the decayed weight of e falls below the
// prune threshold: LastActivated + ln(w/ε)/r_eff days, rounded up to the next
// millisecond, so that Prunable(e, PruneAt(e)) holds. An edge already below
// the threshold returns LastActivated. It returns false when the edge never
// crosses the threshold (decay disabled) or would take longer than 200 years.
func (m *Model) PruneAt(e Edge) (time.Time, bool) {
	w := e.Weight
	if !finite(w) || w < m.cfg.PruneThreshold {
		return e.LastActivated, true
	}
	rate := m.DecayRate(e)
	if rate == 0 {
		return time.Time{}, false
	}
	// The edge is prunable once w·exp(−rate·d) < ε, i.e. just after d = ln(w/ε)/rate.
	hours := math.Log(w/m.cfg.PruneThreshold) / rate * 24
	if hours > maxHorizon.Hours() {
		return time.Time{}, false
	}
	// A millisecond past the exact crossing absorbs floating-point rounding.
	return e.LastActivated.Add(time.Duration(math.Ceil(hours*float64(time.Hour))) + time.Millisecond), true
}

func (m *Model) checkEdge(e Edge) error {
	switch {
	case !finite(e.Weight) || e.Weight < 0:
		return fmt.Errorf("%w: weight must be finite and non-negative, got %v", ErrInvalidEdge, e.Weight)
	case e.ActivationCount < 0:
		return fmt.Errorf("%w: activation count must be non-negative, got %d", ErrInvalidEdge, e.ActivationCount)
	case !finite(e.Variance) || e.Variance < 0:
		return fmt.Errorf("%w: variance must be finite and non-negative, got %v", ErrInvalidEdge, e.Variance)
	case e.Variance == 0 && e.ActivationCount > 0:
		return fmt.Errorf("%w: variance is 0 on an edge activated %d times", ErrInvalidEdge, e.ActivationCount)
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func clamp(x, lo, hi float64) float64 { return math.Min(hi, math.Max(lo, x)) }
