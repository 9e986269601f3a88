package perf

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/zenbrain/zb/embed"
)

// EfLadder are the hnsw.ef_search values tried, in order, for the bare query at the accuracy
// bar: pgvector's range is 1..1000, and the first is the bare query's own setting
// (bareSettings); each step at most 1.25 times the one before it.
var EfLadder = []int{100, 120, 150, 175, 200, 250, 300, 350, 400, 500, 600, 700, 800, 900, 1000}

// AccurateBare is the bare query held to the accuracy recall is held to. The bare baseline
// runs at ef_search 100, whatever its recall@10 against an exact sort of the tenant; recall's
// vector half raises ef_search with the tenant's size (zb.recall_ef_search) to keep each
// layer's top 10 at recall@10 ≥ 0.95 (issue 10's bar for filtered search). This figure finds
// the smallest ef_search of EfLadder at which the bare query's own top 10 reaches that bar on
// the same table, times that query interleaved with the others, and gives recall's ratios
// against it — beside, not instead of, the ratios against the bare query at 100.
type AccurateBare struct {
	// Queries is the number of calibration questions (Config.FilteredQueries), each with a
	// random tenant and its exact top K (an ORDER BY no index can serve).
	Queries int `json:"queries"`
	// Ladder is the bare query's recall@10 at each ef_search tried, up to the first that
	// reaches the bar (or all of EfLadder).
	Ladder []EfRecall `json:"ladder"`
	// EfSearch is the ef_search chosen: the first of Ladder at the bar, else the last tried;
	// Reached says whether it reached the bar.
	EfSearch int  `json:"ef_search"`
	Reached  bool `json:"reached"`
	// Timed is false when the bare query's own ef_search already reaches the bar: the figure
	// is then the bare query itself and its ratios the issue's.
	Timed bool `json:"timed"`
	// Latency is the query at EfSearch over the timed questions (the bare query's when not
	// Timed); the ratios are recall's (read-only and full) over it.
	Latency          Latency `json:"latency"`
	ReadOnlyP50Ratio float64 `json:"readonly_p50_ratio"`
	ReadOnlyP99Ratio float64 `json:"readonly_p99_ratio"`
	P50Ratio         float64 `json:"p50_ratio"`
	P99Ratio         float64 `json:"p99_ratio"`
}

// EfRecall is the bare query's accuracy at one ef_search: mean and worst recall@10 against
// exact over the calibration questions, and its p50 there (ms).
type EfRecall struct {
	EfSearch   int     `json:"ef_search"`
	RecallAt10 float64 `json:"recall_at_10"`
	MinRecall  float64 `json:"min_recall"`
	P50        float64 `json:"p50_ms"`
}

// BareRecall is the bare query's recall@10 at its own ef_search (the ladder's first step), or
// -1 when no calibration ran.
func (a *AccurateBare) BareRecall() float64 {
	if a == nil || len(a.Ladder) == 0 {
		return -1
	}
	return a.Ladder[0].RecallAt10
}

// chooseEf picks the first step of ladder whose mean recall reaches the bar, else the last.
func chooseEf(ladder []EfRecall) (ef int, reached bool) {
	for _, s := range ladder {
		if reachesBar(s.RecallAt10) {
			return s.EfSearch, true
		}
	}
	if len(ladder) == 0 {
		return 0, false
	}
	return ladder[len(ladder)-1].EfSearch, false
}

// calibrateBare measures the bare query's recall@10 against exact at the ef_search values of
// EfLadder, stopping at the first that reaches FilteredRecallTarget, and returns the figure
// with a pool at the chosen setting when it differs from the bare query's (nil otherwise; the
// caller closes it). A layerQuestion's layer is unused here: the bare query ranks the tenant.
func calibrateBare(ctx context.Context, c *Config, bdb *benchDB, emb embed.Embedder, n, tenants int) (*AccurateBare, *pgxpool.Pool, error) {
	exact, err := newPoolWith(ctx, bdb.url, "zbperfbench-exact", 1, nil)
	if err != nil {
		return nil, nil, err
	}
	defer exact.Close()
	r := rand.New(rand.NewPCG(c.Seed, uint64(n)+13))
	qs := make([]layerQuestion, c.FilteredQueries)
	for i := range qs {
		vs, err := emb.Embed(ctx, []string{genQuery(r)})
		if err != nil {
			return nil, nil, err
		}
		q := layerQuestion{tenant: tenantName(r.IntN(tenants)), v: pgvector.NewVector(vs[0])}
		// The bare query's rows ((embedding <=> q) + 0 cannot use the HNSW index), ties by id.
		if q.exact, err = queryIDs(ctx, exact, `SELECT id FROM zb.memory WHERE tenant_id = $1
			ORDER BY (embedding <=> $2) + 0, id LIMIT $3`, q.tenant, q.v, K); err != nil {
			return nil, nil, err
		}
		qs[i] = q
	}
	a := &AccurateBare{Queries: len(qs)}
	if a.Ladder, err = climbLadder(ctx, c, bdb, "bare query accuracy", nil, bareSQL, qs,
		func(q layerQuestion) []any { return []any{q.tenant, q.v, K} }, n, tenants); err != nil {
		return nil, nil, err
	}
	a.EfSearch, a.Reached = chooseEf(a.Ladder)
	a.Timed = a.EfSearch != EfLadder[0]
	if !a.Timed {
		return a, nil, nil
	}
	pool, err := newPoolWith(ctx, bdb.url, "zbperfbench-bare-accurate", 2, efSettings(a.EfSearch))
	if err != nil {
		return nil, nil, err
	}
	return a, pool, nil
}

// climbLadder measures the mean and worst recall@10 of sql over qs (its arguments from args,
// its ids against each question's exact ones) at the ef_search values of EfLadder, up to the
// first that reaches the bar, on a connection with the bare query's settings, ef_search and
// extra. Each step is preceded by one untimed pass over the questions on its connection:
// without it the first step's p50 carried the cache warm-up (28 against 18 ms for the next
// step in one 100k tenant), and later steps measured 15–75 % above the same statement timed
// again at the end (interleaveAtBar) — which is why the comparison at the bars is alternated.
func climbLadder(ctx context.Context, c *Config, bdb *benchDB, what string, extra map[string]string, sql string,
	qs []layerQuestion, args func(layerQuestion) []any, n, tenants int,
) ([]EfRecall, error) {
	var steps []EfRecall
	for _, ef := range EfLadder {
		settings := efSettings(ef)
		maps.Copy(settings, extra)
		pool, err := newPoolWith(ctx, bdb.url, "zbperfbench-ladder", 1, settings)
		if err != nil {
			return nil, err
		}
		var (
			mean, worst float64
			ds          []time.Duration
		)
		for range 2 {
			if mean, worst, ds, err = timeRecall(ctx, pool, sql, len(qs), func(i int) []any { return args(qs[i]) },
				func(i int) []int64 { return qs[i].exact }); err != nil {
				break
			}
		}
		pool.Close()
		if err != nil {
			return nil, err
		}
		steps = append(steps, EfRecall{EfSearch: ef, RecallAt10: mean, MinRecall: worst, P50: summarize(ds).P50})
		c.Logger.Info(what, "n", n, "tenants", tenants, "ef_search", ef, "recall@10", mean)
		if reachesBar(mean) {
			break
		}
	}
	return steps, nil
}

// reachesBar reports a mean recall@10 at or above FilteredRecallTarget. The mean is a sum of
// per-question fractions, so 50 questions at 0.95 in all sum to 0.9499999999999997: the
// comparison allows for that rounding.
func reachesBar(recall float64) bool { return recall >= FilteredRecallTarget-1e-9 }

// efSettings are the bare query's settings with another ef_search.
func efSettings(ef int) map[string]string {
	s := maps.Clone(bareSettings)
	s["hnsw.ef_search"] = strconv.Itoa(ef)
	return s
}

// finish fills the latency and ratios from the timed queries (the bare query's when not
// Timed).
func (a *AccurateBare) finish(timed []time.Duration, f *RecallFigure) {
	a.Latency = f.Bare
	if a.Timed {
		a.Latency = summarize(timed)
	}
	a.ReadOnlyP50Ratio, a.ReadOnlyP99Ratio = ratio(f.ReadOnly.P50, a.Latency.P50), ratio(f.ReadOnly.P99, a.Latency.P99)
	a.P50Ratio, a.P99Ratio = ratio(f.Full.P50, a.Latency.P50), ratio(f.Full.P99, a.Latency.P99)
}

// recallExactMax is the tenant size up to which recall's vector half ranks a tenant's rows
// exactly (zb.recall_vector_half: 1 000 active memories); above it, one HNSW scan.
const recallExactMax = 1000

// LayerLadder is the per-layer accuracy of recall's one-scan shape by ef_search: the 10·K
// nearest rows of the tenant, the question's layer's top K among them (what
// zb.recall_vector_scan keeps for each layer when every layer is requested, recall's default),
// against that layer's exact top K — the same questions as the filtered-search figures. It
// shows which ef_search per-layer recall@10 ≥ 0.95 needs on the graph measured, next to the
// one zb.recall_ef_search gives (RuleEf). A layer left with fewer than K rows among the 10·K
// counts here with what it got; recall would give it a scan of its own.
type LayerLadder struct {
	Queries int        `json:"queries"`
	Steps   []EfRecall `json:"steps"`
	// EfSearch is the first step at the bar (Reached), else the last tried.
	EfSearch int  `json:"ef_search"`
	Reached  bool `json:"reached"`
	// RuleEf is zb.recall_ef_search of the tenants' size: the ef_search recall uses (the one
	// scan's ladder only).
	RuleEf int `json:"rule_ef_search,omitempty"`
	// Scan is the plan's scans for the first question, in the ladders of partial per-layer
	// graphs (partialLadder: one index scan per layer's graph) and of the halfvec graph.
	Scan string `json:"scan,omitempty"`
	// Interleaved, in the ladders of partial per-layer graphs and of the halfvec graph, is its
	// statement at its bar timed question by question against the one scan's at the one scan's
	// bar (interleaveAtBar).
	Interleaved *Interleaved `json:"interleaved,omitempty"`
	// IndexMiB is the size of the ladder's own graph (the halfvec ladder's).
	IndexMiB float64 `json:"index_mib,omitempty"`

	// sql and extra are the ladder's statement and settings (besides ef_search).
	sql   string
	extra map[string]string
}

// Interleaved is a ladder's statement at its bar against another's at theirs, alternated
// question by question over InterleaveRounds passes (each first in every other question):
// p50s in ms, Ratio = P50 / OtherP50.
type Interleaved struct {
	N        int     `json:"n"`
	P50      float64 `json:"p50_ms"`
	OtherP50 float64 `json:"other_p50_ms"`
	Ratio    float64 `json:"ratio"`
}

// InterleaveRounds is the number of passes over the questions of interleaveAtBar.
const InterleaveRounds = 3

// layerSettings are the settings of recall's vector statement: HNSW, not a sequential or
// bitmap pass over the tenant.
var layerSettings = map[string]string{"enable_seqscan": "off", "enable_bitmapscan": "off", "jit": "off"}

// layerArgs are the arguments of a per-layer ladder's statement.
func layerArgs(q layerQuestion) []any { return []any{q.tenant, q.v, K, q.layer} }

// layerQuestion is a filtered-search question: a tenant, a layer, a vector and the layer's
// exact top K.
type layerQuestion struct {
	tenant, layer string
	v             pgvector.Vector
	exact         []int64
}

// layerLadder measures LayerLadder over qs at the ef_search values of EfLadder, up to the
// first that reaches the bar.
func layerLadder(ctx context.Context, c *Config, bdb *benchDB, qs []layerQuestion, n, tenants int) (*LayerLadder, error) {
	l := &LayerLadder{Queries: len(qs)}
	if err := bdb.pool.QueryRow(ctx, `SELECT zb.recall_ef_search($1)`, int64(n/tenants)).Scan(&l.RuleEf); err != nil {
		return nil, err
	}
	l.sql = oneScanSQL("m.embedding <=> $2")
	return l, l.climb(ctx, c, bdb, "per-layer accuracy of one scan", qs, n, tenants)
}

// oneScanSQL is recall's one-scan shape ordered by the distance expression d (of m.embedding
// and the question vector $2): the tenant's 10·K nearest, the question layer's top K among them.
func oneScanSQL(d string) string {
	return `SELECT g.id FROM (
			SELECT m.id, m.layer, ` + d + ` AS d FROM zb.memory m
			WHERE m.tenant_id = $1 AND m.status = 'active' AND m.embedding IS NOT NULL
			ORDER BY ` + d + ` LIMIT $3 * 10) g
			WHERE g.layer = $4::zb.memory_layer ORDER BY g.d, g.id LIMIT $3`
}

// climb measures the ladder's statement (sql, with recall's vector settings) over qs at the
// ef_search values of EfLadder up to the bar, and chooses its step.
func (l *LayerLadder) climb(ctx context.Context, c *Config, bdb *benchDB, what string, qs []layerQuestion, n, tenants int) error {
	l.extra = layerSettings
	var err error
	if l.Steps, err = climbLadder(ctx, c, bdb, what, l.extra, l.sql, qs, layerArgs, n, tenants); err != nil {
		return err
	}
	l.EfSearch, l.Reached = chooseEf(l.Steps)
	return nil
}

// partialLadder is layerLadder's measure for partial per-layer HNSW graphs (built by the
// caller, one per layer of searchLayers, `WHERE layer = … AND status = 'active'`): each layer's
// top K by a scan of its own graph, the three in one statement as a recall would run them, the
// question's layer's rows against its exact top K. Its p50 at the bar against the one scan's
// (layerLadder) is what recall's vector half would gain or lose with such graphs. The layers are
// literals, so that the planner can match each scan to its partial index; the union is
// materialized, so that the question's layer does not prune the others' scans from the timing.
// It fails when the plan does not scan each layer's graph.
func partialLadder(ctx context.Context, c *Config, bdb *benchDB, qs []layerQuestion, n, tenants int) (*LayerLadder, error) {
	l := &LayerLadder{Queries: len(qs)}
	scans := make([]string, 0, len(searchLayers))
	for _, ly := range searchLayers {
		scans = append(scans, `(SELECT m.id, m.layer, m.embedding <=> $2 AS d FROM zb.memory m
			WHERE m.tenant_id = $1 AND m.layer = '`+string(ly)+`' AND m.status = 'active' AND m.embedding IS NOT NULL
			ORDER BY m.embedding <=> $2 LIMIT $3)`)
	}
	l.sql = `WITH u AS MATERIALIZED (` + strings.Join(scans, " UNION ALL ") + `)
		SELECT u.id FROM u WHERE u.layer = $4::zb.memory_layer ORDER BY u.d, u.id`
	indexes := make([]string, 0, len(searchLayers))
	for _, ly := range searchLayers {
		indexes = append(indexes, partialIndex(ly))
	}
	if err := l.planScans(ctx, bdb, qs[0], "partial per-layer ladder", indexes...); err != nil {
		return nil, err
	}
	return l, l.climb(ctx, c, bdb, "per-layer accuracy of partial graphs", qs, n, tenants)
}

// planScans records in l.Scan the scans of the plan of l's statement for q (with recall's vector
// settings), and fails when it does not name each of indexes.
func (l *LayerLadder) planScans(ctx context.Context, bdb *benchDB, q layerQuestion, what string, indexes ...string) error {
	explain, err := newPoolWith(ctx, bdb.url, "zbperfbench-explain", 1, layerSettings)
	if err != nil {
		return err
	}
	defer explain.Close()
	var plan []byte
	if err := explain.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+l.sql, layerArgs(q)...).Scan(&plan); err != nil {
		return err
	}
	l.Scan = scanOf(plan)
	for _, ix := range indexes {
		if !strings.Contains(l.Scan, ix) {
			return fmt.Errorf("%s: the plan does not scan %s (%s)", what, ix, l.Scan)
		}
	}
	return nil
}

// halfvecIndex names the half-precision HNSW graph that the filtered benchmark builds.
const halfvecIndex = "memory_embedding_hnsw_halfvec_idx"

// halfvecLadder is layerLadder's measure on a graph of half-precision copies of the vectors
// (pgvector's halfvec, 2-byte floats: half the graph's pages): it builds halfvecIndex with the
// recall graph's parameters (indexDef, the caller drops it), then climbs the one-scan ladder
// with both sides of the distance cast to halfvec, as every nearest-neighbour query on the table
// would have to be for the index to serve it. IndexMiB is the half graph's size. It fails when
// the plan does not scan that graph.
func halfvecLadder(ctx context.Context, c *Config, bdb *benchDB, qs []layerQuestion, n, tenants int, indexDef string) (*LayerLadder, error) {
	const col = "(embedding vector_cosine_ops)"
	half := fmt.Sprintf("halfvec(%d)", c.Dim)
	if !strings.Contains(indexDef, col) {
		return nil, fmt.Errorf("halfvec ladder: the HNSW index definition does not index %s: %s", col, indexDef)
	}
	def := strings.Replace(strings.Replace(indexDef, "memory_embedding_hnsw_idx", halfvecIndex, 1), col,
		"((embedding::"+half+") halfvec_cosine_ops)", 1)
	if err := buildIndex(ctx, bdb.pool, def, n); err != nil {
		return nil, err
	}
	l := &LayerLadder{Queries: len(qs)}
	var size int64
	if err := bdb.pool.QueryRow(ctx, `SELECT pg_relation_size('zb.`+halfvecIndex+`')`).Scan(&size); err != nil {
		return nil, err
	}
	l.IndexMiB = float64(size) / (1 << 20)
	l.sql = oneScanSQL("m.embedding::" + half + " <=> $2::" + half)
	if err := l.planScans(ctx, bdb, qs[0], "halfvec ladder", halfvecIndex); err != nil {
		return nil, err
	}
	return l, l.climb(ctx, c, bdb, "per-layer accuracy of one scan, halfvec graph", qs, n, tenants)
}

// interleaveAtBar times l's statement at its bar against other's at theirs, alternated question
// by question (l first in every other question) over InterleaveRounds passes, and records it in
// l.Interleaved. The ladders' own p50s come from passes minutes apart, on a machine whose cache
// and load move between them.
func interleaveAtBar(ctx context.Context, bdb *benchDB, qs []layerQuestion, l, other *LayerLadder) error {
	open := func(x *LayerLadder) (*pgxpool.Pool, error) {
		settings := efSettings(x.EfSearch)
		maps.Copy(settings, x.extra)
		return newPoolWith(ctx, bdb.url, "zbperfbench-interleave", 1, settings)
	}
	pl, err := open(l)
	if err != nil {
		return err
	}
	defer pl.Close()
	po, err := open(other)
	if err != nil {
		return err
	}
	defer po.Close()
	run := func(pool *pgxpool.Pool, sql string) func(int) error {
		return func(i int) error {
			_, err := queryIDs(ctx, pool, sql, layerArgs(qs[i])...)
			return err
		}
	}
	l.Interleaved, err = alternate(len(qs), 0, run(pl, l.sql), run(po, other.sql))
	return err
}

// alternate times a against b for each of n questions in each of InterleaveRounds passes,
// after warm untimed passes: a first in every other question, so that neither always finds the
// question's pages left by the other. The ratio is a's p50 over b's.
func alternate(n, warm int, a, b func(i int) error) (*Interleaved, error) {
	var mine, theirs []time.Duration
	for round := -warm; round < InterleaveRounds; round++ {
		for i := range n {
			for j := range 2 {
				run, into := a, &mine
				if (i+round+j)%2 != 0 {
					run, into = b, &theirs
				}
				t := time.Now()
				if err := run(i); err != nil {
					return nil, err
				}
				if round >= 0 {
					*into = append(*into, time.Since(t))
				}
			}
		}
	}
	x, y := summarize(mine), summarize(theirs)
	return &Interleaved{N: x.N, P50: x.P50, OtherP50: y.P50, Ratio: ratio(x.P50, y.P50)}, nil
}
