package coordinator_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/internal/zbtest"
)

// BenchmarkLexicalHalf compares the ways of recall's lexical half on one tenant of generated
// memories whose four-term queries each match about a tenth of the tenant in every term: in SQL
// (zb.lexical_scorer = sql) 0019's hash grouping (forced with a huge zb.lexical_merge_min_docs)
// and 0024's merge in memory order, and, where the zb_lexical extension is installed, the
// compiled scorer (0032). Each iteration runs the same query every way, rotating which goes
// first, checks that all return the same candidates, and the "merge/hash" and "compiled/merge"
// metrics are the ratios of their summed times in this run (lower is better).
//
//	go test ./coordinator -run '^$' -bench LexicalHalf -benchtime 100x
func BenchmarkLexicalHalf(b *testing.B) {
	for _, n := range lexBenchSizes() {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { benchLexicalHalf(b, n) })
	}
}

func lexBenchSizes() []int { return benchSizes("ZB_LEXBENCH_SIZES", 5000, 50000) }

// benchSizes reads a benchmark's tenant sizes from the environment variable env
// (comma-separated), or returns def.
func benchSizes(env string, def ...int) []int {
	if v := os.Getenv(env); v != "" {
		var out []int
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(f)
			if err == nil {
				out = append(out, n)
			}
		}
		return out
	}
	return def
}

func benchLexicalHalf(b *testing.B, n int) {
	const tenant = "lexbench"
	ctx := context.Background()
	pool := zbtest.Pool(b, &zbtest.Opts{EmbeddingDim: testDim})
	co, err := coordinator.New(&coordinator.Config{Pool: pool, Embedder: fakeEmbedder{dim: testDim}})
	if err != nil {
		b.Fatal(err)
	}
	names := strings.Fields("Ada Bruno Chiara Dmitri Elif Farid Greta Hiro Ines Jonas Kemal Lotte Mirko Nadia Oskar Petra Quinn Rosa Sven Tilda")
	places := strings.Fields("Lyon Porto Graz Turku Ghent Bergen Cork Split Basel Varna Tartu Ohrid Kotor Nantes Brno")
	words := strings.Fields("kettle lantern violin harbor meadow copper walnut saddle orchid canyon ember falcon ginger hazel igloo jungle koala lotus magnet nectar")
	layers := []coordinator.Layer{coordinator.LayerSemantic, coordinator.LayerEpisodic, coordinator.LayerProcedural}
	r := rand.New(rand.NewPCG(11, 12))
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	items := make([]coordinator.StoreInput, 0, n)
	for i := range n {
		items = append(items, coordinator.StoreInput{
			TenantID: tenant, Layer: layers[i%3],
			Content: fmt.Sprintf("%s met %s in %s about the %s and the %s", pick(names), pick(names), pick(places), pick(words), pick(words)),
		})
	}
	if _, err := co.StoreBatch(ctx, items); err != nil {
		b.Fatal(err)
	}
	// The steady state: recall reads the postings index-only, which needs the visibility map.
	if _, err := pool.Exec(ctx, "VACUUM (ANALYZE) zb.memory_posting"); err != nil {
		b.Fatal(err)
	}
	var docs int64
	var avgdl float64
	if err := pool.QueryRow(ctx, `SELECT sum(docs)::bigint, sum(terms)::float8 / sum(docs) FROM zb.lexical_stat_delta
		WHERE tenant_id = $1`, tenant).Scan(&docs, &avgdl); err != nil {
		b.Fatal(err)
	}
	conn := func(minDocs, scorer string) *pgxpool.Conn {
		c, err := pool.Acquire(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Exec(ctx, "SELECT set_config('zb.lexical_merge_min_docs', $1, false), set_config('zb.lexical_scorer', $2, false)",
			minDocs, scorer); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			_, _ = c.Exec(context.Background(), "RESET zb.lexical_merge_min_docs; RESET zb.lexical_scorer")
			c.Release()
		})
		return c
	}
	hash, merge := conn("1000000000", "sql"), conn("0", "sql")
	var compiled *pgxpool.Conn
	var have bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'zb_lexical')`).Scan(&have); err != nil {
		b.Fatal(err)
	}
	if have {
		compiled = conn("0", "compiled")
	}
	allLayers := []string{"working", "short_term", "episodic", "semantic", "procedural", "core", "cross_context"}
	queries := make([][]string, 32)
	for i := range queries {
		q := fmt.Sprintf("%s in %s with the %s and the %s", pick(names), pick(places), pick(words), pick(words))
		queries[i] = textproc.Terms(q, textproc.DetectLang(q))
	}
	run := func(c *pgxpool.Conn, terms []string) ([]int64, time.Duration) {
		t := time.Now()
		var ids []int64
		if err := c.QueryRow(ctx, `SELECT ids FROM zb.recall_lexical_postings($1, $2, $3, 1, $4,
			$5::zb.memory_layer[], 10, now(), NULL, NULL, NULL, NULL)`, tenant, terms, docs, avgdl, allLayers).Scan(&ids); err != nil {
			b.Fatal(err)
		}
		return ids, time.Since(t)
	}
	ways := []*pgxpool.Conn{hash, merge}
	if compiled != nil {
		ways = append(ways, compiled)
	}
	// Warm-up: each connection plans its statements once, and the postings are read once.
	for _, terms := range queries {
		for _, c := range ways {
			run(c, terms)
		}
	}
	spent := make([]time.Duration, len(ways))
	i := 0
	b.ResetTimer()
	for b.Loop() {
		terms := queries[i%len(queries)]
		var first []int64
		for j := range ways {
			w := (i + j) % len(ways)
			ids, d := run(ways[w], terms)
			if j == 0 {
				first = ids
			} else if !slices.Equal(first, ids) {
				b.Fatalf("query %v: the ways differ: %v vs %v", terms, first, ids)
			}
			spent[w] += d
		}
		i++
	}
	b.ReportMetric(float64(spent[1])/float64(spent[0]), "merge/hash")
	b.ReportMetric(float64(spent[0].Microseconds())/1000/float64(i), "hash-ms/query")
	b.ReportMetric(float64(spent[1].Microseconds())/1000/float64(i), "merge-ms/query")
	if compiled != nil {
		b.ReportMetric(float64(spent[2])/float64(spent[1]), "compiled/merge")
		b.ReportMetric(float64(spent[2].Microseconds())/1000/float64(i), "compiled-ms/query")
	}
}
