package curiosity

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/simstat"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

var t0 = time.Date(2025, 6, 1, 8, 0, 0, 0, time.UTC)

// craftedLog is a query log with four subjects: an unknown one asked about
// often (kubernetes ingress), an uncertain one (tax return), a fragmented
// one (project zeus) and a well-known one (coffee).
func craftedLog() []Query {
	type q struct {
		text  string
		score float64
	}
	qs := []q{
		{"How do I configure the kubernetes ingress?", 0.1},
		{"What is my coffee order?", 0.9},
		{"When is the tax return deadline?", 0.7},
		{"kubernetes ingress TLS configuration", 0.2},
		{"project zeus milestones", 0.2},
		{"Which kubernetes ingress annotations do we use?", 0.1},
		{"tax return deadline extension", 0.3},
		{"project zeus milestones for Q3", 0.1},
		{"kubernetes ingress configuration for staging", 0.0},
		{"coffee order at the office", 0.8},
		{"zeus project milestones owner", 0.3},
		{"kubernetes ingress rewrite configuration", 0.2},
		{"documents for the tax return", 0.2},
		{"project zeus milestones status", 0.1},
		{"kubernetes ingress timeout", 0.1},
		{"the of and", 0.9}, // no content terms: ignored
	}
	out := make([]Query, len(qs))
	for i, x := range qs {
		out[i] = Query{Text: x.text, At: t0.Add(time.Duration(i) * time.Hour), TopScore: x.score}
	}
	return out
}

func statsFor(topics []Topic, byTerm map[string]Stats) []Stats {
	out := make([]Stats, len(topics))
	for k, t := range topics {
		for term, s := range byTerm {
			if strings.Contains(t.Label, term) {
				out[k] = s
			}
		}
	}
	return out
}

var craftedStats = map[string]Stats{
	"kubernet": {Facts: 0},
	"coffe":    {Facts: 20, MeanConfidence: 0.9},
	"tax":      {Facts: 8, MeanConfidence: 0.3},
	"zeus":     {Facts: 15, MeanConfidence: 0.8},
}

func TestCraftedLogRanking(t *testing.T) {
	t.Parallel()
	log := craftedLog()
	topics, err := GroupQueries(log, nil)
	require.NoError(t, err)
	require.Len(t, topics, 4)
	gaps, err := Score(log, topics, statsFor(topics, craftedStats), nil)
	require.NoError(t, err)
	type want struct {
		term   string
		score  float64
		action Action
	}
	// kubernetes: 6 queries (qmax), no facts, no success: 0.4+0.3+0.2+0.1 = 1.
	// tax: 3 queries, 8/20 facts, c 0.3, r 1/3: 0.2 + 0.18 + 0.14 + 0.0667.
	// zeus: 4 queries, 15/20 facts, c 0.8, r 0: 0.2667 + 0.075 + 0.04 + 0.1.
	// coffee: 2 queries, 20/20 facts, c 0.9, r 1: 0.1333 + 0 + 0.02 + 0.
	// LP: zeus has 4 queries, all failing (0); the others have too few
	// queries or (kubernetes) none succeed.
	wants := []want{
		{"kubernet", 1, ActionAskUser},
		{"tax", 0.2 + 0.18 + 0.14 + 0.1*(2.0/3), ActionReview},
		{"zeus", 0.4*4/6 + 0.075 + 0.04 + 0.1, ActionConsolidate},
		{"coffe", 0.4*2/6 + 0.02, ActionMonitor},
	}
	for k, w := range wants {
		require.Contains(t, gaps[k].Label, w.term, "rank %d", k)
		require.InDelta(t, w.score, gaps[k].Score, 1e-9, "rank %d", k)
		require.Equal(t, w.action, gaps[k].Action, "rank %d", k)
	}
	top := Top(gaps, 2)
	require.Len(t, top, 2)
	require.Equal(t, gaps[0], top[0])
	require.Len(t, Top(gaps, 0), 4)
}

func TestLearningProgress(t *testing.T) {
	t.Parallel()
	pattern := func(ok ...bool) []Query {
		out := make([]Query, len(ok))
		for i, s := range ok {
			out[i] = Query{Text: "q", At: t0.Add(time.Duration(i) * time.Minute), Success: s}
		}
		return out
	}
	var log []Query
	var topics []Topic
	add := func(id string, qs []Query) {
		tp := Topic{ID: id, Label: id}
		for _, q := range qs {
			tp.Queries = append(tp.Queries, len(log))
			log = append(log, q)
		}
		topics = append(topics, tp)
	}
	add("improving", pattern(false, false, true, true))
	add("steady", pattern(false, true, false, true))
	add("declining", pattern(true, true, false, false))
	add("short", pattern(false, true, true)) // too few queries for LP
	stats := []Stats{{Facts: 3, MeanConfidence: 0.6}, {Facts: 3, MeanConfidence: 0.6}, {Facts: 3, MeanConfidence: 0.6}, {Facts: 3, MeanConfidence: 0.6}}
	gaps, err := Score(log, topics, stats, nil)
	require.NoError(t, err)
	by := map[string]Gap{}
	for _, g := range gaps {
		by[g.TopicID] = g
	}
	// base = 0.4·1 + 0.3·0 + 0.2·0.4 + 0.1·0.5 = 0.53 for the three 4-query topics.
	require.InDelta(t, 0.53, by["steady"].Score, 1e-12)
	require.InDelta(t, 1.0, by["improving"].Progress, 1e-12)
	require.InDelta(t, 0.53-0.1, by["improving"].Score, 1e-12)
	require.InDelta(t, 0.53+0.1, by["declining"].Score, 1e-12)
	require.Zero(t, by["short"].Progress)
	require.Less(t, by["improving"].Score, by["steady"].Score)
	require.Equal(t, []string{"declining", "steady", "improving", "short"},
		[]string{gaps[0].TopicID, gaps[1].TopicID, gaps[2].TopicID, gaps[3].TopicID})

	// ProgressWeight −1 switches the term off.
	off, err := Score(log, topics, stats, &Config{ProgressWeight: -1})
	require.NoError(t, err)
	for _, g := range off[:3] {
		require.InDelta(t, 0.53, g.Score, 1e-12, g.TopicID)
	}
}

func TestGroupQueries(t *testing.T) {
	t.Parallel()
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }
	tests := []struct {
		name    string
		queries []Query
		cfg     *Config
		labels  []string
		sizes   []int
	}{
		{
			name: "english stems join",
			queries: []Query{
				{Text: "Anna's trip to Lisbon", At: at(0)},
				{Text: "trips to Lisbon in May", At: at(1)},
				{Text: "best running shoes", At: at(2)},
			},
			labels: []string{"lisbon trip anna", "best run shoe"},
			sizes:  []int{2, 1},
		},
		{
			name: "german queries",
			queries: []Query{
				{Text: "Wann ist die Frist für die Steuererklärung?", At: at(0)},
				{Text: "Frist der Steuererklärung verlängern", At: at(1)},
				{Text: "Rezept für Apfelkuchen", At: at(2)},
			},
			sizes: []int{2, 1},
		},
		{
			name: "merge pass joins topics that grew together",
			queries: []Query{
				{Text: "alpha beta", At: at(0)},
				{Text: "gamma delta", At: at(1)},
				// J 0.5 with both: joins the first, whose profile then
				// moves towards gamma and delta until the merge pass
				// (weighted Jaccard 1.33/4 = 0.33) joins the two.
				{Text: "alpha beta gamma delta", At: at(2)},
				{Text: "alpha beta gamma delta", At: at(3)},
			},
			labels: []string{"alpha beta delta"},
			sizes:  []int{4},
		},
		{
			name:    "window keeps the most recent",
			queries: []Query{{Text: "old topic", At: at(0)}, {Text: "new subject", At: at(1)}},
			cfg:     &Config{Window: 1},
			labels:  []string{"new subject"},
			sizes:   []int{1},
		},
		{
			name:    "empty and stop-word queries",
			queries: []Query{{Text: "", At: at(0)}, {Text: "and the", At: at(1)}},
			sizes:   []int{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			topics, err := GroupQueries(tt.queries, tt.cfg)
			require.NoError(t, err)
			sizes := []int{}
			for _, tp := range topics {
				sizes = append(sizes, len(tp.Queries))
			}
			require.Equal(t, tt.sizes, sizes)
			if tt.labels != nil {
				var labels []string
				for _, tp := range topics {
					labels = append(labels, tp.Label)
				}
				require.Equal(t, tt.labels, labels)
			}
		})
	}
}

func TestAssignQueries(t *testing.T) {
	t.Parallel()
	log := []Query{
		{Text: "Where does Anna Schmidt live?", At: t0},
		{Text: "anna's birthday", At: t0.Add(time.Minute)}, // "anna's" is one token: no mention
		{Text: "Trip with Anna to Lisbon", At: t0.Add(2 * time.Minute)},
		{Text: "weather in Lisbon", At: t0.Add(3 * time.Minute)},
		{Text: "Schmidt GmbH invoices", At: t0.Add(4 * time.Minute)},
	}
	topics, err := AssignQueries(log, []Cluster{
		{ID: "anna", Label: "Anna Schmidt", Names: []string{"Anna Schmidt", "Anna"}},
		{ID: "lisbon", Names: []string{"Lisbon", "Lissabon"}},
		{ID: "nobody", Names: []string{"Zed"}},
	}, nil)
	require.NoError(t, err)
	require.Equal(t, []int{0, 2}, topics[0].Queries)
	require.Equal(t, []int{2, 3}, topics[1].Queries)
	require.Empty(t, topics[2].Queries)
	require.Equal(t, "lisbon", topics[1].Label)
	require.Equal(t, []string{"anna", "schmidt"}, topics[0].Terms)

	gaps, err := Score(log, topics, []Stats{{Facts: 5, MeanConfidence: 0.9}, {Facts: 0}, {Facts: 1, MeanConfidence: 1}}, nil)
	require.NoError(t, err)
	require.Equal(t, "lisbon", gaps[0].TopicID)
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	log := craftedLog()
	topics, err := GroupQueries(log, nil)
	require.NoError(t, err)
	want, err := Score(log, topics, statsFor(topics, craftedStats), nil)
	require.NoError(t, err)
	for _, seed := range simstat.Seeds {
		r := simstat.NewMulberry32(seed)
		shuffled := append([]Query(nil), log...)
		for i := len(shuffled) - 1; i > 0; i-- {
			j := r.Intn(i + 1)
			shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
		}
		st, err := GroupQueries(shuffled, nil)
		require.NoError(t, err)
		got, err := Score(shuffled, st, statsFor(st, craftedStats), nil)
		require.NoError(t, err)
		require.Equal(t, want, got, "seed %d", seed)
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	log := []Query{{Text: "a b", At: t0}}
	topic := []Topic{{ID: "t", Queries: []int{0}}}
	rs := 1.5
	tests := []struct {
		name string
		run  func() error
	}{
		{"nan top score", func() error { _, err := GroupQueries([]Query{{Text: "x", TopScore: math.NaN()}}, nil); return err }},
		{"top score above 1", func() error { _, err := Score([]Query{{TopScore: 2}}, nil, nil, nil); return err }},
		{"bad merge jaccard", func() error { _, err := GroupQueries(log, &Config{MergeJaccard: 1.2}); return err }},
		{"negative weight", func() error { _, err := Score(log, topic, []Stats{{}}, &Config{QueryWeight: -0.5}); return err }},
		{"nan weight", func() error { _, err := Score(log, topic, []Stats{{}}, &Config{FactWeight: math.NaN()}); return err }},
		{"few not below many", func() error { _, err := Score(log, topic, []Stats{{}}, &Config{FewFacts: 10}); return err }},
		{"min progress 1", func() error { _, err := Score(log, topic, []Stats{{}}, &Config{MinProgressQueries: 1}); return err }},
		{"stats length", func() error { _, err := Score(log, topic, nil, nil); return err }},
		{"query index", func() error {
			_, err := Score(log, []Topic{{ID: "t", Queries: []int{3}}}, []Stats{{}}, nil)
			return err
		}},
		{"negative index", func() error {
			_, err := Score(log, []Topic{{ID: "t", Queries: []int{-1}}}, []Stats{{}}, nil)
			return err
		}},
		{"empty topic id", func() error { _, err := Score(log, []Topic{{}}, []Stats{{}}, nil); return err }},
		{"repeated topic id", func() error { _, err := Score(log, []Topic{{ID: "a"}, {ID: "a"}}, []Stats{{}, {}}, nil); return err }},
		{"negative facts", func() error { _, err := Score(log, topic, []Stats{{Facts: -1}}, nil); return err }},
		{"confidence above 1", func() error { _, err := Score(log, topic, []Stats{{MeanConfidence: 1.1}}, nil); return err }},
		{"recall above 1", func() error { _, err := Score(log, topic, []Stats{{RecallSuccess: &rs}}, nil); return err }},
		{"cluster without id", func() error { _, err := AssignQueries(log, []Cluster{{Names: []string{"a"}}}, nil); return err }},
		{"cluster repeated", func() error {
			_, err := AssignQueries(log, []Cluster{{ID: "a", Names: []string{"a"}}, {ID: "a", Names: []string{"b"}}}, nil)
			return err
		}},
		{"cluster without names", func() error {
			_, err := AssignQueries(log, []Cluster{{ID: "a", Names: []string{" ", "!"}}}, nil)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.ErrorIs(t, tt.run(), ErrInvalidInput)
		})
	}
	// Empty input is fine and gives nothing.
	gaps, err := Score(nil, nil, nil, nil)
	require.NoError(t, err)
	require.Empty(t, gaps)
	require.Empty(t, Top(nil, 3))
}

func TestMeasuredRecallOverridesLog(t *testing.T) {
	t.Parallel()
	log := []Query{{Text: "x", At: t0, Success: true}}
	r := 0.0
	gaps, err := Score(log, []Topic{{ID: "t", Queries: []int{0}}}, []Stats{{Facts: 4, MeanConfidence: 0.9, RecallSuccess: &r}}, nil)
	require.NoError(t, err)
	require.Zero(t, gaps[0].RecallSuccess)
	// 0.4 + 0 + 0.2·0.1 + 0.1 = 0.52 ≥ 0.3, facts 4 < 10, r 0 < 0.5 → review.
	require.InDelta(t, 0.52, gaps[0].Score, 1e-12)
	require.Equal(t, ActionReview, gaps[0].Action)
}

func TestGoldenGaps(t *testing.T) {
	t.Parallel()
	log := craftedLog()
	topics, err := GroupQueries(log, nil)
	require.NoError(t, err)
	gaps, err := Score(log, topics, statsFor(topics, craftedStats), nil)
	require.NoError(t, err)
	var b strings.Builder
	for _, tp := range topics {
		fmt.Fprintf(&b, "topic %-28q terms=%v queries=%v\n", tp.ID, tp.Terms, tp.Queries)
	}
	for _, g := range gaps {
		fmt.Fprintf(&b, "gap %-28q score=%.6f base=%.6f q=%d f=%d c=%.2f r=%.4f lp=%+.4f %s\n",
			g.TopicID, g.Score, g.Base, g.Queries, g.Facts, g.MeanConfidence, g.RecallSuccess, g.Progress, g.Action)
	}
	path := filepath.Join("testdata", "gaps.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), b.String())
}
