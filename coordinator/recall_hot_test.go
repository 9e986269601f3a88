package coordinator_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
)

// Recall's side effects update the access statistics of every recalled memory. Since 0014 no
// index of zb.memory covers a column that update writes, so it is a HOT update: the row is not
// inserted again into the HNSW, GIN and btree indexes. Checked twice: in the catalog (no index
// key, expression or predicate names access_count, last_accessed_at or stability) and in the
// statistics (the zb.memory updates of several full recalls are ≥ 90 % HOT — they were 0 %
// with memory_activity_idx, whose key holds last_accessed_at).
func TestRecallSideEffectsAreHOT(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx, pool := ctxT(t), b.cfg.Pool
	const ten = "hot"
	layers := []coordinator.Layer{coordinator.LayerSemantic, coordinator.LayerEpisodic}
	var items []coordinator.StoreInput
	for i := range 60 {
		items = append(items, coordinator.StoreInput{
			TenantID: ten, Layer: layers[i%2],
			Content: fmt.Sprintf("%s repaired the %s bicycle in %s", hotName(i), hotWord(i), hotPlace(i)),
		})
	}
	n, err := b.co.StoreBatch(ctx, items)
	require.NoError(t, err)
	require.EqualValues(t, 60, n)

	var fillfactor string
	require.NoError(t, pool.QueryRow(ctx, `SELECT coalesce((SELECT o FROM unnest(c.reloptions) o WHERE o LIKE 'fillfactor=%'), '')
		FROM pg_class c WHERE c.oid = 'zb.memory'::regclass`).Scan(&fillfactor))
	require.Equal(t, "fillfactor=80", fillfactor)
	// Indexes whose key, expression or predicate names one of cols (they make an update of cols
	// non-HOT).
	covering := func(table string, cols ...string) []string {
		t.Helper()
		var out []string
		re := "(" + strings.Join(cols, "|") + ")"
		require.NoError(t, pool.QueryRow(ctx, `SELECT coalesce(array_agg(i.indexrelid::regclass::text ORDER BY 1), '{}')
			FROM pg_index i
			WHERE i.indrelid = $1::regclass
			  AND (EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
			               AND a.attname = ANY ($2))
			       OR pg_get_expr(i.indexprs, i.indrelid) ~ $3
			       OR pg_get_expr(i.indpred, i.indrelid) ~ $3)`, table, cols, re).Scan(&out))
		return out
	}
	require.NotEmpty(t, covering("zb.memory", "tenant_id"), "the catalog query finds indexes (memory_pkey covers tenant_id)")
	require.Empty(t, covering("zb.memory", "access_count", "last_accessed_at", "stability"),
		"indexes on a column recall's side effects write (they make the update non-HOT)")
	// The same for zb.edge, whose weight and activation time co-activation, decay and sleep
	// write (0015 dropped edge_weak_idx for this).
	require.Empty(t, covering("zb.edge", "weight", "variance", "activation_count", "last_activated_at"),
		"indexes on a column edge updates write (they make the update non-HOT)")

	stats := func() (upd, hot int64) {
		t.Helper()
		require.NoError(t, pool.QueryRow(ctx, `SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables
			WHERE relid = 'zb.memory'::regclass`).Scan(&upd, &hot))
		return upd, hot
	}
	// An autovacuum ANALYZE started by the load would hold a snapshot that keeps the recalls'
	// dead row versions from being pruned (and so their pages from having room for a HOT
	// update), which makes the figure depend on timing under load: this test's database has
	// autovacuum off for zb.memory, and the load is vacuumed and analyzed here instead.
	// An autovacuum worker analyzing any other table of this database holds a snapshot as
	// well, so autovacuum is switched off for every table here, and the recalls wait until no
	// other session of this database holds a snapshot.
	_, err = pool.Exec(ctx, `DO $$
		DECLARE r record;
		BEGIN
			FOR r IN SELECT c.oid::regclass AS rel FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			         WHERE c.relkind = 'r' AND n.nspname IN ('zb', 'river') LOOP
				EXECUTE format('ALTER TABLE %s SET (autovacuum_enabled = off)', r.rel);
			END LOOP;
		END $$`)
	require.NoError(t, err)
	waitNoSnapshots := func() {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			var holders int
			require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_xmin IS NOT NULL`).Scan(&holders))
			if holders == 0 || time.Now().After(deadline) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	_, err = pool.Exec(ctx, `VACUUM (ANALYZE) zb.memory`)
	require.NoError(t, err)
	waitNoSnapshots()
	// Store and StoreBatch may update rows of their own; wait until the counters are flushed
	// and settled before the recalls.
	u0, h0 := stats()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(1200 * time.Millisecond)
		u, h := stats()
		if u == u0 && h == h0 {
			break
		}
		u0, h0 = u, h
	}

	const fadeSQL = `SELECT string_agg(id || ':' || coalesce(fade_at::text, '-'), ',' ORDER BY id) FROM zb.memory WHERE tenant_id = $1`
	var before string
	require.NoError(t, pool.QueryRow(ctx, fadeSQL, ten).Scan(&before))
	touched := 0
	for i := range 6 {
		b.clock.Add(time.Hour)
		rec, err := b.co.Recall(ctx, ten, fmt.Sprintf("who repaired the %s bicycle?", hotWord(i)), &coordinator.RecallOpts{K: 8})
		require.NoError(t, err)
		require.True(t, rec.SideEffects)
		touched += len(rec.Touched)
		// Opportunistic pruning compares with a horizon that other databases' transactions hold
		// back (GlobalVis boundaries are cluster-wide between recomputations), so under a busy
		// cluster the previous recall's dead versions may still fill the pages. VACUUM computes
		// this database's own horizon and frees them, as autovacuum would in time.
		_, err = pool.Exec(ctx, `VACUUM zb.memory`)
		require.NoError(t, err)
	}
	require.GreaterOrEqual(t, touched, 30, "the recalls must touch memories")
	// The counters reach the statistics when the coordinator's connections flush them (within
	// about a second of going idle): poll.
	var u1, h1 int64
	deadline = time.Now().Add(30 * time.Second)
	for {
		u1, h1 = stats()
		if u1-u0 >= int64(touched) || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	upd, hot := u1-u0, h1-h0
	var width float64
	var pages int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT (SELECT avg(pg_column_size(m.*)) FROM zb.memory m),
		pg_relation_size('zb.memory') / 8192`).Scan(&width, &pages))
	t.Logf("zb.memory: %d pages, rows of %.0f bytes on average", pages, width)
	t.Logf("%d memories touched by 6 recalls: %d updates of zb.memory, %d HOT (%.0f %%)", touched, upd, hot,
		100*float64(hot)/float64(max(upd, 1)))
	require.GreaterOrEqual(t, upd, int64(touched), "every touched memory is updated once")
	require.GreaterOrEqual(t, float64(hot), 0.9*float64(upd), "recall's updates of zb.memory are HOT")
	require.GreaterOrEqual(t, hot, int64(float64(touched)*0.9))

	// fade_at is left to decay (a recall only postpones the fade): unchanged by the recalls.
	var after string
	require.NoError(t, pool.QueryRow(ctx, fadeSQL, ten).Scan(&after))
	require.Equal(t, before, after, "recall leaves fade_at alone")
}

func hotName(i int) string {
	return []string{"Ada", "Bruno", "Chiara", "Dmitri", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kemal"}[i%11]
}

func hotWord(i int) string {
	return []string{"red", "rusty", "folding", "tandem", "cargo", "vintage", "racing"}[i%7]
}

func hotPlace(i int) string {
	return []string{"Lyon", "Porto", "Graz", "Turku", "Ghent"}[i%5]
}
