package coordinator_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/db"
)

// unlogged counts the memories whose creation time or current last access has no row in the
// activation log (0027) at or after the tenant's horizon.
func unlogged(t *testing.T, pool *pgxpool.Pool, tenant string) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(ctxT(t), `
		SELECT count(*) FROM zb.memory m
		CROSS JOIN LATERAL (VALUES (m.created_at), (m.last_accessed_at)) v(at)
		WHERE m.tenant_id = $1
		  AND v.at >= coalesce((SELECT h.horizon FROM zb.memory_activation_horizon h WHERE h.tenant_id = $1), '-infinity')
		  AND NOT EXISTS (SELECT 1 FROM zb.memory_activation a WHERE a.tenant_id = $1 AND a.at = v.at AND a.memory_id = m.id)`,
		tenant).Scan(&n))
	return n
}

// The activation log holds every memory's creation time and current last access, whoever
// wrote them: Store, StoreBatch (COPY), a full recall's side effects, feedback, a plain SQL
// update; statements that do not write either time add nothing. Pruning removes the rows
// before the horizon and moves it (never back); an erased memory's rows go with it.
func TestActivationLogComplete(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	pool := b.cfg.Pool
	const tenant = "actlog"
	first, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "Greta repaired the kettle in Lyon"})
	require.NoError(t, err)
	items := make([]coordinator.StoreInput, 0, 50)
	for i := range 50 {
		items = append(items, coordinator.StoreInput{TenantID: tenant, Content: fmt.Sprintf("%s repaired the %s in %s", hotName(i), hotWord(i), hotPlace(i))})
	}
	b.clock.Add(time.Hour)
	_, err = b.co.StoreBatch(ctx, items)
	require.NoError(t, err)
	require.Zero(t, unlogged(t, pool, tenant))

	b.clock.Add(time.Hour)
	res, err := b.co.Recall(ctx, tenant, "who repaired the kettle", nil)
	require.NoError(t, err)
	require.NotEmpty(t, res.Touched)
	b.clock.Add(time.Hour)
	_, err = b.co.Feedback(ctx, tenant, first.ID, true)
	require.NoError(t, err)
	execSQL(t, pool, `UPDATE zb.memory SET last_accessed_at = last_accessed_at + interval '5 minutes' WHERE tenant_id = $1 AND id % 3 = 0`, tenant)
	require.Zero(t, unlogged(t, pool, tenant), "every write of last_accessed_at is logged")
	var touched int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(DISTINCT a.memory_id) FROM zb.memory_activation a
		WHERE a.tenant_id = $1 AND a.at = $2`, tenant, t0.Add(2*time.Hour)).Scan(&touched))
	require.Equal(t, len(res.Touched), touched, "the recall's accesses, at its time")

	var before, after int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory_activation WHERE tenant_id = $1`, tenant).Scan(&before))
	execSQL(t, pool, `UPDATE zb.memory SET significance = significance WHERE tenant_id = $1`, tenant)
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory_activation WHERE tenant_id = $1`, tenant).Scan(&after))
	require.Equal(t, before, after, "an update of other columns logs nothing")

	var deleted int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT zb.memory_activation_prune($1, $2)`, tenant, t0.Add(90*time.Minute)).Scan(&deleted))
	require.Positive(t, deleted)
	require.NoError(t, pool.QueryRow(ctx, `SELECT zb.memory_activation_prune($1, $2)`, tenant, t0).Scan(&deleted))
	require.Zero(t, deleted)
	var horizon time.Time
	require.NoError(t, pool.QueryRow(ctx, `SELECT horizon FROM zb.memory_activation_horizon WHERE tenant_id = $1`, tenant).Scan(&horizon))
	require.True(t, horizon.Equal(t0.Add(90*time.Minute)), "the horizon never moves back: %v", horizon)
	var old int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory_activation WHERE tenant_id = $1 AND at < $2`, tenant, horizon).Scan(&old))
	require.Zero(t, old)
	require.Zero(t, unlogged(t, pool, tenant), "every time after the horizon is still logged")

	_, err = b.co.Forget(ctx, tenant, first.ID)
	require.NoError(t, err)
	var left int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory_activation WHERE tenant_id = $1 AND memory_id = $2`, tenant, first.ID).Scan(&left))
	require.Zero(t, left, "erase removes the memory's activation rows")
}

// Sleep's tagging pass (StcTagWeakActive) takes its candidates from the activation log when the
// span starts at or after the tenant's horizon and its rows weigh less than the tenant, and
// reads the tenant otherwise: on a random
// tenant (every status, layer and confidence; a third of the memories accessed again, so the
// log holds stale times) both ways tag the same memories for random spans and limits.
func TestSTCTagWeakActiveLogMatchesScan(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	pool := b.cfg.Pool
	const tenant = "actweak"
	r := rand.New(rand.NewPCG(7, 27))
	span := 8 * time.Hour
	at := func() time.Time { return t0.Add(time.Duration(r.Int64N(span.Microseconds())) * time.Microsecond) }
	const n = 400
	created, accessed := make([]time.Time, n), make([]time.Time, n)
	status, layer, content := make([]string, n), make([]string, n), make([]string, n)
	conf := make([]float64, n)
	stab := make([]*float64, n)
	for i := range n {
		created[i] = at()
		accessed[i] = created[i].Add(time.Duration(r.Int64N(span.Microseconds()/4)) * time.Microsecond)
		status[i] = []string{"active", "active", "active", "archived", "consolidated"}[r.IntN(5)]
		layer[i] = []string{"semantic", "episodic", "core"}[r.IntN(3)]
		conf[i] = []float64{0.1, 0.3, 0.39, 0.41, 0.8}[r.IntN(5)]
		if layer[i] != "core" || r.IntN(2) == 0 { // only core memories may lack a stability
			s := 3.0
			stab[i] = &s
		}
		content[i] = fmt.Sprintf("memory %d", i)
	}
	execSQL(t, pool, `INSERT INTO zb.tenant (id) VALUES ($1)`, tenant)
	rows, err := pool.Query(ctx, `INSERT INTO zb.memory (tenant_id, layer, kind, content, created_at, updated_at, last_accessed_at,
		stability, status, confidence, core_label)
		SELECT $1, l::zb.memory_layer, 'fact', c, ca, la, la, st, s::zb.memory_status, cf, CASE WHEN l = 'core' THEN 'label ' || c END
		FROM unnest($2::text[], $3::timestamptz[], $4::timestamptz[], $5::text[], $6::float8[], $7::text[], $8::float8[])
		     AS x(c, ca, la, s, cf, l, st)
		RETURNING id`, tenant, content, created, accessed, status, conf, layer, stab)
	require.NoError(t, err)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)
	var moved []int64
	var movedAt []time.Time
	for i := range n {
		if r.IntN(3) == 0 {
			moved, movedAt = append(moved, ids[i]), append(movedAt, accessed[i].Add(time.Duration(r.Int64N(span.Microseconds()))*time.Microsecond))
		}
	}
	execSQL(t, pool, `UPDATE zb.memory m SET last_accessed_at = x.at FROM unnest($2::bigint[], $3::timestamptz[]) x(id, at)
		WHERE m.tenant_id = $1 AND m.id = x.id`, tenant, moved, movedAt)

	tagged := func(p db.StcTagWeakActiveParams, horizon any, lookup float64) []int64 {
		t.Helper()
		tx, err := pool.Begin(ctx)
		require.NoError(t, err)
		defer func() { _ = tx.Rollback(ctx) }()
		if horizon != nil {
			_, err := tx.Exec(ctx, `INSERT INTO zb.memory_activation_horizon (tenant_id, horizon) VALUES ($1, $2)`, tenant, horizon)
			require.NoError(t, err)
		}
		p.LookupCost = lookup
		got, err := db.New(tx).StcTagWeakActive(ctx, p)
		require.NoError(t, err)
		slices.Sort(got)
		return got
	}
	total := 0
	for q := range 60 {
		since := at()
		p := db.StcTagWeakActiveParams{
			TenantID: tenant, Below: 0.4, WindowSeconds: 1800, Since: since,
			Now: since.Add(time.Duration(r.Int64N(span.Microseconds()/2)) * time.Microsecond), K: []int32{5, 50, 5000}[q%3],
		}
		fromLog := tagged(p, nil, 1e-6) // the log whatever its size
		fromScan := tagged(p, "infinity", coordinator.STCActivationLookupCost)
		chosen := tagged(p, nil, coordinator.STCActivationLookupCost)
		require.Equal(t, fromScan, fromLog, "query %d", q)
		require.Equal(t, fromScan, chosen, "query %d", q)
		total += len(fromLog)
	}
	t.Logf("%d tags compared", total)
	require.Greater(t, total, 200)
}
