package pma

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Defaults of [PriorityConfig].
const (
	// PrioritySalienceWeightDefault is the base weight of salience s.
	PrioritySalienceWeightDefault = 0.2
	// PriorityValenceWeightDefault is the base weight of |valence|.
	PriorityValenceWeightDefault = 0.25
	// PriorityRelevanceWeightDefault is the base weight of relevance r.
	PriorityRelevanceWeightDefault = 0.25
	// PriorityGoalWeightDefault is the base weight of goal g.
	PriorityGoalWeightDefault = 0.3
	// PriorityAmygdalaThresholdDefault is the |valence| above which the
	// amygdala fast path applies.
	PriorityAmygdalaThresholdDefault = 0.6
	// PriorityAmygdalaFloorDefault is the least priority of a fast-path item.
	PriorityAmygdalaFloorDefault = 0.5
	// PriorityModulationDefault is the gain of the neuromodulator rescaling.
	PriorityModulationDefault = 0.4
)

// PriorityWeights are the weights of the four priority inputs.
type PriorityWeights struct {
	// Salience weighs s.
	Salience float64 `json:"salience"`
	// Valence weighs |v|.
	Valence float64 `json:"valence"`
	// Relevance weighs r.
	Relevance float64 `json:"relevance"`
	// Goal weighs g.
	Goal float64 `json:"goal"`
}

// DefaultPriorityWeights returns the design's weights 0.2, 0.25, 0.25, 0.3.
func DefaultPriorityWeights() PriorityWeights {
	return PriorityWeights{
		Salience:  PrioritySalienceWeightDefault,
		Valence:   PriorityValenceWeightDefault,
		Relevance: PriorityRelevanceWeightDefault,
		Goal:      PriorityGoalWeightDefault,
	}
}

func (w PriorityWeights) sum() float64 { return w.Salience + w.Valence + w.Relevance + w.Goal }

// PriorityInput holds the signals of one item.
type PriorityInput struct {
	// Salience s in [0, 1]: how much the item stands out (e.g. novelty,
	// surprise, emotional arousal).
	Salience float64 `json:"salience"`
	// Valence v in [−1, 1]: emotional valence; only |v| counts.
	Valence float64 `json:"valence"`
	// Relevance r in [0, 1]: relevance to the current query or context.
	Relevance float64 `json:"relevance"`
	// Goal g in [0, 1]: relevance to the active goals or intentions.
	Goal float64 `json:"goal"`
}

func (in PriorityInput) validate() error {
	if err := checkUnit("priority salience", in.Salience); err != nil {
		return err
	}
	if !finite(in.Valence) || in.Valence < -1 || in.Valence > 1 {
		return invalidf("priority valence must be in [-1, 1], got %v", in.Valence)
	}
	if err := checkUnit("priority relevance", in.Relevance); err != nil {
		return err
	}
	return checkUnit("priority goal", in.Goal)
}

// Priority is the scored outcome for one item.
type Priority struct {
	// Score is the priority P in [0, 1].
	Score float64 `json:"score"`
	// Weighted is the weighted sum before the fast path.
	Weighted float64 `json:"weighted"`
	// FastPath is true when the amygdala fast path applied (|v| above the
	// threshold), whether or not it raised the score.
	FastPath bool `json:"fast_path"`
}

// PriorityConfig holds the parameters of a [PriorityMap]. A zero field takes
// its default.
type PriorityConfig struct {
	// Weights are the base weights; they must be non-negative with a positive
	// sum and are renormalised to sum 1. Defaults to [DefaultPriorityWeights]
	// when all four are zero.
	Weights PriorityWeights
	// AmygdalaThreshold is the |valence| above which the fast path applies.
	// Defaults to [PriorityAmygdalaThresholdDefault] (0.6).
	AmygdalaThreshold float64
	// AmygdalaFloor is the least score of a fast-path item. Defaults to
	// [PriorityAmygdalaFloorDefault] (0.5).
	AmygdalaFloor float64
	// Modulation is the gain k of the neuromodulator rescaling documented at
	// [PriorityMap.Weights]. Defaults to [PriorityModulationDefault] (0.4).
	// Must be in (0, 2).
	Modulation float64
}

// WithDefaults returns a copy of c with every zero field set to its default.
func (c *PriorityConfig) WithDefaults() *PriorityConfig {
	if c == nil {
		c = &PriorityConfig{}
	}
	out := *c
	if out.Weights == (PriorityWeights{}) {
		out.Weights = DefaultPriorityWeights()
	}
	out.AmygdalaThreshold = cmp.Or(out.AmygdalaThreshold, PriorityAmygdalaThresholdDefault)
	out.AmygdalaFloor = cmp.Or(out.AmygdalaFloor, PriorityAmygdalaFloorDefault)
	out.Modulation = cmp.Or(out.Modulation, PriorityModulationDefault)
	return &out
}

func (c *PriorityConfig) validate() error {
	w := c.Weights
	for _, x := range []float64{w.Salience, w.Valence, w.Relevance, w.Goal} {
		if !finite(x) || x < 0 {
			return invalidf("PriorityConfig.Weights must be finite and non-negative, got %+v", w)
		}
	}
	switch {
	case w.sum() <= 0:
		return invalidf("PriorityConfig.Weights must have a positive sum, got %+v", w)
	case !finite(c.AmygdalaThreshold) || c.AmygdalaThreshold <= 0 || c.AmygdalaThreshold >= 1:
		return invalidf("PriorityConfig.AmygdalaThreshold must be in (0, 1), got %v", c.AmygdalaThreshold)
	case !finite(c.AmygdalaFloor) || c.AmygdalaFloor <= 0 || c.AmygdalaFloor > 1:
		return invalidf("PriorityConfig.AmygdalaFloor must be in (0, 1], got %v", c.AmygdalaFloor)
	case !finite(c.Modulation) || c.Modulation <= 0 || c.Modulation >= 2:
		return invalidf("PriorityConfig.Modulation must be in (0, 2), got %v", c.Modulation)
	}
	return nil
}

// PriorityMap scores items by P = w_s·s + w_v·|v| + w_r·r + w_g·g with the
// design's base weights 0.2, 0.25, 0.25, 0.3, rescaled by the neuromodulator
// levels, and the amygdala fast path |v| > 0.6 ⇒ P ≥ 0.5. It holds only its
// configuration and is safe for concurrent use.
type PriorityMap struct {
	cfg PriorityConfig
}

// NewPriorityMap returns a PriorityMap with cfg (nil means all defaults).
func NewPriorityMap(cfg *PriorityConfig) (*PriorityMap, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &PriorityMap{cfg: *c}, nil
}

// Weights returns the base weights rescaled by the neuromodulator levels l
// and renormalised to sum 1. With k = Modulation (0.4):
//
//	w_s ← w_s·(1 + k·(NE − 0.5))   noradrenaline sharpens salience
//	w_v ← w_v·(1 + k·(NE − 0.5) − k·(5HT − 0.5)/2)
//	                               arousal amplifies, serotonin damps emotion
//	w_r ← w_r·(1 + k·(ACh − 0.5))  acetylcholine favours the current context
//	w_g ← w_g·(1 + k·(DA − 0.5))   dopamine favours goal-directed items
//
// each floored at 1e-6 before renormalisation. At baseline levels (all 0.5)
// the result is the base weights. Levels are clamped to [0, 1]; NaN levels
// count as 0.5.
func (p *PriorityMap) Weights(l Levels) PriorityWeights {
	dev := func(x float64) float64 { // deviation from baseline; NaN counts as baseline
		if math.IsNaN(x) {
			return 0
		}
		return clamp01(x) - 0.5
	}
	k := p.cfg.Modulation
	w := p.cfg.Weights
	w.Salience *= 1 + k*dev(l.NE)
	w.Valence *= 1 + k*dev(l.NE) - k*dev(l.Serotonin)/2
	w.Relevance *= 1 + k*dev(l.ACh)
	w.Goal *= 1 + k*dev(l.DA)
	w.Salience = math.Max(w.Salience, 1e-6)
	w.Valence = math.Max(w.Valence, 1e-6)
	w.Relevance = math.Max(w.Relevance, 1e-6)
	w.Goal = math.Max(w.Goal, 1e-6)
	s := w.sum()
	return PriorityWeights{Salience: w.Salience / s, Valence: w.Valence / s, Relevance: w.Relevance / s, Goal: w.Goal / s}
}

// Score returns the priority of in under levels l (use [BaselineLevels] when
// the neuromodulator is off). Inputs outside their ranges or NaN return an
// error.
func (p *PriorityMap) Score(in PriorityInput, l Levels) (Priority, error) {
	if err := in.validate(); err != nil {
		return Priority{}, err
	}
	w := p.Weights(l)
	v := math.Abs(in.Valence)
	weighted := clamp01(w.Salience*in.Salience + w.Valence*v + w.Relevance*in.Relevance + w.Goal*in.Goal)
	out := Priority{Score: weighted, Weighted: weighted}
	if v > p.cfg.AmygdalaThreshold {
		out.FastPath = true
		out.Score = math.Max(weighted, p.cfg.AmygdalaFloor)
	}
	return out, nil
}

// Rank returns the indexes of items ordered by descending priority under
// levels l, ties broken by the lower index, together with the scores in input
// order. The first invalid item returns an error naming its index.
func (p *PriorityMap) Rank(items []PriorityInput, l Levels) ([]int, []Priority, error) {
	scores := make([]Priority, len(items))
	for i, in := range items {
		s, err := p.Score(in, l)
		if err != nil {
			return nil, nil, fmt.Errorf("error scoring priority item %d: %w", i, err)
		}
		scores[i] = s
	}
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b].Score, scores[a].Score) })
	return order, scores, nil
}
