package perf

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/zenbrain/zb/embed"
)

// Floor is the least vector work of recall's candidate generation (DESIGN.md §5 step 2: per
// layer the top K by cosine, beside the top K by BM25) as one plain SQL statement, timed
// interleaved with the bare query and recall on the same questions. Recall cannot do less
// than its vector candidates, so the statement is a lower bound of its time at its
// ef_search, not a way to recall: where it is near or above the target ratio, recall at that
// ef_search cannot meet the target, whatever the rest costs (the per-layer ladder, LayerLadder,
// shows whether a smaller ef_search would keep the accuracy bar); where it is well below, the
// gap is the rest.
//
// Which statement depends on the tenants' size, as recall's vector half does (exact up to
// FloorExactMax active memories, one HNSW scan above):
//   - FloorExact: the tenant's active rows sorted by distance within each layer, each layer's
//     top K (what zb.recall_vector_half runs for a small tenant, without its filters).
//   - FloorScan: the tenant's 10·K nearest from one HNSW scan at recall's ef_search
//     (zb.recall_ef_search of the tenant's size) with recall's settings, each layer's top K
//     among them (zb.recall_vector_scan's first statement, without PL/pgSQL, its filters and
//     the planning of every call, and without the extra scan of a layer left short of K).
//
// Left out either way: the lexical half, the corpus statistics, the session neighbours and
// edges, the rows' columns, the fusion and the client's work. Before the timed questions the
// statement's candidates are checked against recall's own vector half (zb.recall_vector_half)
// for the warm-up questions: they must be among them, so the floor does the same vector work.
type Floor struct {
	// Kind is FloorExact or FloorScan; EfSearch the scan's ef_search (FloorScan only).
	Kind     string `json:"kind"`
	EfSearch int    `json:"ef_search,omitempty"`
	// Checked is the number of warm-up questions whose vector candidates were checked against
	// recall's vector half.
	Checked int `json:"checked"`
	// Latency is the statement over the timed questions; Rows the mean candidates it returned.
	Latency Latency `json:"latency"`
	Rows    float64 `json:"rows"`
	// P50Ratio and P99Ratio are Latency over the bare query's; RecallP50Ratio read-only
	// recall's p50 over Latency's (what recall adds to its least work).
	P50Ratio       float64 `json:"p50_ratio"`
	P99Ratio       float64 `json:"p99_ratio"`
	RecallP50Ratio float64 `json:"recall_p50_ratio"`
	// AtBar (FloorScan, where the one scan's per-layer ladder reached the accuracy bar) is the
	// statement at the ladder's ef_search, BarEf, against the bare query, alternated question
	// by question over InterleaveRounds passes of fresh questions: the least vector work of a
	// recall whose ef_search fitted this graph exactly.
	BarEf int          `json:"bar_ef_search,omitempty"`
	AtBar *Interleaved `json:"at_bar,omitempty"`
}

// The kinds of Floor.
const (
	FloorExact = "exact pass"
	FloorScan  = "one HNSW scan"
)

// FloorExactMax is the tenant size up to which recall's vector half sorts the tenant exactly
// (zb.recall_vector_half) and the floor is FloorExact.
const FloorExactMax = 1000

// floorExactSQL is FloorExact: $1 tenant, $2 query vector, $3 K.
const floorExactSQL = `SELECT coalesce(array_agg(r.id), '{}')
	FROM (
		SELECT m.id, row_number() OVER (PARTITION BY m.layer ORDER BY m.embedding <=> $2, m.id) AS rn
		FROM zb.memory m
		WHERE m.tenant_id = $1 AND m.status = 'active' AND m.embedding IS NOT NULL
	) r
	WHERE r.rn <= $3`

// floorScanSQL is FloorScan: $1 tenant, $2 query vector, $3 K.
const floorScanSQL = `SELECT coalesce(array_agg(r.id), '{}')
	FROM (
		SELECT g.id, row_number() OVER (PARTITION BY g.layer ORDER BY g.d, g.id) AS rn
		FROM (SELECT m.id, m.layer, m.embedding <=> $2 AS d FROM zb.memory m
		      WHERE m.tenant_id = $1 AND m.status = 'active' AND m.embedding IS NOT NULL
		      ORDER BY m.embedding <=> $2 LIMIT $3 * 10) g
	) r
	WHERE r.rn <= $3`

// floorRunner runs the floor statement of one layout on a pool of its own.
type floorRunner struct {
	f    *Floor
	sql  string
	pool *pgxpool.Pool
	rows int
}

// newFloor prepares the floor of a layout of tenants of size per (the caller closes the pool).
func newFloor(ctx context.Context, bdb *benchDB, per int) (*floorRunner, error) {
	fr := &floorRunner{f: &Floor{Kind: FloorExact}, sql: floorExactSQL}
	settings := maps.Clone(bareSettings)
	settings["jit"] = "off"
	if per > FloorExactMax {
		fr.f.Kind, fr.sql = FloorScan, floorScanSQL
		if err := bdb.pool.QueryRow(ctx, `SELECT zb.recall_ef_search($1)`, int64(per)).Scan(&fr.f.EfSearch); err != nil {
			return nil, err
		}
		settings = scanSettings(fr.f.EfSearch)
	}
	var err error
	if fr.pool, err = newPoolWith(ctx, bdb.url, "zbperfbench-floor", 2, settings); err != nil {
		return nil, err
	}
	return fr, nil
}

// scanSettings are the session settings of recall's vector scan at ef_search ef.
func scanSettings(ef int) map[string]string {
	s := efSettings(ef)
	maps.Copy(s, layerSettings)
	return s
}

// run runs the statement for one question and counts its candidates.
func (fr *floorRunner) run(ctx context.Context, tenant string, v []float32) (vec []int64, err error) {
	if err := fr.pool.QueryRow(ctx, fr.sql, tenant, pgvector.NewVector(v), K).Scan(&vec); err != nil {
		return nil, fmt.Errorf("the floor statement (%s): %w", fr.f.Kind, err)
	}
	fr.rows += len(vec)
	return vec, nil
}

// check runs the statement for one warm-up question and requires its vector candidates to be
// among recall's vector half's (zb.recall_vector_half, every layer, K each) for it.
func (fr *floorRunner) check(ctx context.Context, bdb *benchDB, tenant string, v []float32) error {
	vec, err := fr.run(ctx, tenant, v)
	if err != nil {
		return err
	}
	var half []int64
	if err := bdb.pool.QueryRow(ctx, `SELECT zb.recall_vector_half($1, $2, enum_range(NULL::zb.memory_layer), $3, now(),
		NULL, NULL, NULL, NULL, false, NULL)`, tenant, pgvector.NewVector(v), K).Scan(&half); err != nil {
		return fmt.Errorf("recall's vector half: %w", err)
	}
	for _, id := range vec {
		if !slices.Contains(half, id) {
			return fmt.Errorf("the floor statement (%s) found memory %d for tenant %s, recall's vector half did not (%d against %d candidates)",
				fr.f.Kind, id, tenant, len(vec), len(half))
		}
	}
	fr.f.Checked++
	fr.rows = 0
	return nil
}

// atBar measures Floor.AtBar: the scan statement at ef_search bar against the bare query (on
// pool bare), alternated over InterleaveRounds passes of Config.FilteredQueries fresh questions
// after one untimed pass.
func (fr *floorRunner) atBar(ctx context.Context, c *Config, bdb *benchDB, bare *pgxpool.Pool, emb embed.Embedder, bar, n, tenants int) error {
	pool, err := newPoolWith(ctx, bdb.url, "zbperfbench-floor-bar", 1, scanSettings(bar))
	if err != nil {
		return err
	}
	defer pool.Close()
	type question struct {
		tenant string
		v      pgvector.Vector
	}
	r := rand.New(rand.NewPCG(c.Seed, uint64(n)+29))
	qs := make([]question, c.FilteredQueries)
	for i := range qs {
		vs, err := emb.Embed(ctx, []string{genQuery(r)})
		if err != nil {
			return err
		}
		qs[i] = question{tenantName(r.IntN(tenants)), pgvector.NewVector(vs[0])}
	}
	at, err := alternate(len(qs), 1, func(i int) error {
		var ids []int64
		return pool.QueryRow(ctx, floorScanSQL, qs[i].tenant, qs[i].v, K).Scan(&ids)
	}, func(i int) error {
		_, err := queryIDs(ctx, bare, bareSQL, qs[i].tenant, qs[i].v, K)
		return err
	})
	if err != nil {
		return fmt.Errorf("the floor at ef_search %d: %w", bar, err)
	}
	fr.f.BarEf, fr.f.AtBar = bar, at
	return nil
}

// finish fills the floor's latency and ratios from its timed questions.
func (fr *floorRunner) finish(timed []time.Duration, f *RecallFigure) {
	fl := fr.f
	fl.Latency = summarize(timed)
	if fl.Latency.N > 0 {
		fl.Rows = float64(fr.rows) / float64(fl.Latency.N)
	}
	fl.P50Ratio, fl.P99Ratio = ratio(fl.Latency.P50, f.Bare.P50), ratio(fl.Latency.P99, f.Bare.P99)
	fl.RecallP50Ratio = ratio(f.ReadOnly.P50, fl.Latency.P50)
	f.Floor = fl
}
