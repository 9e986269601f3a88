package lifecycle

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/zenbrain/zb/bench/internal/stmtstats"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/embed"
	"github.com/zenbrain/zb/jobs"
)

// SleepFigure is the sleep benchmark at one size.
type SleepFigure struct {
	// N is the tenant's memory count (half episodic, half semantic), all derived before the
	// sleep; Copied how many of them are server-side copies of the first Config.SleepDerived
	// (with their derived rows), 0 when N ≤ Config.SleepDerived.
	N      int `json:"n"`
	Copied int `json:"copied,omitempty"`
	// Setup is the time to load and derive the N memories (not part of the figure).
	Setup Seconds `json:"setup_s"`
	// Sleep is the time of the tenant's sleep: the Sleep rounds (coordinator.SleepOpts.Round)
	// until its window is exhausted; Rounds their number and MaxEpisodes the episodes per round.
	Sleep       Seconds `json:"sleep_s"`
	Rounds      int     `json:"rounds"`
	MaxEpisodes int     `json:"max_episodes"`
	// Ratio is Sleep over the first size's Sleep (1k by default); StepRatio over the previous
	// size's (0 for the first).
	Ratio     float64 `json:"ratio"`
	StepRatio float64 `json:"step_ratio,omitempty"`
	// Target and Met apply to every size after the first: Ratio ≤ SleepTarget(N / first N).
	Target float64 `json:"target,omitempty"`
	Met    *bool   `json:"met,omitempty"`
	// The sleep's figures summed over its rounds: episodes considered, LTP, LTD, new
	// associations, pruned edges, archives, schemas; and the tenant's edges before the first.
	Episodes        int `json:"episodes"`
	LTP             int `json:"ltp"`
	LTD             int `json:"ltd"`
	NewAssociations int `json:"new_associations"`
	Pruned          int `json:"pruned"`
	Archived        int `json:"archived"`
	Schemas         int `json:"schemas"`
	EdgesBefore     int `json:"edges_before"`
	// RoundP50 and RoundMax are the median and the longest round (seconds).
	RoundP50 Seconds `json:"round_p50_s"`
	RoundMax Seconds `json:"round_max_s"`
	// SetupStatements are the top statements of the setup (store and derivation) and
	// SleepStatements those of the rounds, by total time (pg_stat_statements), or empty with
	// StatementsUnavailable saying why.
	SetupStatements       []stmtstats.Statement `json:"setup_statements,omitempty"`
	SleepStatements       []stmtstats.Statement `json:"sleep_statements,omitempty"`
	StatementsUnavailable string                `json:"statements_unavailable,omitempty"`
}

// sleepTopStatements is how many statements each of a figure's lists keeps.
const sleepTopStatements = 8

// benchSleep loads and derives each size in a database of its own, then times the tenant's
// sleep: every round of its window.
func benchSleep(ctx context.Context, c *Config) ([]SleepFigure, error) {
	var out []SleepFigure
	for _, n := range c.SleepSizes {
		f, err := sleepOne(ctx, c, n)
		if err != nil {
			return nil, fmt.Errorf("at %d: %w", n, err)
		}
		f.Ratio = 1
		if len(out) > 0 {
			f.Ratio = float64(f.Sleep) / float64(out[0].Sleep)
			f.StepRatio = float64(f.Sleep) / float64(out[len(out)-1].Sleep)
			f.Target = SleepTarget(float64(n) / float64(out[0].N))
			met := f.Ratio <= f.Target
			f.Met = &met
		}
		c.Logger.Info("sleep", "n", n, "sleep_s", f.Sleep, "ratio", f.Ratio, "target", f.Target, "episodes", f.Episodes)
		out = append(out, *f)
	}
	return out, nil
}

// SleepTarget is the largest acceptable sleep time of a tenant scale times the first size's,
// over the first size's time: SleepTargetRatio per tenfold, SleepTargetRatio^log10(scale)
// (12× at 10×, 144× at 100×, ≈ 2.1× at 2×), so that cost proportional to the tenant's size
// passes at every size with 20 % per decade to spare and a quadratic cost fails from 2× on.
func SleepTarget(scale float64) float64 {
	return math.Pow(SleepTargetRatio, math.Log10(scale))
}

func sleepOne(ctx context.Context, c *Config, n int) (*SleepFigure, error) {
	bdb, err := newDB(ctx, c, 8)
	if err != nil {
		return nil, err
	}
	defer bdb.drop()
	emb, err := embed.New(&embed.Config{Dim: c.Dim})
	if err != nil {
		return nil, err
	}
	co, err := coordinator.New(&coordinator.Config{Pool: bdb.pool, Embedder: emb})
	if err != nil {
		return nil, err
	}
	tenant := "sleep"
	unavailable := stmtstats.Reset(ctx, bdb.pool)
	began := time.Now()
	copied, err := sleepSetup(ctx, c, co, bdb.pool, tenant, n)
	if err != nil {
		return nil, err
	}
	f := &SleepFigure{N: n, Copied: copied, Setup: secs(time.Since(began)), StatementsUnavailable: unavailable}
	if unavailable == "" {
		if f.SetupStatements, err = stmtstats.Top(ctx, bdb.pool, sleepTopStatements); err != nil {
			return nil, err
		}
	}
	if _, err := bdb.pool.Exec(ctx, `DELETE FROM river.river_job`); err != nil {
		return nil, err
	}
	if err := steady(ctx, c, bdb.pool); err != nil {
		return nil, err
	}
	if unavailable == "" {
		if unavailable = stmtstats.Reset(ctx, bdb.pool); unavailable != "" {
			return nil, fmt.Errorf("pg_stat_statements stopped working after the setup: %s", unavailable)
		}
	}
	f.MaxEpisodes = coordinator.SleepMaxEpisodes
	var rounds []time.Duration
	for round := 0; ; round++ {
		t0 := time.Now()
		rep, err := co.Sleep(ctx, tenant, &coordinator.SleepOpts{Trigger: "benchmark", Seed: int64(c.Seed), Round: round}, nil)
		if err != nil {
			return nil, err
		}
		took := time.Since(t0)
		f.Sleep += secs(took)
		rounds = append(rounds, took)
		if round == 0 {
			f.EdgesBefore = rep.EdgesBefore
		}
		f.Rounds++
		f.Episodes, f.LTP, f.LTD, f.NewAssociations = f.Episodes+rep.Episodes, f.LTP+rep.LTP, f.LTD+rep.LTD, f.NewAssociations+rep.NewAssociations
		f.Pruned, f.Archived, f.Schemas = f.Pruned+rep.Pruned, f.Archived+rep.Archived, f.Schemas+rep.SchemasCreated
		if !rep.More {
			break
		}
		if round > n/f.MaxEpisodes+1 {
			return nil, fmt.Errorf("sleep of %d memories still had more after %d rounds", n, f.Rounds)
		}
	}
	f.RoundP50, f.RoundMax = secs(median(rounds)), secs(slices.Max(rounds))
	if unavailable == "" {
		if f.SleepStatements, err = stmtstats.Top(ctx, bdb.pool, sleepTopStatements); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// sleepSetup gives tenant n derived memories: one generated corpus of up to c.SleepDerived
// memories stored in batches of at most coordinator.MaxBatch (the same rows as one call for the
// sizes that fit in one) and derived, then copyDerived for the rest, whose count it returns.
func sleepSetup(ctx context.Context, c *Config, co *coordinator.Coordinator, pool *pgxpool.Pool, tenant string, n int) (int, error) {
	r := rand.New(rand.NewPCG(c.Seed, uint64(n)+17))
	began := time.Now()
	base := min(n, c.SleepDerived)
	items := genItems(r, tenant, base)
	for start := 0; start < base; start += coordinator.MaxBatch {
		if _, err := co.StoreBatch(ctx, items[start:min(base, start+coordinator.MaxBatch)]); err != nil {
			return 0, err
		}
	}
	items = nil
	c.Logger.Info("sleep setup: stored", "n", base, "elapsed_s", secs(time.Since(began)))
	lastLog := time.Now()
	for derived := 0; ; {
		rep, err := co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, Pending: true, RecheckSupersede: true}, nil)
		if err != nil {
			return 0, err
		}
		derived += len(rep.Derived)
		if !rep.More {
			break
		}
		if time.Since(lastLog) > time.Minute {
			c.Logger.Info("sleep setup: deriving", "n", base, "derived", derived, "elapsed_s", secs(time.Since(began)))
			lastLog = time.Now()
		}
	}
	if n > base {
		if err := copyDerived(ctx, c, pool, tenant, n-base); err != nil {
			return 0, fmt.Errorf("error copying the derived memories: %w", err)
		}
		c.Logger.Info("sleep setup: copied", "n", n, "elapsed_s", secs(time.Since(began)))
	}
	return n - base, nil
}

// copyDerived adds extra memories to tenant as server-side copies of its stored and derived
// ones, copy after copy, each with new ids (the originals' plus a multiple of a span above every
// id of the table) and the derived rows that hang on them: mentions (and the entities' mention
// counts), review states, triple copies, links and confidence evidence whose ends are copied
// too, source_ids and superseded_by pointing into the same copy. Content, embeddings, timestamps
// and FSRS state are the originals', so a copied memory sleeps as its original does; entity
// edges are the derivation's (they saturate on the generated corpus: 390 from 10k memories on).
// Each copy is one transaction, logged; the embedding's HNSW index is built afresh after them.
func copyDerived(ctx context.Context, c *Config, pool *pgxpool.Pool, tenant string, extra int) error {
	ids, err := tenantIDs(ctx, pool, tenant)
	if err != nil {
		return err
	}
	var span int64
	if err := pool.QueryRow(ctx, `SELECT max(id) + 1 FROM zb.memory`).Scan(&span); err != nil {
		return err
	}
	// The HNSW index is dropped for the copies and built again after them, as the migration
	// defines it: inserting the copies one by one into the graph cost ≈ 2.5 ms a memory here
	// (most of a 1M setup), building it takes minutes.
	var hnswDef string
	if err := pool.QueryRow(ctx, `SELECT pg_get_indexdef('zb.memory_embedding_hnsw_idx'::regclass)`).Scan(&hnswDef); err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, `DROP INDEX zb.memory_embedding_hnsw_idx`); err != nil {
		return err
	}
	for k := int64(1); extra > 0; k++ {
		cnt := min(extra, len(ids))
		lo, hi, off := ids[0], ids[cnt-1], k*span
		began := time.Now()
		if err := copyOnce(ctx, pool, tenant, lo, hi, off); err != nil {
			return fmt.Errorf("copy %d: %w", k, err)
		}
		extra -= cnt
		c.Logger.Info("sleep setup: copy", "copy", k, "memories", cnt, "left", extra, "s", secs(time.Since(began)))
	}
	if _, err := pool.Exec(ctx, `SELECT setval(pg_get_serial_sequence('zb.memory', 'id'), (SELECT max(id) FROM zb.memory))`); err != nil {
		return err
	}
	began := time.Now()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	for _, sql := range []string{`SET maintenance_work_mem = '2GB'`, hnswDef, `RESET maintenance_work_mem`} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return fmt.Errorf("error rebuilding the HNSW index: %w", err)
		}
	}
	c.Logger.Info("sleep setup: HNSW index rebuilt", "s", secs(time.Since(began)))
	return nil
}

// copyOnce runs copyDerivedSQL in one transaction.
func copyOnce(ctx context.Context, pool *pgxpool.Pool, tenant string, lo, hi, off int64) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	for _, sql := range copyDerivedSQL {
		if _, err := tx.Exec(ctx, sql, tenant, lo, hi, off); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

// copyDerivedSQL are copyDerived's statements for one copy: $1 the tenant, $2 and $3 the first
// and last original id, $4 the offset of the copies' ids.
var copyDerivedSQL = []string{
	`INSERT INTO zb.memory (id, tenant_id, context, layer, kind, content, ts_config, embedding, embedding_model, session_id,
		external_id, core_label, subject, attribute, occurred_at, created_at, updated_at, derived_at, source_ids, metadata, status,
		superseded_by, valid_from, valid_to, valence, arousal, significance, importance, priority, access_count, last_accessed_at,
		stability, difficulty, fade_at, value_estimate, conf_alpha, conf_beta, confidence, ai_generated, terms, term_count,
		event_from, event_to)
	OVERRIDING SYSTEM VALUE
	SELECT id + $4, tenant_id, context, layer, kind, content, ts_config, embedding, embedding_model, session_id,
		external_id || '#' || $4, core_label || '#' || $4, subject, attribute, occurred_at, created_at, updated_at, derived_at,
		ARRAY(SELECT CASE WHEN s BETWEEN $2 AND $3 THEN s + $4 ELSE s END FROM unnest(source_ids) AS s), metadata, status,
		CASE WHEN superseded_by BETWEEN $2 AND $3 THEN superseded_by + $4 END, valid_from, valid_to, valence, arousal,
		significance, importance, priority, access_count, last_accessed_at, stability, difficulty, fade_at, value_estimate,
		conf_alpha, conf_beta, confidence, ai_generated, terms, term_count, event_from, event_to
	FROM zb.memory WHERE tenant_id = $1 AND id BETWEEN $2 AND $3 ORDER BY id`,
	`INSERT INTO zb.mention (tenant_id, memory_id, entity_id, span_start, span_end)
	SELECT tenant_id, memory_id + $4, entity_id, span_start, span_end FROM zb.mention
	WHERE tenant_id = $1 AND memory_id BETWEEN $2 AND $3`,
	`UPDATE zb.entity e SET mention_count = e.mention_count + m.n
	FROM (SELECT entity_id, count(*)::int AS n FROM zb.mention WHERE tenant_id = $1 AND memory_id BETWEEN $2 AND $3
	      GROUP BY entity_id) m
	WHERE e.tenant_id = $1 AND e.id = m.entity_id AND $4::bigint IS NOT NULL`, // every statement takes the four parameters
	`INSERT INTO zb.review_state (tenant_id, memory_id, stability, difficulty, due, reps, lapses, state, elapsed_days,
		scheduled_days, last_review, context_embedding, accesses_at_review)
	SELECT tenant_id, memory_id + $4, stability, difficulty, due, reps, lapses, state, elapsed_days, scheduled_days,
		last_review, context_embedding, accesses_at_review
	FROM zb.review_state WHERE tenant_id = $1 AND memory_id BETWEEN $2 AND $3`,
	`INSERT INTO zb.triple_copy (tenant_id, memory_id, copy, initial_strength, tau_seconds, created_at)
	SELECT tenant_id, memory_id + $4, copy, initial_strength, tau_seconds, created_at
	FROM zb.triple_copy WHERE tenant_id = $1 AND memory_id BETWEEN $2 AND $3`,
	`INSERT INTO zb.memory_link (tenant_id, source_id, target_id, relation, weight, origin, created_at)
	SELECT tenant_id, source_id + $4, target_id + $4, relation, weight, origin, created_at
	FROM zb.memory_link WHERE tenant_id = $1 AND source_id BETWEEN $2 AND $3 AND target_id BETWEEN $2 AND $3`,
	`INSERT INTO zb.confidence_evidence (tenant_id, memory_id, kind, weight, source, source_memory_id, created_at)
	SELECT tenant_id, memory_id + $4, kind, weight, source,
		CASE WHEN source_memory_id BETWEEN $2 AND $3 THEN source_memory_id + $4 END, created_at
	FROM zb.confidence_evidence WHERE tenant_id = $1 AND memory_id BETWEEN $2 AND $3`,
}
