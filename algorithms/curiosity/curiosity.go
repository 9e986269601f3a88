package curiosity

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// ErrInvalidInput is wrapped by every error this package returns for bad
// input: NaN or out-of-range scores and confidences, negative counts,
// mismatched lengths, out-of-range query indexes, duplicate or empty IDs and
// invalid configurations.
var ErrInvalidInput = errors.New("curiosity: invalid input")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrInvalidInput)
}

func unit(x float64) bool { return !math.IsNaN(x) && x >= 0 && x <= 1 }

// Defaults of [Config].
const (
	// WindowDefault is how many of the most recent queries are grouped.
	WindowDefault = 200
	// MergeJaccardDefault is the least term Jaccard for joining or merging
	// topics.
	MergeJaccardDefault = 0.3
	// SuccessScoreDefault is the top score from which a query counts as
	// successful even without the success flag.
	SuccessScoreDefault = 0.5
	// QueryWeightDefault weighs q/qmax.
	QueryWeightDefault = 0.4
	// FactWeightDefault weighs 1 − f/fmax.
	FactWeightDefault = 0.3
	// ConfidenceWeightDefault weighs 1 − mean confidence.
	ConfidenceWeightDefault = 0.2
	// RecallWeightDefault weighs 1 − recall success.
	RecallWeightDefault = 0.1
	// ProgressWeightDefault weighs the learning progress, subtracted.
	ProgressWeightDefault = 0.1
	// MinProgressQueriesDefault is the fewest queries a topic needs for a
	// learning-progress estimate.
	MinProgressQueriesDefault = 4
	// ActionFloorDefault is the gap below which the action is monitor.
	ActionFloorDefault = 0.3
	// FewFactsDefault is the most facts that count as few (ask_user).
	FewFactsDefault = 2
	// ManyFactsDefault is the fewest facts that count as many
	// (consolidate).
	ManyFactsDefault = 10
	// ManyQueriesDefault is the fewest queries that count as many
	// (ask_user).
	ManyQueriesDefault = 3
	// LowConfidenceDefault is the mean confidence below which facts are
	// uncertain.
	LowConfidenceDefault = 0.5
	// LowSuccessDefault is the recall success below which recall fails.
	LowSuccessDefault = 0.5
	// TopNDefault is how many gaps [Top] returns when n ≤ 0.
	TopNDefault = 5
)

// Config holds the parameters of grouping, scoring and actions. A zero
// field takes its default.
type Config struct {
	// Window is how many of the most recent queries [GroupQueries] and
	// [AssignQueries] use. Defaults to [WindowDefault] (200).
	Window int
	// MergeJaccard in (0, 1]. Defaults to [MergeJaccardDefault] (0.3).
	MergeJaccard float64
	// Lang is the language for [textproc.Terms]; empty detects it per query.
	Lang textproc.Lang
	// SuccessScore in (0, 1]. Defaults to [SuccessScoreDefault] (0.5).
	SuccessScore float64
	// QueryWeight, FactWeight, ConfidenceWeight, RecallWeight and
	// ProgressWeight are the gap weights, each ≥ 0. They default to 0.4,
	// 0.3, 0.2, 0.1 and 0.1; −1 sets one to 0 (ProgressWeight −1 switches
	// learning progress off).
	QueryWeight, FactWeight, ConfidenceWeight, RecallWeight, ProgressWeight float64
	// MinProgressQueries defaults to [MinProgressQueriesDefault] (4); it
	// must be at least 2.
	MinProgressQueries int
	// ActionFloor defaults to [ActionFloorDefault] (0.3).
	ActionFloor float64
	// FewFacts defaults to [FewFactsDefault] (2); −1 means 0.
	FewFacts int
	// ManyFacts defaults to [ManyFactsDefault] (10).
	ManyFacts int
	// ManyQueries defaults to [ManyQueriesDefault] (3).
	ManyQueries int
	// LowConfidence defaults to [LowConfidenceDefault] (0.5).
	LowConfidence float64
	// LowSuccess defaults to [LowSuccessDefault] (0.5).
	LowSuccess float64
}

// WithDefaults returns a copy of c with every zero field set to its default
// and −1 weights set to 0.
func (c *Config) WithDefaults() *Config {
	if c == nil {
		c = &Config{}
	}
	out := *c
	out.Window = cmp.Or(out.Window, WindowDefault)
	out.MergeJaccard = cmp.Or(out.MergeJaccard, MergeJaccardDefault)
	out.SuccessScore = cmp.Or(out.SuccessScore, SuccessScoreDefault)
	w := func(x, def float64) float64 {
		if x == -1 {
			return 0
		}
		return cmp.Or(x, def)
	}
	out.QueryWeight = w(out.QueryWeight, QueryWeightDefault)
	out.FactWeight = w(out.FactWeight, FactWeightDefault)
	out.ConfidenceWeight = w(out.ConfidenceWeight, ConfidenceWeightDefault)
	out.RecallWeight = w(out.RecallWeight, RecallWeightDefault)
	out.ProgressWeight = w(out.ProgressWeight, ProgressWeightDefault)
	out.MinProgressQueries = cmp.Or(out.MinProgressQueries, MinProgressQueriesDefault)
	out.ActionFloor = cmp.Or(out.ActionFloor, ActionFloorDefault)
	if out.FewFacts == -1 {
		out.FewFacts = 0
	} else {
		out.FewFacts = cmp.Or(out.FewFacts, FewFactsDefault)
	}
	out.ManyFacts = cmp.Or(out.ManyFacts, ManyFactsDefault)
	out.ManyQueries = cmp.Or(out.ManyQueries, ManyQueriesDefault)
	out.LowConfidence = cmp.Or(out.LowConfidence, LowConfidenceDefault)
	out.LowSuccess = cmp.Or(out.LowSuccess, LowSuccessDefault)
	return &out
}

func (c *Config) validate() error {
	for _, x := range []float64{c.QueryWeight, c.FactWeight, c.ConfidenceWeight, c.RecallWeight, c.ProgressWeight} {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return invalidf("Config weights must be finite and non-negative, got %+v", *c)
		}
	}
	switch {
	case c.Window < 1:
		return invalidf("Config.Window must be positive, got %d", c.Window)
	case !unit(c.MergeJaccard) || c.MergeJaccard == 0 || !unit(c.SuccessScore) || c.SuccessScore == 0:
		return invalidf("Config.MergeJaccard and SuccessScore must be in (0, 1], got %v and %v", c.MergeJaccard, c.SuccessScore)
	case c.MinProgressQueries < 2:
		return invalidf("Config.MinProgressQueries must be at least 2, got %d", c.MinProgressQueries)
	case !unit(c.ActionFloor) || !unit(c.LowConfidence) || !unit(c.LowSuccess):
		return invalidf("Config.ActionFloor, LowConfidence and LowSuccess must be in [0, 1], got %v, %v, %v",
			c.ActionFloor, c.LowConfidence, c.LowSuccess)
	case c.FewFacts < 0 || c.ManyFacts < 1 || c.ManyQueries < 1 || c.FewFacts >= c.ManyFacts:
		return invalidf("Config needs 0 <= FewFacts < ManyFacts and ManyQueries >= 1, got %d, %d, %d",
			c.FewFacts, c.ManyFacts, c.ManyQueries)
	}
	return nil
}

// Query is one entry of the query log.
type Query struct {
	// Text is the query. Queries without content terms are ignored when
	// grouping.
	Text string `json:"text"`
	// At is when the query was asked.
	At time.Time `json:"at"`
	// Success is true when the answer was used or confirmed.
	Success bool `json:"success"`
	// TopScore in [0, 1] is the best recall score of the query; a query
	// with TopScore ≥ SuccessScore counts as successful too.
	TopScore float64 `json:"top_score"`
}

func (q Query) succeeded(c *Config) bool { return q.Success || q.TopScore >= c.SuccessScore }

func checkQueries(queries []Query) error {
	for i, q := range queries {
		if !unit(q.TopScore) {
			return invalidf("query %d top score must be in [0, 1], got %v", i, q.TopScore)
		}
	}
	return nil
}

// recent returns the indexes of the cfg.Window most recent queries in time
// order (ties: index).
func recent(queries []Query, c *Config) []int {
	idx := make([]int, len(queries))
	for i := range idx {
		idx[i] = i
	}
	byTime := func(a, b int) int { return cmp.Or(queries[a].At.Compare(queries[b].At), cmp.Compare(a, b)) }
	slices.SortFunc(idx, byTime)
	if len(idx) > c.Window {
		idx = idx[len(idx)-c.Window:]
	}
	return idx
}

// Topic is a group of queries about one subject.
type Topic struct {
	// ID identifies the topic: the cluster ID, or for query topics the
	// label (with "#2", "#3" … appended on collisions).
	ID string `json:"id"`
	// Label is a short name: the cluster's label, or the topic's three most
	// frequent terms.
	Label string `json:"label"`
	// Terms are the topic's distinct terms, most frequent first (ties:
	// alphabetical); for clusters, the words of its names.
	Terms []string `json:"terms"`
	// Queries are the indexes of the topic's queries in the query slice,
	// in time order.
	Queries []int `json:"queries"`
}

type group struct {
	counts  map[string]int // term → number of member queries containing it
	queries []int
}

// centroid returns the group's term weights count/queries in [0, 1].
func (g *group) centroid() map[string]float64 {
	out := make(map[string]float64, len(g.counts))
	for t, n := range g.counts {
		out[t] = float64(n) / float64(len(g.queries))
	}
	return out
}

// weightedJaccard returns Σ min(a_t, b_t) / Σ max(a_t, b_t), the Jaccard
// similarity of weighted term sets (the plain Jaccard for 0/1 weights); 0
// for two empty sets.
func weightedJaccard(a, b map[string]float64) float64 {
	lo, hi := 0.0, 0.0
	for t, x := range a {
		y := b[t]
		lo += math.Min(x, y)
		hi += math.Max(x, y)
	}
	for t, y := range b {
		if _, ok := a[t]; !ok {
			hi += y
		}
	}
	if hi == 0 {
		return 0
	}
	return lo / hi
}

// GroupQueries forms topics from the most recent queries by greedy term
// grouping and merging (see the package documentation). Queries without
// content terms are left out. It returns an error wrapping
// [ErrInvalidInput] for a top score outside [0, 1] or an invalid cfg.
func GroupQueries(queries []Query, cfg *Config) ([]Topic, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	if err := checkQueries(queries); err != nil {
		return nil, err
	}
	var groups []*group
	for _, i := range recent(queries, c) {
		set := map[string]float64{}
		for _, t := range textproc.Terms(queries[i].Text, c.Lang) {
			set[t] = 1
		}
		if len(set) == 0 {
			continue
		}
		best, bestJ := -1, 0.0
		for k, g := range groups {
			if j := weightedJaccard(set, g.centroid()); j >= c.MergeJaccard && j > bestJ {
				best, bestJ = k, j
			}
		}
		if best < 0 {
			groups = append(groups, &group{counts: map[string]int{}})
			best = len(groups) - 1
		}
		g := groups[best]
		for t := range set {
			g.counts[t]++
		}
		g.queries = append(g.queries, i)
	}
	// Merge the most similar pair of topics while it is similar enough.
	for {
		bi, bj, bestJ := -1, -1, 0.0
		for i := range groups {
			ci := groups[i].centroid()
			for j := i + 1; j < len(groups); j++ {
				if s := weightedJaccard(ci, groups[j].centroid()); s >= c.MergeJaccard && s > bestJ {
					bi, bj, bestJ = i, j, s
				}
			}
		}
		if bi < 0 {
			break
		}
		a, b := groups[bi], groups[bj]
		for t, n := range b.counts {
			a.counts[t] += n
		}
		a.queries = append(a.queries, b.queries...)
		groups = slices.Delete(groups, bj, bj+1)
	}
	out := make([]Topic, 0, len(groups))
	seen := map[string]int{}
	for _, g := range groups {
		terms := make([]string, 0, len(g.counts))
		for t := range g.counts {
			terms = append(terms, t)
		}
		slices.SortFunc(terms, func(x, y string) int { return cmp.Or(cmp.Compare(g.counts[y], g.counts[x]), cmp.Compare(x, y)) })
		label := strings.Join(terms[:min(3, len(terms))], " ")
		id := label
		if n := seen[label]; n > 0 {
			id = fmt.Sprintf("%s#%d", label, n+1)
		}
		seen[label]++
		qs := slices.Clone(g.queries)
		slices.SortFunc(qs, func(a, b int) int { return cmp.Or(queries[a].At.Compare(queries[b].At), cmp.Compare(a, b)) })
		out = append(out, Topic{ID: id, Label: label, Terms: terms, Queries: qs})
	}
	return out, nil
}

// Cluster is an entity cluster given by the caller.
type Cluster struct {
	// ID identifies the cluster; required and unique.
	ID string `json:"id"`
	// Label names the cluster for display; empty means ID.
	Label string `json:"label"`
	// Names are the entity names and aliases of the cluster; at least one
	// must have words.
	Names []string `json:"names"`
}

// nameWords returns the lower-case words of an entity name without English
// and German stop words; a name made only of stop words keeps them all.
func nameWords(name string) []string {
	toks := textproc.Tokens(name)
	var out []string
	for _, t := range toks {
		if !textproc.IsStopWord(t, textproc.English) && !textproc.IsStopWord(t, textproc.German) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return toks
	}
	return out
}

// AssignQueries returns one topic per cluster, in cluster order, holding
// the most recent queries that mention one of the cluster's names (all of
// the name's words among the query's words, case-insensitively). A query
// may mention several clusters and then belongs to each. It returns an error
// wrapping [ErrInvalidInput] for an empty or repeated cluster ID, a cluster
// without a usable name, a top score outside [0, 1] or an invalid cfg.
func AssignQueries(queries []Query, clusters []Cluster, cfg *Config) ([]Topic, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	if err := checkQueries(queries); err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	names := make([][][]string, len(clusters))
	out := make([]Topic, len(clusters))
	for k, cl := range clusters {
		if cl.ID == "" || ids[cl.ID] {
			return nil, invalidf("cluster %d has an empty or repeated id %q", k, cl.ID)
		}
		ids[cl.ID] = true
		words := map[string]bool{}
		for _, n := range cl.Names {
			if w := nameWords(n); len(w) > 0 {
				names[k] = append(names[k], w)
				for _, x := range w {
					words[x] = true
				}
			}
		}
		if len(names[k]) == 0 {
			return nil, invalidf("cluster %q has no usable name", cl.ID)
		}
		terms := make([]string, 0, len(words))
		for w := range words {
			terms = append(terms, w)
		}
		slices.Sort(terms)
		out[k] = Topic{ID: cl.ID, Label: cmp.Or(cl.Label, cl.ID), Terms: terms}
	}
	for _, i := range recent(queries, c) {
		have := map[string]bool{}
		for _, t := range textproc.Tokens(queries[i].Text) {
			have[t] = true
		}
		for k := range clusters {
			for _, name := range names[k] {
				all := true
				for _, w := range name {
					if !have[w] {
						all = false
						break
					}
				}
				if all {
					out[k].Queries = append(out[k].Queries, i)
					break
				}
			}
		}
	}
	return out, nil
}

// Stats are what the caller knows about one topic.
type Stats struct {
	// Facts is the number of stored facts about the topic (≥ 0).
	Facts int `json:"facts"`
	// MeanConfidence in [0, 1] is the facts' mean confidence; ignored when
	// Facts is 0.
	MeanConfidence float64 `json:"mean_confidence"`
	// RecallSuccess in [0, 1], when not nil, is a measured recall success
	// for the topic; nil means the share of the topic's successful queries.
	RecallSuccess *float64 `json:"recall_success,omitempty"`
}

// Action is the suggested response to a gap.
type Action string

// The actions.
const (
	// ActionReview asks for a review of the topic's uncertain facts.
	ActionReview Action = "review"
	// ActionAskUser asks the user about a topic we know little about.
	ActionAskUser Action = "ask_user"
	// ActionConsolidate asks for consolidation of many poorly recalled
	// facts.
	ActionConsolidate Action = "consolidate"
	// ActionMonitor means no action for now.
	ActionMonitor Action = "monitor"
)

// Gap is the knowledge-gap score of one topic with its parts.
type Gap struct {
	// TopicID and Label identify the topic.
	TopicID string `json:"topic_id"`
	// Label is the topic's label.
	Label string `json:"label"`
	// Score is the gap in [0, 1].
	Score float64 `json:"score"`
	// Base is the gap before the learning-progress term.
	Base float64 `json:"base"`
	// Queries is q, the number of the topic's queries.
	Queries int `json:"queries"`
	// Facts is f.
	Facts int `json:"facts"`
	// MeanConfidence is c as used (0 without facts).
	MeanConfidence float64 `json:"mean_confidence"`
	// RecallSuccess is r as used.
	RecallSuccess float64 `json:"recall_success"`
	// Progress is the learning progress LP in [−1, 1] (0 with too few
	// queries).
	Progress float64 `json:"progress"`
	// Action is the suggested action.
	Action Action `json:"action"`
}

// Score returns the gap of every topic, ordered by gap descending, then
// queries descending, then topic ID; stats[i] belongs to topics[i]. It
// returns an error wrapping [ErrInvalidInput] when the lengths differ, a
// topic ID is empty or repeated, a query index is out of range, a count is
// negative, a confidence, success or top score lies outside [0, 1], or cfg
// is invalid.
func Score(queries []Query, topics []Topic, stats []Stats, cfg *Config) ([]Gap, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	if err := checkQueries(queries); err != nil {
		return nil, err
	}
	if len(stats) != len(topics) {
		return nil, invalidf("%d stats for %d topics", len(stats), len(topics))
	}
	qmax, fmax := 0, 0
	ids := map[string]bool{}
	for k, t := range topics {
		if t.ID == "" || ids[t.ID] {
			return nil, invalidf("topic %d has an empty or repeated id %q", k, t.ID)
		}
		ids[t.ID] = true
		for _, i := range t.Queries {
			if i < 0 || i >= len(queries) {
				return nil, invalidf("topic %q refers to query %d of %d", t.ID, i, len(queries))
			}
		}
		s := stats[k]
		if s.Facts < 0 || !unit(s.MeanConfidence) || (s.RecallSuccess != nil && !unit(*s.RecallSuccess)) {
			return nil, invalidf("topic %q has invalid stats %+v", t.ID, s)
		}
		qmax, fmax = max(qmax, len(t.Queries)), max(fmax, s.Facts)
	}
	out := make([]Gap, len(topics))
	for k, t := range topics {
		s := stats[k]
		g := Gap{TopicID: t.ID, Label: t.Label, Queries: len(t.Queries), Facts: s.Facts}
		if s.Facts > 0 {
			g.MeanConfidence = s.MeanConfidence
		}
		// Successes in time order.
		qs := slices.Clone(t.Queries)
		slices.SortFunc(qs, func(a, b int) int { return cmp.Or(queries[a].At.Compare(queries[b].At), cmp.Compare(a, b)) })
		ok := make([]bool, len(qs))
		for j, i := range qs {
			ok[j] = queries[i].succeeded(c)
		}
		switch {
		case s.RecallSuccess != nil:
			g.RecallSuccess = *s.RecallSuccess
		case len(ok) > 0:
			g.RecallSuccess = rate(ok)
		}
		if len(ok) >= c.MinProgressQueries {
			half := len(ok) / 2
			g.Progress = rate(ok[half:]) - rate(ok[:half])
		}
		qTerm, fTerm := 0.0, 0.0
		if qmax > 0 {
			qTerm = float64(g.Queries) / float64(qmax)
		}
		if fmax > 0 {
			fTerm = float64(g.Facts) / float64(fmax)
		}
		g.Base = c.QueryWeight*qTerm + c.FactWeight*(1-fTerm) + c.ConfidenceWeight*(1-g.MeanConfidence) +
			c.RecallWeight*(1-g.RecallSuccess)
		g.Score = math.Max(0, math.Min(1, g.Base-c.ProgressWeight*g.Progress))
		g.Action = action(g, c)
		out[k] = g
	}
	slices.SortStableFunc(out, compareGaps)
	return out, nil
}

func compareGaps(a, b Gap) int {
	return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(b.Queries, a.Queries), cmp.Compare(a.TopicID, b.TopicID))
}

func rate(ok []bool) float64 {
	n := 0
	for _, x := range ok {
		if x {
			n++
		}
	}
	return float64(n) / float64(len(ok))
}

func action(g Gap, c *Config) Action {
	switch {
	case g.Score < c.ActionFloor:
		return ActionMonitor
	case g.Facts <= c.FewFacts && g.Queries >= c.ManyQueries:
		return ActionAskUser
	case g.Facts >= c.ManyFacts && g.RecallSuccess < c.LowSuccess:
		return ActionConsolidate
	case g.Facts > 0 && (g.MeanConfidence < c.LowConfidence || g.RecallSuccess < c.LowSuccess):
		return ActionReview
	}
	return ActionMonitor
}

// Top returns the n highest gaps (n ≤ 0 means [TopNDefault], 5) in the
// order of [Score], as a new slice.
func Top(gaps []Gap, n int) []Gap {
	if n <= 0 {
		n = TopNDefault
	}
	out := slices.Clone(gaps)
	slices.SortStableFunc(out, compareGaps)
	return out[:min(n, len(out))]
}
