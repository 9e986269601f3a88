package coordinator_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/internal/zbtest"
)

// BenchmarkSTCActivationLog compares the two ways tag capture's donor search (StcDonors) and
// sleep's tagging pass (StcTagWeakActive) find the memories activated in a span (0027): from
// the activation log, and by reading the tenant (forced with a horizon no span reaches). The
// tenant has n memories, two entities mentioned by every one (so the donor search takes the
// activations way), a thousand of them accessed within the last hour, and five open tags. Each
// iteration runs both queries both ways in rolled-back transactions, alternating which way goes
// first, checks that both ways return the same rows, and "log/scan" is the ratio of the summed
// times in this run. ZB_ACTBENCH_SIZES picks the tenant sizes (default 10 000 and 50 000).
//
//	go test ./coordinator -run '^$' -bench STCActivationLog -benchtime 20x
func BenchmarkSTCActivationLog(b *testing.B) {
	for _, n := range benchSizes("ZB_ACTBENCH_SIZES", 10000, 50000) {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { benchActivationLog(b, n) })
	}
}

func benchActivationLog(b *testing.B, n int) {
	const tenant = "actbench"
	ctx := context.Background()
	pool := zbtest.Pool(b, &zbtest.Opts{EmbeddingDim: testDim})
	now := t0.Add(30 * 24 * time.Hour)
	args := []any{tenant, now, n}
	for _, st := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO zb.tenant (id) VALUES ($1)`, args[:1]},
		{`INSERT INTO zb.memory (tenant_id, layer, kind, content, created_at, updated_at, last_accessed_at, stability, confidence)
		  SELECT $1, 'semantic', 'fact', 'memory ' || i, $2::timestamptz - make_interval(hours => i % 600 + 2),
		         $2::timestamptz - make_interval(hours => i % 600 + 2), $2::timestamptz - make_interval(hours => i % 600 + 2),
		         7, CASE WHEN i % 2 = 0 THEN 0.9 ELSE 0.2 END
		  FROM generate_series(1, $3::int) i`, args},
		{`INSERT INTO zb.entity (tenant_id, name, normalized_name, created_at, updated_at, mention_count)
		  VALUES ($1, 'user', 'user', $2, $2, $3), ($1, 'assistant', 'assistant', $2, $2, $3)`, args},
		{`INSERT INTO zb.mention (tenant_id, memory_id, entity_id)
		  SELECT $1, m.id, e.id FROM zb.memory m CROSS JOIN zb.entity e WHERE m.tenant_id = $1 AND e.tenant_id = $1`, args[:1]},
		// A thousand accesses within the last hour, logged by the trigger as a recall's would be.
		{`UPDATE zb.memory SET last_accessed_at = $2::timestamptz - make_interval(secs => (id * 7919 % 3600)::double precision)
		  WHERE tenant_id = $1 AND id IN (SELECT id FROM zb.memory WHERE tenant_id = $1 ORDER BY id * 104729 % $3 LIMIT 1000)`, args},
		{`INSERT INTO zb.stc_tag (tenant_id, memory_id, tagged_at, expires_at, strength_before)
		  SELECT $1, id, $2::timestamptz - interval '10 minutes', $2::timestamptz + interval '20 minutes', 0.1
		  FROM zb.memory WHERE tenant_id = $1 ORDER BY id LIMIT 5`, args[:2]},
		{`ANALYZE zb.memory, zb.mention, zb.entity, zb.memory_activation`, nil},
	} {
		_, err := pool.Exec(ctx, st.sql, st.args...)
		require.NoError(b, err, st.sql)
	}
	var tags []int64
	require.NoError(b, pool.QueryRow(ctx, `SELECT array_agg(memory_id ORDER BY memory_id) FROM zb.stc_tag WHERE tenant_id = $1`,
		tenant).Scan(&tags))

	// run runs f in a rolled-back transaction, with the log forced or the tenant read.
	run := func(fromLog bool, f func(q *db.Queries) []int64) ([]int64, time.Duration) {
		tx, err := pool.BeginTx(ctx, pgx.TxOptions{})
		require.NoError(b, err)
		defer func() { _ = tx.Rollback(ctx) }()
		if !fromLog {
			_, err := tx.Exec(ctx, `INSERT INTO zb.memory_activation_horizon (tenant_id, horizon) VALUES ($1, 'infinity')`, tenant)
			require.NoError(b, err)
		}
		_, err = tx.Exec(ctx, `SET LOCAL jit = off`)
		require.NoError(b, err)
		t := time.Now()
		out := f(db.New(tx))
		return out, time.Since(t)
	}
	lookup := func(fromLog bool) float64 {
		if fromLog {
			return 1e-6
		}
		return coordinator.STCActivationLookupCost
	}
	queries := map[string]func(fromLog bool) func(q *db.Queries) []int64{
		"tagging": func(fromLog bool) func(q *db.Queries) []int64 {
			return func(q *db.Queries) []int64 {
				ids, err := q.StcTagWeakActive(ctx, db.StcTagWeakActiveParams{
					TenantID: tenant, Below: 0.4, WindowSeconds: 1800,
					Since: now.Add(-time.Hour), Now: now, K: coordinator.STCSleepMaxTags, LookupCost: lookup(fromLog),
				})
				require.NoError(b, err)
				slices.Sort(ids)
				return ids
			}
		},
		"donors": func(fromLog bool) func(q *db.Queries) []int64 {
			return func(q *db.Queries) []int64 {
				rows, err := q.StcDonors(ctx, db.StcDonorsParams{
					TenantID: tenant, TagIds: tags, MinWeight: coordinator.STCClusterMinWeight,
					ClusterCost: coordinator.STCClusterCost, LookupCost: lookup(fromLog), Above: 0.7, WindowSeconds: 1800, Now: now,
				})
				require.NoError(b, err)
				out := make([]int64, 0, 2*len(rows))
				for _, r := range rows {
					out = append(out, r.TagID, r.DonorID)
				}
				return out
			}
		},
	}
	names := []string{"tagging", "donors"}
	sums := map[string][2]time.Duration{}
	warmTables(b, pool)
	i := 0
	b.ResetTimer()
	for b.Loop() {
		for _, name := range names {
			var logIDs, scanIDs []int64
			var dl, ds time.Duration
			if i%2 == 0 {
				logIDs, dl = run(true, queries[name](true))
				scanIDs, ds = run(false, queries[name](false))
			} else {
				scanIDs, ds = run(false, queries[name](false))
				logIDs, dl = run(true, queries[name](true))
			}
			require.NotEmpty(b, logIDs, name)
			require.Equal(b, scanIDs, logIDs, name)
			s := sums[name]
			sums[name] = [2]time.Duration{s[0] + dl, s[1] + ds}
		}
		i++
	}
	for _, name := range names {
		s := sums[name]
		b.ReportMetric(float64(s[0])/float64(s[1]), name+"-log/scan")
		b.ReportMetric(float64(s[0].Microseconds())/1000/float64(i), name+"-log-ms")
		b.ReportMetric(float64(s[1].Microseconds())/1000/float64(i), name+"-scan-ms")
	}
}

// warmTables reads the tenant's tables once so that the first timed iteration does not pay for the
// cache.
func warmTables(b *testing.B, pool *pgxpool.Pool) {
	b.Helper()
	_, err := pool.Exec(context.Background(), `SELECT count(*) FROM zb.memory; SELECT count(*) FROM zb.mention;
		SELECT count(*) FROM zb.memory_activation`)
	require.NoError(b, err)
}
