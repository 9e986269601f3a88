package coordinator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/jobs"
)

// Embedding-model versioning.
//
// Every stored vector records its model (zb.memory.embedding_model). The active model is
// recorded install-wide in zb.config (key ConfigEmbeddingModel) by StartReembed; until then
// there is none and every vector counts. With an active model, recall compares the query
// embedding only with vectors of that model, and only when the query was embedded with it;
// memories not yet re-embedded are found by BM25 alone (zb.recall_candidates, migration 0010).

// ConfigEmbeddingModel is the zb.config key of the active embedding model.
const ConfigEmbeddingModel = "embedding_model"

// Limits of re-embedding.
const (
	// ReembedBatchDefault is the number of memories per re-embedding job when
	// ReembedOpts.BatchSize is 0.
	ReembedBatchDefault = 256
	// ReembedMaxPerJob is the largest number of memories of one re-embedding job.
	ReembedMaxPerJob = 1000
	// reembedPage is the number of target rows read per query while enqueueing.
	reembedPage = 10000
)

// ErrModelMismatch is returned when the embedder at hand does not produce the model asked for: a
// re-embedding to model M needs an embedder whose Model() is M. It is a configuration error of
// the caller (or of a worker, which leaves the job to a worker that has the model); it does not
// wrap ErrInvalidInput.
var ErrModelMismatch = errors.New("embedding model mismatch")

// ReembedOpts are the options of StartReembed; nil means all defaults.
type ReembedOpts struct {
	// Model is the model to re-embed with. It must be the Config.Embedder's Model(). Empty
	// means the embedder's model.
	Model string
	// BatchSize is the number of memories per job, in [1, ReembedMaxPerJob]. 0 means
	// ReembedBatchDefault.
	BatchSize int
}

// ReembedStart reports what StartReembed enqueued.
type ReembedStart struct {
	// Model is the model now active; Previous the one active before ("" for none).
	Model    string `json:"model"`
	Previous string `json:"previous"`
	// Memories is the number of memories to re-embed (missing or other-model embeddings).
	Memories int `json:"memories"`
	// Jobs is the number of jobs enqueued; Duplicates the jobs already waiting with the same
	// arguments (a repeated start before the worker ran them).
	Jobs       int `json:"jobs"`
	Duplicates int `json:"duplicates"`
	// Tenants is the number of tenants with memories to re-embed.
	Tenants int `json:"tenants"`
}

// ActiveModel returns the active embedding model, or "" when none was recorded.
func (c *Coordinator) ActiveModel(ctx context.Context) (string, error) {
	v, err := c.q.ConfigGet(ctx, ConfigEmbeddingModel)
	if isNoRows(err) {
		return "", nil
	}
	if err != nil {
		return "", interpretError("reading the active embedding model", err)
	}
	return v, nil
}

// StartReembed makes the Config.Embedder's model the active embedding model and enqueues River
// jobs (jobs.ReembedArgs, insert-only through the coordinator's client) that embed every memory
// whose embedding is missing or of another model again, in batches of opts.BatchSize, all in one
// transaction with an audit event "tenant.reembed" per tenant. The embedder is probed first (its
// dimension must be the install's). From the commit on, recall uses the new model's vectors and
// BM25 alone for memories not yet re-embedded; a worker whose embedder reports the new model
// does the work (ReembedStatus shows the progress). Repeating it enqueues only what is still to
// do; jobs already waiting are not duplicated.
func (c *Coordinator) StartReembed(ctx context.Context, opts *ReembedOpts) (*ReembedStart, error) {
	if opts == nil {
		opts = &ReembedOpts{}
	}
	batch := cmp.Or(opts.BatchSize, ReembedBatchDefault)
	if batch < 1 || batch > ReembedMaxPerJob {
		return nil, fmt.Errorf("%w: batch size must be in [1, %d], got %d", ErrInvalidInput, ReembedMaxPerJob, batch)
	}
	if c.cfg.Embedder == nil {
		return nil, fmt.Errorf("%w: no embedder is configured to re-embed with", ErrModelMismatch)
	}
	model := c.cfg.Embedder.Model()
	if opts.Model != "" && opts.Model != model {
		return nil, fmt.Errorf("%w: asked for model %q, the embedder produces %q", ErrModelMismatch, truncate(opts.Model, 200), model)
	}
	if err := checkText(model, 200); err != nil {
		return nil, fmt.Errorf("%w: embedding model name: %w", ErrInvalidInput, err)
	}
	dim, err := c.embeddingDim(ctx)
	if err != nil {
		return nil, err
	}
	probe, err := c.cfg.Embedder.Embed(ctx, []string{"zenbrain embedding probe"})
	if err != nil {
		return nil, fmt.Errorf("error probing the embedder of model %q: %w", model, err)
	}
	if len(probe) != 1 {
		return nil, fmt.Errorf("%w: the embedder returned %d embeddings for 1 text", ErrDimensionMismatch, len(probe))
	}
	if err := checkEmbedding(probe[0], dim); err != nil {
		return nil, fmt.Errorf("embedder of model %q: %w", model, err)
	}
	now := c.clock.Now()
	out := &ReembedStart{Model: model}
	// Unbound: the targets are every tenant's (an operator role: zb_worker or zb_admin).
	err = c.beginTenant(ctx, "", func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		prev, err := q.ConfigGet(ctx, ConfigEmbeddingModel)
		if err != nil && !isNoRows(err) {
			return err
		}
		out.Previous = prev
		if err := q.ReembedModelSet(ctx, db.ReembedModelSetParams{Model: model, Now: now}); err != nil {
			return err
		}
		perTenant := map[string][2]int{} // memories, jobs
		var tenants []string
		var cur jobs.ReembedArgs
		flush := func() error {
			if len(cur.MemoryIDs) == 0 {
				return nil
			}
			res, err := c.river.InsertTx(ctx, tx, cur, jobs.ReembedInsertOpts())
			if err != nil {
				return fmt.Errorf("error enqueuing re-embedding: %w", err)
			}
			out.Jobs++
			if res.UniqueSkippedAsDuplicate {
				out.Duplicates++
			}
			v := perTenant[cur.TenantID]
			perTenant[cur.TenantID] = [2]int{v[0] + len(cur.MemoryIDs), v[1] + 1}
			cur = jobs.ReembedArgs{}
			return nil
		}
		afterTenant, afterID := "", int64(0)
		for {
			rows, err := q.ReembedTargets(ctx, db.ReembedTargetsParams{Model: model, AfterTenant: afterTenant, AfterID: afterID, K: reembedPage})
			if err != nil {
				return err
			}
			for _, r := range rows {
				if r.TenantID != cur.TenantID || len(cur.MemoryIDs) >= batch {
					if err := flush(); err != nil {
						return err
					}
					cur = jobs.ReembedArgs{TenantID: r.TenantID, Model: model}
				}
				if _, seen := perTenant[r.TenantID]; !seen {
					perTenant[r.TenantID] = [2]int{}
					tenants = append(tenants, r.TenantID)
				}
				cur.MemoryIDs = append(cur.MemoryIDs, r.ID)
				out.Memories++
			}
			if len(rows) < reembedPage {
				break
			}
			afterTenant, afterID = rows[len(rows)-1].TenantID, rows[len(rows)-1].ID
		}
		if err := flush(); err != nil {
			return err
		}
		out.Tenants = len(tenants)
		for _, t := range tenants {
			v := perTenant[t]
			if err := c.audit(ctx, q, t, "tenant.reembed", nil, now, map[string]any{
				"model": model, "previous": prev,
				"memories": v[0], "jobs": v[1],
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, interpretError("starting the re-embedding", err)
	}
	return out, nil
}

// ReembedReport counts what one Reembed call did.
type ReembedReport struct {
	// Requested is the number of memory ids in the job.
	Requested int `json:"requested"`
	// Embedded counts the embeddings written with the target model.
	Embedded int `json:"embedded"`
	// Done counts memories that already had an embedding of the target model.
	Done int `json:"done"`
	// Skipped counts memories not re-embedded: erased, gone, without embeddable text, or changed
	// between reading and writing (a changed memory is re-derived with its new content anyway).
	Skipped int `json:"skipped"`
}

// Reembed embeds the memories of args again with the Config.Embedder and writes the vectors with
// its model, in one transaction with hook (the worker's job completion). Memories whose
// embedding already is of the target model are skipped, so a repeated job does nothing. When
// args.Model names another model than the embedder's, it returns ErrModelMismatch and writes
// nothing (the worker leaves the job for a worker with that model). The memories' updated_at
// is kept: re-embedding does not change a memory.
func (c *Coordinator) Reembed(ctx context.Context, args jobs.ReembedArgs, hook TxHook) (*ReembedReport, error) {
	if err := checkTenant(args.TenantID); err != nil {
		return nil, err
	}
	if len(args.MemoryIDs) > ReembedMaxPerJob {
		return nil, fmt.Errorf("%w: %d memory ids, at most %d per job", ErrInvalidInput, len(args.MemoryIDs), ReembedMaxPerJob)
	}
	if c.cfg.Embedder == nil {
		return nil, fmt.Errorf("%w: this process has no embedder", ErrModelMismatch)
	}
	model := c.cfg.Embedder.Model()
	if args.Model != "" && args.Model != model {
		return nil, fmt.Errorf("%w: the job asks for model %q, this embedder produces %q", ErrModelMismatch, args.Model, model)
	}
	rep := &ReembedReport{Requested: len(args.MemoryIDs)}
	rows, err := tenantRead(ctx, c, args.TenantID, func(q *db.Queries) ([]db.ReembedReadRow, error) {
		return q.ReembedRead(ctx, db.ReembedReadParams{TenantID: args.TenantID, Ids: nonNil(args.MemoryIDs)})
	})
	if err != nil {
		return nil, interpretError("reading memories to re-embed", err)
	}
	rep.Skipped = len(args.MemoryIDs) - len(rows)
	var todo []db.ReembedReadRow
	for _, r := range rows {
		switch {
		case r.EmbeddingModel != nil && *r.EmbeddingModel == model:
			rep.Done++
		case r.Status == db.ZbMemoryStatusErased || strings.TrimSpace(r.Content) == "":
			rep.Skipped++
		default:
			todo = append(todo, r)
		}
	}
	vecs := make([][]float32, len(todo))
	if len(todo) > 0 {
		dim, err := c.embeddingDim(ctx)
		if err != nil {
			return nil, err
		}
		for start := 0; start < len(todo); start += c.cfg.EmbedBatchSize {
			end := min(start+c.cfg.EmbedBatchSize, len(todo))
			texts := make([]string, 0, end-start)
			for _, r := range todo[start:end] {
				texts = append(texts, r.Content)
			}
			vs, err := c.cfg.Embedder.Embed(ctx, texts)
			if err != nil {
				return nil, fmt.Errorf("error embedding content with model %q: %w", model, err)
			}
			if len(vs) != len(texts) {
				return nil, fmt.Errorf("%w: the embedder returned %d embeddings for %d texts", ErrDimensionMismatch, len(vs), len(texts))
			}
			for i, v := range vs {
				if err := checkEmbedding(v, dim); err == nil {
					vecs[start+i] = v
				} else if !errors.Is(err, ErrInvalidEmbedding) || hasNaN(v) {
					return nil, fmt.Errorf("embedder output: %w", err)
				}
			}
		}
	}
	err = c.beginTenantPrelude(ctx, args.TenantID, txPrelude{lockTimeout: StoreLockTimeout}, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		for i, r := range todo {
			if vecs[i] == nil {
				rep.Skipped++ // no embeddable feature (e.g. only punctuation): lexical only
				continue
			}
			n, err := q.ReembedWrite(ctx, db.ReembedWriteParams{
				TenantID: args.TenantID, ID: r.ID, Embedding: toVector(vecs[i]),
				Model: model, ReadAt: r.UpdatedAt,
			})
			if err != nil {
				return err
			}
			if n == 0 {
				rep.Skipped++
				continue
			}
			rep.Embedded++
		}
		if hook != nil {
			if err := hook(ctx, tx); err != nil {
				return fmt.Errorf("error in transaction hook: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, interpretError(fmt.Sprintf("re-embedding memories of tenant %s", args.TenantID), err)
	}
	return rep, nil
}

// ReembedModelCount is the number of memories whose embedding is of one model.
type ReembedModelCount struct {
	// Model is the model ("" for memories without embedding).
	Model string `json:"model"`
	// Memories is their number.
	Memories int64 `json:"memories"`
}

// ReembedStatus is the progress of embedding-model versioning.
type ReembedStatus struct {
	// Active is the active model ("" when none was recorded: every vector counts).
	Active string `json:"active"`
	// Total counts the memories with content (erased ones left out).
	Total int64 `json:"total"`
	// Done counts those with an embedding of the active model (with no active model: with any
	// embedding); Pending the rest, which recall finds by BM25 alone.
	Done    int64 `json:"done"`
	Pending int64 `json:"pending"`
	// Models counts the memories per embedding model.
	Models []ReembedModelCount `json:"models"`
	// Jobs counts the re-embedding jobs by River state (available, running, completed, ...).
	Jobs map[string]int64 `json:"jobs"`
}

// ReembedStatus reports how far the memories are embedded with the active model, of one tenant
// ("" for all) and the re-embedding jobs by state.
func (c *Coordinator) ReembedStatus(ctx context.Context, tenant string) (*ReembedStatus, error) {
	var tp *string
	if tenant != "" {
		if err := checkTenant(tenant); err != nil {
			return nil, err
		}
		tp = &tenant
	}
	active, err := c.ActiveModel(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := tenantRead(ctx, c, tenant, func(q *db.Queries) ([]db.ReembedProgressRow, error) { return q.ReembedProgress(ctx, tp) })
	if err != nil {
		return nil, interpretError("counting memories by embedding model", err)
	}
	st := &ReembedStatus{Active: active, Models: []ReembedModelCount{}, Jobs: map[string]int64{}}
	for _, r := range rows {
		st.Models = append(st.Models, ReembedModelCount{Model: r.Model, Memories: r.N})
		st.Total += r.N
		if (active != "" && r.Model == active) || (active == "" && r.Model != "") {
			st.Done += r.N
		}
	}
	st.Pending = st.Total - st.Done
	jc, err := c.q.ReembedJobCounts(ctx)
	if err != nil {
		return nil, interpretError("counting re-embedding jobs", err)
	}
	for _, j := range jc {
		st.Jobs[j.State] = j.N
	}
	return st, nil
}

// reembedFillArgs returns the jobs that embed memory ids of tenant that were written without an
// embedding (import), with the worker's model.
func reembedFillArgs(tenant string, ids []int64) []river.InsertManyParams {
	var out []river.InsertManyParams
	for start := 0; start < len(ids); start += ReembedBatchDefault {
		end := min(start+ReembedBatchDefault, len(ids))
		out = append(out, river.InsertManyParams{
			Args:       jobs.ReembedArgs{TenantID: tenant, MemoryIDs: ids[start:end:end]},
			InsertOpts: jobs.ReembedInsertOpts(),
		})
	}
	return out
}
