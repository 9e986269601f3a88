package perf

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/zenbrain/zb/bench/internal/pgvacuum"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/embed"
)

// RecallFigure is the recall latency at one size and layout.
type RecallFigure struct {
	// N is the number of memories; Tenants how many tenants share them.
	N       int `json:"n"`
	Tenants int `json:"tenants"`
	// Load is the time to store the N memories with StoreBatch (HNSW index dropped) and
	// IndexBuild the time to build the HNSW index afterwards (seconds).
	Load       float64 `json:"load_s"`
	IndexBuild float64 `json:"index_build_s"`
	// Bare is the bare HNSW top-K query; ReadOnly Recall with ReadOnly; Full Recall with its
	// side effects; Embed the hash embedding of one query (inside both Recall figures).
	Bare     Latency `json:"bare"`
	ReadOnly Latency `json:"recall_readonly"`
	Full     Latency `json:"recall_full"`
	Embed    Latency `json:"embed"`
	// P50Ratio and P99Ratio are Full over Bare; ReadOnlyP50Ratio and ReadOnlyP99Ratio are
	// ReadOnly over Bare.
	P50Ratio         float64 `json:"p50_ratio"`
	P99Ratio         float64 `json:"p99_ratio"`
	ReadOnlyP50Ratio float64 `json:"readonly_p50_ratio"`
	ReadOnlyP99Ratio float64 `json:"readonly_p99_ratio"`
	// Met reports both Full ratios within target; ReadOnlyMet the same for ReadOnly.
	Met         bool `json:"met"`
	ReadOnlyMet bool `json:"readonly_met"`
	// BareResults is the mean number of rows the bare query returned (K unless a filtered
	// scan ran dry).
	BareResults float64 `json:"bare_results"`
	// Split is the share of the timed recalls (read-only and full) that read their lexical and
	// vector halves at the same time on two connections (RecallResult.Split).
	Split float64 `json:"split_share"`
	// Parts is where the read-only recalls' time went (RecallResult.Timing).
	Parts RecallParts `json:"parts"`
	// Visible is the share of zb.memory's and zb.memory_posting's pages that the visibility map
	// marks all-visible before the timed recalls, after VacuumRounds VACUUMs (pgvacuum.Visible).
	Visible      float64 `json:"visible_share"`
	VacuumRounds int     `json:"vacuum_rounds"`
	// LexicalScorer is what zb.lexical_scorer() said in the benchmark database: compiled (the
	// zb_lexical extension scores recall's lexical half) or sql.
	LexicalScorer string `json:"lexical_scorer"`
	// HNSW is the WITH clause of the HNSW index the figure was measured on (the migration's
	// unless Config.HNSWM or HNSWEfConstruction replaced it) and IndexMiB its size.
	HNSW     string  `json:"hnsw,omitempty"`
	IndexMiB float64 `json:"index_mib,omitempty"`
	// LayerLadder is the per-layer accuracy of recall's one-scan shape by ef_search (nil where
	// the tenants are small enough for recall's exact vector half).
	LayerLadder *LayerLadder `json:"layer_ladder,omitempty"`
	// PartialLadder is the same measure for partial per-layer HNSW graphs, a scan of each
	// (nil where Config.PartialMax built none or the tenants are small).
	PartialLadder *LayerLadder `json:"partial_layer_ladder,omitempty"`
	// HalfvecLadder is the same measure for recall's one-scan shape on a graph of half-precision
	// copies of the vectors (nil where Config.HalfvecMax built none or the tenants are small).
	HalfvecLadder *LayerLadder `json:"halfvec_layer_ladder,omitempty"`
	// Accurate is the bare query at the accuracy bar recall's vector half is held to, and
	// recall's ratios against it (nil in runs before 5 December, late morning).
	Accurate *AccurateBare `json:"accurate_bare,omitempty"`
	// Floor is the least vector work of recall's candidate generation as one plain statement,
	// timed with the others (nil in runs before 5 December, night).
	Floor *Floor `json:"floor,omitempty"`
}

// RecallParts are the p50s of the parts of the timed recalls (RecallResult.Timing), in ms:
// Candidates, Rank and Embed over the read-only recalls; VectorHalf, LexicalHalf and Join over
// those of them that were split (zero when none was); SideEffects over the full recalls.
// Slower is the p50 of the slower half of each split recall, and SlowerRatio that over the bare
// query's p50: recall waits for its slower half, so the read-only ratio cannot fall below it.
type RecallParts struct {
	Candidates  Latency `json:"candidates"`
	VectorHalf  Latency `json:"vector_half"`
	LexicalHalf Latency `json:"lexical_half"`
	Join        Latency `json:"join"`
	Slower      Latency `json:"slower_half"`
	SlowerRatio float64 `json:"slower_half_ratio"`
	Rank        Latency `json:"rank"`
	Embed       Latency `json:"embed"`
	SideEffects Latency `json:"side_effects"`
}

// partTimes collects RecallResult.Timing of the timed recalls.
type partTimes struct {
	cand, vec, lex, join, slower, rank, embed, side []time.Duration
}

func (p *partTimes) add(t coordinator.RecallTiming, readOnly bool) {
	if !readOnly {
		p.side = append(p.side, t.SideEffects)
		return
	}
	p.cand, p.rank, p.embed = append(p.cand, t.Candidates), append(p.rank, t.Rank), append(p.embed, t.Embed)
	if t.VectorHalf > 0 || t.LexicalHalf > 0 {
		p.vec, p.lex, p.join = append(p.vec, t.VectorHalf), append(p.lex, t.LexicalHalf), append(p.join, t.Join)
		p.slower = append(p.slower, max(t.VectorHalf, t.LexicalHalf))
	}
}

func (p *partTimes) summary(bareP50 float64) RecallParts {
	r := RecallParts{
		Candidates: summarize(p.cand), VectorHalf: summarize(p.vec), LexicalHalf: summarize(p.lex), Join: summarize(p.join),
		Slower: summarize(p.slower), Rank: summarize(p.rank), Embed: summarize(p.embed), SideEffects: summarize(p.side),
	}
	r.SlowerRatio = ratio(r.Slower.P50, bareP50)
	return r
}

// benchRecallSize loads one database of n memories over tenants and measures recall latency
// and filtered search; with doLoad it also runs the load test on it.
func benchRecallSize(ctx context.Context, c *Config, n, tenants int, doLoad bool, res *Results) error {
	bdb, err := newDB(ctx, c, int32(max(c.PoolSize, 4)))
	if err != nil {
		return err
	}
	defer bdb.drop()
	emb, err := embed.New(&embed.Config{Dim: c.Dim})
	if err != nil {
		return err
	}
	co, err := coordinator.New(&coordinator.Config{Pool: bdb.pool, Embedder: emb, RecallSplitMinDocs: c.RecallSplitMinDocs})
	if err != nil {
		return err
	}
	f := &RecallFigure{N: n, Tenants: tenants}
	var indexDef string
	if err := bdb.pool.QueryRow(ctx, `SELECT pg_get_indexdef('zb.memory_embedding_hnsw_idx'::regclass)`).Scan(&indexDef); err != nil {
		return err
	}
	if indexDef, f.HNSW, err = withHNSWParams(indexDef, c.HNSWM, c.HNSWEfConstruction); err != nil {
		return err
	}
	if _, err := bdb.pool.Exec(ctx, `DROP INDEX zb.memory_embedding_hnsw_idx`); err != nil {
		return err
	}
	t0 := time.Now()
	if err := loadMemories(ctx, c, co, n, tenants); err != nil {
		return fmt.Errorf("loading: %w", err)
	}
	f.Load = time.Since(t0).Seconds()
	// The corpus stands for memories derived long ago: the bulk derive jobs are dropped so the
	// worker of the load test derives only what the load test stores. This runs before the
	// HNSW build: the UPDATE is not HOT (derived_at is in an index predicate), and with the
	// index in place every row version would be inserted into the graph again.
	if _, err := bdb.pool.Exec(ctx, `UPDATE zb.memory SET derived_at = created_at WHERE derived_at IS NULL`); err != nil {
		return err
	}
	if _, err := bdb.pool.Exec(ctx, `DELETE FROM river.river_job`); err != nil {
		return err
	}
	if _, err := bdb.pool.Exec(ctx, `VACUUM zb.memory`); err != nil {
		return err
	}
	t0 = time.Now()
	if err := buildIndex(ctx, bdb.pool, indexDef, n); err != nil {
		return fmt.Errorf("building the HNSW index: %w", err)
	}
	f.IndexBuild = time.Since(t0).Seconds()
	var indexBytes int64
	if err := bdb.pool.QueryRow(ctx, `SELECT pg_relation_size('zb.memory_embedding_hnsw_idx')`).Scan(&indexBytes); err != nil {
		return err
	}
	f.IndexMiB = float64(indexBytes) / (1 << 20)
	// The steady state: autovacuum would have set the visibility map of the postings (recall's
	// lexical half reads them index-only) and analyzed them; on a freshly loaded table every
	// posting an index-only scan returns is checked against the heap (0023 makes autovacuum visit
	// the postings after 2 % of new rows instead of 20 %).
	if f.Visible, f.VacuumRounds, err = pgvacuum.Visible(ctx, bdb.pool, time.Minute, "zb.memory", "zb.memory_posting"); err != nil {
		return err
	}
	if f.Visible < pgvacuum.Enough {
		c.Logger.Warn("visibility map incomplete before the timed recalls", "n", n, "tenants", tenants, "visible", f.Visible)
	}
	if err := bdb.pool.QueryRow(ctx, `SELECT zb.lexical_scorer()`).Scan(&f.LexicalScorer); err != nil {
		return fmt.Errorf("error reading the lexical scorer: %w", err)
	}
	c.Logger.Info("loaded", "n", n, "tenants", tenants, "load_s", f.Load, "index_s", f.IndexBuild)

	bare, err := newPoolWith(ctx, bdb.url, "zbperfbench-bare", 2, bareSettings)
	if err != nil {
		return err
	}
	defer bare.Close()
	acc, accPool, err := calibrateBare(ctx, c, bdb, emb, n, tenants)
	if err != nil {
		return fmt.Errorf("the bare query's accuracy: %w", err)
	}
	if accPool != nil {
		defer accPool.Close()
	}
	floor, err := newFloor(ctx, bdb, n/tenants)
	if err != nil {
		return fmt.Errorf("the floor statement: %w", err)
	}
	defer floor.pool.Close()
	r := rand.New(rand.NewPCG(c.Seed, uint64(n)+7))
	// Warm-up: a few of each, untimed.
	for i := range min(20, c.Queries) {
		q := genQuery(r)
		v, _ := emb.Embed(ctx, []string{q})
		tenant := tenantName(i % tenants)
		if _, err := bareTopK(ctx, bare, tenant, v[0]); err != nil {
			return err
		}
		if accPool != nil {
			if _, err := bareTopK(ctx, accPool, tenant, v[0]); err != nil {
				return err
			}
		}
		if _, err := co.Recall(ctx, tenant, q, &coordinator.RecallOpts{K: K, ReadOnly: true}); err != nil {
			return err
		}
		if err := floor.check(ctx, bdb, tenant, v[0]); err != nil {
			return err
		}
	}
	var bareD, roD, fullD, embD, accD, floorD []time.Duration
	var parts partTimes
	rows, splits := 0, 0
	// Bare, read-only, full and the floor; and the bare query at the accuracy bar when it differs.
	variants := []int{variantBare, variantReadOnly, variantFull, variantFloor}
	if accPool != nil {
		variants = append(variants, variantAccurate)
	}
	for i := range c.Queries {
		q := genQuery(r)
		tenant := tenantName(r.IntN(tenants))
		t := time.Now()
		vs, err := emb.Embed(ctx, []string{q})
		if err != nil {
			return err
		}
		embD = append(embD, time.Since(t))
		// Rotate the order so that no variant always runs first (cache effects).
		for j := range variants {
			var err error
			t := time.Now()
			switch v := variants[variantAt(i, j, len(variants))]; v {
			case variantBare:
				var got int
				got, err = bareTopK(ctx, bare, tenant, vs[0])
				bareD = append(bareD, time.Since(t))
				rows += got
			case variantAccurate:
				_, err = bareTopK(ctx, accPool, tenant, vs[0])
				accD = append(accD, time.Since(t))
			case variantFloor:
				_, err = floor.run(ctx, tenant, vs[0])
				floorD = append(floorD, time.Since(t))
			default: // variantReadOnly, variantFull
				readOnly := v == variantReadOnly
				var rr *coordinator.RecallResult
				rr, err = co.Recall(ctx, tenant, q, &coordinator.RecallOpts{K: K, ReadOnly: readOnly})
				if readOnly {
					roD = append(roD, time.Since(t))
				} else {
					fullD = append(fullD, time.Since(t))
				}
				if err == nil {
					parts.add(rr.Timing, readOnly)
					if rr.Split {
						splits++
					}
				}
			}
			if err != nil {
				return err
			}
		}
	}
	f.Bare, f.ReadOnly, f.Full, f.Embed = summarize(bareD), summarize(roD), summarize(fullD), summarize(embD)
	f.BareResults = float64(rows) / float64(c.Queries)
	f.Split = float64(splits) / float64(2*c.Queries)
	f.Parts = parts.summary(f.Bare.P50)
	f.P50Ratio, f.P99Ratio = ratio(f.Full.P50, f.Bare.P50), ratio(f.Full.P99, f.Bare.P99)
	f.ReadOnlyP50Ratio, f.ReadOnlyP99Ratio = ratio(f.ReadOnly.P50, f.Bare.P50), ratio(f.ReadOnly.P99, f.Bare.P99)
	f.Met = f.P50Ratio <= RecallP50Target && f.P99Ratio <= RecallP99Target
	f.ReadOnlyMet = f.ReadOnlyP50Ratio <= RecallP50Target && f.ReadOnlyP99Ratio <= RecallP99Target
	acc.finish(accD, f)
	f.Accurate = acc
	floor.finish(floorD, f)
	res.Recall = append(res.Recall, *f)
	c.progress(res)
	c.Logger.Info("recall", "n", n, "tenants", tenants, "bare_p50", f.Bare.P50, "full_p50", f.Full.P50, "p50_ratio", f.P50Ratio,
		"p99_ratio", f.P99Ratio, "accurate_ef", acc.EfSearch, "readonly_p50_ratio_accurate", acc.ReadOnlyP50Ratio)

	ff, ladders, err := benchFiltered(ctx, c, bdb, emb, n, tenants, indexDef)
	if err != nil {
		return fmt.Errorf("filtered search: %w", err)
	}
	res.Filtered = append(res.Filtered, ff...)
	last := &res.Recall[len(res.Recall)-1]
	last.LayerLadder, last.PartialLadder, last.HalfvecLadder = ladders.one, ladders.partial, ladders.half
	if l := ladders.one; l != nil && l.Reached && floor.f.Kind == FloorScan {
		if err := floor.atBar(ctx, c, bdb, bare, emb, l.EfSearch, n, tenants); err != nil {
			return err
		}
	}
	c.progress(res)

	if doLoad {
		lf, err := benchLoad(ctx, c, bdb, emb, n, tenants)
		if err != nil {
			return fmt.Errorf("load test: %w", err)
		}
		res.Load = lf
		c.progress(res)
	}
	return nil
}

// buildIndex runs an index definition with enough maintenance memory for the graph of n
// rows: pgvector builds the HNSW graph in memory while it fits in maintenance_work_mem and
// much more slowly once it does not (≈ 4 KB a 768-d row; 1 GB up to 200k rows, then 5 KB a
// row up to 8 GB).
func buildIndex(ctx context.Context, pool *pgxpool.Pool, def string, n int) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	mem := max(1024, min(8192, n*5/1024)) // MB
	if _, err := conn.Exec(ctx, fmt.Sprintf(`SET maintenance_work_mem = '%dMB'`, mem)); err != nil {
		return err
	}
	_, err = conn.Exec(ctx, def)
	if _, rerr := conn.Exec(context.WithoutCancel(ctx), `RESET maintenance_work_mem`); err == nil {
		err = rerr
	}
	return err
}

// The timed variants of a recall figure: the bare query, read-only recall, full recall, the
// floor (Floor) and the bare query at the accuracy bar (when it differs from the bare query).
const (
	variantBare = iota
	variantReadOnly
	variantFull
	variantFloor
	variantAccurate
)

// variantAt is the j-th variant question i times out of the first n: each question times each
// variant once, in an order rotated by one per question so that none always runs first.
func variantAt(i, j, n int) int { return (i + j) % n }

// hnswWith matches the WITH clause of an HNSW index definition (pg_get_indexdef), and
// hnswParam one of its parameters.
var (
	hnswWith  = regexp.MustCompile(`WITH \(([^)]*)\)$`)
	hnswParam = regexp.MustCompile(`(m|ef_construction)='?(\d+)'?`)
)

// withHNSWParams returns the index definition def with m and ef_construction replaced where
// they are not 0, and its WITH clause as built.
func withHNSWParams(def string, m, efc int) (string, string, error) {
	loc := hnswWith.FindStringSubmatchIndex(def)
	if loc == nil {
		return "", "", fmt.Errorf("perf: the HNSW index definition has no WITH clause: %s", def)
	}
	vals := map[string]string{}
	for _, p := range hnswParam.FindAllStringSubmatch(def[loc[2]:loc[3]], -1) {
		vals[p[1]] = p[2]
	}
	if m != 0 {
		vals["m"] = strconv.Itoa(m)
	}
	if efc != 0 {
		vals["ef_construction"] = strconv.Itoa(efc)
	}
	if vals["m"] == "" || vals["ef_construction"] == "" {
		return "", "", fmt.Errorf("perf: the HNSW index definition does not name m and ef_construction: %s", def)
	}
	with := fmt.Sprintf("m = %s, ef_construction = %s", vals["m"], vals["ef_construction"])
	return def[:loc[0]] + "WITH (" + with + ")", with, nil
}

// bareTopK runs the bare HNSW top-K query of one tenant and returns the rows it found.
// bareSQL is the bare query: $1 tenant, $2 vector, $3 K.
const bareSQL = `SELECT id FROM zb.memory WHERE tenant_id = $1 ORDER BY embedding <=> $2 LIMIT $3`

func bareTopK(ctx context.Context, pool *pgxpool.Pool, tenant string, v []float32) (int, error) {
	ids, err := queryIDs(ctx, pool, bareSQL, tenant, pgvector.NewVector(v), K)
	return len(ids), err
}

// queryIDs runs a query of one bigint column and returns its values.
func queryIDs(ctx context.Context, pool *pgxpool.Pool, sql string, args ...any) ([]int64, error) {
	rows, err := pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// FilteredFigure is filtered search (one tenant and one layer) under one setting.
type FilteredFigure struct {
	// N, Tenants as in RecallFigure.
	N       int `json:"n"`
	Tenants int `json:"tenants"`
	// Setting names the setting: "iterative off, ef 40" (pgvector's defaults), "relaxed,
	// ef 100", "strict, ef 100", "relaxed, ef 200", "recall's vector scan, this layer …" or
	// "…, every layer …" (the vector half of recall, zb.recall_vector_scan, with its own
	// settings, asked for the query's layer or for every layer), "partial per-layer HNSW", or
	// [NearestFactsSetting] (derive's nearest-fact search, queried by a stored memory).
	Setting string `json:"setting"`
	// RecallAt10 is the mean |ANN ∩ exact| / |exact| over the queries; MinRecall the worst.
	RecallAt10 float64 `json:"recall_at_10"`
	MinRecall  float64 `json:"min_recall"`
	Met        bool    `json:"met"`
	// Latency is the ANN query's; Exact the exact query's.
	Latency Latency `json:"latency"`
	Exact   Latency `json:"exact"`
	// Scan is the index (or scan type) of the ANN plan for the first query.
	Scan string `json:"scan"`
	// MeanMatches is the mean number of candidate rows (tenant and layer) per query.
	MeanMatches float64 `json:"mean_matches"`
}

type filterSetting struct {
	name     string
	settings map[string]string
	partial  bool
	// recall asks zb.recall_vector_scan itself (recall's own settings) instead of annSQL.
	recall bool
	// everyLayer asks recall's vector scan for every layer, as a recall without a layer filter
	// does (one scan of 10·K rows ranked per layer), and keeps the query layer's rows: the
	// per-layer accuracy of recall's default.
	everyLayer bool
}

// filteredLadders are the per-layer accuracy ladders of benchFiltered (nil where not measured).
type filteredLadders struct{ one, partial, half *LayerLadder }

// benchFiltered measures ANN recall@10 against exact within one tenant and one layer.
// Where the tenant is large enough for recall's HNSW scan it also returns the per-layer
// accuracy ladders of the one scan (layerLadder), where partial per-layer graphs are built
// (Config.PartialMax) of a scan per layer's graph (partialLadder), and up to Config.HalfvecMax
// of the one scan on a half-precision graph (halfvecLadder).
func benchFiltered(ctx context.Context, c *Config, bdb *benchDB, emb embed.Embedder, n, tenants int, indexDef string) (out []FilteredFigure, lad filteredLadders, err error) {
	settings := []filterSetting{
		{name: "iterative off, ef 40", settings: map[string]string{"hnsw.iterative_scan": "off", "hnsw.ef_search": "40"}},
		{name: "relaxed, ef 100", settings: map[string]string{"hnsw.iterative_scan": "relaxed_order", "hnsw.ef_search": "100"}},
		{name: "strict, ef 100", settings: map[string]string{"hnsw.iterative_scan": "strict_order", "hnsw.ef_search": "100"}},
		{name: "relaxed, ef 200", settings: map[string]string{"hnsw.iterative_scan": "relaxed_order", "hnsw.ef_search": "200"}},
		{name: "recall's vector scan, this layer (ef_search by tenant size)", recall: true},
		{name: "recall's vector scan, every layer (ef_search by tenant size)", recall: true, everyLayer: true},
	}
	partialBuilt := c.PartialMax > 0 && n <= c.PartialMax
	if partialBuilt {
		settings = append(settings, filterSetting{
			name: "partial per-layer HNSW, relaxed, ef 100", partial: true,
			settings: map[string]string{"hnsw.iterative_scan": "relaxed_order", "hnsw.ef_search": "100"},
		})
	}
	r := rand.New(rand.NewPCG(c.Seed, uint64(n)+11))
	qs := make([]layerQuestion, c.FilteredQueries)
	exact, err := newPoolWith(ctx, bdb.url, "zbperfbench-exact", 1, nil)
	if err != nil {
		return nil, lad, err
	}
	defer exact.Close()
	var exactD []time.Duration
	matches := 0
	for i := range qs {
		vs, err := emb.Embed(ctx, []string{genQuery(r)})
		if err != nil {
			return nil, lad, err
		}
		q := layerQuestion{tenant: tenantName(r.IntN(tenants)), layer: string(searchLayers[r.IntN(len(searchLayers))]), v: pgvector.NewVector(vs[0])}
		t := time.Now()
		// (embedding <=> q) + 0 cannot use the HNSW index: an exact sort of the filtered rows.
		if q.exact, err = queryIDs(ctx, exact, `SELECT id FROM zb.memory WHERE tenant_id = $1 AND layer = $2::zb.memory_layer
			AND status = 'active' AND embedding IS NOT NULL ORDER BY (embedding <=> $3) + 0, id LIMIT $4`, q.tenant, q.layer, q.v, K); err != nil {
			return nil, lad, err
		}
		exactD = append(exactD, time.Since(t))
		var cnt int
		if err := exact.QueryRow(ctx, `SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND layer = $2::zb.memory_layer AND status = 'active'`,
			q.tenant, q.layer).Scan(&cnt); err != nil {
			return nil, lad, err
		}
		matches += cnt
		qs[i] = q
	}
	exactLat := summarize(exactD)
	for _, s := range settings {
		if s.partial {
			for _, l := range searchLayers {
				def := strings.Replace(indexDef, "memory_embedding_hnsw_idx", partialIndex(l), 1) +
					" WHERE layer = '" + string(l) + "' AND status = 'active'"
				if err := buildIndex(ctx, bdb.pool, def, n); err != nil {
					return nil, lad, err
				}
			}
			if _, err := bdb.pool.Exec(ctx, `ANALYZE zb.memory`); err != nil {
				return nil, lad, err
			}
		}
		pool, err := newPoolWith(ctx, bdb.url, "zbperfbench-filtered", 1, s.settings)
		if err != nil {
			return nil, lad, err
		}
		annSQL := `SELECT id FROM zb.memory WHERE tenant_id = $1 AND layer = $2::zb.memory_layer
			AND status = 'active' AND embedding IS NOT NULL ORDER BY embedding <=> $3 LIMIT $4`
		f := FilteredFigure{N: n, Tenants: tenants, Setting: s.name, MinRecall: 1, MeanMatches: float64(matches) / float64(len(qs)), Exact: exactLat}
		if s.recall {
			// The vector half of recall for a tenant above 1 000 memories, with its own
			// settings (function SET clauses), for the one layer — or for every layer, as
			// recall's default asks, keeping the query layer's rows.
			annSQL = `SELECT unnest(zb.recall_vector_scan($1, $3, ARRAY[$2::zb.memory_layer], $4, now(), NULL, NULL, NULL, NULL,
				false, NULL))`
			if s.everyLayer {
				annSQL = `SELECT m.id FROM zb.memory m WHERE m.tenant_id = $1 AND m.layer = $2::zb.memory_layer
					AND m.id = ANY (zb.recall_vector_scan($1, $3, enum_range(NULL::zb.memory_layer), $4, now(), NULL, NULL,
						NULL, NULL, false, NULL))`
			}
			f.Scan = "zb.recall_vector_scan"
		} else {
			var plan []byte
			if err := pool.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+annSQL, qs[0].tenant, qs[0].layer, qs[0].v, K).Scan(&plan); err != nil {
				pool.Close()
				return nil, lad, err
			}
			f.Scan = scanOf(plan)
		}
		mean, worst, ds, err := timeRecall(ctx, pool, annSQL, len(qs),
			func(i int) []any { return []any{qs[i].tenant, qs[i].layer, qs[i].v, K} }, func(i int) []int64 { return qs[i].exact })
		pool.Close()
		if err != nil {
			return nil, lad, err
		}
		f.MinRecall = worst
		if s.partial && n/tenants > recallExactMax {
			if lad.partial, err = partialLadder(ctx, c, bdb, qs, n, tenants); err != nil {
				return nil, lad, err
			}
		}
		f.RecallAt10 = mean
		f.Met = reachesBar(f.RecallAt10)
		f.Latency = summarize(ds)
		c.Logger.Info("filtered", "n", n, "tenants", tenants, "setting", s.name, "recall@10", f.RecallAt10, "scan", f.Scan)
		out = append(out, f)
	}
	if n/tenants > recallExactMax {
		// With the partial graphs still there when they were built: the one scan cannot use
		// them (no layer in its filter), and the two are timed against each other below.
		if lad.one, err = layerLadder(ctx, c, bdb, qs, n, tenants); err != nil {
			return nil, lad, err
		}
	}
	if lad.partial != nil {
		if err := interleaveAtBar(ctx, bdb, qs, lad.partial, lad.one); err != nil {
			return nil, lad, err
		}
	}
	if partialBuilt {
		// The schema has no partial indexes: derive's nearest facts must not find them.
		for _, l := range searchLayers {
			if _, err := bdb.pool.Exec(ctx, "DROP INDEX zb."+partialIndex(l)); err != nil {
				return nil, lad, err
			}
		}
	}
	if lad.one != nil && c.HalfvecMax > 0 && n <= c.HalfvecMax {
		lad.half, err = halfvecLadder(ctx, c, bdb, qs, n, tenants, indexDef)
		if err == nil {
			err = interleaveAtBar(ctx, bdb, qs, lad.half, lad.one)
		}
		// The schema has no half-precision graph: nothing after this may find it, and a kept
		// database (-keep) must not either, whether or not the ladder failed.
		if _, derr := bdb.pool.Exec(context.WithoutCancel(ctx), "DROP INDEX IF EXISTS zb."+halfvecIndex); err == nil {
			err = derr
		}
		if err != nil {
			return nil, lad, err
		}
	}
	f, err := benchNearestFacts(ctx, c, bdb, exact, n, tenants, r)
	if err != nil {
		return nil, lad, err
	}
	return append(out, f), lad, nil
}

// partialIndex names the partial HNSW index of one layer that the filtered benchmark builds.
func partialIndex(l coordinator.Layer) string { return "memory_embedding_hnsw_" + string(l) + "_idx" }

// NearestFactsSetting names the filtered figure of derive's nearest-fact search.
const NearestFactsSetting = "derive's nearest facts (zb.similar_semantic, semantic layer, by a stored memory)"

// benchNearestFacts measures derive's nearest-fact search, zb.similar_semantic: for stored
// semantic memories of random tenants, the K other active semantic memories nearest to each,
// against an exact sort of the tenant's semantic layer.
func benchNearestFacts(ctx context.Context, c *Config, bdb *benchDB, exact *pgxpool.Pool, n, tenants int, r *rand.Rand) (FilteredFigure, error) {
	f := FilteredFigure{N: n, Tenants: tenants, Setting: NearestFactsSetting, MinRecall: 1, Scan: "zb.similar_semantic"}
	var ds, exactD []time.Duration
	sum, matches := 0.0, 0
	// Each tenant's id range and semantic count, read once (the one-tenant layout asks the
	// same tenant every time).
	type span struct {
		lo, hi int64
		cnt    int
	}
	spans := map[string]span{}
	for range c.FilteredQueries {
		tenant := tenantName(r.IntN(tenants))
		sp, ok := spans[tenant]
		if !ok {
			if err := exact.QueryRow(ctx, `SELECT coalesce(min(id), 0), coalesce(max(id), 0),
				count(*) FILTER (WHERE layer = 'semantic' AND status = 'active') FROM zb.memory WHERE tenant_id = $1`, tenant).
				Scan(&sp.lo, &sp.hi, &sp.cnt); err != nil {
				return f, err
			}
			spans[tenant] = sp
		}
		var q int64
		err := exact.QueryRow(ctx, `SELECT id FROM zb.memory WHERE tenant_id = $1 AND id >= $2 AND layer = 'semantic'
			AND status = 'active' AND embedding IS NOT NULL ORDER BY id LIMIT 1`, tenant, sp.lo+r.Int64N(sp.hi-sp.lo+1)).Scan(&q)
		if errors.Is(err, pgx.ErrNoRows) {
			err = exact.QueryRow(ctx, `SELECT id FROM zb.memory WHERE tenant_id = $1 AND layer = 'semantic'
				AND status = 'active' AND embedding IS NOT NULL ORDER BY id LIMIT 1`, tenant).Scan(&q)
		}
		if err != nil {
			return f, fmt.Errorf("perf: a semantic memory of tenant %s: %w", tenant, err)
		}
		matches += sp.cnt
		t := time.Now()
		want, err := queryIDs(ctx, exact, `SELECT m.id FROM zb.memory q JOIN zb.memory m ON m.tenant_id = q.tenant_id
			WHERE q.tenant_id = $1 AND q.id = $2 AND m.layer = 'semantic' AND m.status = 'active' AND m.embedding IS NOT NULL
			  AND m.id <> q.id
			ORDER BY (m.embedding <=> q.embedding) + 0, m.id LIMIT $3`, tenant, q, K)
		if err != nil {
			return f, err
		}
		exactD = append(exactD, time.Since(t))
		t = time.Now()
		got, err := queryIDs(ctx, bdb.pool, `SELECT s.id FROM zb.similar_semantic($1, ARRAY[$2::bigint], $3) s`, tenant, q, K)
		if err != nil {
			return f, err
		}
		ds = append(ds, time.Since(t))
		rc := recallOf(got, want)
		sum += rc
		f.MinRecall = min(f.MinRecall, rc)
	}
	f.RecallAt10 = sum / float64(c.FilteredQueries)
	f.Met = reachesBar(f.RecallAt10)
	f.Latency, f.Exact = summarize(ds), summarize(exactD)
	f.MeanMatches = float64(matches) / float64(c.FilteredQueries)
	c.Logger.Info("filtered", "n", n, "tenants", tenants, "setting", f.Setting, "recall@10", f.RecallAt10, "scan", f.Scan)
	return f, nil
}

// timeRecall runs sql n times, the i-th with args(i), and returns the mean and worst recall of
// its ids against want(i) and each run's latency.
func timeRecall(ctx context.Context, pool *pgxpool.Pool, sql string, n int, args func(i int) []any,
	want func(i int) []int64,
) (mean, worst float64, ds []time.Duration, err error) {
	worst, ds = 1, make([]time.Duration, 0, n)
	sum := 0.0
	for i := range n {
		t := time.Now()
		got, err := queryIDs(ctx, pool, sql, args(i)...)
		if err != nil {
			return 0, 0, nil, err
		}
		ds = append(ds, time.Since(t))
		rc := recallOf(got, want(i))
		sum += rc
		worst = min(worst, rc)
	}
	return sum / float64(max(n, 1)), worst, ds, nil
}

// recallOf is |got ∩ want| / |want| (1 when want is empty).
func recallOf(got, want []int64) float64 {
	if len(want) == 0 {
		return 1
	}
	in := make(map[int64]bool, len(got))
	for _, id := range got {
		in[id] = true
	}
	hit := 0
	for _, id := range want {
		if in[id] {
			hit++
		}
	}
	return float64(hit) / float64(len(want))
}

// scanOf names the scan nodes of an EXPLAIN (FORMAT JSON) plan: index names, or node types.
func scanOf(plan []byte) string {
	var doc []struct {
		Plan map[string]any `json:"Plan"`
	}
	if err := json.Unmarshal(plan, &doc); err != nil || len(doc) == 0 {
		return "?"
	}
	var names []string
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if idx, ok := n["Index Name"].(string); ok {
			names = append(names, fmt.Sprint(n["Node Type"])+" "+idx)
		} else if t, _ := n["Node Type"].(string); strings.Contains(t, "Scan") {
			names = append(names, t)
		}
		if kids, ok := n["Plans"].([]any); ok {
			for _, k := range kids {
				if m, ok := k.(map[string]any); ok {
					walk(m)
				}
			}
		}
	}
	walk(doc[0].Plan)
	return strings.Join(names, " + ")
}
