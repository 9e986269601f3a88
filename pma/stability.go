package pma

import (
	"cmp"
	"math"
	"time"
)

// Defaults of [StabilityConfig].
const (
	// StabilityBaseThresholdDefault is the prediction error an overwrite
	// needs even at lock score 0.
	StabilityBaseThresholdDefault = 0.5
	// StabilityLockGainDefault scales L·ρ in the overwrite threshold.
	StabilityLockGainDefault = 0.3
	// StabilityLockedScoreDefault is the lock score from which a memory is
	// locked, that is, from which the overwrite gate applies. Because the
	// gate's threshold is at least 0.5, a gated memory can never take a
	// selective edit (PE < 0.3); the bound keeps that for established
	// memories (for example 5 accesses, confidence 0.9 and 90 days give
	// L ≈ 0.54; a core memory with confidence 1 has L ≥ 0.5) and leaves young
	// or uncertain ones editable.
	StabilityLockedScoreDefault = 0.5
	// StabilityAccessCap is the access count beyond which more accesses add
	// nothing to the lock score.
	StabilityAccessCap = 10
)

// StabilityInput describes the memory whose lock is computed.
type StabilityInput struct {
	// AccessCount a is how often the memory was recalled; must be ≥ 0.
	AccessCount int `json:"access_count"`
	// Confidence c in [0, 1] is the memory's confidence.
	Confidence float64 `json:"confidence"`
	// AgeDays d ≥ 0 is the memory's age in days.
	AgeDays float64 `json:"age_days"`
	// Core is true for pinned identity (core layer) memories.
	Core bool `json:"core"`
}

func (in StabilityInput) validate() error {
	if in.AccessCount < 0 {
		return invalidf("access count must be non-negative, got %d", in.AccessCount)
	}
	if err := checkUnit("confidence", in.Confidence); err != nil {
		return err
	}
	if !finite(in.AgeDays) || in.AgeDays < 0 {
		return invalidf("age in days must be finite and non-negative, got %v", in.AgeDays)
	}
	return nil
}

// Lock is the persisted stability lock of one memory (one `stability_lock`
// row).
type Lock struct {
	// MemoryID identifies the memory.
	MemoryID string `json:"memory_id"`
	// Score is the lock score L in [0, 1].
	Score float64 `json:"score"`
	// Rigidity is ρ = 1 + 0.1·log2(1 + d).
	Rigidity float64 `json:"rigidity"`
	// Threshold is the least prediction error that may overwrite the memory:
	// 0.5 + 0.3·L·ρ.
	Threshold float64 `json:"threshold"`
	// Locked is true when Score ≥ the locked score (0.5 by default); only
	// locked memories are gated.
	Locked bool `json:"locked"`
	// EvaluatedAt is when the lock was computed.
	EvaluatedAt time.Time `json:"evaluated_at"`
}

// CanOverwrite reports whether a prediction error pe may overwrite the
// memory: always for an unlocked memory, otherwise iff pe ≥ Threshold. A NaN
// pe never overwrites a locked memory.
func (l Lock) CanOverwrite(pe float64) bool {
	if !l.Locked {
		return true
	}
	return pe >= l.Threshold
}

// StabilityConfig holds the parameters of a [StabilityProtector]. A zero
// field takes its default.
type StabilityConfig struct {
	// BaseThreshold is the overwrite threshold at L = 0. Defaults to
	// [StabilityBaseThresholdDefault] (0.5).
	BaseThreshold float64
	// LockGain scales L·ρ. Defaults to [StabilityLockGainDefault] (0.3).
	LockGain float64
	// LockedScore is the least L at which the gate applies. Defaults to
	// [StabilityLockedScoreDefault] (0.5). Must be in (0, 1].
	LockedScore float64
}

// WithDefaults returns a copy of c with every zero field set to its default.
func (c *StabilityConfig) WithDefaults() *StabilityConfig {
	if c == nil {
		c = &StabilityConfig{}
	}
	return &StabilityConfig{
		BaseThreshold: cmp.Or(c.BaseThreshold, StabilityBaseThresholdDefault),
		LockGain:      cmp.Or(c.LockGain, StabilityLockGainDefault),
		LockedScore:   cmp.Or(c.LockedScore, StabilityLockedScoreDefault),
	}
}

func (c *StabilityConfig) validate() error {
	switch {
	case !finite(c.BaseThreshold) || c.BaseThreshold <= 0 || c.BaseThreshold > 1:
		return invalidf("StabilityConfig.BaseThreshold must be in (0, 1], got %v", c.BaseThreshold)
	case !finite(c.LockGain) || c.LockGain <= 0 || c.LockGain > 1:
		return invalidf("StabilityConfig.LockGain must be in (0, 1], got %v", c.LockGain)
	case !finite(c.LockedScore) || c.LockedScore <= 0 || c.LockedScore > 1:
		return invalidf("StabilityConfig.LockedScore must be in (0, 1], got %v", c.LockedScore)
	}
	return nil
}

// StabilityProtector computes stability locks, the analogue of the NogoA and
// HDAC3 brakes on plasticity in established memories:
//
//	L = 0.3·log2(1 + min(a, 10))/log2(11) + 0.3·c + 0.2·min(d/365, 1) + 0.2·core
//	ρ = 1 + 0.1·log2(1 + d)
//	overwrite allowed iff PE ≥ 0.5 + 0.3·L·ρ   (locked memories only)
//
// It holds only its configuration and is safe for concurrent use.
type StabilityProtector struct {
	cfg StabilityConfig
}

// NewStabilityProtector returns a protector with cfg (nil means all
// defaults).
func NewStabilityProtector(cfg *StabilityConfig) (*StabilityProtector, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &StabilityProtector{cfg: *c}, nil
}

// LockScore returns L for in (see [StabilityProtector]), in [0, 1].
func LockScore(in StabilityInput) (float64, error) {
	if err := in.validate(); err != nil {
		return 0, err
	}
	a := float64(min(in.AccessCount, StabilityAccessCap))
	l := 0.3*math.Log2(1+a)/math.Log2(1+StabilityAccessCap) +
		0.3*in.Confidence +
		0.2*math.Min(in.AgeDays/365, 1)
	if in.Core {
		l += 0.2
	}
	return clamp01(l), nil
}

// Rigidity returns ρ = 1 + 0.1·log2(1 + d) for an age of d days; negative or
// NaN ages count as 0 and +Inf as 1000 years.
func Rigidity(ageDays float64) float64 {
	if math.IsNaN(ageDays) || ageDays < 0 {
		ageDays = 0
	}
	ageDays = math.Min(ageDays, 365000)
	return 1 + 0.1*math.Log2(1+ageDays)
}

// Evaluate returns the lock of memory memoryID described by in, computed at
// now.
func (p *StabilityProtector) Evaluate(memoryID string, in StabilityInput, now time.Time) (Lock, error) {
	l, err := LockScore(in)
	if err != nil {
		return Lock{}, err
	}
	rho := Rigidity(in.AgeDays)
	return Lock{
		MemoryID:    memoryID,
		Score:       l,
		Rigidity:    rho,
		Threshold:   p.cfg.BaseThreshold + p.cfg.LockGain*l*rho,
		Locked:      l >= p.cfg.LockedScore,
		EvaluatedAt: now,
	}, nil
}
