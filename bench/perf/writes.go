package perf

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	pgvector "github.com/pgvector/pgvector-go"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/embed"
)

// WriteFigure holds the write benchmarks.
type WriteFigure struct {
	// Rows is the import size and BatchSize the rows per StoreBatch call and per COPY.
	Rows      int `json:"rows"`
	BatchSize int `json:"batch_size"`
	// StoreBatch and Copy are the total times (seconds) of StoreBatch and of the plain COPY
	// of the same rows into a table with the same indexes; the per-second figures their
	// throughput; ImportRatio StoreBatchPerSecond / CopyPerSecond.
	StoreBatch          float64 `json:"storebatch_s"`
	StoreBatchPerSecond float64 `json:"storebatch_per_s"`
	Copy                float64 `json:"copy_s"`
	CopyPerSecond       float64 `json:"copy_per_s"`
	ImportRatio         float64 `json:"import_ratio"`
	ImportTarget        float64 `json:"import_target"`
	ImportMet           bool    `json:"import_met"`
	// EmbedPerText is the hash embedding time per text in StoreBatch's preparation, measured
	// apart (ms); the StoreBatch figure uses precomputed embeddings and excludes it.
	EmbedPerText float64 `json:"embed_per_text_ms"`
	// Store is coordinator.Store with a precomputed embedding; Insert a plain single-row
	// INSERT of the same kind of row, with the vector Store stored, into the copy table;
	// StoreRatio Store p50 / Insert p50.
	Store      Latency `json:"store"`
	Insert     Latency `json:"insert"`
	StoreRatio float64 `json:"store_ratio"`
	// StoreP50MS repeats Store.P50 (the target is ≤ 2 ms on a quiet machine).
	StoreP50MS float64 `json:"store_p50_ms"`
	// Deferred is coordinator.Store with Config.DeferEmbedding (the row is written without
	// its vector; the worker's derive job embeds it and writes the vector into the HNSW
	// graph later); InsertNoVector the plain INSERT of the same kind of row without its
	// vector; DeferredRatio Deferred p50 / InsertNoVector p50. Measured interleaved with the
	// two above.
	Deferred       Latency `json:"store_deferred"`
	InsertNoVector Latency `json:"insert_no_vector"`
	DeferredRatio  float64 `json:"store_deferred_ratio"`
}

// benchWrites measures StoreBatch against COPY and Store against INSERT in a fresh database.
func benchWrites(ctx context.Context, c *Config) (*WriteFigure, error) {
	bdb, err := newDB(ctx, c, 4)
	if err != nil {
		return nil, err
	}
	defer bdb.drop()
	emb, err := embed.New(&embed.Config{Dim: c.Dim})
	if err != nil {
		return nil, err
	}
	co, err := coordinator.New(&coordinator.Config{Pool: bdb.pool, Embedder: emb, EmbedBatchSize: c.BatchSize})
	if err != nil {
		return nil, err
	}
	f := &WriteFigure{Rows: c.ImportSize, BatchSize: c.BatchSize, ImportTarget: ImportTarget}
	r := rand.New(rand.NewPCG(c.Seed, 5))
	now := time.Now()
	items := make([]coordinator.StoreInput, c.ImportSize)
	texts := make([]string, c.ImportSize)
	for i := range items {
		items[i] = genItem(r, "import", i, now)
		texts[i] = items[i].Content
	}
	t0 := time.Now()
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	f.EmbedPerText = ms(time.Since(t0)) / float64(len(texts))
	for i := range items {
		items[i].Embedding, items[i].EmbeddingModel = vecs[i], emb.Model()
	}

	// The baseline table: same columns, defaults, checks, identity, generated column and
	// indexes (HNSW included); no foreign keys, triggers or row-level security.
	if _, err := bdb.pool.Exec(ctx, `CREATE SCHEMA perf; CREATE TABLE perf.memory_copy (LIKE zb.memory INCLUDING ALL)`); err != nil {
		return nil, err
	}
	t0 = time.Now()
	for start := 0; start < len(items); start += c.BatchSize {
		if _, err := co.StoreBatch(ctx, items[start:min(start+c.BatchSize, len(items))]); err != nil {
			return nil, fmt.Errorf("StoreBatch: %w", err)
		}
	}
	f.StoreBatch = time.Since(t0).Seconds()

	conn, err := bdb.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	cols, err := plainColumns(ctx, conn.Conn())
	if err != nil {
		return nil, err
	}
	rows, err := conn.Query(ctx, `SELECT `+strings.Join(quoteAll(cols), ", ")+` FROM zb.memory WHERE tenant_id = 'import' ORDER BY id`)
	if err != nil {
		return nil, err
	}
	var vals [][]any
	for rows.Next() {
		v, err := rows.Values()
		if err != nil {
			rows.Close()
			return nil, err
		}
		vals = append(vals, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	t0 = time.Now()
	for start := 0; start < len(vals); start += c.BatchSize {
		if _, err := conn.Conn().CopyFrom(ctx, pgx.Identifier{"perf", "memory_copy"}, cols,
			pgx.CopyFromRows(vals[start:min(start+c.BatchSize, len(vals))])); err != nil {
			return nil, fmt.Errorf("COPY: %w", err)
		}
	}
	f.Copy = time.Since(t0).Seconds()
	f.StoreBatchPerSecond = float64(c.ImportSize) / f.StoreBatch
	f.CopyPerSecond = float64(len(vals)) / f.Copy
	f.ImportRatio = ratio(f.StoreBatchPerSecond, f.CopyPerSecond)
	f.ImportMet = f.ImportRatio >= ImportTarget
	c.Logger.Info("import", "rows", c.ImportSize, "storebatch_s", f.StoreBatch, "copy_s", f.Copy, "ratio", f.ImportRatio)

	// Single writes, interleaved: Store (precomputed embedding) and a plain INSERT of a row;
	// Store with the embedding deferred to derive and the plain INSERT of a row without vector.
	deferred, err := coordinator.New(&coordinator.Config{Pool: bdb.pool, Embedder: emb, DeferEmbedding: true})
	if err != nil {
		return nil, err
	}
	ins := `INSERT INTO perf.memory_copy (` + strings.Join(quoteAll(cols), ", ") + `) VALUES (` + placeholders(len(cols)) + `)`
	embCol := slices.Index(cols, "embedding")
	var storeD, insD, defD, insNoVecD []time.Duration
	for i := range c.Stores {
		in := genItem(r, "store", i, now)
		in.Layer = "" // routed by content, as a caller would
		vs, err := emb.Embed(ctx, []string{in.Content})
		if err != nil {
			return nil, err
		}
		in.Embedding, in.EmbeddingModel = vs[0], emb.Model()
		t := time.Now()
		if _, err := co.Store(ctx, in); err != nil {
			return nil, fmt.Errorf("perf: Store: %w", err)
		}
		storeD = append(storeD, time.Since(t))
		// The plain INSERT gets the same new vector: a row already in the copy table's graph
		// (as the imported rows are) would be inserted next to its twin, a cheaper graph walk
		// than a new vector's.
		row := slices.Clone(vals[i%len(vals)])
		row[embCol] = pgvector.NewVector(vs[0])
		t = time.Now()
		if _, err := conn.Exec(ctx, ins, row...); err != nil {
			return nil, fmt.Errorf("plain INSERT: %w", err)
		}
		insD = append(insD, time.Since(t))

		in = genItem(r, "store", c.Stores+i, now)
		in.Layer = ""
		t = time.Now()
		if _, err := deferred.Store(ctx, in); err != nil {
			return nil, fmt.Errorf("perf: Store (deferred embedding): %w", err)
		}
		defD = append(defD, time.Since(t))
		row = slices.Clone(vals[(i+1)%len(vals)])
		row[embCol] = nil
		t = time.Now()
		if _, err := conn.Exec(ctx, ins, row...); err != nil {
			return nil, fmt.Errorf("plain INSERT without vector: %w", err)
		}
		insNoVecD = append(insNoVecD, time.Since(t))
	}
	f.Store, f.Insert = summarize(storeD), summarize(insD)
	f.StoreRatio = ratio(f.Store.P50, f.Insert.P50)
	f.Deferred, f.InsertNoVector = summarize(defD), summarize(insNoVecD)
	f.DeferredRatio = ratio(f.Deferred.P50, f.InsertNoVector.P50)
	f.StoreP50MS = f.Store.P50
	return f, nil
}

// copyColumns are the columns coordinator.StoreBatch copies (db.MemoryInsertMany); the rest
// take their defaults in both tables.
var copyColumns = []string{
	"tenant_id", "context", "layer", "kind", "content", "session_id", "external_id", "subject",
	"attribute", "occurred_at", "created_at", "updated_at", "last_accessed_at", "source_ids", "metadata", "valence",
	"arousal", "significance", "importance", "priority", "stability", "fade_at", "ai_generated", "terms", "term_count",
	"event_from", "event_to", "valid_from", "embedding", "embedding_model",
}

// plainColumns returns copyColumns after registering zb's enum types on conn, for binary COPY.
func plainColumns(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	for _, name := range []string{"zb.memory_layer", "zb.memory_status"} {
		if _, ok := conn.TypeMap().TypeForName(name); ok {
			continue
		}
		t, err := conn.LoadType(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("error loading type %s: %w", name, err)
		}
		conn.TypeMap().RegisterType(t)
	}
	return copyColumns, nil
}

func quoteAll(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = pgx.Identifier{c}.Sanitize()
	}
	return out
}

func placeholders(n int) string {
	ps := make([]string, n)
	for i := range ps {
		ps[i] = fmt.Sprintf("$%d", i+1)
	}
	return strings.Join(ps, ", ")
}
