package perf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSummarizeNearestRank(t *testing.T) {
	t.Parallel()
	var ds []time.Duration
	for i := 1; i <= 200; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	l := summarize(ds)
	require.Equal(t, 200, l.N)
	require.InDelta(t, 100, l.P50, 1e-9)
	require.InDelta(t, 198, l.P99, 1e-9)
	require.InDelta(t, 200, l.Max, 1e-9)
	require.Equal(t, Latency{}, summarize(nil))
}

func TestRecallOf(t *testing.T) {
	t.Parallel()
	require.InDelta(t, 0.5, recallOf([]int64{1, 2, 9}, []int64{1, 2, 3, 4}), 1e-12)
	require.InDelta(t, 1, recallOf(nil, nil), 1e-12)
	require.InDelta(t, 0, recallOf(nil, []int64{1}), 1e-12)
}

func TestScanOf(t *testing.T) {
	t.Parallel()
	plan := `[{"Plan":{"Node Type":"Limit","Plans":[{"Node Type":"Index Scan","Index Name":"memory_embedding_hnsw_idx"}]}}]`
	require.Equal(t, "Index Scan memory_embedding_hnsw_idx", scanOf([]byte(plan)))
	plan = `[{"Plan":{"Node Type":"Limit","Plans":[{"Node Type":"Sort","Plans":[{"Node Type":"Seq Scan"}]}]}}]`
	require.Equal(t, "Seq Scan", scanOf([]byte(plan)))
	require.Equal(t, "?", scanOf([]byte("nope")))
}

func TestChooseEf(t *testing.T) {
	t.Parallel()
	ladder := []EfRecall{{EfSearch: 100, RecallAt10: 0.80}, {EfSearch: 150, RecallAt10: 0.949}, {EfSearch: 200, RecallAt10: 0.95}}
	ef, ok := chooseEf(ladder)
	require.Equal(t, 200, ef)
	require.True(t, ok)
	ef, ok = chooseEf(ladder[:2])
	require.Equal(t, 150, ef, "the last step tried when none reaches the bar")
	require.False(t, ok)
	// 50 questions whose recall@10 averages 0.95 (30 at 1, 15 at 0.9, 5 at 0.8), summed in
	// order: the mean reaches the bar despite its rounding.
	sum := 0.0
	for i := range 50 {
		sum += []float64{1, 0.9, 0.8}[min(i/30+i/45, 2)]
	}
	require.Less(t, sum/50, 0.95)
	ef, ok = chooseEf([]EfRecall{{EfSearch: 100, RecallAt10: 0.9}, {EfSearch: 150, RecallAt10: sum / 50}})
	require.Equal(t, 150, ef)
	require.True(t, ok)
	require.False(t, reachesBar(0.949))
	ef, ok = chooseEf(nil)
	require.Zero(t, ef)
	require.False(t, ok)
	require.Equal(t, "300", efSettings(300)["hnsw.ef_search"])
	require.Equal(t, "100", bareSettings["hnsw.ef_search"], "the bare query's settings are not changed")
}

func TestAccurateFinishAndReport(t *testing.T) {
	t.Parallel()
	f := RecallFigure{
		N: 1000, Tenants: 1, Bare: Latency{N: 3, P50: 2, P99: 4}, ReadOnly: Latency{N: 3, P50: 6, P99: 9},
		Full: Latency{N: 3, P50: 8, P99: 12},
	}
	a := &AccurateBare{
		Queries: 2, Ladder: []EfRecall{{EfSearch: 100, RecallAt10: 0.5}, {EfSearch: 150, RecallAt10: 0.97}},
		EfSearch: 150, Reached: true, Timed: true,
	}
	a.finish([]time.Duration{3 * time.Millisecond, 3 * time.Millisecond, 6 * time.Millisecond}, &f)
	require.InDelta(t, 3, a.Latency.P50, 1e-9)
	require.InDelta(t, 2, a.ReadOnlyP50Ratio, 1e-9)
	require.InDelta(t, 1.5, a.ReadOnlyP99Ratio, 1e-9)
	require.InDelta(t, 8.0/3, a.P50Ratio, 1e-9)
	require.InDelta(t, 0.5, a.BareRecall(), 1e-9)
	f.Accurate = a
	var b strings.Builder
	(&Results{Recall: []RecallFigure{f}}).Markdown(&b)
	require.Contains(t, b.String(), "| 1000 | 1 | 0.500 | 150 | 0.970 | 3.00 / 6.00 | 2.00× / 1.50× | 2.67× / 2.00× | 100: 0.500, 150: 0.970 |")

	f.HNSW = "m = 16, ef_construction = 64"
	f.LayerLadder = &LayerLadder{
		Queries: 2, Steps: []EfRecall{{EfSearch: 100, RecallAt10: 0.9, P50: 1.5}, {EfSearch: 120, RecallAt10: 0.96, P50: 1.75}},
		EfSearch: 120, Reached: true, RuleEf: 112,
	}
	b.Reset()
	(&Results{Recall: []RecallFigure{f}}).Markdown(&b)
	require.Contains(t, b.String(), "| 1000 | 1 | m = 16, ef_construction = 64 | 120 | 112 | 100: 0.900, 1.50; 120: 0.960, 1.75 |")
	require.NotContains(t, b.String(), "partial per-layer HNSW graphs")

	// Partial per-layer graphs: their p50 at their own bar against the one scan's at its bar.
	f.PartialLadder = &LayerLadder{
		Queries: 2, Steps: []EfRecall{{EfSearch: 100, RecallAt10: 0.97, P50: 2.625}}, EfSearch: 100, Reached: true, RuleEf: 112,
		Scan:        "Index Scan memory_embedding_hnsw_semantic_idx + Index Scan memory_embedding_hnsw_episodic_idx",
		Interleaved: &Interleaved{N: 150, P50: 2.5, OtherP50: 2, Ratio: 1.25},
	}
	b.Reset()
	(&Results{Recall: []RecallFigure{f}}).Markdown(&b)
	require.Contains(t, b.String(), "| 1000 | 1 | 100 | 100: 0.970, 2.62 | 2.50 / 2.00 = **1.25×** (ef 100 / 120, 150 each) | Index Scan memory_embedding_hnsw_semantic_idx + Index Scan memory_embedding_hnsw_episodic_idx |")
	f.PartialLadder.Reached = false
	b.Reset()
	(&Results{Recall: []RecallFigure{f}}).Markdown(&b)
	require.Contains(t, b.String(), "| 1000 | 1 | 100 (bar not reached) |")
	require.NotContains(t, b.String(), "half-precision graph")
	f.PartialLadder = nil

	// The one scan on a half-precision graph: the same columns, and the two graphs' sizes.
	f.IndexMiB = 391.2
	f.HalfvecLadder = &LayerLadder{
		Queries: 2, Steps: []EfRecall{{EfSearch: 100, RecallAt10: 0.92, P50: 1.25}, {EfSearch: 120, RecallAt10: 0.955, P50: 1.5}},
		EfSearch: 120, Reached: true, IndexMiB: 195.6, Scan: "Index Scan memory_embedding_hnsw_halfvec_idx",
		Interleaved: &Interleaved{N: 150, P50: 1.8, OtherP50: 2, Ratio: 0.9},
	}
	b.Reset()
	(&Results{Recall: []RecallFigure{f}}).Markdown(&b)
	require.Contains(t, b.String(), "Per-layer accuracy of recall's one scan on a half-precision graph")
	require.Contains(t, b.String(), "| 1000 | 1 | 120 | 100: 0.920, 1.25; 120: 0.955, 1.50 | 1.80 / 2.00 = **0.90×** (ef 120 / 120, 150 each) | Index Scan memory_embedding_hnsw_halfvec_idx | 196 / 391 MiB |")
	require.NotContains(t, b.String(), "partial per-layer HNSW graphs")
	f.HalfvecLadder = nil

	// Recall's least vector work: its ratios over the bare query, recall's over it, its row.
	fr := &floorRunner{f: &Floor{Kind: FloorScan, EfSearch: 112, Checked: 20}, rows: 90}
	fr.finish([]time.Duration{time.Millisecond, 3 * time.Millisecond, 5 * time.Millisecond}, &f)
	require.Same(t, fr.f, f.Floor)
	require.InDelta(t, 1.5, f.Floor.P50Ratio, 1e-9)
	require.InDelta(t, 1.25, f.Floor.P99Ratio, 1e-9)
	require.InDelta(t, 2, f.Floor.RecallP50Ratio, 1e-9)
	require.InDelta(t, 30, f.Floor.Rows, 1e-9)
	b.Reset()
	(&Results{Recall: []RecallFigure{f}}).Markdown(&b)
	require.Contains(t, b.String(), "| 1000 | 1 | one HNSW scan at ef_search 112 | 3.00 / 5.00 | **1.50×** / 1.25× | 2.00× | 30.0 | 20 | — |")
	f.Floor.BarEf, f.Floor.AtBar = 100, &Interleaved{N: 150, P50: 2.5, OtherP50: 2, Ratio: 1.25}
	b.Reset()
	(&Results{Recall: []RecallFigure{f}}).Markdown(&b)
	require.Contains(t, b.String(), "| 30.0 | 20 | ef 100: 2.50 / 2.00 = **1.25×** (150 each) |")
	f.Floor = nil
	b.Reset()
	(&Results{Recall: []RecallFigure{f}}).Markdown(&b)
	require.NotContains(t, b.String(), "least vector work")

	// Not timed: the bare query's own figure and ratios.
	u := &AccurateBare{Queries: 2, Ladder: []EfRecall{{EfSearch: 100, RecallAt10: 1}}, EfSearch: 100, Reached: true}
	u.finish(nil, &f)
	require.Equal(t, f.Bare, u.Latency)
	require.InDelta(t, 3, u.ReadOnlyP50Ratio, 1e-9)
	require.Equal(t, -1.0, (*AccurateBare)(nil).BareRecall())
}

func TestWithHNSWParams(t *testing.T) {
	t.Parallel()
	def := `CREATE INDEX memory_embedding_hnsw_idx ON zb.memory USING hnsw (embedding vector_cosine_ops) WITH (m='16', ef_construction='64')`
	got, with, err := withHNSWParams(def, 0, 0)
	require.NoError(t, err)
	require.Equal(t, "m = 16, ef_construction = 64", with)
	require.Equal(t, `CREATE INDEX memory_embedding_hnsw_idx ON zb.memory USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)`, got)
	got, with, err = withHNSWParams(def, 32, 200)
	require.NoError(t, err)
	require.Equal(t, "m = 32, ef_construction = 200", with)
	require.True(t, strings.HasSuffix(got, "WITH (m = 32, ef_construction = 200)"), got)
	_, _, err = withHNSWParams(`CREATE INDEX i ON t USING hnsw (e vector_cosine_ops)`, 32, 0)
	require.ErrorContains(t, err, "no WITH clause")
	_, _, err = withHNSWParams(`CREATE INDEX i ON t USING hnsw (e vector_cosine_ops) WITH (m='16')`, 0, 0)
	require.ErrorContains(t, err, "does not name")
}

// Every question times each variant once, and each variant takes each position equally often
// over n questions: with the floor and the bare query at the accuracy bar (4 or 5 variants)
// read-only and full recalls stay one each per question (a rotation by 3 inside 4 once gave
// 131 and 269 of 400).
func TestVariantRotation(t *testing.T) {
	t.Parallel()
	for _, n := range []int{4, 5} {
		count := map[int]int{}
		position := map[[2]int]int{}
		for i := range 200 {
			seen := map[int]bool{}
			for j := range n {
				v := variantAt(i, j, n)
				require.False(t, seen[v], "variant %d twice in question %d", v, i)
				seen[v] = true
				count[v]++
				position[[2]int{v, j}]++
			}
		}
		require.Len(t, count, n)
		for v := range n {
			require.Equal(t, 200, count[v])
			for j := range n {
				require.InDelta(t, 200/n, position[[2]int{v, j}], 1, "variant %d at position %d", v, j)
			}
		}
	}
	require.Equal(t, 4, variantAccurate, "the bare query at the bar is the last variant, timed only when it differs")
}

func TestHugePagesInUse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
		return p
	}
	used := write("used", "MemTotal:       24000000 kB\nHugePages_Total:     600\nHugePages_Free:       63\nHugePages_Rsvd:        1\nHugePages_Surp:        0\nHugepagesize:       2048 kB\n")
	require.Equal(t, "538 of 600 2048 kB pages in use", hugePagesInUse(used))
	none := write("none", "HugePages_Total:       0\nHugePages_Free:        0\nHugePages_Rsvd:        0\nHugepagesize:       2048 kB\n")
	require.Equal(t, "none reserved", hugePagesInUse(none))
	require.Empty(t, hugePagesInUse(filepath.Join(dir, "missing")))

	var b strings.Builder
	(&Results{Machine: Machine{
		Settings:  map[string]string{"shared_buffers": "1GB", "huge_pages": "try"},
		HugePages: "538 of 600 2048 kB pages in use", ServerMalloc: "MALLOC_MMAP_THRESHOLD_=33554432",
	}}).Markdown(&b)
	require.Contains(t, b.String(), "Server: shared_buffers 1GB, huge_pages try (this machine: 538 of 600 2048 kB pages in use); allocator: MALLOC_MMAP_THRESHOLD_=33554432.")
}

// alternate runs both statements once per question and pass, each first in every other
// question, times only the passes after the warm ones, and stops at the first error.
func TestAlternate(t *testing.T) {
	t.Parallel()
	var order []string
	rec := func(name string) func(int) error {
		return func(i int) error {
			order = append(order, fmt.Sprintf("%s%d", name, i))
			return nil
		}
	}
	x, err := alternate(2, 1, rec("a"), rec("b"))
	require.NoError(t, err)
	require.Equal(t, 2*InterleaveRounds, x.N, "the warm pass is not timed")
	require.Len(t, order, 4*(InterleaveRounds+1))
	require.Equal(t, []string{"b0", "a0", "a1", "b1", "a0", "b0", "b1", "a1"}, order[:8])
	require.InDelta(t, x.P50/x.OtherP50, x.Ratio, 1e-9)

	calls := 0
	_, err = alternate(3, 0, func(int) error { calls++; return errors.New("down") }, rec("b"))
	require.ErrorContains(t, err, "down")
	require.Equal(t, 1, calls)
}
