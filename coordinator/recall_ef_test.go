package coordinator_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The vector half's ef_search grows with the tenant (0028): ⌈300 · (n / 100 000)^0.43⌉ between
// 100 and 1 000 — 300 at 100 000 and 808 at 1 000 000 active memories, the two points at which
// per-layer recall@10 ≥ 0.95 was measured to need 300 and 800 (docs/performance.md). The rule is
// non-decreasing, and zb.recall_vector_scan applies it, as zb.similar_semantic (derive's
// nearest facts) does since 0029 (a later CREATE OR REPLACE that dropped the call, a function's
// jit = off or recall's pgvector schema on its search path fails here).
func TestRecallEfSearchBySize(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	ef := func(n *int64) int {
		var v int
		require.NoError(t, b.cfg.Pool.QueryRow(ctx, `SELECT zb.recall_ef_search($1)`, n).Scan(&v))
		return v
	}
	p := func(n int64) *int64 { return &n }
	want := func(n int64) int {
		return int(min(1000, max(100, math.Ceil(300*math.Pow(float64(n)/100000, 0.43)))))
	}
	for _, c := range []struct {
		n   int64
		ef  int
		why string
	}{
		{0, 100, "an empty tenant"},
		{-5, 100, "a negative count (a delta not yet compacted)"},
		{1000, 100, "the smallest tenant that reaches the HNSW scan"},
		{10000, 112, "ten thousand"},
		{20000, 151, "0016's threshold"},
		{100000, 300, "the 100k point: 0.970 at 300"},
		{1000000, 808, "the 1M point: 0.970 at 800"},
		{1700000, 1000, "pgvector's maximum"},
		{math.MaxInt64, 1000, "any larger tenant"},
	} {
		require.Equal(t, c.ef, ef(p(c.n)), "%s (n = %d)", c.why, c.n)
	}
	require.Equal(t, 100, ef(nil), "no count")
	prev := 0
	for n := int64(0); n <= 2_000_000; n += 1237 {
		got := ef(p(n))
		require.GreaterOrEqual(t, got, prev, "non-decreasing at %d", n)
		require.Equal(t, want(n), got, "n = %d", n)
		prev = got
	}

	// Both filtered HNSW searches apply the rule: recall's vector half (0028) and derive's
	// nearest-fact search (0029), each with its settings kept.
	for _, fn := range []struct {
		sig  string
		conf []string
	}{
		{
			"zb.recall_vector_scan(text, vector, zb.memory_layer[], integer, timestamptz, timestamptz, timestamptz, timestamptz, text[], boolean, text)",
			[]string{"jit=off", "hnsw.iterative_scan=relaxed_order", "hnsw.ef_search=100", "search_path=pg_catalog, "},
		},
		{
			"zb.similar_semantic(text, bigint[], integer)",
			[]string{"jit=off", "hnsw.iterative_scan=relaxed_order", "hnsw.ef_search=100", "enable_seqscan=on", "enable_bitmapscan=on"},
		},
	} {
		var src string
		var cfg []string
		require.NoError(t, b.cfg.Pool.QueryRow(ctx, `SELECT p.prosrc, p.proconfig FROM pg_proc p WHERE p.oid = $1::regprocedure`, fn.sig).
			Scan(&src, &cfg))
		require.Contains(t, src, "set_config('hnsw.ef_search', zb.recall_ef_search(v_n)::text, true)", fn.sig)
		require.NotContains(t, src, "20000", fn.sig)
		joined := strings.Join(cfg, " ")
		for _, s := range fn.conf {
			require.Contains(t, joined, s, fn.sig)
		}
	}
}
