package lifecycle

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/embed"
	"github.com/zenbrain/zb/jobs"
	"github.com/zenbrain/zb/worker"
)

// DeriveFigure is the derive benchmark.
type DeriveFigure struct {
	// Memories is the number derived: Tenants × the memories per tenant.
	Memories int `json:"memories"`
	Tenants  int `json:"tenants"`
	// Workers is the number of worker replicas (one job slot each, own pool).
	Workers int `json:"workers"`
	// Derive is the time from starting the workers until every memory is derived;
	// DerivePerSecond the throughput.
	Derive          Seconds `json:"derive_s"`
	DerivePerSecond float64 `json:"derive_per_s"`
	// Insert is the time of the plain INSERTs of the same rows with precomputed embeddings
	// (one multi-row INSERT per tenant); InsertPerSecond their throughput.
	Insert          Seconds `json:"insert_s"`
	InsertPerSecond float64 `json:"insert_per_s"`
	// Ratio is DerivePerSecond / InsertPerSecond; Met reports Ratio ≥ Target (DeriveTargetRatio).
	Ratio  float64 `json:"ratio"`
	Target float64 `json:"target"`
	Met    bool    `json:"met"`
	// Mentions and Edges count what derivation wrote.
	Mentions int64 `json:"mentions"`
	Edges    int64 `json:"edges"`
}

// benchDerive loads memories without embeddings (DeferEmbedding), lets c.DeriveWorkers worker
// replicas derive them (embedding with the hash embedder), then inserts the same rows with
// precomputed embeddings through plain INSERTs.
func benchDerive(ctx context.Context, c *Config) (*DeriveFigure, error) {
	bdb, err := newDB(ctx, c, 8)
	if err != nil {
		return nil, err
	}
	defer bdb.drop()
	emb, err := embed.New(&embed.Config{Dim: c.Dim})
	if err != nil {
		return nil, err
	}
	loader, err := coordinator.New(&coordinator.Config{Pool: bdb.pool, Embedder: emb, DeferEmbedding: true})
	if err != nil {
		return nil, err
	}
	f := &DeriveFigure{
		Tenants: c.DeriveTenants, Workers: c.DeriveWorkers, Memories: c.DeriveTenants * c.DerivePerTenant,
		Target: DeriveTargetRatio,
	}
	r := rand.New(rand.NewPCG(c.Seed, 99))
	texts := make([][]string, c.DeriveTenants)
	for t := range c.DeriveTenants {
		items := genItems(r, "derive-"+strconv.Itoa(t), c.DerivePerTenant)
		for _, it := range items {
			texts[t] = append(texts[t], it.Content)
		}
		if _, err := loader.StoreBatch(ctx, items); err != nil {
			return nil, err
		}
	}
	if err := steady(ctx, c, bdb.pool); err != nil {
		return nil, err
	}

	// Worker replicas, each with its own pool and coordinator, like separate processes.
	var ws []*worker.Worker
	var pools []*pgxpool.Pool
	defer func() {
		for _, p := range pools {
			p.Close()
		}
	}()
	for i := range c.DeriveWorkers {
		pool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: bdb.url, ApplicationName: "zblifecyclebench-worker", MaxConns: 6})
		if err != nil {
			return nil, err
		}
		pools = append(pools, pool)
		co, err := coordinator.New(&coordinator.Config{Pool: pool, Embedder: emb})
		if err != nil {
			return nil, err
		}
		w, err := worker.New(&worker.Config{
			Pool: pool, Coordinator: co, Concurrency: 1, Queues: []string{jobs.QueueDerive},
			ID: "bench-" + strconv.Itoa(i), DecayInterval: -1, ReviewInterval: -1, SleepInterval: -1, SweepInterval: -1,
			IdleInterval: -1, VacuumInterval: -1, Logger: c.Logger,
		})
		if err != nil {
			return nil, err
		}
		ws = append(ws, w)
	}
	stopAll := func() error {
		var first error
		for _, w := range ws {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			if err := w.Stop(sctx); err != nil && first == nil {
				first = err
			}
			cancel()
		}
		return first
	}
	t0 := time.Now()
	for _, w := range ws {
		if err := w.Start(ctx); err != nil {
			_ = stopAll()
			return nil, err
		}
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var left int
		if err := bdb.pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory WHERE derived_at IS NULL`).Scan(&left); err != nil {
			_ = stopAll()
			return nil, err
		}
		if left == 0 {
			break
		}
		select {
		case <-ctx.Done():
			_ = stopAll()
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
	derive := time.Since(t0)
	if err := stopAll(); err != nil {
		return nil, err
	}
	if err := bdb.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM zb.mention), (SELECT count(*) FROM zb.edge)`).Scan(&f.Mentions, &f.Edges); err != nil {
		return nil, err
	}

	// Baseline: the same rows, embeddings computed beforehand, one plain INSERT per tenant.
	vecs := make([][]string, len(texts))
	for t, ts := range texts {
		vs, err := emb.Embed(ctx, ts)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			vecs[t] = append(vecs[t], vectorLiteral(v))
		}
		if _, err := bdb.pool.Exec(ctx, `INSERT INTO zb.tenant (id) VALUES ($1)`, "plain-"+strconv.Itoa(t)); err != nil {
			return nil, err
		}
	}
	t0 = time.Now()
	for t := range texts {
		if _, err := bdb.pool.Exec(ctx, `
			INSERT INTO zb.memory (tenant_id, layer, content, created_at, updated_at, last_accessed_at, stability,
			                       embedding, embedding_model, derived_at)
			SELECT $1, 'semantic', u.c, now(), now(), now(), 7, u.e::vector, 'hash', now()
			FROM unnest($2::text[], $3::text[]) AS u(c, e)`, "plain-"+strconv.Itoa(t), texts[t], vecs[t]); err != nil {
			return nil, fmt.Errorf("plain insert: %w", err)
		}
	}
	insert := time.Since(t0)
	f.Derive, f.Insert = secs(derive), secs(insert)
	f.DerivePerSecond = float64(f.Memories) / derive.Seconds()
	f.InsertPerSecond = float64(f.Memories) / insert.Seconds()
	f.Ratio = f.DerivePerSecond / f.InsertPerSecond
	f.Met = f.Ratio >= f.Target
	return f, nil
}

func vectorLiteral(v []float32) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	b.WriteByte(']')
	return b.String()
}
