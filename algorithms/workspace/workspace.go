package workspace

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/zenbrain/zb/algorithms/budget"
	"github.com/zenbrain/zb/pma"
)

// ErrInvalidInput is wrapped by every error this package returns for bad
// input: NaN or infinite numbers, values outside their range, negative token
// counts, empty or duplicate module names and invalid configurations.
var ErrInvalidInput = errors.New("workspace: invalid input")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrInvalidInput)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Module names a memory module that competes for the workspace. Any
// non-empty name is accepted; the constants are the modules zenbrain offers.
type Module string

// The modules of zenbrain's context assembly.
const (
	// Core holds pinned identity facts; it is always included by default.
	Core Module = "core"
	// Working holds the active task focus.
	Working Module = "working"
	// Episodic holds timestamped experiences.
	Episodic Module = "episodic"
	// Semantic holds facts and concepts.
	Semantic Module = "semantic"
	// Procedural holds skills and routines.
	Procedural Module = "procedural"
	// Prospective holds intentions that fired or are due.
	Prospective Module = "prospective"
	// CrossContext holds what other contexts know about shared entities.
	CrossContext Module = "cross_context"
	// MetacogAlerts holds the metacognitive monitor's alerts.
	MetacogAlerts Module = "metacog_alerts"
)

// Title returns the section heading used for m in [Result.Text]: a fixed
// English title for the known modules and the name itself otherwise.
func (m Module) Title() string {
	switch m {
	case Core:
		return "Core"
	case Working:
		return "Working memory"
	case Episodic:
		return "Episodes"
	case Semantic:
		return "Facts"
	case Procedural:
		return "Procedures"
	case Prospective:
		return "Intentions"
	case CrossContext:
		return "Other contexts"
	case MetacogAlerts:
		return "Alerts"
	}
	return string(m)
}

// Defaults of [Config].
const (
	// TotalTokensDefault is the token budget of one assembly.
	TotalTokensDefault = 12000
	// ReservedTokensDefault is the reserve shared by always-include modules.
	ReservedTokensDefault = 600
	// MaxBroadcastDefault is the most competing modules broadcast at once.
	MaxBroadcastDefault = 4
	// IgnitionDefault is the effective salience a newcomer needs to ignite.
	IgnitionDefault = 0.5
	// HysteresisIgnitionDefault is the effective salience a previous winner
	// needs to ignite again.
	HysteresisIgnitionDefault = 0.3
	// FallbackFloorDefault is the least effective salience of a fallback
	// module.
	FallbackFloorDefault = 0.2
	// FallbackMaxDefault is the most modules the fallback broadcasts.
	FallbackMaxDefault = 2
	// SalienceWeightDefault is the weight of the raw salience in the
	// PriorityMap blend; the composite gets 1 − SalienceWeightDefault.
	SalienceWeightDefault = 0.7
	// MinShareWeight is the least weight a winner has in the budget split,
	// max(eff, MinShareWeight).
	MinShareWeight = 0.01
)

// Config holds the parameters of an [Assembler]. A zero field takes its
// default.
type Config struct {
	// TotalTokens is the token budget when [Input.Budget] is 0. Defaults to
	// [TotalTokensDefault] (12000).
	TotalTokens int
	// ReservedTokens is the reserve shared evenly by always-include modules,
	// capped at half the budget. Defaults to [ReservedTokensDefault] (600); −1 means no reserve (always
	// modules then get nothing).
	ReservedTokens int
	// MaxBroadcast bounds the competing modules broadcast. Defaults to
	// [MaxBroadcastDefault] (4).
	MaxBroadcast int
	// Ignition is the effective salience a newcomer needs. Defaults to
	// [IgnitionDefault] (0.5).
	Ignition float64
	// HysteresisIgnition is the effective salience a previous winner needs;
	// it must not exceed Ignition. Defaults to [HysteresisIgnitionDefault]
	// (0.3).
	HysteresisIgnition float64
	// FallbackFloor is the least effective salience of a fallback module; it
	// must not exceed HysteresisIgnition. Defaults to [FallbackFloorDefault]
	// (0.2).
	FallbackFloor float64
	// FallbackMax bounds the fallback broadcast. Defaults to
	// [FallbackMaxDefault] (2); −1 disables the fallback.
	FallbackMax int
	// SalienceWeight is the weight of the raw salience in the blend
	// SalienceWeight·sal + (1 − SalienceWeight)·composite. Defaults to
	// [SalienceWeightDefault] (0.7).
	SalienceWeight float64
	// DisablePriority switches the PriorityMap blend off: eff = sal.
	DisablePriority bool
	// Priority configures the PriorityMap of the blend. Nil means its
	// defaults.
	Priority *pma.PriorityConfig
	// AlwaysInclude lists the modules that bypass the competition, in the
	// order they are rendered. Nil means [Core] only; an empty non-nil slice
	// means none.
	AlwaysInclude []Module
	// RedundancyPenalty is λ of [budget.Select] for items inside a module.
	// Defaults to [budget.RedundancyPenaltyDefault]; −1 means 0.
	RedundancyPenalty float64
	// CharsPerToken estimates missing item token counts and header sizes.
	// Defaults to [budget.CharsPerTokenDefault] (4).
	CharsPerToken int
}

// WithDefaults returns a copy of c with every zero field set to its default.
func (c *Config) WithDefaults() *Config {
	if c == nil {
		c = &Config{}
	}
	out := *c
	out.TotalTokens = cmp.Or(out.TotalTokens, TotalTokensDefault)
	out.ReservedTokens = cmp.Or(out.ReservedTokens, ReservedTokensDefault)
	out.MaxBroadcast = cmp.Or(out.MaxBroadcast, MaxBroadcastDefault)
	out.Ignition = cmp.Or(out.Ignition, IgnitionDefault)
	out.HysteresisIgnition = cmp.Or(out.HysteresisIgnition, HysteresisIgnitionDefault)
	out.FallbackFloor = cmp.Or(out.FallbackFloor, FallbackFloorDefault)
	out.FallbackMax = cmp.Or(out.FallbackMax, FallbackMaxDefault)
	out.SalienceWeight = cmp.Or(out.SalienceWeight, SalienceWeightDefault)
	out.CharsPerToken = cmp.Or(out.CharsPerToken, budget.CharsPerTokenDefault)
	if out.AlwaysInclude == nil {
		out.AlwaysInclude = []Module{Core}
	} else {
		out.AlwaysInclude = slices.Clone(out.AlwaysInclude)
	}
	return &out
}

func (c *Config) validate() error {
	unit := func(x float64) bool { return finite(x) && x > 0 && x <= 1 }
	switch {
	case c.TotalTokens < 1:
		return invalidf("Config.TotalTokens must be positive, got %d", c.TotalTokens)
	case c.ReservedTokens < -1:
		return invalidf("Config.ReservedTokens must be positive or -1, got %d", c.ReservedTokens)
	case c.MaxBroadcast < 1:
		return invalidf("Config.MaxBroadcast must be at least 1, got %d", c.MaxBroadcast)
	case !unit(c.Ignition) || !unit(c.HysteresisIgnition) || !unit(c.FallbackFloor):
		return invalidf("Config thresholds must be in (0, 1], got %v, %v, %v", c.Ignition, c.HysteresisIgnition, c.FallbackFloor)
	case c.HysteresisIgnition > c.Ignition || c.FallbackFloor > c.HysteresisIgnition:
		return invalidf("Config needs FallbackFloor <= HysteresisIgnition <= Ignition, got %v, %v, %v",
			c.FallbackFloor, c.HysteresisIgnition, c.Ignition)
	case c.FallbackMax < -1:
		return invalidf("Config.FallbackMax must be positive or -1, got %d", c.FallbackMax)
	case !unit(c.SalienceWeight):
		return invalidf("Config.SalienceWeight must be in (0, 1], got %v", c.SalienceWeight)
	case c.CharsPerToken < 1:
		return invalidf("Config.CharsPerToken must be positive, got %d", c.CharsPerToken)
	case !finite(c.RedundancyPenalty) || (c.RedundancyPenalty < 0 && c.RedundancyPenalty != -1):
		return invalidf("Config.RedundancyPenalty must be non-negative or -1, got %v", c.RedundancyPenalty)
	}
	seen := map[Module]bool{}
	for _, m := range c.AlwaysInclude {
		if m == "" || seen[m] {
			return invalidf("Config.AlwaysInclude has an empty or repeated module %q", m)
		}
		seen[m] = true
	}
	return nil
}

// Item is one piece of content a module offers.
type Item struct {
	// ID identifies the item; it must be non-empty and unique within its
	// module, and breaks ties inside it.
	ID string `json:"id"`
	// Text is the content rendered into the context block.
	Text string `json:"text"`
	// Score is the item's relevance (finite; items with score ≤ 0 are only
	// taken in always-include modules).
	Score float64 `json:"score"`
	// Tokens is the item's size; 0 means estimate it from Text, negative is
	// an error.
	Tokens int `json:"tokens"`
}

// Candidate is one module offered to the workspace.
type Candidate struct {
	// Module names the module; names must be unique within an [Input].
	Module Module `json:"module"`
	// Salience in [0, 1] is the module's salience for this query (see
	// [SalienceFromScores]).
	Salience float64 `json:"salience"`
	// Signals, when not nil, are the PriorityMap inputs of the blend instead
	// of the reference's (s = sal, v = 0, r = 0.5, g = sal).
	Signals *pma.PriorityInput `json:"signals,omitempty"`
	// Items is the module's content, best first by convention. A candidate
	// without items does not compete ([DecisionEmpty]).
	Items []Item `json:"items"`
}

// Input is one assembly request.
type Input struct {
	// Candidates are the modules offered, in any order.
	Candidates []Candidate
	// Previous is the winner set of the previous assembly ([Result.Winners]);
	// these modules ignite at the lower hysteresis threshold.
	Previous []Module
	// Levels are the neuromodulator levels for the PriorityMap weights. Nil
	// means baseline levels.
	Levels *pma.Levels
	// Budget is the token budget; 0 means Config.TotalTokens, negative is an
	// error.
	Budget int
}

// Decision says what happened to a candidate.
type Decision string

// The decisions of the workspace.
const (
	// DecisionAlways marks an always-include module.
	DecisionAlways Decision = "always"
	// DecisionIgnited marks a module that reached the ignition threshold.
	DecisionIgnited Decision = "ignited"
	// DecisionHysteresis marks a previous winner that ignited only thanks to
	// the lower hysteresis threshold.
	DecisionHysteresis Decision = "hysteresis"
	// DecisionFallback marks a module broadcast by the fallback.
	DecisionFallback Decision = "fallback"
	// DecisionCapped marks an ignited module beyond the broadcast limit.
	DecisionCapped Decision = "capped"
	// DecisionBelow marks a module below its threshold.
	DecisionBelow Decision = "below_threshold"
	// DecisionEmpty marks a module that offered no items.
	DecisionEmpty Decision = "empty"
)

// Scored is the competition record of one candidate.
type Scored struct {
	// Module names the candidate.
	Module Module `json:"module"`
	// Salience is the raw salience offered.
	Salience float64 `json:"salience"`
	// Composite is the PriorityMap score of the blend (0 when not blended).
	Composite float64 `json:"composite"`
	// Effective is the salience that competed: the blend, or the raw
	// salience for always-include modules and when the blend is off.
	Effective float64 `json:"effective"`
	// Decision is the outcome.
	Decision Decision `json:"decision"`
}

// Section is one broadcast module with the items that fit its share.
type Section struct {
	// Module names the module.
	Module Module `json:"module"`
	// Decision is why it was broadcast (always, ignited, hysteresis or
	// fallback).
	Decision Decision `json:"decision"`
	// Effective is its effective salience.
	Effective float64 `json:"effective"`
	// Share is the token share granted. For always-include modules it is
	// their part of the reserve; for competing modules it is the final share
	// after redistribution, and the competing shares plus the always-include
	// modules' Used never exceed the budget.
	Share int `json:"share"`
	// Used is the tokens spent: header plus items; Used ≤ Share.
	Used int `json:"used"`
	// Items are the chosen items in the module's own order, Tokens filled
	// in.
	Items []Item `json:"items"`
	// Skipped lists the IDs of items that did not fit or were redundant.
	Skipped []string `json:"skipped,omitempty"`
}

// Result is the outcome of [Assembler.Assemble].
type Result struct {
	// Sections are the broadcast modules in rendering order: always-include
	// modules in configuration order, then the competing ones by effective
	// salience (ties: name). A broadcast module whose share could not hold
	// its header and one item is omitted here but still counts as broadcast
	// in Scores and Winners.
	Sections []Section `json:"sections"`
	// Scores records every candidate, ordered by effective salience
	// descending, then name.
	Scores []Scored `json:"scores"`
	// Winners is the new winner set (ignited competing modules that were
	// broadcast), sorted by name. Persist it and pass it as [Input.Previous].
	Winners []Module `json:"winners"`
	// Fallback is true when nothing ignited and the fallback chose the
	// competing modules.
	Fallback bool `json:"fallback"`
	// Budget is the budget applied.
	Budget int `json:"budget"`
	// Used is the tokens spent over all sections; Used ≤ Budget.
	Used int `json:"used"`
	// Text is the assembled block: one "## Title" header per section
	// followed by "- item" lines, sections separated by a blank line.
	Text string `json:"text"`
}

// Assembler runs the workspace competition. It holds only its configuration
// and is safe for concurrent use.
type Assembler struct {
	cfg    Config
	always map[Module]int
	pm     *pma.PriorityMap
}

// NewAssembler returns an Assembler with cfg (nil means all defaults).
func NewAssembler(cfg *Config) (*Assembler, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	pm, err := pma.NewPriorityMap(c.Priority)
	if err != nil {
		return nil, fmt.Errorf("error creating workspace priority map: %w (%w)", err, ErrInvalidInput)
	}
	a := &Assembler{cfg: *c, always: map[Module]int{}, pm: pm}
	for i, m := range c.AlwaysInclude {
		a.always[m] = i
	}
	return a, nil
}

// SalienceFromScores derives a module's salience from its items' scores:
// 0.7·max + 0.3·mean of the three best scores, so the strongest item
// dominates and a module with several good items edges out one with a single
// lucky hit. No scores give 0. A score outside [0, 1] or NaN is an error.
func SalienceFromScores(scores []float64) (float64, error) {
	if len(scores) == 0 {
		return 0, nil
	}
	s := slices.Clone(scores)
	for i, x := range s {
		if !finite(x) || x < 0 || x > 1 {
			return 0, invalidf("item score %d must be in [0, 1], got %v", i, x)
		}
	}
	slices.SortFunc(s, func(a, b float64) int { return cmp.Compare(b, a) })
	top := s[:min(3, len(s))]
	mean := 0.0
	for _, x := range top {
		mean += x
	}
	mean /= float64(len(top))
	return math.Min(1, 0.7*s[0]+0.3*mean), nil
}

func (a *Assembler) validateInput(in Input) error {
	if in.Budget < 0 {
		return invalidf("budget must not be negative, got %d", in.Budget)
	}
	if in.Levels != nil {
		if err := in.Levels.Validate(); err != nil {
			return fmt.Errorf("error validating workspace levels: %w (%w)", err, ErrInvalidInput)
		}
	}
	seen := map[Module]bool{}
	for i, c := range in.Candidates {
		if c.Module == "" || seen[c.Module] {
			return invalidf("candidate %d has an empty or repeated module %q", i, c.Module)
		}
		seen[c.Module] = true
		if !finite(c.Salience) || c.Salience < 0 || c.Salience > 1 {
			return invalidf("candidate %q salience must be in [0, 1], got %v", c.Module, c.Salience)
		}
		ids := map[string]bool{}
		for _, it := range c.Items {
			if it.ID == "" || ids[it.ID] {
				return invalidf("module %q has an empty or repeated item id %q", c.Module, it.ID)
			}
			ids[it.ID] = true
			if !finite(it.Score) {
				return invalidf("item %q of %q has score %v", it.ID, c.Module, it.Score)
			}
			if it.Tokens < 0 {
				return invalidf("item %q of %q has %d tokens", it.ID, c.Module, it.Tokens)
			}
		}
	}
	return nil
}

// Assemble runs one competition and fills the budget (see the package
// documentation). Bad input returns an error wrapping [ErrInvalidInput].
func (a *Assembler) Assemble(in Input) (Result, error) {
	if err := a.validateInput(in); err != nil {
		return Result{}, err
	}
	levels := pma.BaselineLevels()
	if in.Levels != nil {
		levels = *in.Levels
	}
	total := cmp.Or(in.Budget, a.cfg.TotalTokens)
	prev := map[Module]bool{}
	for _, m := range in.Previous {
		prev[m] = true
	}

	// Score every candidate.
	scores := make([]Scored, 0, len(in.Candidates))
	byModule := map[Module]Candidate{}
	for _, c := range in.Candidates {
		byModule[c.Module] = c
		s := Scored{Module: c.Module, Salience: c.Salience, Effective: c.Salience}
		_, always := a.always[c.Module]
		if !always && !a.cfg.DisablePriority {
			sig := pma.PriorityInput{Salience: c.Salience, Relevance: 0.5, Goal: c.Salience}
			if c.Signals != nil {
				sig = *c.Signals
			}
			p, err := a.pm.Score(sig, levels)
			if err != nil {
				return Result{}, fmt.Errorf("error scoring workspace module %q: %w (%w)", c.Module, err, ErrInvalidInput)
			}
			s.Composite = p.Score
			w := a.cfg.SalienceWeight
			s.Effective = math.Min(1, w*c.Salience+(1-w)*p.Score)
		}
		scores = append(scores, s)
	}
	slices.SortFunc(scores, func(x, y Scored) int {
		return cmp.Or(cmp.Compare(y.Effective, x.Effective), cmp.Compare(x.Module, y.Module))
	})

	// Decide.
	var alwaysMods, competing []int // indexes into scores
	ignited := 0
	for i := range scores {
		s := &scores[i]
		c := byModule[s.Module]
		_, always := a.always[s.Module]
		switch {
		case len(c.Items) == 0:
			s.Decision = DecisionEmpty
		case always:
			s.Decision = DecisionAlways
			alwaysMods = append(alwaysMods, i)
		case s.Effective >= a.cfg.Ignition || (prev[s.Module] && s.Effective >= a.cfg.HysteresisIgnition):
			if ignited >= a.cfg.MaxBroadcast {
				s.Decision = DecisionCapped
				continue
			}
			ignited++
			s.Decision = DecisionIgnited
			if s.Effective < a.cfg.Ignition {
				s.Decision = DecisionHysteresis
			}
			competing = append(competing, i)
		default:
			s.Decision = DecisionBelow
		}
	}
	res := Result{Budget: total}
	if ignited == 0 && a.cfg.FallbackMax > 0 {
		for i := range scores {
			s := &scores[i]
			if len(competing) >= a.cfg.FallbackMax {
				break
			}
			if s.Decision == DecisionBelow && s.Effective >= a.cfg.FallbackFloor {
				s.Decision = DecisionFallback
				competing = append(competing, i)
			}
		}
		res.Fallback = len(competing) > 0
	}
	slices.SortFunc(alwaysMods, func(x, y int) int {
		return cmp.Compare(a.always[scores[x].Module], a.always[scores[y].Module])
	})

	// Budget: reserve for always-include modules, the rest by salience.
	reserve := 0
	if len(alwaysMods) > 0 && a.cfg.ReservedTokens > 0 {
		reserve = min(a.cfg.ReservedTokens, total/2)
	}
	equal := make([]float64, len(alwaysMods))
	for i := range equal {
		equal[i] = 1
	}
	alwaysShares := apportion(reserve, equal, moduleNames(scores, alwaysMods))
	for k, i := range alwaysMods {
		sec, err := a.fill(scores[i], byModule[scores[i].Module], alwaysShares[k], true)
		if err != nil {
			return Result{}, err
		}
		res.Used += sec.Used
		if sec.Used > 0 {
			res.Sections = append(res.Sections, sec)
		}
	}
	weights := make([]float64, len(competing))
	for k, i := range competing {
		weights[k] = math.Max(scores[i].Effective, MinShareWeight)
	}
	shares := apportion(total-res.Used, weights, moduleNames(scores, competing))
	secs := make([]Section, len(competing))
	used := 0
	for k, i := range competing {
		sec, err := a.fill(scores[i], byModule[scores[i].Module], shares[k], false)
		if err != nil {
			return Result{}, err
		}
		secs[k], used = sec, used+sec.Used
	}
	// One redistribution round: tokens left unused by modules that had room
	// to spare go to the modules that had to skip items, by the same weights.
	var hungry []int
	for k := range secs {
		if len(secs[k].Skipped) > 0 {
			hungry = append(hungry, k)
		}
	}
	if left := total - res.Used - used; left > 0 && len(hungry) > 0 {
		hw := make([]float64, len(hungry))
		hi := make([]int, len(hungry))
		for j, k := range hungry {
			hw[j], hi[j] = weights[k], competing[k]
		}
		extra := apportion(left, hw, moduleNames(scores, hi))
		for k := range secs {
			secs[k].Share = secs[k].Used // what a module left unused was handed on
		}
		for j, k := range hungry {
			i := competing[k]
			sec, err := a.fill(scores[i], byModule[scores[i].Module], secs[k].Used+extra[j], false)
			if err != nil {
				return Result{}, err
			}
			used += sec.Used - secs[k].Used
			secs[k] = sec
		}
	}
	for k, i := range competing {
		if secs[k].Used > 0 {
			res.Sections = append(res.Sections, secs[k])
		}
		if d := scores[i].Decision; d == DecisionIgnited || d == DecisionHysteresis {
			res.Winners = append(res.Winners, scores[i].Module)
		}
	}
	res.Used += used
	slices.Sort(res.Winners)
	res.Scores = scores
	res.Text = render(res.Sections)
	return res, nil
}

func moduleNames(scores []Scored, idx []int) []Module {
	out := make([]Module, len(idx))
	for k, i := range idx {
		out[k] = scores[i].Module
	}
	return out
}

// apportion splits total into integer shares proportional to weights by the
// largest-remainder method; remainders tie by name. The shares sum to total
// (or 0 when there are no weights).
func apportion(total int, weights []float64, names []Module) []int {
	out := make([]int, len(weights))
	if len(weights) == 0 || total <= 0 {
		return out
	}
	sum := 0.0
	for _, w := range weights {
		sum += w
	}
	type rem struct {
		k    int
		frac float64
	}
	rems := make([]rem, len(weights))
	given := 0
	for k, w := range weights {
		exact := float64(total) * w / sum
		out[k] = int(math.Floor(exact))
		given += out[k]
		rems[k] = rem{k: k, frac: exact - float64(out[k])}
	}
	sort.SliceStable(rems, func(x, y int) bool {
		if rems[x].frac != rems[y].frac {
			return rems[x].frac > rems[y].frac
		}
		return names[rems[x].k] < names[rems[y].k]
	})
	for j := 0; given < total; j = (j + 1) % len(rems) {
		out[rems[j].k]++
		given++
	}
	return out
}

func header(m Module) string { return "## " + m.Title() }

// fill chooses the items of one module within share tokens.
func (a *Assembler) fill(s Scored, c Candidate, share int, pinned bool) (Section, error) {
	sec := Section{Module: s.Module, Decision: s.Decision, Effective: s.Effective, Share: share}
	head := budget.EstimateTokens(header(s.Module), a.cfg.CharsPerToken)
	pieces := make([]budget.Piece, 0, len(c.Items))
	var blank []string
	for _, it := range c.Items {
		if strings.TrimSpace(it.Text) == "" {
			blank = append(blank, it.ID) // nothing to render
			continue
		}
		pieces = append(pieces, budget.Piece{ID: it.ID, Text: it.Text, Score: budget.InformationValue(it.Score, it.Tokens), Tokens: it.Tokens, Pinned: pinned})
	}
	room := max(share-head, 0)
	sel, err := budget.Select(pieces, budget.SelectConfig{
		Budget: room, RedundancyPenalty: a.cfg.RedundancyPenalty, CharsPerToken: a.cfg.CharsPerToken,
	})
	if err != nil {
		return Section{}, fmt.Errorf("error filling workspace module %q: %w", s.Module, err)
	}
	if len(sel.Chosen) == 0 || share < head {
		for _, it := range c.Items {
			sec.Skipped = append(sec.Skipped, it.ID)
		}
		return sec, nil
	}
	chosen := map[string]int{}
	for _, ch := range sel.Chosen {
		chosen[ch.Piece.ID] = ch.Piece.Tokens
	}
	for _, it := range c.Items { // keep the module's own order
		if tok, ok := chosen[it.ID]; ok && strings.TrimSpace(it.Text) != "" {
			it.Tokens = tok
			sec.Items = append(sec.Items, it)
			delete(chosen, it.ID)
		}
	}
	sec.Skipped = append(sel.Skipped, blank...)
	sec.Used = head + sel.Used
	return sec, nil
}

func render(secs []Section) string {
	var b strings.Builder
	for i, sec := range secs {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(header(sec.Module))
		b.WriteString("\n")
		for _, it := range sec.Items {
			b.WriteString("- ")
			b.WriteString(strings.Join(strings.Fields(it.Text), " "))
			b.WriteString("\n")
		}
	}
	return b.String()
}
