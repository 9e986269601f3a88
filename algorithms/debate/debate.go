package debate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Default parameters.
const (
	// MinContradictionsDefault is the number of contradicted stored facts that triggers a debate.
	MinContradictionsDefault = 2
	// RecencyHalfLifeDefault is h in the recency score 2^(−age/h).
	RecencyHalfLifeDefault = 90 * 24 * time.Hour
	// SupportHalfDefault is k in the support score n/(n + k).
	SupportHalfDefault = 3.0
	// WeightRecencyDefault is the weight of recency in a position's score.
	WeightRecencyDefault = 0.25
	// WeightConfidenceDefault is the weight of confidence in a position's score.
	WeightConfidenceDefault = 0.30
	// WeightReliabilityDefault is the weight of source reliability in a position's score.
	WeightReliabilityDefault = 0.25
	// WeightSupportDefault is the weight of support in a position's score.
	WeightSupportDefault = 0.20
	// SupersedeMarginDefault is the lead over every incumbent that lets the new fact supersede them.
	SupersedeMarginDefault = 0.10
	// RejectMarginDefault is the deficit against the strongest incumbent that rejects the new fact.
	RejectMarginDefault = 0.10
	// OfflineJudgeName is the Judge field of the offline judge's verdicts.
	OfflineJudgeName = "offline"
)

// ErrInvalidInput reports a fact, verdict or parameter out of range.
var ErrInvalidInput = errors.New("invalid debate input")

// Outcome is a debate's decision.
type Outcome string

// Outcomes.
const (
	// KeepBothAsHypotheses keeps the new fact and the incumbents as a hypothesis group.
	KeepBothAsHypotheses Outcome = "keep_both_as_hypotheses"
	// Supersede stores the new fact and marks the incumbents superseded by it.
	Supersede Outcome = "supersede"
	// Reject does not store the new fact as current knowledge.
	Reject Outcome = "reject"
)

// Valid reports whether o is one of the three outcomes.
func (o Outcome) Valid() bool {
	return o == KeepBothAsHypotheses || o == Supersede || o == Reject
}

// Fact is a fact taking part in a debate.
type Fact struct {
	// ID identifies the fact; non-empty and unique within a debate.
	ID string `json:"id"`
	// Statement is the fact's text, for judges that read it.
	Statement string `json:"statement"`
	// RecordedAt is when the fact was observed or became valid; zero means unknown.
	RecordedAt time.Time `json:"recorded_at"`
	// Confidence is the fact's confidence in [0, 1].
	Confidence float64 `json:"confidence"`
	// SourceReliability is the reliability of the fact's source in [0, 1].
	SourceReliability float64 `json:"source_reliability"`
	// Supports is the number of supporting facts or confirmations, non-negative.
	Supports int `json:"supports"`
}

// Config holds the debate parameters. A zero field takes its default.
type Config struct {
	// MinContradictions triggers a debate. Defaults to MinContradictionsDefault (2).
	MinContradictions int
	// RecencyHalfLife is h. Defaults to RecencyHalfLifeDefault (90 days).
	RecencyHalfLife time.Duration
	// SupportHalf is k. Defaults to SupportHalfDefault (3).
	SupportHalf float64
	// WeightRecency defaults to WeightRecencyDefault (0.25).
	WeightRecency float64
	// WeightConfidence defaults to WeightConfidenceDefault (0.30).
	WeightConfidence float64
	// WeightReliability defaults to WeightReliabilityDefault (0.25).
	WeightReliability float64
	// WeightSupport defaults to WeightSupportDefault (0.20).
	WeightSupport float64
	// SupersedeMargin defaults to SupersedeMarginDefault (0.10).
	SupersedeMargin float64
	// RejectMargin defaults to RejectMarginDefault (0.10).
	RejectMargin float64
}

// DefaultConfig returns the configuration with every default filled in.
func DefaultConfig() Config { return Config{}.WithDefaults() }

// WithDefaults returns a copy of c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	c.MinContradictions = cmp.Or(c.MinContradictions, MinContradictionsDefault)
	c.RecencyHalfLife = cmp.Or(c.RecencyHalfLife, RecencyHalfLifeDefault)
	c.SupportHalf = cmp.Or(c.SupportHalf, SupportHalfDefault)
	c.WeightRecency = cmp.Or(c.WeightRecency, WeightRecencyDefault)
	c.WeightConfidence = cmp.Or(c.WeightConfidence, WeightConfidenceDefault)
	c.WeightReliability = cmp.Or(c.WeightReliability, WeightReliabilityDefault)
	c.WeightSupport = cmp.Or(c.WeightSupport, WeightSupportDefault)
	c.SupersedeMargin = cmp.Or(c.SupersedeMargin, SupersedeMarginDefault)
	c.RejectMargin = cmp.Or(c.RejectMargin, RejectMarginDefault)
	return c
}

// Validate reports the first field out of range, naming it.
func (c Config) Validate() error {
	if c.MinContradictions < 1 {
		return fmt.Errorf("%w: MinContradictions must be at least 1, got %d", ErrInvalidInput, c.MinContradictions)
	}
	if c.RecencyHalfLife <= 0 {
		return fmt.Errorf("%w: RecencyHalfLife must be positive, got %v", ErrInvalidInput, c.RecencyHalfLife)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"SupportHalf", c.SupportHalf},
		{"WeightRecency", c.WeightRecency},
		{"WeightConfidence", c.WeightConfidence},
		{"WeightReliability", c.WeightReliability},
		{"WeightSupport", c.WeightSupport},
		{"SupersedeMargin", c.SupersedeMargin},
		{"RejectMargin", c.RejectMargin},
	} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v <= 0 {
			return fmt.Errorf("%w: %s must be positive and finite, got %v", ErrInvalidInput, f.name, f.v)
		}
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

// ShouldDebate reports whether a new fact contradicting n stored facts
// triggers a debate under cfg (nil or an invalid cfg means the defaults):
// n ≥ MinContradictions.
func ShouldDebate(n int, cfg *Config) bool {
	c, err := cfg.effective()
	if err != nil {
		c = DefaultConfig()
	}
	return n >= c.MinContradictions
}

// Role says which side a position argues.
type Role string

// Roles.
const (
	// Challenger is the new fact.
	Challenger Role = "challenger"
	// Incumbent is a stored fact the new fact contradicts.
	Incumbent Role = "incumbent"
)

// Scores are a position's components and weighted total, all in [0, 1].
type Scores struct {
	// Recency is 2^(−age/h).
	Recency float64 `json:"recency"`
	// Confidence is the fact's confidence.
	Confidence float64 `json:"confidence"`
	// Reliability is the source reliability.
	Reliability float64 `json:"reliability"`
	// Support is n/(n + k).
	Support float64 `json:"support"`
	// Total is the weighted mean of the four.
	Total float64 `json:"total"`
}

// Position is one side of a debate with its evidence scores.
type Position struct {
	// Role is challenger or incumbent.
	Role Role `json:"role"`
	// Fact is the fact argued for.
	Fact Fact `json:"fact"`
	// Scores are the evidence scores.
	Scores Scores `json:"scores"`
}

// Debate is the material a judge decides on.
type Debate struct {
	// Now is the time of the debate.
	Now time.Time `json:"now"`
	// Challenger is the new fact's position.
	Challenger Position `json:"challenger"`
	// Incumbents are the contradicted stored facts' positions, sorted by id.
	Incumbents []Position `json:"incumbents"`
	// Config is the effective configuration the positions were scored with.
	Config Config `json:"config"`
}

// NewDebate scores the positions of challenger and the contradicted facts at
// now with cfg (nil means the defaults). It does not check the trigger; see
// [ShouldDebate]. It returns an error wrapping ErrInvalidInput for an empty
// or duplicate id, a confidence or reliability outside [0, 1] or a negative
// support count, or when there is no incumbent.
func NewDebate(challenger Fact, contradicted []Fact, now time.Time, cfg *Config) (Debate, error) {
	c, err := cfg.effective()
	if err != nil {
		return Debate{}, fmt.Errorf("error building debate: %w", err)
	}
	if len(contradicted) == 0 {
		return Debate{}, fmt.Errorf("error building debate: %w: no contradicted fact", ErrInvalidInput)
	}
	seen := map[string]bool{}
	for _, f := range append([]Fact{challenger}, contradicted...) {
		if err := checkFact(f); err != nil {
			return Debate{}, fmt.Errorf("error building debate: %w", err)
		}
		if seen[f.ID] {
			return Debate{}, fmt.Errorf("error building debate: %w: duplicate fact id %q", ErrInvalidInput, f.ID)
		}
		seen[f.ID] = true
	}
	d := Debate{Now: now, Config: c, Challenger: Position{Role: Challenger, Fact: challenger, Scores: c.score(challenger, now)}}
	for _, f := range contradicted {
		d.Incumbents = append(d.Incumbents, Position{Role: Incumbent, Fact: f, Scores: c.score(f, now)})
	}
	slices.SortFunc(d.Incumbents, func(a, b Position) int { return strings.Compare(a.Fact.ID, b.Fact.ID) })
	return d, nil
}

func checkFact(f Fact) error {
	switch {
	case f.ID == "":
		return fmt.Errorf("%w: empty fact id", ErrInvalidInput)
	case !unit(f.Confidence):
		return fmt.Errorf("%w: fact %q: confidence must be in [0, 1], got %v", ErrInvalidInput, f.ID, f.Confidence)
	case !unit(f.SourceReliability):
		return fmt.Errorf("%w: fact %q: source reliability must be in [0, 1], got %v", ErrInvalidInput, f.ID, f.SourceReliability)
	case f.Supports < 0:
		return fmt.Errorf("%w: fact %q: supports must be non-negative, got %d", ErrInvalidInput, f.ID, f.Supports)
	}
	return nil
}

// Score returns the evidence scores of f at now under cfg (nil means the
// defaults); an invalid cfg scores with the defaults.
func Score(f Fact, now time.Time, cfg *Config) Scores {
	c, err := cfg.effective()
	if err != nil {
		c = DefaultConfig()
	}
	return c.score(f, now)
}

func (c Config) score(f Fact, now time.Time) Scores {
	s := Scores{Confidence: f.Confidence, Reliability: f.SourceReliability}
	if !f.RecordedAt.IsZero() {
		age := max(now.Sub(f.RecordedAt), 0)
		s.Recency = math.Exp2(-age.Hours() / c.RecencyHalfLife.Hours())
	}
	n := float64(max(f.Supports, 0))
	s.Support = n / (n + c.SupportHalf)
	sum := c.WeightRecency + c.WeightConfidence + c.WeightReliability + c.WeightSupport
	s.Total = (c.WeightRecency*s.Recency + c.WeightConfidence*s.Confidence +
		c.WeightReliability*s.Reliability + c.WeightSupport*s.Support) / sum
	return s
}

// IncumbentMargin is the challenger's lead over one incumbent.
type IncumbentMargin struct {
	// ID is the incumbent's fact id.
	ID string `json:"id"`
	// Margin is S_new − S_incumbent.
	Margin float64 `json:"margin"`
}

// Verdict is a judge's decision.
type Verdict struct {
	// Outcome is the decision.
	Outcome Outcome `json:"outcome"`
	// Margin is the challenger's lead over the strongest incumbent (negative when behind).
	Margin float64 `json:"margin"`
	// Margins are the leads over every incumbent, sorted by id.
	Margins []IncumbentMargin `json:"margins"`
	// Superseded are the incumbent ids the new fact supersedes (only for Supersede).
	Superseded []string `json:"superseded"`
	// Reasons explain the decision in sentences, most important first.
	Reasons []string `json:"reasons"`
	// Judge names the judge that decided.
	Judge string `json:"judge"`
}

// Judge decides a debate. Implementations may call an LLM; they must honour
// ctx and return a verdict whose Outcome is valid and whose Superseded ids are
// incumbents of the debate.
type Judge interface {
	// Judge returns the verdict on d.
	Judge(ctx context.Context, d Debate) (Verdict, error)
}

// OfflineJudge is the deterministic default judge described in the package
// documentation. The zero value is ready to use; it reads its margins from
// the debate's Config.
type OfflineJudge struct{}

// Judge decides d by score margins. It never fails on a debate built by
// [NewDebate]; it returns an error wrapping ErrInvalidInput for a debate
// without incumbents.
func (OfflineJudge) Judge(_ context.Context, d Debate) (Verdict, error) {
	if len(d.Incumbents) == 0 {
		return Verdict{}, fmt.Errorf("error judging debate: %w: no incumbent", ErrInvalidInput)
	}
	c := d.Config.WithDefaults()
	v := Verdict{Judge: OfflineJudgeName}
	strongest := d.Incumbents[0]
	v.Margin = math.Inf(1)
	for _, p := range d.Incumbents {
		m := d.Challenger.Scores.Total - p.Scores.Total
		v.Margins = append(v.Margins, IncumbentMargin{ID: p.Fact.ID, Margin: m})
		if m < v.Margin {
			v.Margin, strongest = m, p
		}
	}
	newID, oldID := d.Challenger.Fact.ID, strongest.Fact.ID
	switch {
	case v.Margin >= c.SupersedeMargin:
		v.Outcome = Supersede
		for _, p := range d.Incumbents {
			v.Superseded = append(v.Superseded, p.Fact.ID)
		}
		v.Reasons = append(v.Reasons, fmt.Sprintf(
			"new fact %s leads every contradicted fact by at least the supersede margin %.2f; its smallest lead is %.3f over %s",
			newID, c.SupersedeMargin, v.Margin, oldID))
	case v.Margin <= -c.RejectMargin:
		v.Outcome = Reject
		v.Reasons = append(v.Reasons, fmt.Sprintf(
			"stored fact %s outweighs new fact %s by %.3f, at least the reject margin %.2f",
			oldID, newID, -v.Margin, c.RejectMargin))
	default:
		v.Outcome = KeepBothAsHypotheses
		v.Reasons = append(v.Reasons, fmt.Sprintf(
			"the evidence does not separate new fact %s from stored fact %s clearly enough: margin %+.3f lies within (−%.2f, %.2f); both are kept as competing hypotheses",
			newID, oldID, v.Margin, c.RejectMargin, c.SupersedeMargin))
	}
	v.Reasons = append(v.Reasons, componentReasons(c, d.Challenger, strongest)...)
	return v, nil
}

// componentReasons names each component by its weighted contribution to the
// margin between the challenger and the strongest incumbent, largest first.
func componentReasons(c Config, ch, inc Position) []string {
	sum := c.WeightRecency + c.WeightConfidence + c.WeightReliability + c.WeightSupport
	type part struct {
		name     string
		new, old float64
		w        float64
	}
	parts := []part{
		{"recency", ch.Scores.Recency, inc.Scores.Recency, c.WeightRecency / sum},
		{"confidence", ch.Scores.Confidence, inc.Scores.Confidence, c.WeightConfidence / sum},
		{"source reliability", ch.Scores.Reliability, inc.Scores.Reliability, c.WeightReliability / sum},
		{"support", ch.Scores.Support, inc.Scores.Support, c.WeightSupport / sum},
	}
	slices.SortStableFunc(parts, func(a, b part) int {
		return cmp.Compare(math.Abs(b.w*(b.new-b.old)), math.Abs(a.w*(a.new-a.old)))
	})
	var out []string
	for _, p := range parts {
		d := p.w * (p.new - p.old)
		switch {
		case d > 1e-12:
			out = append(out, fmt.Sprintf("%s favours the new fact (%.2f vs %.2f, %+.3f)", p.name, p.new, p.old, d))
		case d < -1e-12:
			out = append(out, fmt.Sprintf("%s favours stored fact %s (%.2f vs %.2f, %+.3f)", p.name, inc.Fact.ID, p.new, p.old, d))
		}
	}
	return out
}

// Result is the outcome of [Run].
type Result struct {
	// Triggered reports whether the contradictions triggered a debate.
	Triggered bool `json:"triggered"`
	// Debate is the scored debate (zero when not triggered).
	Debate Debate `json:"debate"`
	// Verdict is the decision (zero when not triggered).
	Verdict Verdict `json:"verdict"`
	// Fallback reports that the configured judge failed and the offline judge decided.
	Fallback bool `json:"fallback"`
	// FallbackReason is the configured judge's error when Fallback is set.
	FallbackReason string `json:"fallback_reason,omitempty"`
}

// Run checks the trigger for a new fact contradicting the given stored facts
// and, when it fires, builds the debate and asks judge (nil means
// [OfflineJudge]) for a verdict. If judge fails or returns an invalid verdict,
// the offline judge decides and the result records the fallback; if ctx is
// done, Run returns its error. Fewer contradictions than the trigger return
// a result with Triggered false and no error.
func Run(ctx context.Context, challenger Fact, contradicted []Fact, now time.Time, judge Judge, cfg *Config) (Result, error) {
	c, err := cfg.effective()
	if err != nil {
		return Result{}, fmt.Errorf("error running debate: %w", err)
	}
	if len(contradicted) < c.MinContradictions {
		return Result{}, nil
	}
	d, err := NewDebate(challenger, contradicted, now, &c)
	if err != nil {
		return Result{}, fmt.Errorf("error running debate: %w", err)
	}
	res := Result{Triggered: true, Debate: d}
	if judge == nil {
		judge = OfflineJudge{}
	}
	v, err := judge.Judge(ctx, d)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return Result{}, fmt.Errorf("error running debate: %w", ctxErr)
	}
	if err == nil {
		err = validVerdict(v, d)
	}
	if err != nil {
		res.Fallback, res.FallbackReason = true, err.Error()
		if v, err = (OfflineJudge{}).Judge(ctx, d); err != nil {
			return Result{}, fmt.Errorf("error running debate: %w", err)
		}
	}
	res.Verdict = v
	return res, nil
}

func validVerdict(v Verdict, d Debate) error {
	if !v.Outcome.Valid() {
		return fmt.Errorf("%w: judge returned unknown outcome %q", ErrInvalidInput, v.Outcome)
	}
	if math.IsNaN(v.Margin) || math.IsInf(v.Margin, 0) {
		return fmt.Errorf("%w: judge returned a non-finite margin %v", ErrInvalidInput, v.Margin)
	}
	if v.Outcome == Supersede && len(v.Superseded) == 0 {
		return fmt.Errorf("%w: judge chose supersede without naming a superseded fact", ErrInvalidInput)
	}
	if v.Outcome != Supersede && len(v.Superseded) > 0 {
		return fmt.Errorf("%w: judge superseded facts with outcome %q", ErrInvalidInput, v.Outcome)
	}
	for _, id := range v.Superseded {
		if !slices.ContainsFunc(d.Incumbents, func(p Position) bool { return p.Fact.ID == id }) {
			return fmt.Errorf("%w: judge superseded %q, which is not a contradicted fact", ErrInvalidInput, id)
		}
	}
	return nil
}

func unit(x float64) bool { return !math.IsNaN(x) && x >= 0 && x <= 1 }
