package pma

import (
	"cmp"
	"math"
	"time"
)

// Defaults of [TripleCopyConfig].
const (
	// TripleCopyTauFastDefault is the time constant of the fast copy.
	TripleCopyTauFastDefault = 4 * time.Hour
	// TripleCopyTauMediumDefault is the time constant of the medium copy.
	TripleCopyTauMediumDefault = 14 * 24 * time.Hour
	// TripleCopyTauDeepDefault is the growth time constant of the deep copy.
	TripleCopyTauDeepDefault = 7 * 24 * time.Hour
	// TripleCopyMediumFactorDefault is the medium copy's share of S0.
	TripleCopyMediumFactorDefault = 0.8
	// TripleCopyThresholdDefault is the strength a copy needs to be retrieved.
	TripleCopyThresholdDefault = 0.3
)

// CopyKind names one of the three copies of an event.
type CopyKind string

// The three copies.
const (
	// CopyNone means no copy is strong enough to be retrieved.
	CopyNone CopyKind = ""
	// CopyFast is the hippocampal fast copy: strong at once, gone in hours.
	CopyFast CopyKind = "fast"
	// CopyMedium is the medium copy: 0.8·S0 at store, fading over weeks.
	CopyMedium CopyKind = "medium"
	// CopyDeep is the neocortical deep copy created by sleep promotion; it
	// grows instead of decaying.
	CopyDeep CopyKind = "deep"
)

// TripleCopyConfig holds the parameters of triple-copy memory. A zero field
// takes its default.
type TripleCopyConfig struct {
	// TauFast is the fast copy's time constant. Defaults to
	// [TripleCopyTauFastDefault] (4 h).
	TauFast time.Duration
	// TauMedium is the medium copy's time constant. Defaults to
	// [TripleCopyTauMediumDefault] (14 d).
	TauMedium time.Duration
	// TauDeep is the deep copy's growth time constant. Defaults to
	// [TripleCopyTauDeepDefault] (7 d).
	TauDeep time.Duration
	// MediumFactor is the medium copy's initial share of S0. Defaults to
	// [TripleCopyMediumFactorDefault] (0.8). Must be in (0, 1].
	MediumFactor float64
	// Threshold is the strength needed for retrieval. Defaults to
	// [TripleCopyThresholdDefault] (0.3). Must be in (0, 1].
	Threshold float64
}

// WithDefaults returns a copy of c with every zero field set to its default.
func (c *TripleCopyConfig) WithDefaults() *TripleCopyConfig {
	if c == nil {
		c = &TripleCopyConfig{}
	}
	return &TripleCopyConfig{
		TauFast:      cmp.Or(c.TauFast, TripleCopyTauFastDefault),
		TauMedium:    cmp.Or(c.TauMedium, TripleCopyTauMediumDefault),
		TauDeep:      cmp.Or(c.TauDeep, TripleCopyTauDeepDefault),
		MediumFactor: cmp.Or(c.MediumFactor, TripleCopyMediumFactorDefault),
		Threshold:    cmp.Or(c.Threshold, TripleCopyThresholdDefault),
	}
}

func (c *TripleCopyConfig) validate() error {
	switch {
	case c.TauFast <= 0:
		return invalidf("TripleCopyConfig.TauFast must be positive, got %v", c.TauFast)
	case c.TauMedium <= 0:
		return invalidf("TripleCopyConfig.TauMedium must be positive, got %v", c.TauMedium)
	case c.TauDeep <= 0:
		return invalidf("TripleCopyConfig.TauDeep must be positive, got %v", c.TauDeep)
	case !finite(c.MediumFactor) || c.MediumFactor <= 0 || c.MediumFactor > 1:
		return invalidf("TripleCopyConfig.MediumFactor must be in (0, 1], got %v", c.MediumFactor)
	case !finite(c.Threshold) || c.Threshold <= 0 || c.Threshold > 1:
		return invalidf("TripleCopyConfig.Threshold must be in (0, 1], got %v", c.Threshold)
	}
	return nil
}

// TripleCopy is the persisted triple-copy record of one event (one
// `triple_copy` row). Strengths are the stored peak strengths; the current
// strength of each copy is computed from them and the timestamps.
type TripleCopy struct {
	// EventID identifies the stored event (the memory).
	EventID string `json:"event_id"`
	// StoredAt is when the event was stored and the fast and medium copies
	// were created.
	StoredAt time.Time `json:"stored_at"`
	// FastStrength is the fast copy's strength at StoredAt: S0.
	FastStrength float64 `json:"fast_strength"`
	// MediumStrength is the medium copy's strength at StoredAt: 0.8·S0.
	MediumStrength float64 `json:"medium_strength"`
	// DeepStrength is the deep copy's asymptotic strength S_d; 0 until the
	// event is promoted.
	DeepStrength float64 `json:"deep_strength"`
	// PromotedAt is when sleep promoted the event to a deep copy; the zero
	// time means never.
	PromotedAt time.Time `json:"promoted_at"`
}

// Promoted reports whether the event has a deep copy.
func (tc TripleCopy) Promoted() bool { return !tc.PromotedAt.IsZero() }

// CopyStrengths are the current strengths of the three copies of one event.
type CopyStrengths struct {
	// Fast is S0·e^{−age/τ_fast}.
	Fast float64 `json:"fast"`
	// Medium is 0.8·S0·e^{−age/τ_medium}.
	Medium float64 `json:"medium"`
	// Deep is S_d·(1 − e^{−(now − PromotedAt)/τ_deep}), 0 before promotion.
	Deep float64 `json:"deep"`
	// Strength is max(Fast, Medium, Deep), the event's strength.
	Strength float64 `json:"strength"`
	// Dominant is the copy that gives Strength (the earliest of fast, medium,
	// deep on ties); CopyNone when all three are 0.
	Dominant CopyKind `json:"dominant"`
}

// Retrieval is the outcome of trying to retrieve an event by its copies.
type Retrieval struct {
	// Retrievable is true when some copy reaches the threshold.
	Retrievable bool `json:"retrievable"`
	// Copy is the strongest copy at or above the threshold, or CopyNone.
	Copy CopyKind `json:"copy"`
	// Strength is the strength of Copy (the event's strength when none).
	Strength float64 `json:"strength"`
	// SuddenRecall is true when only the deep copy carries the retrieval:
	// fast and medium are below the threshold and deep is at or above it (the
	// "suddenly remembered" case after consolidation).
	SuddenRecall bool `json:"sudden_recall"`
}

// TripleCopyMemory creates, promotes and evaluates [TripleCopy] records. It
// holds only its configuration and is safe for concurrent use.
type TripleCopyMemory struct {
	cfg TripleCopyConfig
}

// NewTripleCopyMemory returns a TripleCopyMemory with cfg (nil means all
// defaults).
func NewTripleCopyMemory(cfg *TripleCopyConfig) (*TripleCopyMemory, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &TripleCopyMemory{cfg: *c}, nil
}

// Store returns the record of an event stored at now with initial strength
// s0 in (0, 1]: a fast copy at s0 and a medium copy at MediumFactor·s0. There
// is no deep copy until [TripleCopyMemory.Promote].
func (m *TripleCopyMemory) Store(eventID string, s0 float64, now time.Time) (TripleCopy, error) {
	if !finite(s0) || s0 <= 0 || s0 > 1 {
		return TripleCopy{}, invalidf("initial strength S0 must be in (0, 1], got %v", s0)
	}
	if now.IsZero() {
		return TripleCopy{}, invalidf("store time of event %q is zero", eventID)
	}
	return TripleCopy{
		EventID:        eventID,
		StoredAt:       now,
		FastStrength:   s0,
		MediumStrength: m.cfg.MediumFactor * s0,
	}, nil
}

// Promote returns tc with a deep copy of asymptotic strength sd in (0, 1],
// created at now by sleep consolidation. Promoting again keeps the first
// PromotedAt (growth continues) and raises DeepStrength to max(old, sd).
// A promotion before StoredAt returns an error.
func (m *TripleCopyMemory) Promote(tc TripleCopy, sd float64, now time.Time) (TripleCopy, error) {
	if !finite(sd) || sd <= 0 || sd > 1 {
		return tc, invalidf("deep strength S_d must be in (0, 1], got %v", sd)
	}
	if now.Before(tc.StoredAt) || now.IsZero() {
		return tc, invalidf("promotion of event %q at %v precedes its storage at %v", tc.EventID, now, tc.StoredAt)
	}
	if !tc.Promoted() {
		tc.PromotedAt = now
	}
	tc.DeepStrength = math.Max(tc.DeepStrength, sd)
	return tc, nil
}

// Strengths returns the copies' strengths at now, each clamped to [0, 1]. A
// now before StoredAt returns all zeros (the event does not exist yet); a
// deep copy contributes 0 before PromotedAt.
func (m *TripleCopyMemory) Strengths(tc TripleCopy, now time.Time) CopyStrengths {
	var out CopyStrengths
	if now.Before(tc.StoredAt) {
		return out
	}
	age := now.Sub(tc.StoredAt)
	out.Fast = clamp01(fix0(tc.FastStrength) * math.Exp(-age.Seconds()/m.cfg.TauFast.Seconds()))
	out.Medium = clamp01(fix0(tc.MediumStrength) * math.Exp(-age.Seconds()/m.cfg.TauMedium.Seconds()))
	if tc.Promoted() && !now.Before(tc.PromotedAt) {
		g := now.Sub(tc.PromotedAt)
		out.Deep = clamp01(fix0(tc.DeepStrength) * (1 - math.Exp(-g.Seconds()/m.cfg.TauDeep.Seconds())))
	}
	out.Strength, out.Dominant = out.Fast, CopyFast
	if out.Medium > out.Strength {
		out.Strength, out.Dominant = out.Medium, CopyMedium
	}
	if out.Deep > out.Strength {
		out.Strength, out.Dominant = out.Deep, CopyDeep
	}
	if out.Strength == 0 {
		out.Dominant = CopyNone
	}
	return out
}

// Retrieve returns whether the event can be retrieved at now: the strongest
// copy at or above the threshold wins, and SuddenRecall marks retrieval
// carried by the deep copy alone.
func (m *TripleCopyMemory) Retrieve(tc TripleCopy, now time.Time) Retrieval {
	s := m.Strengths(tc, now)
	th := m.cfg.Threshold
	r := Retrieval{Strength: s.Strength}
	if s.Strength >= th {
		r.Retrievable, r.Copy = true, s.Dominant
	}
	r.SuddenRecall = s.Deep >= th && s.Fast < th && s.Medium < th
	return r
}

// fix0 maps NaN and negative stored strengths to 0 so corrupt rows read as
// absent copies rather than poisoning the maximum.
func fix0(x float64) float64 {
	if !finite(x) || x < 0 {
		return 0
	}
	return x
}
