package coordinator_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
)

// TestMetacogAlertsPersisted crafts a recency bias — ten recalls each return a memory stored a
// day before (never used) and one stored 100 days before (used, by feedback after the recall)
// — and checks that the sleep job records the metacognitive monitor's signals in
// zb.metacog_event with a recency_bias alert (bias 0.5 = share of recent results 0.5 minus their
// share of used results 0), that a second run on the same logs writes nothing, that new
// feedback makes the next run write again, and that zbctl health's report shows the alert.
func TestMetacogAlertsPersisted(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool, ctx := b.cfg.Pool, ctxT(t)
	const tenant = "meta"
	const n = 10
	var recent, old []int64
	for i := range n {
		at := t0.Add(-time.Duration(n-i) * 24 * time.Hour) // recalls 10 … 1 days ago
		recent = append(recent, insertMem(t, pool, tenant, memSpec{content: "recent note " + fmtInt(int64(i)), created: at.Add(-24 * time.Hour), stability: 7}))
		old = append(old, insertMem(t, pool, tenant, memSpec{content: "old note " + fmtInt(int64(i)), created: at.Add(-100 * 24 * time.Hour), stability: 7}))
		execSQL(t, pool, `INSERT INTO zb.recall_event (tenant_id, query_hash, query_class, result_ids, top_score, success, created_at)
			VALUES ($1, '\x00', 'general', $2, 0.9, true, $3)`, tenant, []int64{recent[i], old[i]}, at)
		execSQL(t, pool, `INSERT INTO zb.audit_event (tenant_id, at, actor, action, memory_id, detail)
			VALUES ($1, $2, 'test', 'memory.feedback', $3, '{"used": true}')`, tenant, at.Add(time.Minute), old[i])
	}
	events := func() int {
		return queryInt(t, pool, "SELECT count(*) FROM zb.metacog_event WHERE tenant_id = $1", tenant)
	}

	rep, err := b.co.Sleep(ctx, tenant, &coordinator.SleepOpts{Trigger: "manual", Seed: 1}, nil)
	require.NoError(t, err)
	require.Equal(t, 5, rep.MetacogEvents, "one event per signal")
	require.Equal(t, 5, events())
	var value float64
	var detail []byte
	require.NoError(t, pool.QueryRow(ctx, `SELECT value, detail FROM zb.metacog_event WHERE tenant_id = $1 AND kind = 'recency_bias' AND alert`,
		tenant).Scan(&value, &detail))
	require.InDelta(t, 0.5, value, 1e-12)
	var d struct {
		Message string  `json:"message"`
		Z       float64 `json:"z"`
		Basis   struct {
			Recalls  int   `json:"recalls"`
			Feedback int64 `json:"feedback"`
		} `json:"basis"`
	}
	require.NoError(t, json.Unmarshal(detail, &d))
	require.Contains(t, d.Message, "recent memories")
	require.Greater(t, d.Z, 1.645)
	require.Equal(t, n, d.Basis.Recalls)
	require.EqualValues(t, n, d.Basis.Feedback)
	require.Equal(t, 1, queryInt(t, pool, "SELECT count(*) FROM zb.metacog_event WHERE tenant_id = $1 AND alert", tenant),
		"only the recency bias is an alert")
	require.InDelta(t, 0.5, queryFloat(t, pool, `SELECT value FROM zb.metacog_event WHERE tenant_id = $1 AND kind = 'retrieval_efficiency'`, tenant), 1e-12)
	require.InDelta(t, 1.0, queryFloat(t, pool, `SELECT value FROM zb.metacog_event WHERE tenant_id = $1 AND kind = 'recall_success_rate'`, tenant), 1e-12)

	// A re-run on unchanged logs (the job retried, or run again later) writes nothing.
	b.clock.Add(time.Hour)
	rep, err = b.co.Sleep(ctx, tenant, &coordinator.SleepOpts{Trigger: "manual", Seed: 1}, nil)
	require.NoError(t, err)
	require.Zero(t, rep.MetacogEvents)
	require.Equal(t, 5, events())

	// The health report shows the alert.
	h, err := b.co.Health(ctx, tenant)
	require.NoError(t, err)
	require.Equal(t, 5, h.Metacog.Events)
	require.Len(t, h.Metacog.Alerts, 1)
	require.Equal(t, "recency_bias", h.Metacog.Alerts[0].Kind)

	// New feedback changes the input: the next run records a new assessment.
	execSQL(t, pool, `INSERT INTO zb.audit_event (tenant_id, at, actor, action, memory_id, detail)
		VALUES ($1, $2, 'test', 'memory.feedback', $3, '{"used": true}')`, tenant, b.clock.Now(), recent[n-1])
	rep, err = b.co.Sleep(ctx, tenant, &coordinator.SleepOpts{Trigger: "manual", Seed: 1}, nil)
	require.NoError(t, err)
	require.Equal(t, 5, rep.MetacogEvents)
	require.Equal(t, 10, events())

	// Switched off, the monitor records nothing.
	require.NoError(t, b.co.SetAlgorithm(ctx, tenant, "metacog_monitor", false))
	execSQL(t, pool, `INSERT INTO zb.audit_event (tenant_id, at, actor, action, memory_id, detail)
		VALUES ($1, $2, 'test', 'memory.feedback', $3, '{"used": true}')`, tenant, b.clock.Now(), recent[0])
	rep, err = b.co.Sleep(ctx, tenant, &coordinator.SleepOpts{Trigger: "manual", Seed: 1}, nil)
	require.NoError(t, err)
	require.Zero(t, rep.MetacogEvents)
	require.Equal(t, 10, events())
}

func queryFloat(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) float64 {
	t.Helper()
	var f float64
	require.NoError(t, pool.QueryRow(ctxT(t), sql, args...).Scan(&f))
	return f
}
