package bayes

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Default propagation parameters.
const (
	// DampingDefault is the weight of a sweep's new value; the previous value
	// keeps 1 − DampingDefault = 0.3.
	DampingDefault = 0.7
	// MaxIterationsDefault is the maximum number of propagation sweeps.
	MaxIterationsDefault = 3
	// ToleranceDefault is the largest change that still counts as converged.
	ToleranceDefault = 1e-6
)

// Relation is the type of a link between two facts.
type Relation string

// Relation types and their factors.
const (
	// Supports has factor +1.
	Supports Relation = "supports"
	// Contradicts has factor −1 and is symmetric.
	Contradicts Relation = "contradicts"
	// Causes has factor 0.8.
	Causes Relation = "causes"
	// Requires has factor 0.6.
	Requires Relation = "requires"
	// PartOf has factor 0.3.
	PartOf Relation = "part_of"
	// SimilarTo has factor 0.2 and is symmetric.
	SimilarTo Relation = "similar_to"
	// CreatedBy has factor 0.
	CreatedBy Relation = "created_by"
	// UsedBy has factor 0.
	UsedBy Relation = "used_by"
	// CoOccurs has factor 0.
	CoOccurs Relation = "co_occurs"
)

// Factor returns the relation's propagation factor and whether the relation is
// known. Unknown relations have factor 0.
func (r Relation) Factor() (float64, bool) {
	switch r {
	case Supports:
		return 1, true
	case Contradicts:
		return -1, true
	case Causes:
		return 0.8, true
	case Requires:
		return 0.6, true
	case PartOf:
		return 0.3, true
	case SimilarTo:
		return 0.2, true
	case CreatedBy, UsedBy, CoOccurs:
		return 0, true
	}
	return 0, false
}

// Symmetric reports whether the relation acts in both directions
// (contradicts and similar_to).
func (r Relation) Symmetric() bool { return r == Contradicts || r == SimilarTo }

// Config holds the evidence and propagation parameters. A zero field takes its
// default from the matching XxxDefault constant.
type Config struct {
	// ConfirmWeight is the α added per fully reliable confirmation. Defaults to ConfirmWeightDefault (1).
	ConfirmWeight float64
	// ContradictWeight is the β added per fully reliable contradiction. Defaults to ContradictWeightDefault (1).
	ContradictWeight float64
	// Damping is the weight of a sweep's new value against the previous one, in (0, 1].
	// Defaults to DampingDefault (0.7).
	Damping float64
	// MaxIterations is the maximum number of sweeps. Defaults to MaxIterationsDefault (3).
	MaxIterations int
	// Tolerance stops early when no value changes by more. Defaults to ToleranceDefault (1e-6). -1 never stops early.
	Tolerance float64
}

// DefaultConfig returns the configuration with every default filled in.
func DefaultConfig() Config { return Config{}.WithDefaults() }

// WithDefaults returns a copy of c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	c.ConfirmWeight = cmp.Or(c.ConfirmWeight, ConfirmWeightDefault)
	c.ContradictWeight = cmp.Or(c.ContradictWeight, ContradictWeightDefault)
	c.Damping = cmp.Or(c.Damping, DampingDefault)
	c.MaxIterations = cmp.Or(c.MaxIterations, MaxIterationsDefault)
	c.Tolerance = cmp.Or(c.Tolerance, ToleranceDefault)
	return c
}

// Validate reports the first field out of range, naming it.
func (c Config) Validate() error {
	switch {
	case !finite(c.ConfirmWeight) || c.ConfirmWeight <= 0:
		return fmt.Errorf("%w: ConfirmWeight must be positive and finite, got %v", ErrInvalidInput, c.ConfirmWeight)
	case !finite(c.ContradictWeight) || c.ContradictWeight <= 0:
		return fmt.Errorf("%w: ContradictWeight must be positive and finite, got %v", ErrInvalidInput, c.ContradictWeight)
	case !(c.Damping > 0 && c.Damping <= 1):
		return fmt.Errorf("%w: Damping must be in (0, 1], got %v", ErrInvalidInput, c.Damping)
	case c.MaxIterations < 1 || c.MaxIterations > 100:
		return fmt.Errorf("%w: MaxIterations must be in [1, 100], got %d", ErrInvalidInput, c.MaxIterations)
	case c.Tolerance != -1 && (!finite(c.Tolerance) || c.Tolerance <= 0):
		return fmt.Errorf("%w: Tolerance must be positive and finite or -1, got %v", ErrInvalidInput, c.Tolerance)
	}
	return nil
}

func (c *Config) effective() (Config, error) {
	var out Config
	if c != nil {
		out = *c
	}
	out = out.WithDefaults()
	return out, out.Validate()
}

// Fact is a fact with its own belief.
type Fact struct {
	// ID identifies the fact; unique and non-empty.
	ID string `json:"id"`
	// Belief is the fact's Beta belief from its own evidence.
	Belief Belief `json:"belief"`
}

// Link is a typed relation From → To between two facts.
type Link struct {
	// From is the source fact id.
	From string `json:"from"`
	// To is the target fact id.
	To string `json:"to"`
	// Relation is the link type.
	Relation Relation `json:"relation"`
	// Strength is w in (0, 1]; 0 means 1.
	Strength float64 `json:"strength"`
}

// FactConfidence is the propagation result for one fact.
type FactConfidence struct {
	// ID is the fact id.
	ID string `json:"id"`
	// Own is the mean of the fact's own belief.
	Own float64 `json:"own"`
	// OwnInterval is the 95 % interval of the fact's own belief.
	OwnInterval Interval `json:"own_interval"`
	// Propagated is the confidence after propagation.
	Propagated float64 `json:"propagated"`
	// Interval is the 95 % interval of Beta with the fact's evidence mass and mean Propagated.
	Interval Interval `json:"interval"`
	// Incoming is the number of influences (after symmetric expansion) acting on the fact.
	Incoming int `json:"incoming"`
}

// Result is the outcome of [Propagate].
type Result struct {
	// Facts are the results, sorted by id.
	Facts []FactConfidence `json:"facts"`
	// Iterations is the number of sweeps run.
	Iterations int `json:"iterations"`
	// MaxChange is the largest change in the last sweep.
	MaxChange float64 `json:"max_change"`
	// Ignored is the number of links of unknown type or factor 0.
	Ignored int `json:"ignored"`
}

// Get returns the result for id and whether it exists.
func (r Result) Get(id string) (FactConfidence, bool) {
	i, ok := slices.BinarySearchFunc(r.Facts, id, func(f FactConfidence, id string) int { return strings.Compare(f.ID, id) })
	if !ok {
		return FactConfidence{}, false
	}
	return r.Facts[i], true
}

type influence struct {
	src    int
	factor float64 // f·w, signed
}

// Propagate runs damped multi-hop confidence propagation over links (see the
// package documentation) with cfg (nil means DefaultConfig). It returns an
// error wrapping ErrInvalidInput for an empty or duplicate fact id, an invalid
// belief, a link to an unknown fact, a self-link or a strength outside [0, 1].
func Propagate(facts []Fact, links []Link, cfg *Config) (Result, error) {
	c, err := cfg.effective()
	if err != nil {
		return Result{}, fmt.Errorf("error propagating confidence: %w", err)
	}
	sorted := slices.Clone(facts)
	slices.SortFunc(sorted, func(a, b Fact) int { return strings.Compare(a.ID, b.ID) })
	index := make(map[string]int, len(sorted))
	for i, f := range sorted {
		if f.ID == "" {
			return Result{}, fmt.Errorf("error propagating confidence: %w: empty fact id", ErrInvalidInput)
		}
		if _, dup := index[f.ID]; dup {
			return Result{}, fmt.Errorf("error propagating confidence: %w: duplicate fact id %q", ErrInvalidInput, f.ID)
		}
		if err := f.Belief.Validate(); err != nil {
			return Result{}, fmt.Errorf("error propagating confidence: fact %q: %w", f.ID, err)
		}
		index[f.ID] = i
	}

	in := make([][]influence, len(sorted))
	var res Result
	for _, l := range links {
		from, okF := index[l.From]
		to, okT := index[l.To]
		switch {
		case !okF || !okT:
			return Result{}, fmt.Errorf("error propagating confidence: %w: link %q→%q references an unknown fact", ErrInvalidInput, l.From, l.To)
		case from == to:
			return Result{}, fmt.Errorf("error propagating confidence: %w: self-link on %q", ErrInvalidInput, l.From)
		case !finite(l.Strength) || l.Strength < 0 || l.Strength > 1:
			return Result{}, fmt.Errorf("error propagating confidence: %w: link %q→%q strength must be in [0, 1], got %v", ErrInvalidInput, l.From, l.To, l.Strength)
		}
		f, known := l.Relation.Factor()
		if !known || f == 0 {
			res.Ignored++
			continue
		}
		w := cmp.Or(l.Strength, 1)
		in[to] = append(in[to], influence{src: from, factor: f * w})
		if l.Relation.Symmetric() {
			in[from] = append(in[from], influence{src: to, factor: f * w})
		}
	}

	own := make([]float64, len(sorted))
	for i, f := range sorted {
		own[i] = f.Belief.Mean()
	}
	p := slices.Clone(own)
	next := make([]float64, len(p))
	for res.Iterations < c.MaxIterations {
		res.Iterations++
		res.MaxChange = 0
		for i := range sorted {
			up, down := 1.0, 1.0
			for _, inf := range in[i] {
				if inf.factor > 0 {
					up *= 1 - inf.factor*p[inf.src]
				} else {
					down *= 1 + inf.factor*p[inf.src]
				}
			}
			m := (1 - (1-own[i])*up) * down
			next[i] = c.Damping*m + (1-c.Damping)*p[i]
			res.MaxChange = math.Max(res.MaxChange, math.Abs(next[i]-p[i]))
		}
		p, next = next, p
		if c.Tolerance != -1 && res.MaxChange <= c.Tolerance {
			break
		}
	}

	res.Facts = make([]FactConfidence, len(sorted))
	for i, f := range sorted {
		fc := FactConfidence{ID: f.ID, Own: own[i], OwnInterval: f.Belief.Interval95(), Propagated: p[i], Incoming: len(in[i])}
		// Keep both shape parameters positive when p rounds to 0 or 1.
		q := min(max(p[i], 1e-12), 1-1e-12)
		fc.Interval = Belief{Alpha: q * f.Belief.Mass(), Beta: (1 - q) * f.Belief.Mass()}.Interval95()
		res.Facts[i] = fc
	}
	return res, nil
}
