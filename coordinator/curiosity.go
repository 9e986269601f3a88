package coordinator

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/algorithms/curiosity"
	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/db"
)

// MaxKnowledgeGaps is the largest n KnowledgeGaps accepts.
const MaxKnowledgeGaps = 1000

// KnowledgeGaps returns the tenant's n largest knowledge gaps [curiosity] (n 0 means
// curiosity.TopNDefault, 5; at most MaxKnowledgeGaps), largest first, each with its suggested
// action (review, ask_user, consolidate or monitor). It reads the query log — the index terms of
// the latest curiosity.WindowDefault (200) recalls, zb.recall_event.query_terms — and groups the
// queries into topics (curiosity.GroupQueries). Per topic it counts the active memories about it
// (every layer but working and short-term whose index terms hold at least half of the topic's
// three label terms, rounded up) and their mean confidence; a query succeeded when feedback
// marked it used, or, without feedback, when at least half of its terms occur in one of its
// first three results (feedback marking it not used makes it a failure). curiosity.Score then
// computes
//
//	gap = clamp(0.4·q/qmax + 0.3·(1 − f/fmax) + 0.2·(1 − c) + 0.1·(1 − r) − 0.1·LP, 0, 1)
//
// with the learning progress LP (success rate of the newer half of the topic's queries minus
// that of the older half). With curiosity switched off for the tenant the query log is not
// written and the result is empty. A tenant without logged queries gets an empty slice.
func (c *Coordinator) KnowledgeGaps(ctx context.Context, tenant string, n int) ([]curiosity.Gap, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	if n < 0 || n > MaxKnowledgeGaps {
		return nil, fmt.Errorf("%w: n must be in [0, %d], got %d", ErrInvalidInput, MaxKnowledgeGaps, n)
	}
	var rows []db.CuriosityQueriesRow
	var off bool
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		sw, err := c.switches(ctx, q, tenant)
		if err != nil {
			return err
		}
		if off = !sw.enabled("curiosity"); off {
			return nil
		}
		rows, err = q.CuriosityQueries(ctx, db.CuriosityQueriesParams{TenantID: tenant, K: curiosity.WindowDefault})
		return err
	})
	if err != nil {
		return nil, interpretError("reading the query log", err)
	}
	if off || len(rows) == 0 {
		return []curiosity.Gap{}, nil
	}
	// The log holds stemmed terms; GroupQueries stems again. Stemming is deterministic, so the
	// grouping is consistent, and back maps a re-stemmed term to the stored one.
	queries := make([]curiosity.Query, len(rows))
	back := map[string]string{}
	for i := len(rows) - 1; i >= 0; i-- { // oldest first: the first stored form of a term wins
		r := rows[i]
		text := strings.Join(r.Terms, " ")
		lang := textproc.DetectLang(text)
		for _, t := range r.Terms {
			if rs := textproc.Terms(t, lang); len(rs) == 1 {
				if _, ok := back[rs[0]]; !ok {
					back[rs[0]] = t
				}
			}
		}
		qr := curiosity.Query{Text: text, At: r.CreatedAt, TopScore: lcClamp(r.Coverage, 0, 1)}
		if r.Success != nil {
			qr.Success = *r.Success
			if !*r.Success {
				qr.TopScore = 0
			}
		}
		queries[i] = qr
	}
	topics, err := curiosity.GroupQueries(queries, nil)
	if err != nil {
		return nil, fmt.Errorf("error grouping queries: %w", err)
	}
	if len(topics) == 0 {
		return []curiosity.Gap{}, nil
	}
	var p db.CuriosityTopicFactsParams
	p.TenantID = tenant
	for i := range topics {
		label := topics[i].Terms[:min(3, len(topics[i].Terms))]
		stored := make([]string, len(label))
		for j, t := range label {
			stored[j] = t
			if s, ok := back[t]; ok {
				stored[j] = s
			}
			p.TermTopics, p.Terms = append(p.TermTopics, int32(i)), append(p.Terms, stored[j])
		}
		topics[i].Label = strings.Join(stored, " ")
		p.Topics, p.Needs = append(p.Topics, int32(i)), append(p.Needs, int32((len(label)+1)/2))
	}
	facts, err := tenantRead(ctx, c, tenant, func(q *db.Queries) ([]db.CuriosityTopicFactsRow, error) {
		return q.CuriosityTopicFacts(ctx, p)
	})
	if err != nil {
		return nil, interpretError("counting facts per topic", err)
	}
	stats := make([]curiosity.Stats, len(topics))
	for _, f := range facts {
		if int(f.Topic) < len(stats) {
			stats[f.Topic] = curiosity.Stats{Facts: int(f.Facts), MeanConfidence: lcClamp(f.MeanConfidence, 0, 1)}
		}
	}
	gaps, err := curiosity.Score(queries, topics, stats, nil)
	if err != nil {
		return nil, fmt.Errorf("error scoring knowledge gaps: %w", err)
	}
	return curiosity.Top(gaps, n), nil
}
