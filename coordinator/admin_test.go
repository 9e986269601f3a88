package coordinator_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/review"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

// rotEmbedder is another embedding model: fakeEmbedder's vectors with their values rotated, so
// comparing its vectors with fakeEmbedder's is meaningless.
type rotEmbedder struct{ fakeEmbedder }

func (rotEmbedder) Model() string { return "fake-rot" }
func (r rotEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := r.fakeEmbedder.Embed(ctx, texts)
	for i, v := range vs {
		out := make([]float32, len(v))
		for j := range v {
			out[(j+7)%len(v)] = v[j]
		}
		vs[i] = out
	}
	return vs, err
}

func reembedJobs(t *testing.T, co *coordinator.Coordinator) []jobs.ReembedArgs {
	t.Helper()
	js, err := co.Jobs(ctxT(t), &coordinator.JobListOpts{Kinds: []string{"reembed"}, States: []string{"available"}})
	require.NoError(t, err)
	var out []jobs.ReembedArgs
	for _, j := range js {
		var a jobs.ReembedArgs
		require.NoError(t, json.Unmarshal(j.Args, &a))
		out = append(out, a)
	}
	return out
}

func TestReembedSwitchesTheActiveModel(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx, pool := ctxT(t), b.cfg.Pool
	co1 := b.co
	co2, err := coordinator.New(&coordinator.Config{Pool: pool, Embedder: rotEmbedder{fakeEmbedder{dim: testDim}}, Clock: b.clock})
	require.NoError(t, err)
	for _, s := range []string{"Alice lives in Berlin", "Bob plays the cello", "Carol grows tomatoes", "Dan repairs bicycles"} {
		_, err := co1.Store(ctx, coordinator.StoreInput{TenantID: "m", Content: s})
		require.NoError(t, err)
	}
	top := func(co *coordinator.Coordinator) coordinator.Result {
		t.Helper()
		rec, err := co.Recall(ctx, "m", "Where does Alice live?", &coordinator.RecallOpts{K: 1, ReadOnly: true})
		require.NoError(t, err)
		require.Len(t, rec.Results, 1)
		require.Equal(t, "Alice lives in Berlin", rec.Results[0].Content)
		return rec.Results[0]
	}
	require.True(t, top(co1).ByVector)

	_, err = co2.StartReembed(ctx, &coordinator.ReembedOpts{Model: "text-embedding-9"})
	require.ErrorIs(t, err, coordinator.ErrModelMismatch)
	st, err := co2.StartReembed(ctx, &coordinator.ReembedOpts{Model: "fake-rot", BatchSize: 3})
	require.NoError(t, err)
	require.Equal(t, coordinator.ReembedStart{Model: "fake-rot", Memories: 4, Jobs: 2, Tenants: 1}, *st)
	active, err := co1.ActiveModel(ctx)
	require.NoError(t, err)
	require.Equal(t, "fake-rot", active)

	// Until the jobs ran, recall finds the memory by BM25 alone, with either embedder.
	for _, co := range []*coordinator.Coordinator{co1, co2} {
		r := top(co)
		require.False(t, r.ByVector)
		require.True(t, r.ByLexical)
		require.Zero(t, r.Signals.Cosine)
	}
	status, err := co2.ReembedStatus(ctx, "")
	require.NoError(t, err)
	require.Equal(t, int64(4), status.Pending)
	require.Equal(t, int64(2), status.Jobs["available"])

	// A worker with the old model leaves the jobs alone; one with the new model does them once.
	args := reembedJobs(t, co2)
	require.Len(t, args, 2)
	_, err = co1.Reembed(ctx, args[0], nil)
	require.ErrorIs(t, err, coordinator.ErrModelMismatch)
	embedded := 0
	for _, a := range args {
		rep, err := co2.Reembed(ctx, a, nil)
		require.NoError(t, err)
		embedded += rep.Embedded
		again, err := co2.Reembed(ctx, a, nil)
		require.NoError(t, err)
		require.Zero(t, again.Embedded)
		require.Equal(t, len(a.MemoryIDs), again.Done)
	}
	require.Equal(t, 4, embedded)
	status, err = co2.ReembedStatus(ctx, "m")
	require.NoError(t, err)
	require.Equal(t, coordinator.ReembedStatus{
		Active: "fake-rot", Total: 4, Done: 4, Pending: 0,
		Models: []coordinator.ReembedModelCount{{Model: "fake-rot", Memories: 4}}, Jobs: status.Jobs,
	}, *status)
	require.True(t, top(co2).ByVector, "the new model's vectors are used")
	require.False(t, top(co1).ByVector, "a query embedded with the old model is not compared")

	// Starting again finds nothing to do; a memory stored with the old model is picked up.
	st, err = co2.StartReembed(ctx, nil)
	require.NoError(t, err)
	require.Zero(t, st.Memories)
	require.Equal(t, "fake-rot", st.Previous)
	_, err = co1.Store(ctx, coordinator.StoreInput{TenantID: "m", Content: "Erin sails boats"})
	require.NoError(t, err)
	st, err = co2.StartReembed(ctx, nil)
	require.NoError(t, err)
	require.Equal(t, 1, st.Memories)
	require.Equal(t, 2, queryInt(t, pool, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = 'm' AND action = 'tenant.reembed'`),
		"an audit event per start with work for the tenant")
}

func TestJobsAdmin(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	// A batch enqueues a pending derivation per tenant.
	_, err := b.co.StoreBatch(ctx, []coordinator.StoreInput{{TenantID: "t1", Content: "hello t1"}, {TenantID: "t2", Content: "hello t2"}})
	require.NoError(t, err)
	enq, err := b.co.EnqueueLifecycle(ctx, coordinator.TaskSleep, []string{"t1"})
	require.NoError(t, err)
	require.Len(t, enq, 1)
	require.False(t, enq[0].Duplicate)
	again, err := b.co.EnqueueLifecycle(ctx, coordinator.TaskSleep, []string{"t1"})
	require.NoError(t, err)
	require.True(t, again[0].Duplicate)
	require.Equal(t, enq[0].ID, again[0].ID)
	all, err := b.co.EnqueueLifecycle(ctx, coordinator.TaskDecay, nil)
	require.NoError(t, err)
	require.Len(t, all, 2, "every tenant")
	_, err = b.co.EnqueueLifecycle(ctx, "dream", nil)
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)

	js, err := b.co.Jobs(ctx, &coordinator.JobListOpts{Kinds: []string{"sleep", "zb_decay"}, Tenant: "t1"})
	require.NoError(t, err)
	require.Len(t, js, 2)
	require.Equal(t, "zb_decay", js[0].Kind, "newest first")
	require.Equal(t, "t1", js[1].Tenant)
	js, err = b.co.Jobs(ctx, &coordinator.JobListOpts{Kinds: []string{"derive"}, Limit: 1})
	require.NoError(t, err)
	require.Len(t, js, 1)

	c, err := b.co.CancelJob(ctx, enq[0].ID)
	require.NoError(t, err)
	require.Equal(t, "cancelled", c.State)
	r, err := b.co.RetryJob(ctx, enq[0].ID)
	require.NoError(t, err)
	require.Equal(t, "available", r.State)
	_, err = b.co.CancelJob(ctx, 987654)
	require.ErrorIs(t, err, coordinator.ErrNotFound)
	_, err = b.co.Jobs(ctx, &coordinator.JobListOpts{States: []string{"sleeping"}})
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
	_, err = b.co.Jobs(ctx, &coordinator.JobListOpts{Kinds: []string{"nap"}})
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
}

func TestReviewAdmin(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx, pool := ctxT(t), b.cfg.Pool
	fact, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "r", Content: "The Zeus API listens on port 8443"})
	require.NoError(t, err)
	ep, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "r", Content: "We hiked up Monte Verità", Layer: coordinator.LayerEpisodic})
	require.NoError(t, err)
	_, err = b.co.Derive(ctx, jobs.DeriveArgs{TenantID: "r", Pending: true}, nil)
	require.NoError(t, err)

	due, total, err := b.co.DueReviews(ctx, "r", 0)
	require.NoError(t, err)
	require.Empty(t, due, "a new card is due after its first interval")
	require.Zero(t, total)
	b.clock.Add(30 * 24 * time.Hour)
	due, total, err = b.co.DueReviews(ctx, "r", 0)
	require.NoError(t, err)
	require.Len(t, due, 1)
	require.Equal(t, int64(1), total)
	require.Equal(t, fact.ID, due[0].MemoryID)
	require.Equal(t, "new", due[0].State)

	var stabBefore float64
	require.NoError(t, pool.QueryRow(ctx, `SELECT stability FROM zb.memory WHERE id = $1`, fact.ID).Scan(&stabBefore))
	g, err := b.co.GradeReview(ctx, "r", fact.ID, review.Good)
	require.NoError(t, err)
	require.Equal(t, "good", g.Grade)
	require.Equal(t, "new", g.StateBefore)
	require.True(t, g.Due.After(b.clock.Now()))
	require.Greater(t, *g.MemoryStability, stabBefore, "a good review grows the forgetting model's stability")
	require.False(t, g.Created)
	due, _, err = b.co.DueReviews(ctx, "r", 0)
	require.NoError(t, err)
	require.Empty(t, due)
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.review_log WHERE tenant_id = 'r' AND memory_id = $1 AND grade = 3`, fact.ID))

	// Again lapses a reviewed card; an episode without a card gets one.
	a, err := b.co.GradeReview(ctx, "r", fact.ID, review.Again)
	require.NoError(t, err)
	require.Equal(t, int32(1), a.Lapses)
	require.Less(t, a.Due.Sub(b.clock.Now()), g.Due.Sub(b.clock.Now()))
	e, err := b.co.GradeReview(ctx, "r", ep.ID, review.Easy)
	require.NoError(t, err)
	require.True(t, e.Created)

	_, err = b.co.GradeReview(ctx, "r", 99999, review.Good)
	require.ErrorIs(t, err, coordinator.ErrNotFound)
	_, err = coordinator.ParseGrade("meh")
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
	gr, err := coordinator.ParseGrade("Easy")
	require.NoError(t, err)
	require.Equal(t, review.Easy, gr)
}

func TestReconsolidationAdmin(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	const tenant = "recon"
	old := insertMem(t, pool, tenant, memSpec{
		content: "Tom works at Siemens as an engineer in Munich.", created: t0.Add(-48 * time.Hour),
		stability: 7, embed: true, derived: true,
	})
	execSQL(t, pool, `INSERT INTO zb.lability_window (tenant_id, memory_id, opened_at, closes_at) VALUES ($1, $2, $3, $4)`,
		tenant, old, t0.Add(-2*time.Minute), t0.Add(8*time.Minute))
	n := insertMem(t, pool, tenant, memSpec{content: "Tom works at Siemens as a manager in Munich.", created: t0, stability: 7, embed: true})
	_, err := b.co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, MemoryIDs: []int64{n}}, nil)
	require.NoError(t, err)

	log, err := b.co.ReconsolidationLog(ctx, tenant, 0, 0)
	require.NoError(t, err)
	require.Len(t, log, 1)
	require.Equal(t, old, log[0].MemoryID)
	require.Equal(t, "integration", log[0].Mode)
	none, err := b.co.ReconsolidationLog(ctx, tenant, n, 0)
	require.NoError(t, err)
	require.Empty(t, none)

	d, err := b.co.ReconsolidationEvent(ctx, tenant, log[0].ID)
	require.NoError(t, err)
	require.Equal(t, "Tom works at Siemens as an engineer in Munich.", d.Before.Content)
	require.Equal(t, "Tom works at Siemens as a manager in Munich.", d.After.Content)
	require.Equal(t, "Tom works at Siemens as a manager in Munich.", d.TriggerContent)
	require.Subset(t, d.Changed, []string{"content", "embedding"})
	require.NotEmpty(t, d.Plan)

	require.NoError(t, b.co.Rollback(ctx, tenant, log[0].ID))
	d, err = b.co.ReconsolidationEvent(ctx, tenant, log[0].ID)
	require.NoError(t, err)
	require.Empty(t, d.Changed, "after a rollback the memory equals its snapshot")
	require.NotNil(t, d.RolledBackAt)
	_, err = b.co.ReconsolidationEvent(ctx, tenant, log[0].ID+50)
	require.ErrorIs(t, err, coordinator.ErrNotFound)
}

func TestHealth(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	const tenant = "h"
	for _, s := range []string{
		"Alice works at Acme in Berlin", "Alice plays chess with Bob", "Bob lives in Paris",
		"Zeus is deployed by Carol", "Carol reviews the Zeus release",
	} {
		_, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: s})
		require.NoError(t, err)
	}
	_, err := b.co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, Pending: true}, nil)
	require.NoError(t, err)
	for _, q := range []string{"Where does Alice work?", "Who plays chess with Alice?", "Who deploys Zeus?", "quantum chromodynamics"} {
		_, err := b.co.Recall(ctx, tenant, q, nil)
		require.NoError(t, err)
	}
	for i, f := range []float64{0.2, 0.15, 0.1} {
		execSQL(t, pool, `INSERT INTO zb.sleep_run (tenant_id, seed, started_at, finished_at, fiedler_before, fiedler_after)
			VALUES ($1, 1, $2, $2, $3, $3)`, tenant, t0.Add(time.Duration(i)*time.Hour), f)
	}
	execSQL(t, pool, `INSERT INTO zb.metacog_event (tenant_id, kind, value, alert, created_at) VALUES
		($1, 'recency_bias', 0.3, true, $2), ($1, 'retrieval_efficiency', 0.6, false, $2)`, tenant, t0.Add(-time.Hour))

	h, err := b.co.Health(ctx, tenant)
	require.NoError(t, err)
	require.True(t, h.Spectral.Enabled)
	require.Len(t, h.Spectral.Trend, 3)
	require.InDelta(t, 0.2, *h.Spectral.Trend[0].FiedlerAfter, 1e-12, "oldest first")
	require.InDelta(t, -0.05, h.Spectral.Slope, 1e-9)
	require.Equal(t, "falling", h.Spectral.Direction)
	require.GreaterOrEqual(t, h.Spectral.Fiedler, 0.0)
	require.Equal(t, 2, h.Metacog.Events)
	require.Len(t, h.Metacog.Alerts, 1)
	require.Equal(t, "recency_bias", h.Metacog.Alerts[0].Kind)
	require.Len(t, h.Metacog.Latest, 2)
	// The gaps are KnowledgeGaps' (the query log grouped into topics), not a second analysis.
	kg, err := b.co.KnowledgeGaps(ctx, tenant, coordinator.HealthTopics)
	require.NoError(t, err)
	require.NotEmpty(t, h.Gaps.Gaps)
	require.Equal(t, kg, h.Gaps.Gaps)
	var labels []string
	for _, g := range h.Gaps.Gaps {
		labels = append(labels, strings.ToLower(g.Label))
		require.GreaterOrEqual(t, g.Score, 0.0)
		require.LessOrEqual(t, g.Score, 1.0)
		require.GreaterOrEqual(t, g.Progress, -1.0)
		require.LessOrEqual(t, g.Progress, 1.0)
		require.NotEmpty(t, g.Action)
		require.NotContains(t, g.TopicID, "e:", "topics are query groups, not entities")
	}
	require.Contains(t, strings.Join(labels, "|"), "quantum", "a query that found nothing is a topic too")

	require.NoError(t, b.co.SetAlgorithm(ctx, tenant, "curiosity", false))
	require.NoError(t, b.co.SetAlgorithm(ctx, tenant, "spectral_health", false))
	h, err = b.co.Health(ctx, tenant)
	require.NoError(t, err)
	require.False(t, h.Gaps.Enabled)
	require.Empty(t, h.Gaps.Gaps)
	require.False(t, h.Spectral.Enabled)
	require.Len(t, h.Spectral.Trend, 3, "the recorded trend is still shown")
}
