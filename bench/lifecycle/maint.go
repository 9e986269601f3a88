package lifecycle

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/dbconn"
)

// MaintFigure is the review and propagation benchmark at one tenant size: both jobs' cost must
// follow their work (the due cards, the touched subgraph), not the tenant's size.
type MaintFigure struct {
	// N is the tenant's memory count; Links the memory links in it (one per MaintLinkEvery
	// memories outside the touched subgraph, plus the subgraph's own).
	N     int `json:"n"`
	Links int `json:"links"`
	// Due is the number of due review cards (N × Config.FadedFraction); Reviewed the number
	// ReviewDue reviewed.
	Due      int `json:"due"`
	Reviewed int `json:"reviewed"`
	// Review and ReviewUpdate are the median times of ReviewDue and of a plain UPDATE
	// rescheduling exactly the due cards; ReviewRatio their ratio.
	Review       Seconds `json:"review_s"`
	ReviewUpdate Seconds `json:"review_update_s"`
	ReviewRatio  float64 `json:"review_ratio"`
	// ReviewRowsRead is the review_state and memory rows one ReviewDue transaction read
	// (pg_stat_xact_user_tables) and ReviewSeqScans its sequential scans of the two tables.
	ReviewRowsRead int64 `json:"review_rows_read"`
	ReviewSeqScans int64 `json:"review_seq_scans"`
	// Nodes and SubgraphLinks are the size of the subgraph Propagate worked on.
	Nodes         int `json:"nodes"`
	SubgraphLinks int `json:"subgraph_links"`
	// Propagate and PropagateUpdate are the median times of Propagate from MaintSeeds memories
	// and of a plain UPDATE writing the confidence of the subgraph's memories; PropagateRatio
	// their ratio.
	Propagate       Seconds `json:"propagate_s"`
	PropagateUpdate Seconds `json:"propagate_update_s"`
	PropagateRatio  float64 `json:"propagate_ratio"`
	// PropagateRowsRead is the memory_link and memory rows one Propagate transaction read.
	PropagateRowsRead int64 `json:"propagate_rows_read"`
	PropagateSeqScans int64 `json:"propagate_seq_scans"`
	// ReviewReads and PropagateReads break the rows read down by table ("seq/index rows").
	ReviewReads    map[string]string `json:"review_reads"`
	PropagateReads map[string]string `json:"propagate_reads"`
	// Load is the time it took to load the tenant.
	Load Seconds `json:"load_s"`
}

const maintTenant = "maint"

// Shape of the propagation benchmark's touched subgraph: MaintSeeds memories, each the root of
// a tree with MaintFanout children per node over two levels (1 + 3 + 9 = 13 memories a tree,
// linked by 'supports'), and one background link per MaintLinkEvery other memories.
const (
	MaintSeeds     = 20
	MaintFanout    = 3
	MaintLinkEvery = 4
)

// MaintSizesDefault are the review/propagation benchmark's default sizes.
var MaintSizesDefault = []int{10_000, 100_000}

// benchMaint measures ReviewDue and Propagate on one tenant of n memories.
func benchMaint(ctx context.Context, c *Config, n int) (*MaintFigure, error) {
	bdb, err := newDB(ctx, c, 8)
	if err != nil {
		return nil, err
	}
	defer bdb.drop()
	pool := bdb.pool
	co, err := coordinator.New(&coordinator.Config{Pool: pool})
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(c.Seed, uint64(n)+7))
	began := time.Now()
	ids, err := loadTenant(ctx, pool, co, r, maintTenant, n)
	if err != nil {
		return nil, err
	}
	f := &MaintFigure{N: n}
	r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	treeSize := 1 + MaintFanout + MaintFanout*MaintFanout
	if len(ids) < MaintSeeds*treeSize*2 {
		return nil, fmt.Errorf("maintenance benchmark needs at least %d memories, got %d", MaintSeeds*treeSize*2, len(ids))
	}
	// Every memory gets a review card, due in a month; the due ones are reset before each run.
	if _, err := pool.Exec(ctx, `INSERT INTO zb.review_state (tenant_id, memory_id, stability, difficulty, due, reps, state, last_review)
		SELECT tenant_id, id, 5, 5, now() + interval '30 days', 3, 2, now() - interval '5 days' FROM zb.memory WHERE tenant_id = $1
		ON CONFLICT (tenant_id, memory_id) DO UPDATE SET due = excluded.due`, maintTenant); err != nil {
		return nil, fmt.Errorf("error creating review cards: %w", err)
	}
	due := ids[:max(1, int(float64(n)*c.FadedFraction))]
	f.Due = len(due)
	// The touched subgraph: MaintSeeds trees over memories not among the due ones.
	var seeds, tree []int64
	var src, dst []int64
	next := len(due)
	take := func() int64 { id := ids[next]; next++; return id }
	for range MaintSeeds {
		root := take()
		seeds, tree = append(seeds, root), append(tree, root)
		level := []int64{root}
		for range 2 {
			var below []int64
			for _, p := range level {
				for range MaintFanout {
					ch := take()
					src, dst = append(src, ch), append(dst, p)
					below, tree = append(below, ch), append(tree, ch)
				}
			}
			level = below
		}
	}
	f.SubgraphLinks = len(src)
	// Background links among the remaining memories, so the link table grows with the tenant.
	rest := ids[next:]
	for i := 0; i+1 < len(rest); i += MaintLinkEvery {
		src, dst = append(src, rest[i]), append(dst, rest[i+1])
	}
	if _, err := pool.Exec(ctx, `INSERT INTO zb.memory_link (tenant_id, source_id, target_id, relation, created_at)
		SELECT $1, s, d, 'supports', now() FROM unnest($2::bigint[], $3::bigint[]) AS u(s, d) ON CONFLICT DO NOTHING`,
		maintTenant, src, dst); err != nil {
		return nil, fmt.Errorf("error creating links: %w", err)
	}
	f.Links = len(src)
	if _, err := pool.Exec(ctx, `DELETE FROM river.river_job`); err != nil {
		return nil, err
	}
	f.Load = secs(time.Since(began))
	resetDue := func() error {
		_, err := pool.Exec(ctx, `UPDATE zb.review_state SET due = now() - interval '1 day', stability = 5, reps = 3, state = 2,
			last_review = now() - interval '5 days' WHERE tenant_id = $1 AND memory_id = ANY ($2)`, maintTenant, due)
		if err != nil {
			return err
		}
		return steady(ctx, c, pool, "zb.review_state", "zb.memory", "zb.memory_link")
	}
	resetConf := func() error {
		_, err := pool.Exec(ctx, `UPDATE zb.memory SET conf_alpha = 2, conf_beta = 1 WHERE tenant_id = $1 AND id = ANY ($2)`, maintTenant, tree)
		return err
	}
	var reviews, reviewUpdates, props, propUpdates []time.Duration
	for range c.Repeats {
		if err := resetDue(); err != nil {
			return nil, err
		}
		t0 := time.Now()
		if _, err := pool.Exec(ctx, `UPDATE zb.review_state SET due = now() + interval '10 days', reps = reps + 1,
			stability = stability * 2, last_review = now() WHERE tenant_id = $1 AND memory_id = ANY ($2)`, maintTenant, due); err != nil {
			return nil, err
		}
		reviewUpdates = append(reviewUpdates, time.Since(t0))
		if err := resetDue(); err != nil {
			return nil, err
		}
		t0 = time.Now()
		rep, err := co.ReviewDue(ctx, maintTenant, f.Due+1, nil)
		if err != nil {
			return nil, err
		}
		reviews = append(reviews, time.Since(t0))
		if f.Reviewed = rep.Reviewed; rep.Reviewed != f.Due {
			return nil, fmt.Errorf("ReviewDue reviewed %d cards, want exactly the %d due ones", rep.Reviewed, f.Due)
		}

		if err := resetConf(); err != nil {
			return nil, err
		}
		t0 = time.Now()
		if _, err := pool.Exec(ctx, `UPDATE zb.memory SET confidence = conf_alpha / (conf_alpha + conf_beta)
			WHERE tenant_id = $1 AND id = ANY ($2)`, maintTenant, tree); err != nil {
			return nil, err
		}
		propUpdates = append(propUpdates, time.Since(t0))
		if err := resetConf(); err != nil {
			return nil, err
		}
		t0 = time.Now()
		prep, err := co.Propagate(ctx, maintTenant, seeds, nil)
		if err != nil {
			return nil, err
		}
		props = append(props, time.Since(t0))
		f.Nodes = prep.Nodes
		if prep.Nodes != len(tree) {
			return nil, fmt.Errorf("lifecycle: Propagate worked on %d memories, want the %d of the touched trees", prep.Nodes, len(tree))
		}
	}
	// Untimed runs count the rows each job's transaction read.
	count := func(tables string, rowsRead, seqScans *int64, by *map[string]string) coordinator.TxHook {
		return func(ctx context.Context, tx pgx.Tx) error {
			if err := tx.QueryRow(ctx, `SELECT coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0), coalesce(sum(seq_scan), 0)
				FROM pg_stat_xact_user_tables WHERE schemaname = 'zb' AND relname = ANY (string_to_array($1, ','))`, tables).
				Scan(rowsRead, seqScans); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, `SELECT relname, seq_scan || ' seq scans, ' || seq_tup_read || ' seq rows, ' || coalesce(idx_tup_fetch, 0) || ' index rows'
				FROM pg_stat_xact_user_tables WHERE schemaname = 'zb' AND seq_tup_read + coalesce(idx_tup_fetch, 0) > 0`)
			if err != nil {
				return err
			}
			*by = map[string]string{}
			for rows.Next() {
				var t, v string
				if err := rows.Scan(&t, &v); err != nil {
					return err
				}
				(*by)[t] = v
			}
			return rows.Err()
		}
	}
	// The counted runs go through one connection whose pending statistics were flushed first,
	// so pg_stat_xact_user_tables holds the job's transaction only.
	one, err := dbconn.NewPool(ctx, &dbconn.Config{URL: bdb.url, ApplicationName: "zblifecyclebench-count", MaxConns: 1})
	if err != nil {
		return nil, err
	}
	defer one.Close()
	co1, err := coordinator.New(&coordinator.Config{Pool: one})
	if err != nil {
		return nil, err
	}
	flush := func() error {
		_, err := one.Exec(ctx, `SELECT pg_stat_force_next_flush()`)
		return err
	}
	if err := resetDue(); err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if _, err := co1.ReviewDue(ctx, maintTenant, f.Due+1, count("review_state,memory", &f.ReviewRowsRead, &f.ReviewSeqScans, &f.ReviewReads)); err != nil {
		return nil, err
	}
	if err := resetConf(); err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if _, err := co1.Propagate(ctx, maintTenant, seeds, count("memory_link,memory", &f.PropagateRowsRead, &f.PropagateSeqScans, &f.PropagateReads)); err != nil {
		return nil, err
	}
	f.Review, f.ReviewUpdate = secs(median(reviews)), secs(median(reviewUpdates))
	f.ReviewRatio = ratio(median(reviews), median(reviewUpdates))
	f.Propagate, f.PropagateUpdate = secs(median(props)), secs(median(propUpdates))
	f.PropagateRatio = ratio(median(props), median(propUpdates))
	return f, nil
}
