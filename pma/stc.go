package pma

import (
	"cmp"
	"math"
	"time"
)

// Defaults of [STCConfig].
const (
	// STCTagBelowDefault is the confidence below which a memory is tagged.
	STCTagBelowDefault = 0.4
	// STCDonorAboveDefault is the confidence a donor must exceed.
	STCDonorAboveDefault = 0.7
	// STCCaptureWindowDefault is how far apart (either way) tag and donor may
	// be formed.
	STCCaptureWindowDefault = 30 * time.Minute
	// STCStrengthGainDefault is added to a rescued memory's strength.
	STCStrengthGainDefault = 0.3
	// STCDecayFactorDefault multiplies a rescued memory's decay rate.
	STCDecayFactorDefault = 0.5
)

// STCTag is the persisted synaptic tag of one weak memory (one `stc_tag`
// row).
type STCTag struct {
	// MemoryID identifies the tagged memory.
	MemoryID string `json:"memory_id"`
	// TaggedAt is when the memory was formed and tagged.
	TaggedAt time.Time `json:"tagged_at"`
	// Confidence is the memory's confidence at tagging.
	Confidence float64 `json:"confidence"`
	// Rescued is true once a donor captured the tag.
	Rescued bool `json:"rescued"`
	// DonorID is the rescuing memory, empty until rescued.
	DonorID string `json:"donor_id,omitempty"`
	// RescuedAt is when the rescue happened; zero until rescued.
	RescuedAt time.Time `json:"rescued_at"`
}

// STCDonor is a candidate strong memory.
type STCDonor struct {
	// MemoryID identifies the candidate.
	MemoryID string `json:"memory_id"`
	// Confidence in [0, 1] is the candidate's confidence.
	Confidence float64 `json:"confidence"`
	// CreatedAt is when the candidate was formed.
	CreatedAt time.Time `json:"created_at"`
	// Related is true when the candidate is related to the tagged memory
	// (same topic cluster, shared entities or similar embedding; the caller
	// decides).
	Related bool `json:"related"`
}

// STCRescue is the outcome of a capture attempt.
type STCRescue struct {
	// Tag is the tag after the attempt.
	Tag STCTag `json:"tag"`
	// Rescued is true when this attempt rescued the memory.
	Rescued bool `json:"rescued"`
	// Strength is the memory's new strength min(1, s + 0.3) (unchanged when
	// not rescued).
	Strength float64 `json:"strength"`
	// DecayRate is the memory's new decay rate r·0.5 (unchanged when not
	// rescued).
	DecayRate float64 `json:"decay_rate"`
}

// STCConfig holds the parameters of [CaptureRescue]. A zero field takes its
// default.
type STCConfig struct {
	// TagBelow is the tagging confidence bound. Defaults to
	// [STCTagBelowDefault] (0.4).
	TagBelow float64
	// DonorAbove is the donor confidence bound. Defaults to
	// [STCDonorAboveDefault] (0.7).
	DonorAbove float64
	// CaptureWindow is the capture window. Defaults to
	// [STCCaptureWindowDefault] (30 min).
	CaptureWindow time.Duration
	// StrengthGain is the rescue's strength gain. Defaults to
	// [STCStrengthGainDefault] (0.3).
	StrengthGain float64
	// DecayFactor is the rescue's decay-rate factor. Defaults to
	// [STCDecayFactorDefault] (0.5).
	DecayFactor float64
}

// WithDefaults returns a copy of c with every zero field set to its default.
func (c *STCConfig) WithDefaults() *STCConfig {
	if c == nil {
		c = &STCConfig{}
	}
	return &STCConfig{
		TagBelow:      cmp.Or(c.TagBelow, STCTagBelowDefault),
		DonorAbove:    cmp.Or(c.DonorAbove, STCDonorAboveDefault),
		CaptureWindow: cmp.Or(c.CaptureWindow, STCCaptureWindowDefault),
		StrengthGain:  cmp.Or(c.StrengthGain, STCStrengthGainDefault),
		DecayFactor:   cmp.Or(c.DecayFactor, STCDecayFactorDefault),
	}
}

func (c *STCConfig) validate() error {
	switch {
	case !finite(c.TagBelow) || !finite(c.DonorAbove) || c.TagBelow <= 0 || c.DonorAbove >= 1 || c.TagBelow > c.DonorAbove:
		return invalidf("STCConfig needs 0 < TagBelow <= DonorAbove < 1, got %v and %v", c.TagBelow, c.DonorAbove)
	case c.CaptureWindow <= 0:
		return invalidf("STCConfig.CaptureWindow must be positive, got %v", c.CaptureWindow)
	case !finite(c.StrengthGain) || c.StrengthGain <= 0 || c.StrengthGain > 1:
		return invalidf("STCConfig.StrengthGain must be in (0, 1], got %v", c.StrengthGain)
	case !finite(c.DecayFactor) || c.DecayFactor <= 0 || c.DecayFactor >= 1:
		return invalidf("STCConfig.DecayFactor must be in (0, 1), got %v", c.DecayFactor)
	}
	return nil
}

// CaptureRescue implements synaptic tagging and capture: a memory encoded
// weakly (confidence < 0.4) sets a tag; a strong (confidence > 0.7) related
// memory formed within 30 minutes of it, before or after, supplies the
// "plasticity proteins" that rescue it: strength min(1, s + 0.3) and decay
// rate halved. It holds only its configuration and is safe for concurrent
// use.
type CaptureRescue struct {
	cfg STCConfig
}

// NewCaptureRescue returns a CaptureRescue with cfg (nil means all defaults).
func NewCaptureRescue(cfg *STCConfig) (*CaptureRescue, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &CaptureRescue{cfg: *c}, nil
}

// Tag returns the tag of a memory formed at `at` with confidence c, and
// false when c is not below the tagging bound (no tag needed). A confidence
// outside [0, 1] or NaN returns an error.
func (s *CaptureRescue) Tag(memoryID string, c float64, at time.Time) (STCTag, bool, error) {
	if err := checkUnit("confidence", c); err != nil {
		return STCTag{}, false, err
	}
	if c >= s.cfg.TagBelow {
		return STCTag{}, false, nil
	}
	return STCTag{MemoryID: memoryID, TaggedAt: at, Confidence: c}, true, nil
}

// Rescue tries to capture tag with one of donors. Eligible donors are
// related, above the donor confidence, not the tagged memory itself, and
// formed within the capture window of TaggedAt; the strongest wins (ties:
// the closest in time, then the smaller id). A tag already rescued is
// returned unchanged. strength and decayRate are the tagged memory's current
// values (strength in [0, 1], decayRate ≥ 0).
func (s *CaptureRescue) Rescue(tag STCTag, strength, decayRate float64, donors []STCDonor, now time.Time) (STCRescue, error) {
	if err := checkUnit("strength", strength); err != nil {
		return STCRescue{}, err
	}
	if !finite(decayRate) || decayRate < 0 {
		return STCRescue{}, invalidf("decay rate must be finite and non-negative, got %v", decayRate)
	}
	out := STCRescue{Tag: tag, Strength: strength, DecayRate: decayRate}
	if tag.Rescued {
		return out, nil
	}
	best := -1
	gap := func(d STCDonor) time.Duration {
		g := d.CreatedAt.Sub(tag.TaggedAt)
		if g < 0 {
			g = -g
		}
		return g
	}
	for i, d := range donors {
		if err := checkUnit("donor confidence", d.Confidence); err != nil {
			return STCRescue{}, err
		}
		if !d.Related || d.Confidence <= s.cfg.DonorAbove || d.MemoryID == tag.MemoryID ||
			gap(d) > s.cfg.CaptureWindow || d.CreatedAt.After(now) {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := donors[best]
		if c := cmp.Or(cmp.Compare(d.Confidence, b.Confidence), cmp.Compare(gap(b), gap(d)),
			cmp.Compare(b.MemoryID, d.MemoryID)); c > 0 {
			best = i
		}
	}
	if best < 0 {
		return out, nil
	}
	out.Rescued = true
	out.Tag.Rescued, out.Tag.DonorID, out.Tag.RescuedAt = true, donors[best].MemoryID, now
	out.Strength = math.Min(1, strength+s.cfg.StrengthGain)
	out.DecayRate = decayRate * s.cfg.DecayFactor
	return out, nil
}
