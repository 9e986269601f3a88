package coordinator

import (
	"context"
	"sync"
	"time"

	"github.com/zenbrain/zb/db"
)

// recallCandidates reads a recall's candidates. In one statement (zb.recall_candidates: the
// lexical half, the vector half and their join, one after the other in one backend), or —
// when splitRecall says so — the two halves at the same time, each in one round trip on its
// own pooled connection, and then their join in a third (migration 0026). The rows are the
// same either way but for memories that changed between the halves and the join: the join
// keeps only candidates still live when it runs.
// With the split, tm receives the time of each half and of the join.
func (c *Coordinator) recallCandidates(ctx context.Context, tenant string, p *db.RecallCandidatesParams, tm *RecallTiming) (rows []db.RecallCandidatesRow, split bool, err error) {
	if !c.splitRecall(tenant, p) {
		rows, err = pipelinedRead(ctx, c, tenant, func(q *db.Queries) ([]db.RecallCandidatesRow, error) {
			return q.RecallCandidates(ctx, *p)
		})
		if err == nil && len(rows) > 0 {
			c.noteRecallDocs(tenant, rows[0].DocCount)
		}
		return rows, false, err
	}

	// The first half to fail cancels the other and is the error returned (the other may only
	// report the cancellation).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		first error
		once  sync.Once
		wg    sync.WaitGroup
		vec   []int64
		vecD  time.Duration
	)
	fail := func(err error) {
		once.Do(func() {
			first = err
			cancel()
		})
	}
	start := time.Now()
	wg.Go(func() {
		var err error
		defer func() { vecD = time.Since(start) }()
		vec, err = pipelinedRead(ctx, c, tenant, func(q *db.Queries) ([]int64, error) {
			return q.RecallVectorHalf(ctx, db.RecallVectorHalfParams{
				TenantID: tenant, Model: p.Model, Query: p.Query,
				Layers: p.Layers, K: p.K, Now: p.Now, FromTime: p.FromTime, ToTime: p.ToTime, AsOf: p.AsOf,
				Contexts: p.Contexts, Deep: p.Deep,
			})
		})
		if err != nil {
			fail(err)
		}
	})
	lex, err := pipelinedRead(ctx, c, tenant, func(q *db.Queries) (db.RecallLexicalHalfRow, error) {
		return q.RecallLexicalHalf(ctx, db.RecallLexicalHalfParams{
			TenantID: tenant, Terms: p.Terms, Layers: p.Layers,
			K: p.K, Now: p.Now, FromTime: p.FromTime, ToTime: p.ToTime, AsOf: p.AsOf, Contexts: p.Contexts, Deep: p.Deep,
		})
	})
	if err != nil {
		fail(err)
	}
	lexD := time.Since(start)
	wg.Wait()
	if first != nil {
		return nil, true, first
	}
	tm.VectorHalf, tm.LexicalHalf = vecD, lexD
	c.noteRecallDocs(tenant, lex.N)
	start = time.Now()
	jrows, err := pipelinedRead(ctx, c, tenant, func(q *db.Queries) ([]db.RecallCandidatesJoinRow, error) {
		return q.RecallCandidatesJoin(ctx, db.RecallCandidatesJoinParams{
			TenantID: tenant, Model: p.Model, Query: p.Query,
			LexTerms: lex.Terms, Idf: lex.Idf, Sidf: lex.Sidf, Layers: p.Layers, Now: p.Now, FromTime: p.FromTime,
			ToTime: p.ToTime, AsOf: p.AsOf, Contexts: p.Contexts, Deep: p.Deep, VecIds: vec, LexIds: lex.Ids,
			N: lex.N, Avgdl: lex.Avgdl, Total: lex.Total, Sn: lex.Sn,
		})
	})
	tm.Join = time.Since(start)
	if err != nil {
		return nil, true, err
	}
	rows = make([]db.RecallCandidatesRow, len(jrows))
	for i := range jrows {
		rows[i] = db.RecallCandidatesRow(jrows[i])
	}
	return rows, true, nil
}

// splitRecall reports whether a recall reads its halves concurrently: the query has terms and
// a vector (otherwise one half is empty), the tenant's latest recall counted at least
// Config.RecallSplitMinDocs active memories, and the pool can hand out two connections
// without waiting — idle ones, or new ones under its maximum (a new connection stays in the
// pool for the next recall). A busy pool keeps the one-statement path: the second connection
// would be taken from another caller.
func (c *Coordinator) splitRecall(tenant string, p *db.RecallCandidatesParams) bool {
	if c.cfg.RecallSplitMinDocs < 0 || p.Query == nil || len(p.Terms) == 0 {
		return false
	}
	if _, ok := c.recallDocs.Load(tenant); !ok {
		return false
	}
	st := c.pool.Stat()
	return max(0, 2-st.IdleConns()) <= st.MaxConns()-st.TotalConns()
}

// noteRecallDocs records a tenant's active memory count as a recall saw it: kept only for
// tenants at or above Config.RecallSplitMinDocs, so the map holds the large tenants alone.
func (c *Coordinator) noteRecallDocs(tenant string, docs int64) {
	if c.cfg.RecallSplitMinDocs >= 0 && docs >= c.cfg.RecallSplitMinDocs {
		c.recallDocs.Store(tenant, docs)
	} else {
		c.recallDocs.Delete(tenant)
	}
}
