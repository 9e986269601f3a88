package coordinator_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/embed"
	"github.com/zenbrain/zb/internal/zbtest"
)

// BenchmarkRecallSplit compares recall's two ways of reading its candidates (0026) on one
// tenant of generated memories with 768-d hash embeddings: one statement (the lexical half,
// the vector half and the join one after the other) and the two halves at the same time on
// two connections, then the join. Each iteration runs the same read-only recall both ways,
// alternating which goes first, checks that both return the same results, and the
// "split/one" metric is the ratio of their summed times in this run (lower is better).
// ZB_SPLITBENCH_SIZES picks the tenant sizes (default 2 000 and 20 000).
//
//	go test ./coordinator -run '^$' -bench RecallSplit -benchtime 200x
func BenchmarkRecallSplit(b *testing.B) {
	for _, n := range benchSizes("ZB_SPLITBENCH_SIZES", 2000, 20000) {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { benchRecallSplit(b, n) })
	}
}

func benchRecallSplit(b *testing.B, n int) {
	const tenant, dim = "splitbench", 768
	ctx := context.Background()
	pool := zbtest.Pool(b, &zbtest.Opts{EmbeddingDim: dim})
	emb, err := embed.NewHash(dim)
	require.NoError(b, err)
	// One fixed clock: both ways see the same retrievability.
	clk := &fakeClock{t: t0}
	split, err := coordinator.New(&coordinator.Config{Pool: pool, Embedder: emb, Clock: clk, RecallSplitMinDocs: 1})
	require.NoError(b, err)
	one, err := coordinator.New(&coordinator.Config{Pool: pool, Embedder: emb, Clock: clk, RecallSplitMinDocs: -1})
	require.NoError(b, err)
	names := strings.Fields("Ada Bruno Chiara Dmitri Elif Farid Greta Hiro Ines Jonas Kemal Lotte Mirko Nadia Oskar Petra Quinn Rosa Sven Tilda")
	places := strings.Fields("Lyon Porto Graz Turku Ghent Bergen Cork Split Basel Varna Tartu Ohrid Kotor Nantes Brno")
	words := strings.Fields("kettle lantern violin harbor meadow copper walnut saddle orchid canyon ember falcon ginger hazel igloo jungle koala lotus magnet nectar")
	layers := []coordinator.Layer{coordinator.LayerSemantic, coordinator.LayerEpisodic, coordinator.LayerProcedural}
	r := rand.New(rand.NewPCG(21, 22))
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	for from := 0; from < n; from += coordinator.MaxBatch / 10 {
		items := make([]coordinator.StoreInput, 0, coordinator.MaxBatch/10)
		for i := from; i < min(n, from+coordinator.MaxBatch/10); i++ {
			items = append(items, coordinator.StoreInput{
				TenantID: tenant, Layer: layers[i%3],
				Content: fmt.Sprintf("%s met %s in %s about the %s and the %s", pick(names), pick(names), pick(places), pick(words), pick(words)),
			})
		}
		_, err := split.StoreBatch(ctx, items)
		require.NoError(b, err)
	}
	// The steady state: the postings read index-only, the planner's statistics current.
	_, err = pool.Exec(ctx, "VACUUM (ANALYZE) zb.memory, zb.memory_posting")
	require.NoError(b, err)
	clk.Add(time.Hour)
	queries := make([]string, 32)
	for i := range queries {
		queries[i] = fmt.Sprintf("%s in %s with the %s and the %s", pick(names), pick(places), pick(words), pick(words))
	}
	ro := &coordinator.RecallOpts{ReadOnly: true}
	run := func(co *coordinator.Coordinator, q string) (*coordinator.RecallResult, time.Duration) {
		t := time.Now()
		res, err := co.Recall(ctx, tenant, q, ro)
		require.NoError(b, err)
		return res, time.Since(t)
	}
	// Warm-up: every connection plans its statements, the tenant's size is noted, and the pool
	// holds the idle connections the split path asks for.
	for range 3 {
		for _, q := range queries {
			run(one, q)
			run(split, q)
		}
	}
	var oneT, splitT time.Duration
	splits, i := 0, 0
	b.ResetTimer()
	for b.Loop() {
		q := queries[i%len(queries)]
		var o, s *coordinator.RecallResult
		var do, ds time.Duration
		if i%2 == 0 {
			o, do = run(one, q)
			s, ds = run(split, q)
		} else {
			s, ds = run(split, q)
			o, do = run(one, q)
		}
		require.Equal(b, o.Results, s.Results, q)
		if s.Split {
			splits++
		}
		oneT += do
		splitT += ds
		i++
	}
	b.ReportMetric(float64(splitT)/float64(oneT), "split/one")
	b.ReportMetric(float64(oneT.Microseconds())/1000/float64(i), "one-ms/recall")
	b.ReportMetric(float64(splitT.Microseconds())/1000/float64(i), "split-ms/recall")
	b.ReportMetric(float64(splits)/float64(i), "split-share")
}
