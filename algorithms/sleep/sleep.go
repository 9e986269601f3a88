package sleep

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/zenbrain/zb/algorithms/simstat"
	"github.com/zenbrain/zb/algorithms/textproc"
)

// Default parameters of the planner (DESIGN.md §6).
const (
	// TDLearningRateDefault is α of the TD(0) value update V ← V + α·δ.
	TDLearningRateDefault = 0.2
	// DiscountDefault is γ of the TD target r + γ·V(next).
	DiscountDefault = 0.5
	// SelectThresholdDefault is the TAG at or above which a candidate is selected.
	SelectThresholdDefault = 0.5
	// LTPDeltaDefault is the weight added to an edge whose replay was selected.
	LTPDeltaDefault = 0.10
	// LTDDeltaDefault is the weight removed from an edge whose replay was not selected.
	LTDDeltaDefault = 0.05
	// PruneThresholdDefault is the weight below which an edge is pruned.
	PruneThresholdDefault = 0.05
	// AssociationWeightDefault is the weight of a new association edge from a selected counterfactual.
	AssociationWeightDefault = 0.10
	// StabilityGainDefault is g in the stability growth S ← S·(1 + g·TAG).
	StabilityGainDefault = 1.0
	// MaxStabilityDefault is the cap of grown stability, in days.
	MaxStabilityDefault = 365.0
	// LowRewardDefault is the reward below which an episode seeds counterfactuals.
	LowRewardDefault = 0.3
	// HighRewardDefault is the reward at or above which an episode counts as successful.
	HighRewardDefault = 0.7
	// MaxCounterfactualsPerEpisodeDefault caps the partners of one low-reward episode.
	MaxCounterfactualsPerEpisodeDefault = 3
	// MaxCounterfactualsDefault caps the counterfactual candidates of one run.
	MaxCounterfactualsDefault = 50
)

// TAG weights (DESIGN.md §6, reference notes §4.9).
const (
	// WeightTD is the weight of |δ| in TAG without neuromodulation.
	WeightTD = 0.40
	// WeightRetrievability is the weight of R in TAG without neuromodulation.
	WeightRetrievability = 0.35
	// WeightNovelty is the weight of N in TAG without neuromodulation.
	WeightNovelty = 0.25
	// WeightTDNeuro is the weight of |δ| in TAG with neuromodulation.
	WeightTDNeuro = 0.34
	// WeightRetrievabilityNeuro is the weight of R in TAG with neuromodulation.
	WeightRetrievabilityNeuro = 0.30
	// WeightNoveltyNeuro is the weight of N in TAG with neuromodulation.
	WeightNoveltyNeuro = 0.21
	// WeightEmotionNeuro is the weight of |valence|·arousal in TAG with neuromodulation.
	WeightEmotionNeuro = 0.15
	// NoveltyPerEntity is the 0.2 in N = min(1, 0.2·related).
	NoveltyPerEntity = 0.2
)

// CounterfactualPrefix starts the id of every counterfactual candidate:
// "cf:" + low-reward id + "->" + successful id.
const CounterfactualPrefix = "cf:"

// ErrInvalidInput reports an episode, edge or parameter that is out of range.
var ErrInvalidInput = errors.New("invalid sleep input")

// Episode is one recent real memory of the tenant as the planner sees it.
type Episode struct {
	// ID identifies the memory; unique, non-empty, sharing a namespace with entity ids.
	ID string `json:"id"`
	// Value is the current TD value estimate V, finite and non-negative.
	Value float64 `json:"value"`
	// Reward is the usefulness signal r since the last run, in [0, 1].
	Reward float64 `json:"reward"`
	// Retrievability is R at the time of the run, in [0, 1].
	Retrievability float64 `json:"retrievability"`
	// Related is the number of related entities; N = min(1, 0.2·Related). Non-negative.
	Related int `json:"related"`
	// EntityIDs are the entities the memory mentions.
	EntityIDs []string `json:"entity_ids"`
	// Valence is the emotional valence in [-1, 1].
	Valence float64 `json:"valence"`
	// Arousal is the emotional arousal in [0, 1].
	Arousal float64 `json:"arousal"`
	// Stability is the forgetting-model stability in days, positive and finite.
	Stability float64 `json:"stability"`
	// Faded reports that the memory has faded (its retrievability crossed the archive threshold).
	Faded bool `json:"faded"`
	// NextID is the episode that followed this one, for the TD target; empty or
	// unknown means terminal (V(next) = 0).
	NextID string `json:"next_id"`
}

// Edge is an undirected weighted edge between two memories or entities.
type Edge struct {
	// A is one endpoint.
	A string `json:"a"`
	// B is the other endpoint.
	B string `json:"b"`
	// Weight is the edge weight, finite and non-negative.
	Weight float64 `json:"weight"`
}

// Input is the state of one tenant that a sleep run plans over.
type Input struct {
	// Episodes are the recent real episodes (the real half of the CA3 pool).
	Episodes []Episode `json:"episodes"`
	// Edges are the edges among the episodes' memories and entities.
	Edges []Edge `json:"edges"`
}

// Params holds the planner's parameters. A zero field takes its default from
// the matching XxxDefault constant.
type Params struct {
	// TDLearningRate is α. Defaults to TDLearningRateDefault (0.2); at most 1.
	TDLearningRate float64 `json:"td_learning_rate"`
	// Discount is γ. Defaults to DiscountDefault (0.5). -1 means 0 (no bootstrapping).
	Discount float64 `json:"discount"`
	// SelectThreshold is the TAG selection threshold. Defaults to SelectThresholdDefault (0.5).
	SelectThreshold float64 `json:"select_threshold"`
	// LTPDelta is the LTP weight increase. Defaults to LTPDeltaDefault (0.10).
	LTPDelta float64 `json:"ltp_delta"`
	// LTDDelta is the LTD weight decrease, as a positive number. Defaults to LTDDeltaDefault (0.05).
	LTDDelta float64 `json:"ltd_delta"`
	// PruneThreshold is the prune threshold. Defaults to PruneThresholdDefault (0.05).
	PruneThreshold float64 `json:"prune_threshold"`
	// AssociationWeight is the weight of new association edges. Defaults to AssociationWeightDefault (0.10).
	AssociationWeight float64 `json:"association_weight"`
	// StabilityGain is g in S·(1 + g·TAG). Defaults to StabilityGainDefault (1).
	StabilityGain float64 `json:"stability_gain"`
	// MaxStability caps grown stability, in days. Defaults to MaxStabilityDefault (365).
	MaxStability float64 `json:"max_stability"`
	// LowReward is the counterfactual low-reward bound. Defaults to LowRewardDefault (0.3).
	LowReward float64 `json:"low_reward"`
	// HighReward is the counterfactual success bound. Defaults to HighRewardDefault (0.7).
	HighReward float64 `json:"high_reward"`
	// MaxCounterfactualsPerEpisode caps partners per low-reward episode.
	// Defaults to MaxCounterfactualsPerEpisodeDefault (3). -1 disables counterfactuals.
	MaxCounterfactualsPerEpisode int `json:"max_counterfactuals_per_episode"`
	// MaxCounterfactuals caps counterfactuals per run. Defaults to MaxCounterfactualsDefault (50).
	MaxCounterfactuals int `json:"max_counterfactuals"`
	// Neuromodulation switches to the TAG weights with the emotion term. Defaults to false.
	Neuromodulation bool `json:"neuromodulation"`
}

// DefaultParams returns the parameters with every default filled in.
func DefaultParams() Params { return Params{}.WithDefaults() }

// WithDefaults returns a copy of p with every zero field set to its default.
func (p Params) WithDefaults() Params {
	p.TDLearningRate = cmp.Or(p.TDLearningRate, TDLearningRateDefault)
	p.Discount = cmp.Or(p.Discount, DiscountDefault)
	p.SelectThreshold = cmp.Or(p.SelectThreshold, SelectThresholdDefault)
	p.LTPDelta = cmp.Or(p.LTPDelta, LTPDeltaDefault)
	p.LTDDelta = cmp.Or(p.LTDDelta, LTDDeltaDefault)
	p.PruneThreshold = cmp.Or(p.PruneThreshold, PruneThresholdDefault)
	p.AssociationWeight = cmp.Or(p.AssociationWeight, AssociationWeightDefault)
	p.StabilityGain = cmp.Or(p.StabilityGain, StabilityGainDefault)
	p.MaxStability = cmp.Or(p.MaxStability, MaxStabilityDefault)
	p.LowReward = cmp.Or(p.LowReward, LowRewardDefault)
	p.HighReward = cmp.Or(p.HighReward, HighRewardDefault)
	p.MaxCounterfactualsPerEpisode = cmp.Or(p.MaxCounterfactualsPerEpisode, MaxCounterfactualsPerEpisodeDefault)
	p.MaxCounterfactuals = cmp.Or(p.MaxCounterfactuals, MaxCounterfactualsDefault)
	return p
}

// Validate reports the first parameter out of range, naming it.
func (p Params) Validate() error {
	checks := []struct {
		name   string
		v      float64
		lo, hi float64
	}{
		{"TDLearningRate", p.TDLearningRate, 0, 1},
		{"SelectThreshold", p.SelectThreshold, 0, 1},
		{"LTPDelta", p.LTPDelta, 0, 10},
		{"LTDDelta", p.LTDDelta, 0, 10},
		{"PruneThreshold", p.PruneThreshold, 0, 10},
		{"AssociationWeight", p.AssociationWeight, 0, 10},
		{"StabilityGain", p.StabilityGain, 0, 100},
		{"MaxStability", p.MaxStability, 0, 1e6},
		{"LowReward", p.LowReward, 0, 1},
		{"HighReward", p.HighReward, 0, 1},
	}
	for _, c := range checks {
		if !(c.v > c.lo && c.v <= c.hi) {
			return fmt.Errorf("%w: %s must be in (%v, %v], got %v", ErrInvalidInput, c.name, c.lo, c.hi, c.v)
		}
	}
	switch {
	case p.Discount != -1 && !(p.Discount > 0 && p.Discount <= 1):
		return fmt.Errorf("%w: Discount must be in (0, 1] or -1, got %v", ErrInvalidInput, p.Discount)
	case p.LowReward > p.HighReward:
		return fmt.Errorf("%w: LowReward %v exceeds HighReward %v", ErrInvalidInput, p.LowReward, p.HighReward)
	case p.MaxCounterfactualsPerEpisode < -1:
		return fmt.Errorf("%w: MaxCounterfactualsPerEpisode must be positive or -1, got %d", ErrInvalidInput, p.MaxCounterfactualsPerEpisode)
	case p.MaxCounterfactuals < 0:
		return fmt.Errorf("%w: MaxCounterfactuals must be positive, got %d", ErrInvalidInput, p.MaxCounterfactuals)
	}
	return nil
}

// Source says where a pool candidate comes from.
type Source string

// Candidate sources.
const (
	// SourceReal marks a recent real episode.
	SourceReal Source = "real"
	// SourceCounterfactual marks a generated association between a low-reward and a successful episode.
	SourceCounterfactual Source = "counterfactual"
)

// Candidate is one scored member of the CA3 pool.
type Candidate struct {
	// ID is the episode id, or "cf:L->S" for a counterfactual.
	ID string `json:"id"`
	// Source is real or counterfactual.
	Source Source `json:"source"`
	// Parents are, for a counterfactual, the low-reward and the successful episode ids.
	Parents []string `json:"parents"`
	// SharedEntities are, for a counterfactual, the entities L and S share (sorted).
	SharedEntities []string `json:"shared_entities"`
	// TDError is the signed δ.
	TDError float64 `json:"td_error"`
	// Retrievability is R.
	Retrievability float64 `json:"retrievability"`
	// Novelty is N = min(1, 0.2·related).
	Novelty float64 `json:"novelty"`
	// Emotion is |valence|·arousal (used only with neuromodulation).
	Emotion float64 `json:"emotion"`
	// TAG is the tag score.
	TAG float64 `json:"tag"`
	// Selected reports TAG ≥ the select threshold.
	Selected bool `json:"selected"`
}

// Plasticity says whether an edge delta potentiates or depresses.
type Plasticity string

// Plasticity kinds.
const (
	// LTP is long-term potentiation: +LTPDelta.
	LTP Plasticity = "ltp"
	// LTD is long-term depression: −LTDDelta.
	LTD Plasticity = "ltd"
)

// EdgeDelta is a weight change of an existing edge. A and B are in ascending
// order. The worker may pass Delta through the hebbian package's
// Model.ApplyDelta, so that EWC damps the change on mature edges; After is the
// undamped result.
type EdgeDelta struct {
	// A is the smaller endpoint id.
	A string `json:"a"`
	// B is the larger endpoint id.
	B string `json:"b"`
	// Kind is LTP or LTD.
	Kind Plasticity `json:"kind"`
	// TAG is the highest TAG among the candidates touching the edge.
	TAG float64 `json:"tag"`
	// Delta is the signed change.
	Delta float64 `json:"delta"`
	// Before is the weight before the run.
	Before float64 `json:"before"`
	// After is max(0, Before + Delta).
	After float64 `json:"after"`
}

// NewEdge is an association edge created from a selected counterfactual.
type NewEdge struct {
	// A is the smaller endpoint id.
	A string `json:"a"`
	// B is the larger endpoint id.
	B string `json:"b"`
	// Weight is the initial weight.
	Weight float64 `json:"weight"`
	// CandidateID is the counterfactual that created the edge.
	CandidateID string `json:"candidate_id"`
	// TAG is the counterfactual's tag score.
	TAG float64 `json:"tag"`
}

// ValueUpdate is the TD(0) update of one episode's value estimate.
type ValueUpdate struct {
	// ID is the episode id.
	ID string `json:"id"`
	// TDError is δ = r + γ·V(next) − V.
	TDError float64 `json:"td_error"`
	// Before is V before the run.
	Before float64 `json:"before"`
	// After is V + α·δ.
	After float64 `json:"after"`
}

// StabilityUpdate is the stability growth of a selected episode.
type StabilityUpdate struct {
	// ID is the episode id.
	ID string `json:"id"`
	// Before is the stability in days before the run.
	Before float64 `json:"before"`
	// After is min(MaxStability, Before·(1 + g·TAG)), never below Before.
	After float64 `json:"after"`
}

// Promotion asks for a deep copy of a selected episode (triple-copy memory).
type Promotion struct {
	// ID is the episode id.
	ID string `json:"id"`
	// TAG is the episode's tag score, usable as the deep copy's initial strength.
	TAG float64 `json:"tag"`
}

// EdgeKey names an undirected edge; A < B.
type EdgeKey struct {
	// A is the smaller endpoint id.
	A string `json:"a"`
	// B is the larger endpoint id.
	B string `json:"b"`
}

// Summary counts what a plan does.
type Summary struct {
	// Real is the number of real episodes in the pool.
	Real int `json:"real"`
	// Counterfactual is the number of counterfactual candidates in the pool.
	Counterfactual int `json:"counterfactual"`
	// Selected is the number of selected candidates (real and counterfactual).
	Selected int `json:"selected"`
	// SelectedReal is the number of selected real episodes.
	SelectedReal int `json:"selected_real"`
	// SelectedCounterfactual is the number of selected counterfactuals.
	SelectedCounterfactual int `json:"selected_counterfactual"`
	// LTP is the number of potentiated edges.
	LTP int `json:"ltp"`
	// LTD is the number of depressed edges.
	LTD int `json:"ltd"`
	// NewEdges is the number of new association edges.
	NewEdges int `json:"new_edges"`
	// StabilityUpdates is the number of stability growths.
	StabilityUpdates int `json:"stability_updates"`
	// Promotions is the number of deep-copy promotions.
	Promotions int `json:"promotions"`
	// Archives is the number of archived memories.
	Archives int `json:"archives"`
	// Prunes is the number of pruned edges.
	Prunes int `json:"prunes"`
	// EdgesBefore is the number of edges before the run.
	EdgesBefore int `json:"edges_before"`
	// EdgesAfter is EdgesBefore + NewEdges − Prunes.
	EdgesAfter int `json:"edges_after"`
	// MeanTAG is the mean TAG over the pool, 0 for an empty pool.
	MeanTAG float64 `json:"mean_tag"`
}

// Plan is the outcome of one sleep run: every change as a concrete delta. All
// lists are sorted by id (edges by A, then B).
type Plan struct {
	// Seed is the seed the plan was built with.
	Seed uint32 `json:"seed"`
	// Params are the effective parameters.
	Params Params `json:"params"`
	// Candidates is the scored CA3 pool, real episodes first, each part sorted by id.
	Candidates []Candidate `json:"candidates"`
	// ValueUpdates are the TD(0) updates of every real episode.
	ValueUpdates []ValueUpdate `json:"value_updates"`
	// EdgeDeltas are the LTP and LTD changes of existing edges.
	EdgeDeltas []EdgeDelta `json:"edge_deltas"`
	// NewEdges are the association edges created from selected counterfactuals.
	NewEdges []NewEdge `json:"new_edges"`
	// StabilityUpdates are the stability growths of selected episodes.
	StabilityUpdates []StabilityUpdate `json:"stability_updates"`
	// Promotions are the deep-copy promotions of selected episodes.
	Promotions []Promotion `json:"promotions"`
	// Archives are the ids of faded episodes that were not selected.
	Archives []string `json:"archives"`
	// Prunes are the edges whose weight after the run is below the prune threshold.
	Prunes []EdgeKey `json:"prunes"`
	// Summary counts the above.
	Summary Summary `json:"summary"`
}

// NewPlan builds the sleep plan for in with parameters p (nil means
// DefaultParams) and seed. It returns an error wrapping ErrInvalidInput for
// bad input, and an empty plan for an empty input.
func NewPlan(in Input, p *Params, seed uint32) (Plan, error) {
	var params Params
	if p != nil {
		params = *p
	}
	params = params.WithDefaults()
	if err := params.Validate(); err != nil {
		return Plan{}, fmt.Errorf("error building sleep plan: %w", err)
	}
	episodes, err := checkEpisodes(in.Episodes)
	if err != nil {
		return Plan{}, fmt.Errorf("error building sleep plan: %w", err)
	}
	edges, err := checkEdges(in.Edges)
	if err != nil {
		return Plan{}, fmt.Errorf("error building sleep plan: %w", err)
	}
	plan := Plan{Seed: seed, Params: params}
	gamma := params.Discount
	if gamma == -1 {
		gamma = 0
	}

	byID := make(map[string]*Episode, len(episodes))
	for i := range episodes {
		byID[episodes[i].ID] = &episodes[i]
	}

	// 1. TD(0) from the values before the run.
	tdErr := make(map[string]float64, len(episodes))
	for _, e := range episodes {
		next := 0.0
		if n, ok := byID[e.NextID]; ok && e.NextID != e.ID {
			next = n.Value
		}
		d := e.Reward + gamma*next - e.Value
		tdErr[e.ID] = d
		plan.ValueUpdates = append(plan.ValueUpdates, ValueUpdate{
			ID: e.ID, TDError: d, Before: e.Value, After: e.Value + params.TDLearningRate*d,
		})
	}

	// 2–3. The pool, scored.
	for _, e := range episodes {
		c := Candidate{
			ID: e.ID, Source: SourceReal, TDError: tdErr[e.ID], Retrievability: e.Retrievability,
			Novelty: novelty(e.Related), Emotion: math.Abs(e.Valence) * e.Arousal,
		}
		plan.Candidates = append(plan.Candidates, params.score(c))
	}
	for _, c := range counterfactuals(episodes, params, seed) {
		plan.Candidates = append(plan.Candidates, params.score(c))
	}

	// 4. Selection of real episodes.
	tagOf := make(map[string]float64, len(plan.Candidates))
	for _, c := range plan.Candidates {
		tagOf[c.ID] = c.TAG
		if c.Selected {
			plan.Summary.Selected++
		}
		plan.Summary.MeanTAG += c.TAG
		if c.Source == SourceCounterfactual {
			plan.Summary.Counterfactual++
			if c.Selected {
				plan.Summary.SelectedCounterfactual++
			}
			continue
		}
		plan.Summary.Real++
		e := byID[c.ID]
		switch {
		case c.Selected:
			plan.Summary.SelectedReal++
			after := math.Min(params.MaxStability, e.Stability*(1+params.StabilityGain*c.TAG))
			plan.StabilityUpdates = append(plan.StabilityUpdates, StabilityUpdate{ID: e.ID, Before: e.Stability, After: math.Max(after, e.Stability)})
			plan.Promotions = append(plan.Promotions, Promotion{ID: e.ID, TAG: c.TAG})
		case e.Faded:
			plan.Archives = append(plan.Archives, e.ID)
		}
	}
	if n := len(plan.Candidates); n > 0 {
		plan.Summary.MeanTAG /= float64(n)
	}

	// 5. Plasticity on existing edges: the highest TAG among touching candidates.
	edgeTAG := make(map[EdgeKey]float64)
	touch := func(k EdgeKey, tag float64) {
		if _, exists := edges[k]; !exists {
			return
		}
		if old, seen := edgeTAG[k]; !seen || tag > old {
			edgeTAG[k] = tag
		}
	}
	incident := make(map[string][]EdgeKey)
	for k := range edges {
		incident[k.A] = append(incident[k.A], k)
		incident[k.B] = append(incident[k.B], k)
	}
	for _, c := range plan.Candidates {
		if c.Source == SourceCounterfactual {
			touch(key(c.Parents[0], c.Parents[1]), c.TAG)
			continue
		}
		for _, k := range incident[c.ID] {
			touch(k, c.TAG)
		}
		ents := byID[c.ID].EntityIDs
		for i := range ents {
			for j := i + 1; j < len(ents); j++ {
				touch(key(ents[i], ents[j]), c.TAG)
			}
		}
	}
	after := make(map[EdgeKey]float64, len(edges))
	for k, w := range edges {
		after[k] = w
	}
	for _, k := range sortedKeys(edgeTAG) {
		tag := edgeTAG[k]
		d := EdgeDelta{A: k.A, B: k.B, TAG: tag, Before: edges[k]}
		if tag >= params.SelectThreshold {
			d.Kind, d.Delta = LTP, params.LTPDelta
			plan.Summary.LTP++
		} else {
			d.Kind, d.Delta = LTD, -params.LTDDelta
			plan.Summary.LTD++
		}
		d.After = math.Max(0, d.Before+d.Delta)
		after[k] = d.After
		plan.EdgeDeltas = append(plan.EdgeDeltas, d)
	}

	// 6. New association edges from selected counterfactuals.
	for _, c := range plan.Candidates {
		if c.Source != SourceCounterfactual || !c.Selected {
			continue
		}
		k := key(c.Parents[0], c.Parents[1])
		if _, exists := edges[k]; exists {
			continue // potentiated above
		}
		plan.NewEdges = append(plan.NewEdges, NewEdge{A: k.A, B: k.B, Weight: params.AssociationWeight, CandidateID: c.ID, TAG: c.TAG})
	}
	slices.SortFunc(plan.NewEdges, func(x, y NewEdge) int { return cmp.Or(strings.Compare(x.A, y.A), strings.Compare(x.B, y.B)) })

	// 7. Prune.
	for _, k := range sortedKeys(after) {
		if after[k] < params.PruneThreshold {
			plan.Prunes = append(plan.Prunes, k)
		}
	}

	plan.Summary.NewEdges = len(plan.NewEdges)
	plan.Summary.StabilityUpdates = len(plan.StabilityUpdates)
	plan.Summary.Promotions = len(plan.Promotions)
	plan.Summary.Archives = len(plan.Archives)
	plan.Summary.Prunes = len(plan.Prunes)
	plan.Summary.EdgesBefore = len(edges)
	plan.Summary.EdgesAfter = len(edges) + len(plan.NewEdges) - len(plan.Prunes)
	return plan, nil
}

// ApplyEdges returns the edge list after the plan: deltas applied, pruned
// edges removed, new association edges added, sorted by A then B with A < B.
// Edges of the input that the plan does not mention are kept unchanged. It is
// the undamped reading of the plan, for simulations and tests.
func (p Plan) ApplyEdges(edges []Edge) []Edge {
	w := make(map[EdgeKey]float64, len(edges)+len(p.NewEdges))
	for _, e := range edges {
		w[key(e.A, e.B)] = e.Weight
	}
	for _, d := range p.EdgeDeltas {
		w[EdgeKey{A: d.A, B: d.B}] = d.After
	}
	for _, n := range p.NewEdges {
		w[EdgeKey{A: n.A, B: n.B}] = n.Weight
	}
	for _, k := range p.Prunes {
		delete(w, k)
	}
	out := make([]Edge, 0, len(w))
	for _, k := range sortedKeys(w) {
		out = append(out, Edge{A: k.A, B: k.B, Weight: w[k]})
	}
	return out
}

// TAG returns the tag score of a candidate with TD error delta,
// retrievability r, novelty n and emotion e = |valence|·arousal:
// 0.4·|δ| + 0.35·R + 0.25·N, or with neuromodulation
// 0.34·|δ| + 0.30·R + 0.21·N + 0.15·E, with |δ| clipped to 1.
func TAG(delta, r, n, e float64, neuromodulation bool) float64 {
	d := math.Min(1, math.Abs(delta))
	if neuromodulation {
		return WeightTDNeuro*d + WeightRetrievabilityNeuro*r + WeightNoveltyNeuro*n + WeightEmotionNeuro*e
	}
	return WeightTD*d + WeightRetrievability*r + WeightNovelty*n
}

func (p Params) score(c Candidate) Candidate {
	c.TAG = TAG(c.TDError, c.Retrievability, c.Novelty, c.Emotion, p.Neuromodulation)
	c.Selected = c.TAG >= p.SelectThreshold
	return c
}

func novelty(related int) float64 { return math.Min(1, NoveltyPerEntity*float64(related)) }

// counterfactuals generates the counterfactual candidates (unscored) in id order.
func counterfactuals(episodes []Episode, p Params, seed uint32) []Candidate {
	if p.MaxCounterfactualsPerEpisode == -1 || p.MaxCounterfactuals == 0 {
		return nil
	}
	rng := simstat.NewMulberry32(seed)
	var low, high []*Episode
	for i := range episodes {
		switch e := &episodes[i]; {
		case e.Reward < p.LowReward:
			low = append(low, e)
		case e.Reward >= p.HighReward:
			high = append(high, e)
		}
	}
	slices.SortStableFunc(low, func(x, y *Episode) int {
		return cmp.Or(cmp.Compare(x.Reward, y.Reward), strings.Compare(x.ID, y.ID))
	})

	var out []Candidate
	for _, l := range low {
		type partner struct {
			s      *Episode
			shared []string
		}
		var ps []partner
		for _, s := range high {
			if sh := intersect(l.EntityIDs, s.EntityIDs); len(sh) > 0 {
				ps = append(ps, partner{s, sh})
			}
		}
		// Seeded shuffle first, so that the stable sort breaks remaining ties by the seed.
		for i := len(ps) - 1; i > 0; i-- {
			j := rng.Intn(i + 1)
			ps[i], ps[j] = ps[j], ps[i]
		}
		slices.SortStableFunc(ps, func(x, y partner) int {
			return cmp.Or(cmp.Compare(len(y.shared), len(x.shared)), cmp.Compare(y.s.Reward, x.s.Reward))
		})
		for _, pt := range ps[:min(len(ps), p.MaxCounterfactualsPerEpisode)] {
			if len(out) == p.MaxCounterfactuals {
				break
			}
			s := pt.s
			emo := math.Max(math.Abs(l.Valence)*l.Arousal, math.Abs(s.Valence)*s.Arousal)
			out = append(out, Candidate{
				ID:             CounterfactualPrefix + l.ID + "->" + s.ID,
				Source:         SourceCounterfactual,
				Parents:        []string{l.ID, s.ID},
				SharedEntities: pt.shared,
				TDError:        s.Reward - l.Value,
				Retrievability: math.Min(l.Retrievability, s.Retrievability),
				Novelty:        novelty(len(union(l.EntityIDs, s.EntityIDs))),
				Emotion:        emo,
			})
		}
	}
	slices.SortFunc(out, func(x, y Candidate) int { return strings.Compare(x.ID, y.ID) })
	return out
}

func checkEpisodes(in []Episode) ([]Episode, error) {
	out := make([]Episode, len(in))
	seen := make(map[string]bool, len(in))
	for i, e := range in {
		switch {
		case e.ID == "":
			return nil, fmt.Errorf("%w: episode %d has an empty id", ErrInvalidInput, i)
		case strings.HasPrefix(e.ID, CounterfactualPrefix):
			return nil, fmt.Errorf("%w: episode id %q uses the reserved prefix %q", ErrInvalidInput, e.ID, CounterfactualPrefix)
		case seen[e.ID]:
			return nil, fmt.Errorf("%w: duplicate episode id %q", ErrInvalidInput, e.ID)
		case !finite(e.Value) || e.Value < 0:
			return nil, fmt.Errorf("%w: episode %q: value must be finite and non-negative, got %v", ErrInvalidInput, e.ID, e.Value)
		case !unit(e.Reward):
			return nil, fmt.Errorf("%w: episode %q: reward must be in [0, 1], got %v", ErrInvalidInput, e.ID, e.Reward)
		case !unit(e.Retrievability):
			return nil, fmt.Errorf("%w: episode %q: retrievability must be in [0, 1], got %v", ErrInvalidInput, e.ID, e.Retrievability)
		case e.Related < 0:
			return nil, fmt.Errorf("%w: episode %q: related must be non-negative, got %d", ErrInvalidInput, e.ID, e.Related)
		case !finite(e.Valence) || e.Valence < -1 || e.Valence > 1:
			return nil, fmt.Errorf("%w: episode %q: valence must be in [-1, 1], got %v", ErrInvalidInput, e.ID, e.Valence)
		case !unit(e.Arousal):
			return nil, fmt.Errorf("%w: episode %q: arousal must be in [0, 1], got %v", ErrInvalidInput, e.ID, e.Arousal)
		case !finite(e.Stability) || e.Stability <= 0:
			return nil, fmt.Errorf("%w: episode %q: stability must be positive and finite, got %v", ErrInvalidInput, e.ID, e.Stability)
		}
		seen[e.ID] = true
		e.EntityIDs = uniqueSorted(e.EntityIDs)
		out[i] = e
	}
	slices.SortFunc(out, func(x, y Episode) int { return strings.Compare(x.ID, y.ID) })
	return out, nil
}

func checkEdges(in []Edge) (map[EdgeKey]float64, error) {
	out := make(map[EdgeKey]float64, len(in))
	for i, e := range in {
		switch {
		case e.A == "" || e.B == "":
			return nil, fmt.Errorf("%w: edge %d has an empty endpoint", ErrInvalidInput, i)
		case e.A == e.B:
			return nil, fmt.Errorf("%w: edge %d is a self-loop on %q", ErrInvalidInput, i, e.A)
		case !finite(e.Weight) || e.Weight < 0:
			return nil, fmt.Errorf("%w: edge %q–%q: weight must be finite and non-negative, got %v", ErrInvalidInput, e.A, e.B, e.Weight)
		}
		k := key(e.A, e.B)
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("%w: duplicate edge %q–%q", ErrInvalidInput, k.A, k.B)
		}
		out[k] = e.Weight
	}
	return out, nil
}

func key(a, b string) EdgeKey {
	if a > b {
		a, b = b, a
	}
	return EdgeKey{A: a, B: b}
}

func sortedKeys[V any](m map[EdgeKey]V) []EdgeKey {
	keys := make([]EdgeKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y EdgeKey) int { return cmp.Or(strings.Compare(x.A, y.A), strings.Compare(x.B, y.B)) })
	return keys
}

func uniqueSorted(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if id != "" {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// union returns the sorted union of two sorted, duplicate-free lists.
func union(a, b []string) []string {
	return slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(a), b...))))
}

// intersect returns the sorted intersection of two sorted, duplicate-free lists.
func intersect(a, b []string) []string {
	return textproc.Set(a).Intersect(textproc.Set(b))
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func unit(x float64) bool { return finite(x) && x >= 0 && x <= 1 }
