package hyperagent

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Param names an adjustable parameter.
type Param string

// The adjustable parameters.
const (
	// ParamRetrievalDiversity is the weight of diversity (redundancy
	// penalty) in recall and context assembly, in [0, 1]. Default 0.3.
	ParamRetrievalDiversity Param = "retrieval_diversity"
	// ParamReviewAggressiveness multiplies review frequency (> 1 schedules
	// reviews sooner), in [0.5, 2]. Default 1.
	ParamReviewAggressiveness Param = "review_aggressiveness"
	// ParamDecayFloor is the forgetting floor f of recall's f + (1 − f)·R,
	// in [0.1, 0.9]. Default 0.5.
	ParamDecayFloor Param = "decay_floor"
	// ParamRecencyWeight weighs recency in ranking, in [0, 0.5]. Default 0.2.
	ParamRecencyWeight Param = "recency_weight"
	// ParamExploration is the share of recall slots given to less-retrieved
	// memories, in [0, 0.3]. Default 0.05.
	ParamExploration Param = "exploration"
)

// AllParams returns the adjustable parameters in a fixed order.
func AllParams() []Param {
	return []Param{ParamRetrievalDiversity, ParamReviewAggressiveness, ParamDecayFloor, ParamRecencyWeight, ParamExploration}
}

// Params holds the current values of the adjustable parameters.
type Params struct {
	// RetrievalDiversity is ParamRetrievalDiversity.
	RetrievalDiversity float64 `json:"retrieval_diversity"`
	// ReviewAggressiveness is ParamReviewAggressiveness.
	ReviewAggressiveness float64 `json:"review_aggressiveness"`
	// DecayFloor is ParamDecayFloor.
	DecayFloor float64 `json:"decay_floor"`
	// RecencyWeight is ParamRecencyWeight.
	RecencyWeight float64 `json:"recency_weight"`
	// Exploration is ParamExploration.
	Exploration float64 `json:"exploration"`
}

// DefaultParams returns the defaults named on each [Param].
func DefaultParams() Params {
	return Params{RetrievalDiversity: 0.3, ReviewAggressiveness: 1, DecayFloor: 0.5, RecencyWeight: 0.2, Exploration: 0.05}
}

// Get returns the value of name, and false for an unknown name.
func (p Params) Get(name Param) (float64, bool) {
	switch name {
	case ParamRetrievalDiversity:
		return p.RetrievalDiversity, true
	case ParamReviewAggressiveness:
		return p.ReviewAggressiveness, true
	case ParamDecayFloor:
		return p.DecayFloor, true
	case ParamRecencyWeight:
		return p.RecencyWeight, true
	case ParamExploration:
		return p.Exploration, true
	}
	return 0, false
}

func (p *Params) set(name Param, v float64) {
	switch name {
	case ParamRetrievalDiversity:
		p.RetrievalDiversity = v
	case ParamReviewAggressiveness:
		p.ReviewAggressiveness = v
	case ParamDecayFloor:
		p.DecayFloor = v
	case ParamRecencyWeight:
		p.RecencyWeight = v
	case ParamExploration:
		p.Exploration = v
	}
}

// Bounds limits one parameter.
type Bounds struct {
	// Min and Max are the inclusive range.
	Min, Max float64
	// MaxStep is the largest change one entry may make.
	MaxStep float64
}

// DefaultBounds returns the ranges named on each [Param], with MaxStep a
// tenth of each range.
func DefaultBounds() map[Param]Bounds {
	return map[Param]Bounds{
		ParamRetrievalDiversity:   {Min: 0, Max: 1, MaxStep: 0.1},
		ParamReviewAggressiveness: {Min: 0.5, Max: 2, MaxStep: 0.15},
		ParamDecayFloor:           {Min: 0.1, Max: 0.9, MaxStep: 0.08},
		ParamRecencyWeight:        {Min: 0, Max: 0.5, MaxStep: 0.05},
		ParamExploration:          {Min: 0, Max: 0.3, MaxStep: 0.03},
	}
}

// Signals are the MetacognitiveMonitor's readings over its window. All rates
// are in [0, 1].
type Signals struct {
	// ConfirmationBias is how far acceptance leans to confirming evidence
	// (0: balanced).
	ConfirmationBias float64 `json:"confirmation_bias"`
	// RecencyBias is |recent acceptance − older acceptance|.
	RecencyBias float64 `json:"recency_bias"`
	// RetrievalEfficiency is the share of recalled memories that were used.
	RetrievalEfficiency float64 `json:"retrieval_efficiency"`
	// ReviewLapseRate is the share of reviews that lapsed (forgotten).
	ReviewLapseRate float64 `json:"review_lapse_rate"`
	// ForgettingRegret is the share of needed memories found only by deep
	// recall of archived memories.
	ForgettingRegret float64 `json:"forgetting_regret"`
	// Samples is the number of observations behind the rates.
	Samples int `json:"samples"`
}

// Meta-policy defaults.
const (
	// BiasThresholdDefault is the bias above which the bias rules fire (the
	// monitor's alert level).
	BiasThresholdDefault = 0.15
	// EfficiencyTargetDefault is the retrieval efficiency below which
	// retrieval is sharpened.
	EfficiencyTargetDefault = 0.5
	// LapseHighDefault is the lapse rate above which reviews get more
	// aggressive.
	LapseHighDefault = 0.2
	// LapseLowDefault is the lapse rate below which reviews relax.
	LapseLowDefault = 0.05
	// RegretThresholdDefault is the forgetting regret above which the decay
	// floor rises.
	RegretThresholdDefault = 0.05
	// MinSamplesDefault is the fewest observations to act on.
	MinSamplesDefault = 20
	// MaxEntriesPerDayDefault is the daily budget of adjusting entries.
	MaxEntriesPerDayDefault = 3
)

// Config configures [Propose]. The zero value, or nil, means defaults.
type Config struct {
	// Bounds per parameter. Nil means DefaultBounds; a parameter missing
	// from a non-nil map is never adjusted.
	Bounds map[Param]Bounds
	// BiasThreshold defaults to BiasThresholdDefault.
	BiasThreshold float64
	// EfficiencyTarget defaults to EfficiencyTargetDefault.
	EfficiencyTarget float64
	// LapseHigh defaults to LapseHighDefault.
	LapseHigh float64
	// LapseLow defaults to LapseLowDefault.
	LapseLow float64
	// RegretThreshold defaults to RegretThresholdDefault.
	RegretThreshold float64
	// MinSamples defaults to MinSamplesDefault.
	MinSamples int
	// MaxEntriesPerDay defaults to MaxEntriesPerDayDefault; −1 means no
	// budget.
	MaxEntriesPerDay int
}

// WithDefaults returns a copy of c with zero fields replaced by defaults.
func (c *Config) WithDefaults() *Config {
	out := Config{}
	if c != nil {
		out = *c
	}
	if out.Bounds == nil {
		out.Bounds = DefaultBounds()
	}
	out.BiasThreshold = cmp.Or(out.BiasThreshold, BiasThresholdDefault)
	out.EfficiencyTarget = cmp.Or(out.EfficiencyTarget, EfficiencyTargetDefault)
	out.LapseHigh = cmp.Or(out.LapseHigh, LapseHighDefault)
	out.LapseLow = cmp.Or(out.LapseLow, LapseLowDefault)
	out.RegretThreshold = cmp.Or(out.RegretThreshold, RegretThresholdDefault)
	out.MinSamples = cmp.Or(out.MinSamples, MinSamplesDefault)
	out.MaxEntriesPerDay = cmp.Or(out.MaxEntriesPerDay, MaxEntriesPerDayDefault)
	return &out
}

// Adjustment is one parameter change.
type Adjustment struct {
	// Param is the changed parameter.
	Param Param `json:"param"`
	// From is the value before, To the value after.
	From float64 `json:"from"`
	// To is the value after the change.
	To float64 `json:"to"`
	// Reason explains the change, one clause per rule that contributed,
	// joined by "; ".
	Reason string `json:"reason"`
}

// Risk grades an entry for governance.
type Risk string

const (
	// RiskNone marks an entry without adjustments.
	RiskNone Risk = "none"
	// RiskLow marks entries whose changes are all at most half a MaxStep.
	RiskLow Risk = "low"
	// RiskMedium marks entries with a larger change; they need approval
	// when approvals are enabled.
	RiskMedium Risk = "medium"
)

// Entry is one HyperAgent decision, as logged.
type Entry struct {
	// ID is assigned by the caller when the entry is stored.
	ID string `json:"id,omitempty"`
	// At is when the entry was proposed.
	At time.Time `json:"at"`
	// Signals are the readings the entry was based on.
	Signals Signals `json:"signals"`
	// Adjustments are the changes, in AllParams order.
	Adjustments []Adjustment `json:"adjustments"`
	// Risk grades the entry.
	Risk Risk `json:"risk"`
	// Note explains an entry without adjustments (insufficient samples,
	// budget exhausted, nothing to do).
	Note string `json:"note,omitempty"`
	// RevertOf is the ID of the entry this one undoes, for [Inverse] entries.
	RevertOf string `json:"revert_of,omitempty"`
	// Reverted is set by the caller when the entry has been undone.
	Reverted bool `json:"reverted,omitempty"`
}

const eps = 1e-9

func inUnit(x float64) bool { return x >= 0 && x <= 1 }

func (s Signals) validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"ConfirmationBias", s.ConfirmationBias},
		{"RecencyBias", s.RecencyBias},
		{"RetrievalEfficiency", s.RetrievalEfficiency},
		{"ReviewLapseRate", s.ReviewLapseRate},
		{"ForgettingRegret", s.ForgettingRegret},
	} {
		if !inUnit(f.v) { // also false for NaN
			errs = append(errs, fmt.Errorf("signal %s is %v, want in [0, 1]", f.name, f.v))
		}
	}
	if s.Samples < 0 {
		errs = append(errs, fmt.Errorf("signal Samples is %d, want ≥ 0", s.Samples))
	}
	return errors.Join(errs...)
}

func checkParams(p Params, bounds map[Param]Bounds) error {
	var errs []error
	for _, name := range AllParams() {
		v, _ := p.Get(name)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			errs = append(errs, fmt.Errorf("parameter %s is %v", name, v))
			continue
		}
		if b, ok := bounds[name]; ok && (v < b.Min-eps || v > b.Max+eps) {
			errs = append(errs, fmt.Errorf("parameter %s is %v, outside [%v, %v]", name, v, b.Min, b.Max))
		}
	}
	return errors.Join(errs...)
}

// Propose runs the meta-policy (see the package documentation) on signals
// and the current params. history is the log so far; it is used for the
// daily budget (entries with adjustments, not reverts and not reverted, at
// most 24 hours before now). Propose returns an error for signals outside
// [0, 1], NaN, negative Samples, current params that are not finite or lie
// outside their bounds, or invalid bounds (Min > Max, MaxStep ≤ 0).
func Propose(signals Signals, params Params, history []Entry, now time.Time, cfg *Config) (Entry, error) {
	c := cfg.WithDefaults()
	for name, b := range c.Bounds {
		if !(b.Min <= b.Max) || !(b.MaxStep > 0) || math.IsInf(b.MaxStep, 0) {
			return Entry{}, fmt.Errorf("error proposing adjustments: invalid bounds for %s: %+v", name, b)
		}
	}
	if err := signals.validate(); err != nil {
		return Entry{}, fmt.Errorf("error proposing adjustments: %w", err)
	}
	if err := checkParams(params, c.Bounds); err != nil {
		return Entry{}, fmt.Errorf("error proposing adjustments: %w", err)
	}
	e := Entry{At: now, Signals: signals, Risk: RiskNone}
	if signals.Samples < c.MinSamples {
		e.Note = fmt.Sprintf("insufficient samples: %d < %d", signals.Samples, c.MinSamples)
		return e, nil
	}
	if c.MaxEntriesPerDay >= 0 {
		n := 0
		for _, h := range history {
			if len(h.Adjustments) > 0 && h.RevertOf == "" && !h.Reverted && h.At.After(now.Add(-24*time.Hour)) && !h.At.After(now) {
				n++
			}
		}
		if n >= c.MaxEntriesPerDay {
			e.Note = fmt.Sprintf("daily budget exhausted: %d of %d entries in the last 24h", n, c.MaxEntriesPerDay)
			return e, nil
		}
	}

	delta := map[Param]float64{}
	reasons := map[Param][]string{}
	add := func(p Param, d float64, reason string) {
		delta[p] += d
		reasons[p] = append(reasons[p], reason)
	}
	T := c.BiasThreshold
	if b := signals.ConfirmationBias; b > T {
		r := fmt.Sprintf("confirmation bias %.3f > %.3f", b, T)
		add(ParamRetrievalDiversity, 0.5*(b-T), r+": diversify retrieval")
		add(ParamExploration, 0.2*(b-T), r+": explore less-retrieved memories")
	}
	if b := signals.RecencyBias; b > T {
		r := fmt.Sprintf("recency bias %.3f > %.3f", b, T)
		add(ParamRecencyWeight, -0.5*(b-T), r+": weigh recency less")
		add(ParamDecayFloor, 0.25*(b-T), r+": let older memories keep more weight")
	}
	if eff := signals.RetrievalEfficiency; eff < c.EfficiencyTarget {
		add(ParamRetrievalDiversity, -0.5*(c.EfficiencyTarget-eff),
			fmt.Sprintf("retrieval efficiency %.3f < %.3f: favour precision", eff, c.EfficiencyTarget))
	}
	if l := signals.ReviewLapseRate; l > c.LapseHigh {
		add(ParamReviewAggressiveness, l-c.LapseHigh, fmt.Sprintf("review lapse rate %.3f > %.3f: review sooner", l, c.LapseHigh))
	} else if l < c.LapseLow {
		add(ParamReviewAggressiveness, -0.5*(c.LapseLow-l), fmt.Sprintf("review lapse rate %.3f < %.3f: review less often", l, c.LapseLow))
	}
	if r := signals.ForgettingRegret; r > c.RegretThreshold {
		add(ParamDecayFloor, r-c.RegretThreshold, fmt.Sprintf("forgetting regret %.3f > %.3f: forget more gently", r, c.RegretThreshold))
	}

	for _, name := range AllParams() {
		d, ok := delta[name]
		b, bounded := c.Bounds[name]
		if !ok || !bounded {
			continue
		}
		d = max(-b.MaxStep, min(b.MaxStep, d))
		from, _ := params.Get(name)
		to := max(b.Min, min(b.Max, from+d))
		if math.Abs(to-from) < eps {
			continue
		}
		e.Adjustments = append(e.Adjustments, Adjustment{Param: name, From: from, To: to, Reason: strings.Join(reasons[name], "; ")})
		if math.Abs(to-from) > b.MaxStep/2+eps {
			e.Risk = RiskMedium
		} else if e.Risk == RiskNone {
			e.Risk = RiskLow
		}
	}
	if len(e.Adjustments) == 0 {
		e.Note = "no adjustment needed"
	}
	return e, nil
}

// Apply returns params with e's adjustments carried out, in order. It
// returns an error (and params unchanged) if an adjustment names an unknown
// parameter, if a parameter's current value differs from the adjustment's
// From (something else changed it), or if a target is not finite.
func Apply(params Params, e Entry) (Params, error) {
	out := params
	for _, a := range e.Adjustments {
		cur, ok := out.Get(a.Param)
		if !ok {
			return params, fmt.Errorf("error applying entry %q: unknown parameter %q", e.ID, a.Param)
		}
		if math.Abs(cur-a.From) > eps {
			return params, fmt.Errorf("error applying entry %q: %s is %v, entry expects %v", e.ID, a.Param, cur, a.From)
		}
		if math.IsNaN(a.To) || math.IsInf(a.To, 0) {
			return params, fmt.Errorf("error applying entry %q: %s target %v", e.ID, a.Param, a.To)
		}
		out.set(a.Param, a.To)
	}
	return out, nil
}

// Inverse returns the entry that undoes e: the adjustments in reverse order
// with From and To swapped, RevertOf set to e.ID, at the given time.
func Inverse(e Entry, now time.Time) Entry {
	inv := Entry{At: now, Signals: e.Signals, Risk: e.Risk, RevertOf: e.ID, Note: "revert"}
	if inv.Risk == "" {
		inv.Risk = RiskNone
	}
	for i := len(e.Adjustments) - 1; i >= 0; i-- {
		a := e.Adjustments[i]
		inv.Adjustments = append(inv.Adjustments, Adjustment{Param: a.Param, From: a.To, To: a.From, Reason: "revert: " + a.Reason})
	}
	return inv
}

// Revert undoes e on params: [Apply] of [Inverse](e). It fails, leaving
// params unchanged, if any parameter no longer has the value e set.
func Revert(params Params, e Entry) (Params, error) {
	out, err := Apply(params, Inverse(e, e.At))
	if err != nil {
		return params, fmt.Errorf("error reverting entry %q: %w", e.ID, err)
	}
	return out, nil
}
