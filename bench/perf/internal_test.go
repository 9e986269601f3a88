package perf

import (
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
