package retrieval

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRankConversationalContext(t *testing.T) {
	t.Parallel()
	// A session of three turns: "q" matches the query, "a" (the answer) follows it and matches
	// nothing; "x" is an unrelated memory of another session with a weak match; "f" is a
	// memory without a session.
	cands := []Candidate{
		{ID: "q", Text: "we repaired the boat", Layer: LayerShortTerm, Cosine: 0.6, BM25: 4, Retrievability: 1, Session: "s1", Next: "a", SessionBM25: 6},
		{ID: "a", Text: "and sailed on Sunday", Layer: LayerShortTerm, Cosine: 0.2, BM25: 0, Retrievability: 1, Session: "s1", Prev: "q", Next: "z", SessionBM25: 6},
		{ID: "x", Text: "a boat show", Layer: LayerShortTerm, Cosine: 0.3, BM25: 1.5, Retrievability: 1, Session: "s2", SessionBM25: 1.5},
		{ID: "f", Text: "tea is hot", Layer: LayerSemantic, Cosine: 0.2, BM25: 0, Retrievability: 1},
	}
	got, err := Rank(ClassGeneral, cands, &Config{K: -1, DisableForgetting: true})
	require.NoError(t, err)
	byID := map[string]Result{}
	for _, r := range got {
		byID[r.ID] = r
	}
	// Normalization: cosine (c − 0.2)/0.4, BM25 b/4. hybrid = 0.3·v + 0.7·b.
	// q: v 1, b 1 → hybrid 1; neighbour a (hybrid 0); session 6/6 = 1 →
	//    context (1 + 0.5·0 + 0.5·1)/1.5 = 1.
	// a: hybrid 0; neighbour q (1) → (0 + 0.5 + 0.5)/1.5 = 2/3.
	// x: v 0.25, b 0.375 → hybrid 0.3375; session 0.25 → (0.3375 + 0.125)/1.5 = 0.308333.
	// f: hybrid 0, no session: context = hybrid = 0.
	require.Equal(t, []string{"q", "a", "x", "f"}, ids(got))
	require.InDelta(t, 1.0, byID["q"].Score, 1e-12)
	require.InDelta(t, 2.0/3, byID["a"].Score, 1e-12)
	require.InDelta(t, 1.0, byID["a"].Signals.Neighbour, 1e-12)
	require.InDelta(t, (0.3375+0.125)/1.5, byID["x"].Score, 1e-12)
	require.InDelta(t, 0.0, byID["f"].Score, 1e-12)

	// Ablation: without context the answer turn falls behind the weak match.
	got, err = Rank(ClassGeneral, cands, &Config{K: -1, DisableForgetting: true, DisableContext: true})
	require.NoError(t, err)
	require.Equal(t, []string{"q", "x", "a", "f"}, ids(got))

	// Names: a speaker named in the query multiplies by 1.3, a named session participant by
	// a further 0.2.
	named := append([]Candidate(nil), cands...)
	named[2].SpeakerNamed, named[2].ParticipantNamed = true, true
	got, err = Rank(ClassGeneral, named, &Config{K: -1, DisableForgetting: true})
	require.NoError(t, err)
	for _, r := range got {
		if r.ID == "x" {
			require.InDelta(t, 1.5, r.Signals.Entity, 1e-12)
			require.InDelta(t, 1.5*(0.3375+0.125)/1.5, r.Score, 1e-12)
		}
	}

	// A memory without a session keeps context = hybrid, so rankings of sessionless memories
	// are those of the hybrid score.
	solo := []Candidate{
		{ID: "m1", Text: "one", Layer: LayerSemantic, Cosine: 0.9, BM25: 1, Retrievability: 1},
		{ID: "m2", Text: "two", Layer: LayerSemantic, Cosine: 0.1, BM25: 3, Retrievability: 1},
	}
	got, err = Rank(ClassGeneral, solo, &Config{K: -1, DisableForgetting: true})
	require.NoError(t, err)
	for _, r := range got {
		require.InDelta(t, r.Signals.Hybrid, r.Score, 1e-12)
	}

	for _, bad := range []float64{math.NaN(), math.Inf(1), -1} {
		_, err := Rank(ClassGeneral, []Candidate{{ID: "b", Layer: LayerEpisodic, Session: "s", SessionBM25: bad, Retrievability: 1}}, nil)
		require.Error(t, err, "session BM25 %v", bad)
	}
	_, err = Rank(ClassGeneral, cands, &Config{SessionWeight: math.NaN()})
	require.Error(t, err)
}

// A turn carried by an episode among the candidates gets λ_r times the episode's hybrid score:
// the episode finds the region of the conversation, the turn is delivered.
func TestRankRegion(t *testing.T) {
	t.Parallel()
	cands := []Candidate{
		{ID: "e", Text: "we repaired the boat and sailed", Layer: LayerEpisodic, Cosine: 0.6, BM25: 4, Retrievability: 1},
		{ID: "t1", Text: "and sailed on Sunday", Layer: LayerEpisodic, Cosine: 0.2, BM25: 1, Retrievability: 1, Regions: []string{"e"}},
		{ID: "t2", Text: "a boat show", Layer: LayerEpisodic, Cosine: 0.3, BM25: 2, Retrievability: 1},
		{ID: "t3", Text: "tea", Layer: LayerEpisodic, Cosine: 0.2, BM25: 0, Retrievability: 1, Regions: []string{"missing"}},
	}
	got, err := Rank(ClassGeneral, cands, &Config{K: -1, DisableForgetting: true})
	require.NoError(t, err)
	byID := map[string]Result{}
	for _, r := range got {
		byID[r.ID] = r
	}
	// Normalization: cosine (c − 0.2)/0.4, BM25 b/4. Without a session, session = hybrid. e:
	// hybrid 1. t1: v 0, b 0.25 → 0.175, region 1 → context (0.175 + 0.5·1 + 0.5·0.175)/1.5.
	// t2: v 0.25, b 0.5 → 0.425. t3: a region that is not a candidate adds nothing.
	require.Equal(t, []string{"e", "t1", "t2", "t3"}, ids(got))
	require.InDelta(t, 1.0, byID["t1"].Signals.Region, 1e-12)
	require.InDelta(t, (0.175+0.5+0.5*0.175)/1.5, byID["t1"].Score, 1e-12)
	require.InDelta(t, 0.425, byID["t2"].Score, 1e-12)
	require.Zero(t, byID["t3"].Signals.Region)

	// λ_r = 0 (a negative weight) or the context ablation drop the region.
	for _, cfg := range []*Config{{K: -1, DisableForgetting: true, RegionWeight: -1}, {K: -1, DisableForgetting: true, DisableContext: true}} {
		got, err = Rank(ClassGeneral, cands, cfg)
		require.NoError(t, err)
		require.Equal(t, []string{"e", "t2", "t1", "t3"}, ids(got))
	}
	_, err = Rank(ClassGeneral, cands, &Config{RegionWeight: math.Inf(1)})
	require.Error(t, err)
}

func TestNamedIn(t *testing.T) {
	t.Parallel()
	cases := []struct {
		query, name string
		want        bool
	}{
		{"What did Caroline research?", "Caroline", true},
		{"what did caroline research?", "Caroline Smith", true},
		{"When did Melanie paint a sunrise?", "Caroline", false},
		{"Who is Carol?", "Caroline", false},
		{"What did they do?", "", false},
		{"Is it a thing?", "It", false},
		{"Was hat Jon gemacht?", "Jon", true},
	}
	for _, c := range cases {
		require.Equal(t, c.want, NamedIn(c.query, c.name), "%q in %q", c.name, c.query)
	}
}
