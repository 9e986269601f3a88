package budget

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"time"
)

// IB defaults (reference notes §4.13).
const (
	// BetaDefault is β for a context missing from the β table: halfway
	// between the reference's strictest (0.3) and most lenient (0.8) values.
	BetaDefault = 0.5
	// RetrievalSaturation is the retrieval count at which the retrieval term
	// of the gain saturates.
	RetrievalSaturation = 10.0
	// RecencyHorizonDays is the number of days without access after which
	// the recency term of the gain is 0.
	RecencyHorizonDays = 90.0
	// LengthSaturation is the length in characters at which the length term
	// of the cost saturates.
	LengthSaturation = 5000.0
	// EntitySaturation is the entity count at which the entity term of the
	// cost saturates.
	EntitySaturation = 20.0
	// EmbeddingVarianceUnknown is the variance used by [EmbeddingVariance]
	// when there are no neighbours to compare with (the reference's constant).
	EmbeddingVarianceUnknown = 0.5
)

// Gain and cost weights (reference notes §4.13).
const (
	// GainWeightRetrievals weighs min(1, retrievals/10).
	GainWeightRetrievals = 0.4
	// GainWeightConfidence weighs the confidence.
	GainWeightConfidence = 0.3
	// GainWeightRecency weighs max(0, 1 − days/90).
	GainWeightRecency = 0.3
	// CostWeightLength weighs min(1, length/5000).
	CostWeightLength = 0.4
	// CostWeightEntities weighs min(1, entities/20).
	CostWeightEntities = 0.3
	// CostWeightVariance weighs min(1, variance).
	CostWeightVariance = 0.3
)

// DefaultBetas returns the β table: the reference's context names
// (finance 0.8, people 0.6, operations 0.4, strategy 0.3) and the names its
// documentation uses with the same values (work 0.8, learning 0.6,
// personal 0.4, creative 0.3).
func DefaultBetas() map[string]float64 {
	return map[string]float64{
		"finance": 0.8, "people": 0.6, "operations": 0.4, "strategy": 0.3,
		"work": 0.8, "learning": 0.6, "personal": 0.4, "creative": 0.3,
	}
}

// IBConfig configures [Decide]. The zero value, or nil, means defaults.
type IBConfig struct {
	// Betas maps a context to β. Nil means DefaultBetas.
	Betas map[string]float64
	// DefaultBeta is β for contexts missing from Betas. Defaults to
	// BetaDefault.
	DefaultBeta float64
}

// WithDefaults returns a copy of c with zero fields replaced by defaults. A
// nil c gives the defaults.
func (c *IBConfig) WithDefaults() *IBConfig {
	out := IBConfig{}
	if c != nil {
		out = *c
	}
	if out.Betas == nil {
		out.Betas = DefaultBetas()
	}
	out.DefaultBeta = cmp.Or(out.DefaultBeta, BetaDefault)
	return &out
}

// Beta returns β for context.
func (c *IBConfig) Beta(context string) float64 {
	if b, ok := c.Betas[context]; ok {
		return b
	}
	return c.DefaultBeta
}

// Item describes one memory for the keep/compress decision.
type Item struct {
	// Context is the memory's context (domain), used to look up β.
	Context string
	// Retrievals is how often the memory was recalled. Negative is an error.
	Retrievals int
	// Confidence is the memory's (average) confidence in [0, 1].
	Confidence float64
	// DaysSinceAccess is the time since the last access (or creation) in
	// days; see [DaysSince]. Negative values (clock skew) count as 0; +Inf
	// (never accessed) gives recency 0.
	DaysSinceAccess float64
	// Length is the content length in characters. Negative is an error.
	Length int
	// Entities is the number of entities the memory mentions. Negative is an
	// error.
	Entities int
	// EmbeddingVariance is the embedding dispersion in [0, 1]; see
	// [EmbeddingVariance].
	EmbeddingVariance float64
}

// Action is the outcome of the keep/compress decision.
type Action string

const (
	// ActionKeep keeps the memory at full fidelity.
	ActionKeep Action = "keep"
	// ActionCompress marks the memory as not worth its cost: it may be
	// carried by a consolidated memory and archived once it has faded.
	ActionCompress Action = "compress"
)

// Decision is the result of [Decide], with the terms that produced it.
type Decision struct {
	// Action is ActionKeep iff Gain·Beta > Cost.
	Action Action
	// Gain, Cost and Beta are the three quantities of the rule.
	Gain, Cost, Beta float64
	// Margin is Gain·Beta − Cost (positive: keep).
	Margin float64
}

// DaysSince returns the days from last to now. A zero last (never) returns
// +Inf; a last after now returns 0.
func DaysSince(last, now time.Time) float64 {
	if last.IsZero() {
		return math.Inf(1)
	}
	d := now.Sub(last)
	if d < 0 {
		return 0
	}
	return d.Hours() / 24
}

// Gain returns 0.4·min(1, retrievals/10) + 0.3·confidence +
// 0.3·max(0, 1 − days/90), in [0, 1]. Confidence is clamped to [0, 1] and
// negative days count as 0.
func Gain(retrievals int, confidence, days float64) float64 {
	r := min(1, float64(max(retrievals, 0))/RetrievalSaturation)
	c := min(max(confidence, 0), 1)
	rec := max(0, 1-max(days, 0)/RecencyHorizonDays)
	return GainWeightRetrievals*r + GainWeightConfidence*c + GainWeightRecency*rec
}

// Cost returns 0.4·min(1, length/5000) + 0.3·min(1, entities/20) +
// 0.3·min(1, variance), in [0, 1]. Negative inputs count as 0.
func Cost(length, entities int, variance float64) float64 {
	l := min(1, float64(max(length, 0))/LengthSaturation)
	e := min(1, float64(max(entities, 0))/EntitySaturation)
	v := min(1, max(variance, 0))
	return CostWeightLength*l + CostWeightEntities*e + CostWeightVariance*v
}

// Retain reports whether gain·beta > cost, the IB rule.
func Retain(gain, cost, beta float64) bool {
	return gain*beta > cost
}

// Decide applies the IB rule to it. It returns an error for negative counts
// or length, or non-finite confidence, variance or β, and for NaN days.
func Decide(it Item, cfg *IBConfig) (Decision, error) {
	c := cfg.WithDefaults()
	var errs []error
	if it.Retrievals < 0 || it.Length < 0 || it.Entities < 0 {
		errs = append(errs, fmt.Errorf("negative count (retrievals %d, length %d, entities %d)", it.Retrievals, it.Length, it.Entities))
	}
	if !finite(it.Confidence) || !finite(it.EmbeddingVariance) || math.IsNaN(it.DaysSinceAccess) {
		errs = append(errs, fmt.Errorf("non-finite input (confidence %v, variance %v, days %v)", it.Confidence, it.EmbeddingVariance, it.DaysSinceAccess))
	}
	beta := c.Beta(it.Context)
	if !finite(beta) || beta < 0 {
		errs = append(errs, fmt.Errorf("beta for context %q is %v", it.Context, beta))
	}
	if err := errors.Join(errs...); err != nil {
		return Decision{}, fmt.Errorf("error deciding IB budget: %w", err)
	}
	g := Gain(it.Retrievals, it.Confidence, it.DaysSinceAccess)
	k := Cost(it.Length, it.Entities, it.EmbeddingVariance)
	d := Decision{Action: ActionCompress, Gain: g, Cost: k, Beta: beta, Margin: g*beta - k}
	if Retain(g, k, beta) {
		d.Action = ActionKeep
	}
	return d, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// EmbeddingVariance returns the dispersion of embedding v around its
// neighbours: the mean over neighbours n of (1 − cos(v, n))/2, in [0, 1]
// (0: identical direction, 0.5: orthogonal, 1: opposite). It measures how
// much the memory's content is not predictable from its neighbourhood —
// the representational cost of keeping it separately. No neighbours give
// EmbeddingVarianceUnknown. A zero vector has cosine 0 with everything. It
// returns an error for mismatched dimensions or non-finite components.
func EmbeddingVariance(v []float64, neighbours [][]float64) (float64, error) {
	if len(neighbours) == 0 {
		return EmbeddingVarianceUnknown, nil
	}
	sum := 0.0
	for i, n := range neighbours {
		c, err := cosine(v, n)
		if err != nil {
			return 0, fmt.Errorf("error computing embedding variance against neighbour %d: %w", i, err)
		}
		sum += (1 - c) / 2
	}
	return sum / float64(len(neighbours)), nil
}

func cosine(a, b []float64) (float64, error) {
	if len(a) != len(b) {
		return 0, fmt.Errorf("dimension mismatch %d vs %d", len(a), len(b))
	}
	var dot, na, nb float64
	for i := range a {
		if !finite(a[i]) || !finite(b[i]) {
			return 0, fmt.Errorf("non-finite component at %d", i)
		}
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 || nb == 0 {
		return 0, nil
	}
	return min(1, max(-1, dot/math.Sqrt(na*nb))), nil
}
