package consolidation

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

var t0 = time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)

// unit returns a 2-D unit vector at cosine c to (1, 0).
func unit(c float64) []float64 { return []float64{c, math.Sqrt(1 - c*c)} }

func TestAffinity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b Episode
		want float64
	}{
		{"identical", Episode{Embedding: unit(1), Entities: []string{"anna"}}, Episode{Embedding: unit(1), Entities: []string{"anna"}}, 1.0},
		{"same vector no entities", Episode{Embedding: unit(1)}, Episode{Embedding: unit(1)}, 0.7},
		{"half entities", Episode{Embedding: unit(1), Entities: []string{"a", "b"}}, Episode{Embedding: unit(0.8), Entities: []string{"a", "b", "c", "d"}}, 0.7*0.8 + 0.3*0.5},
		{"below cosine floor", Episode{Embedding: unit(1), Entities: []string{"a"}}, Episode{Embedding: unit(0.49), Entities: []string{"a"}}, 0},
		{"missing embedding", Episode{Entities: []string{"a"}}, Episode{Embedding: unit(1), Entities: []string{"a"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Affinity(tt.a, tt.b, nil)
			require.NoError(t, err)
			require.InDelta(t, tt.want, got, 1e-9)
		})
	}
}

func TestMergeThresholdBoundary(t *testing.T) {
	t.Parallel()
	ents := func(xs ...string) []string { return xs }
	// Entity Jaccard 0.5 ({a,b} vs {a,b,c,d}); merge iff 0.7·cos + 0.15 ≥ 0.7.
	for _, tt := range []struct {
		cos   float64
		merge bool
	}{{0.80, true}, {0.79, true}, {0.78, false}, {0.60, false}} {
		t.Run(fmt.Sprint(tt.cos), func(t *testing.T) {
			t.Parallel()
			cl, err := ClusterEpisodes([]Episode{
				{ID: "x", Embedding: unit(1), Entities: ents("a", "b"), OccurredAt: t0},
				{ID: "y", Embedding: unit(tt.cos), Entities: ents("a", "b", "c", "d"), OccurredAt: t0},
			}, nil)
			require.NoError(t, err)
			require.Equal(t, tt.merge, len(cl) == 1)
		})
	}
}

// crafted returns three topics in 3-D: hiking (x axis, entities anna and
// zugspitze), dentist (y axis, entity dentist) and a lone cooking episode
// (z axis), interleaved in time.
func crafted() []Episode {
	v := func(x, y, z float64) []float64 { return []float64{x, y, z} }
	day := func(d int) time.Time { return t0.AddDate(0, 0, d) }
	return []Episode{
		{ID: "e1", Text: "Hiked the Zugspitze with Anna, great weather", Embedding: v(1, 0.1, 0), Entities: []string{"anna", "zugspitze"}, OccurredAt: day(0), SourceIDs: []string{"turn-1", "turn-2"}},
		{ID: "e2", Text: "Dentist check-up, one small filling", Embedding: v(0.05, 1, 0.1), Entities: []string{"dentist"}, OccurredAt: day(1)},
		{ID: "e3", Text: "Anna and I climbed the Zugspitze again", Embedding: v(0.95, 0.15, 0.05), Entities: []string{"anna", "zugspitze"}, OccurredAt: day(5), SourceIDs: []string{"turn-9"}},
		{ID: "e4", Text: "Cooked risotto for dinner", Embedding: v(0, 0.1, 1), Entities: []string{"risotto"}, OccurredAt: day(6)},
		{ID: "e5", Text: "Dentist said the filling healed well", Embedding: v(0.1, 0.97, 0.05), Entities: []string{"dentist", "filling"}, OccurredAt: day(20)},
		{ID: "e6", Text: "Planned the next Zugspitze hike with Anna and Ben", Embedding: v(0.9, 0.05, 0.1), Entities: []string{"anna", "zugspitze", "ben"}, OccurredAt: day(30)},
	}
}

func TestClusterEpisodes(t *testing.T) {
	t.Parallel()
	cl, err := ClusterEpisodes(crafted(), nil)
	require.NoError(t, err)
	require.Len(t, cl, 2)
	require.Equal(t, []string{"e1", "e3", "e6"}, memberIDs(cl[0]))
	require.Equal(t, []string{"e2", "e5"}, memberIDs(cl[1]))
	require.Greater(t, cl[0].Cohesion, 0.7)

	// Order of input does not matter.
	rev := crafted()
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	again, err := ClusterEpisodes(rev, nil)
	require.NoError(t, err)
	require.Equal(t, cl, again)

	// Cosine only (entities ignored): the same vectors no longer merge,
	// because 0.7·cos < 0.7 unless the vectors are identical.
	none, err := ClusterEpisodes(crafted(), &ClusterConfig{EntityWeight: -1})
	require.NoError(t, err)
	require.Empty(t, none)

	// MinClusterSize 1 returns the singleton too.
	all, err := ClusterEpisodes(crafted(), &ClusterConfig{MinClusterSize: 1})
	require.NoError(t, err)
	require.Len(t, all, 3)
}

func TestClusterEpisodesErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		eps  []Episode
		cfg  *ClusterConfig
		msg  string
	}{
		{"dimension mismatch", []Episode{{ID: "a", Embedding: []float64{1, 0}}, {ID: "b", Embedding: []float64{1, 0, 0}}}, nil, "dimension mismatch"},
		{"NaN component", []Episode{{ID: "a", Embedding: []float64{math.NaN(), 0}}, {ID: "b", Embedding: []float64{1, 0}}}, nil, "non-finite"},
		{"Inf component", []Episode{{ID: "a", Embedding: []float64{math.Inf(1), 0}}, {ID: "b", Embedding: []float64{1, 0}}}, nil, "non-finite"},
		{"duplicate ID", []Episode{{ID: "a"}, {ID: "a"}}, nil, "duplicate ID"},
		{"empty ID", []Episode{{ID: ""}}, nil, "empty or duplicate"},
		{"too many", []Episode{{ID: "a"}, {ID: "b"}, {ID: "c"}}, &ClusterConfig{MaxEpisodes: 2}, "exceed MaxEpisodes"},
		{"NaN threshold", nil, &ClusterConfig{MergeThreshold: math.NaN()}, "MergeThreshold"},
		{"negative weight", nil, &ClusterConfig{CosineWeight: -0.5}, "weights"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ClusterEpisodes(tt.eps, tt.cfg)
			require.ErrorContains(t, err, tt.msg)
		})
	}
	got, err := ClusterEpisodes(nil, nil)
	require.NoError(t, err)
	require.Empty(t, got)
}

func TestConsolidateOffline(t *testing.T) {
	t.Parallel()
	schemas, err := Consolidate(context.Background(), crafted(), Config{})
	require.NoError(t, err)
	require.Len(t, schemas, 2)

	hike := schemas[0]
	require.Equal(t, []string{"anna", "zugspitze"}, hike.SharedEntities) // ben is in 1 of 3
	require.Equal(t, []string{"e1", "e3", "e6"}, hike.MemberIDs)
	require.Equal(t, []string{"e1", "e3", "e6", "turn-1", "turn-2", "turn-9"}, hike.SourceIDs)
	require.Equal(t, t0, hike.From)
	require.Equal(t, t0.AddDate(0, 0, 30), hike.To)
	require.Equal(t, OfflineWriterName, hike.Writer)
	require.False(t, hike.Fallback)
	require.Contains(t, []string{"e1", "e3", "e6"}, hike.RepresentativeID)
	require.Greater(t, hike.Confidence, MergeThresholdDefault)
	require.LessOrEqual(t, hike.Confidence, 1.0)

	dent := schemas[1]
	require.Equal(t, []string{"dentist"}, dent.SharedEntities)
	require.Equal(t, []string{"e2", "e5"}, dent.SourceIDs)
}

func TestMedoid(t *testing.T) {
	t.Parallel()
	// b is between a and c, so it has the highest total affinity.
	c := Cluster{Members: []Episode{
		{ID: "a", Text: "A", Embedding: unit(1), Entities: []string{"x"}, OccurredAt: t0},
		{ID: "b", Text: "B", Embedding: unit(0.95), Entities: []string{"x"}, OccurredAt: t0.Add(time.Hour)},
		{ID: "c", Text: "C", Embedding: []float64{math.Cos(2 * math.Acos(0.95)), math.Sin(2 * math.Acos(0.95))}, Entities: []string{"x"}, OccurredAt: t0.Add(2 * time.Hour)},
	}}
	s, err := OfflineWriter{}.WriteSchema(context.Background(), c)
	require.NoError(t, err)
	require.Equal(t, "b", s.RepresentativeID)
	require.Equal(t, "B", s.Statement)
	require.Equal(t, "3 related episodes about x from 2024-05-01 to 2024-05-01; representative: B", s.Summary)
}

type fakeLLM struct {
	schema Schema
	err    error
	calls  int
}

func (f *fakeLLM) WriteSchema(ctx context.Context, c Cluster) (Schema, error) {
	f.calls++
	if f.err != nil {
		return Schema{}, f.err
	}
	return f.schema, nil
}

func TestPluggedWriter(t *testing.T) {
	t.Parallel()
	// The LLM drops a source, invents one and gives a wrong span: Extract
	// restores provenance and keeps the LLM's statement and entities.
	llm := &fakeLLM{schema: Schema{
		Statement: "Sam regularly hikes the Zugspitze with Anna.", SharedEntities: []string{"anna", "zugspitze", "hiking"},
		SourceIDs: []string{"e1", "made-up"}, From: t0.AddDate(5, 0, 0), Writer: "llm:test",
	}}
	schemas, err := Consolidate(context.Background(), crafted(), Config{Writer: llm})
	require.NoError(t, err)
	require.Equal(t, 2, llm.calls)
	s := schemas[0]
	require.Equal(t, "Sam regularly hikes the Zugspitze with Anna.", s.Statement)
	require.Equal(t, "llm:test", s.Writer)
	require.Equal(t, []string{"e1", "e3", "e6", "turn-1", "turn-2", "turn-9"}, s.SourceIDs)
	require.Equal(t, t0, s.From)

	// An empty statement is replaced by the offline medoid.
	llm = &fakeLLM{schema: Schema{Statement: "  ", Writer: "llm:test"}}
	schemas, err = Consolidate(context.Background(), crafted(), Config{Writer: llm})
	require.NoError(t, err)
	require.NotEmpty(t, schemas[0].RepresentativeID)
	require.NotEmpty(t, strings.TrimSpace(schemas[0].Statement))

	// A failing writer falls back to offline, or fails with NoFallback.
	boom := errors.New("model unavailable")
	schemas, err = Consolidate(context.Background(), crafted(), Config{Writer: &fakeLLM{err: boom}})
	require.NoError(t, err)
	require.True(t, schemas[0].Fallback)
	require.Equal(t, OfflineWriterName, schemas[0].Writer)
	_, err = Consolidate(context.Background(), crafted(), Config{Writer: &fakeLLM{err: boom}, NoFallback: true})
	require.ErrorIs(t, err, boom)

	// A cancelled context stops the run.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Consolidate(ctx, crafted(), Config{})
	require.ErrorIs(t, err, context.Canceled)

	_, err = Extract(context.Background(), nil, Cluster{})
	require.ErrorContains(t, err, "empty cluster")
}

func TestConsolidateGolden(t *testing.T) {
	t.Parallel()
	schemas, err := Consolidate(context.Background(), crafted(), Config{})
	require.NoError(t, err)
	var b strings.Builder
	for _, s := range schemas {
		fmt.Fprintf(&b, "members=%v sources=%v entities=%v rep=%s confidence=%.6f\n  %s\n",
			s.MemberIDs, s.SourceIDs, s.SharedEntities, s.RepresentativeID, s.Confidence, s.Summary)
	}
	path := filepath.Join("testdata", "schemas.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), b.String())
}

func memberIDs(c Cluster) []string {
	out := make([]string, len(c.Members))
	for i, m := range c.Members {
		out[i] = m.ID
	}
	return out
}
