package lifecycle

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/zenbrain/zb/coordinator"
)

// DecayFigure is the decay benchmark at one size.
type DecayFigure struct {
	// N is the tenant's memory count; Faded the memories whose fade time had passed (N ×
	// Config.FadedFraction).
	N     int `json:"n"`
	Faded int `json:"faded"`
	// Examined, Archived and Rescheduled are DecayDue's counts of the last run.
	Examined    int `json:"examined"`
	Archived    int `json:"archived"`
	Rescheduled int `json:"rescheduled"`
	// RowsRead is the number of zb.memory rows one DecayDue transaction read (PostgreSQL's
	// pg_stat_xact_user_tables: sequential plus index tuple fetches, measured in an extra,
	// untimed run) and SeqScans its sequential scans of zb.memory: the proof that decay examines
	// the faded rows only (about two reads per faded row: the candidate scan and the update).
	RowsRead int64 `json:"rows_read"`
	SeqScans int64 `json:"seq_scans"`
	// Load is the time StoreBatch took to load the N memories.
	Load Seconds `json:"load_s"`
	// Decay and Archive are the median times of DecayDue and of the plain archiving UPDATE;
	// DecayRuns and ArchiveRuns every repeat.
	Decay       Seconds   `json:"decay_s"`
	Archive     Seconds   `json:"archive_s"`
	DecayRuns   []Seconds `json:"decay_runs_s"`
	ArchiveRuns []Seconds `json:"archive_runs_s"`
	// Ratio is Decay / Archive; Met reports Ratio ≤ Target (DecayTargetRatio).
	Ratio  float64 `json:"ratio"`
	Target float64 `json:"target"`
	Met    bool    `json:"met"`
}

const decayTenant = "decay"

// DecaySeedRows is how many memories of the decay benchmark StoreBatch loads; the rest are
// server-side copies of them (INSERT … SELECT).
const DecaySeedRows = 20_000

// benchDecay times DecayDue over n memories of which a fraction has faded against a plain
// UPDATE archiving exactly those rows, each repeated c.Repeats times from the same state.
func benchDecay(ctx context.Context, c *Config, n int) (*DecayFigure, error) {
	bdb, err := newDB(ctx, c, 8)
	if err != nil {
		return nil, err
	}
	defer bdb.drop()
	pool := bdb.pool
	// No embedder: decay does not read embeddings of memories without a recall context, and
	// loading without the HNSW index updates is much faster.
	co, err := coordinator.New(&coordinator.Config{Pool: pool})
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(c.Seed, uint64(n)))
	began := time.Now()
	ids, err := loadTenant(ctx, pool, co, r, decayTenant, n)
	if err != nil {
		return nil, err
	}
	f := &DecayFigure{N: n, Load: secs(time.Since(began)), Target: DecayTargetRatio}
	r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	faded := ids[:max(1, int(float64(n)*c.FadedFraction))]
	f.Faded = len(faded)
	if f.Faded > coordinator.MaxLifecycleLimit {
		return nil, fmt.Errorf("%d faded memories exceed one DecayDue call's limit %d", f.Faded, coordinator.MaxLifecycleLimit)
	}
	// StoreBatch gave every memory a fade time in the future (days away); the chosen ones are
	// made faded: accessed 400 days ago with a stability of one day (R ≈ e^-400 < 0.1), their
	// fade time passed yesterday.
	var early int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND (fade_at IS NULL OR fade_at <= now() + interval '1 day')`,
		decayTenant).Scan(&early); err != nil {
		return nil, err
	}
	if early > 0 {
		return nil, fmt.Errorf("%d loaded memories fade within a day; the benchmark needs them in the future", early)
	}
	reset := func() error {
		_, err := pool.Exec(ctx, `UPDATE zb.memory SET status = 'active', stability = 1,
			last_accessed_at = now() - interval '400 days', fade_at = now() - interval '1 day'
			WHERE tenant_id = $1 AND id = ANY ($2)`, decayTenant, faded)
		if err != nil {
			return err
		}
		return steady(ctx, c, pool, "zb.memory")
	}
	var decays, archives []time.Duration
	for range c.Repeats {
		if err := reset(); err != nil {
			return nil, err
		}
		t0 := time.Now()
		if _, err := pool.Exec(ctx, `UPDATE zb.memory SET status = 'archived', updated_at = now()
			WHERE tenant_id = $1 AND id = ANY ($2)`, decayTenant, faded); err != nil {
			return nil, err
		}
		archives = append(archives, time.Since(t0))
		if err := reset(); err != nil {
			return nil, err
		}
		t0 = time.Now()
		rep, err := co.DecayDue(ctx, decayTenant, f.Faded+1, nil)
		if err != nil {
			return nil, err
		}
		decays = append(decays, time.Since(t0))
		f.Examined, f.Archived, f.Rescheduled = rep.Examined, len(rep.Archived), rep.Rescheduled
		if rep.Examined != f.Faded {
			return nil, fmt.Errorf("DecayDue examined %d memories, want exactly the %d faded ones", rep.Examined, f.Faded)
		}
	}
	// One more, untimed run counts the zb.memory rows the decay transaction read.
	if err := reset(); err != nil {
		return nil, err
	}
	if _, err := co.DecayDue(ctx, decayTenant, f.Faded+1, func(ctx context.Context, tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT seq_tup_read + coalesce(idx_tup_fetch, 0), seq_scan FROM pg_stat_xact_user_tables
			WHERE schemaname = 'zb' AND relname = 'memory'`).Scan(&f.RowsRead, &f.SeqScans)
	}); err != nil {
		return nil, err
	}
	f.Decay, f.Archive = secs(median(decays)), secs(median(archives))
	for i := range decays {
		f.DecayRuns, f.ArchiveRuns = append(f.DecayRuns, secs(decays[i])), append(f.ArchiveRuns, secs(archives[i]))
	}
	f.Ratio = ratio(median(decays), median(archives))
	f.Met = f.Ratio <= f.Target
	return f, nil
}

// loadTenant loads n generated memories into tenant — DecaySeedRows through StoreBatch, the rest
// as server-side copies of those — drops the derive jobs StoreBatch enqueued (the corpus stands
// for memories derived long ago; nothing else may work on the database) and returns the ids.
func loadTenant(ctx context.Context, pool *pgxpool.Pool, co *coordinator.Coordinator, r *rand.Rand, tenant string, n int) ([]int64, error) {
	seed := min(n, DecaySeedRows)
	for start := 0; start < seed; start += coordinator.MaxBatch / 2 {
		items := genItems(r, tenant, min(coordinator.MaxBatch/2, seed-start))
		if _, err := co.StoreBatch(ctx, items); err != nil {
			return nil, err
		}
	}
	// Larger sizes copy the StoreBatch rows on the server (new ids, every index maintained):
	// loading a million memories through StoreBatch would take most of an hour here.
	for have := seed; have < n; {
		tag, err := pool.Exec(ctx, `INSERT INTO zb.memory (tenant_id, context, layer, kind, content, created_at, updated_at,
				last_accessed_at, stability, fade_at, terms, term_count, valence, arousal, significance, importance, priority,
				derived_at, metadata, source_ids, subject, attribute, occurred_at, event_from, event_to, valid_from, ai_generated)
			SELECT tenant_id, context, layer, kind, content, created_at, updated_at, last_accessed_at, stability, fade_at, terms,
				term_count, valence, arousal, significance, importance, priority, derived_at, metadata, source_ids, subject,
				attribute, occurred_at, event_from, event_to, valid_from, ai_generated
			FROM zb.memory WHERE tenant_id = $1 ORDER BY id LIMIT $2`, tenant, min(have, n-have))
		if err != nil {
			return nil, fmt.Errorf("error copying memories: %w", err)
		}
		have += int(tag.RowsAffected())
	}
	// Nothing else may work on the database: drop the derive jobs StoreBatch enqueued.
	if _, err := pool.Exec(ctx, `DELETE FROM river.river_job`); err != nil {
		return nil, err
	}
	return tenantIDs(ctx, pool, tenant)
}

// tenantIDs returns the ids of tenant's memories in order.
func tenantIDs(ctx context.Context, pool *pgxpool.Pool, tenant string) ([]int64, error) {
	rows, err := pool.Query(ctx, `SELECT id FROM zb.memory WHERE tenant_id = $1 ORDER BY id`, tenant)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}
