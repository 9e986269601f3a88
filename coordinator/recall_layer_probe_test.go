package coordinator_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/sql/schema"
)

// Recall's vector half probes the layers its first scan left short before planning a scan for
// them (0030): a layer the tenant holds no embedded memory of a status asked for in is dropped,
// the others get 0028's statement. The results are those of 0028's function — loaded here from
// 0030's down migration under another name — for calls that leave layers empty, unembedded,
// archived (found only by a deep recall), sparse, or filtered away by a context or an as-of time.
func TestRecallVectorScanLayerProbe(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx, pool := ctxT(t), b.cfg.Pool
	text := func(i int) string { return fmt.Sprintf("%s (%d)", factText(i), i) }
	var items []coordinator.StoreInput
	for i := range 1100 {
		items = append(items, coordinator.StoreInput{TenantID: "probe", Layer: coordinator.LayerSemantic, Content: text(i)})
	}
	sparse := map[coordinator.Layer]int{
		coordinator.LayerProcedural: 3, coordinator.LayerEpisodic: 2, coordinator.LayerCrossContext: 2, coordinator.LayerShortTerm: 4,
	}
	n := 1100
	for l, c := range sparse {
		for range c {
			items = append(items, coordinator.StoreInput{TenantID: "probe", Layer: l, Content: text(n), Context: "side"})
			n++
		}
	}
	b.storeAll(t, ctx, items)
	// Episodic: stored, never embedded. Cross-context: archived (a deep recall's). Short-term:
	// two of four archived.
	execSQL(t, pool, `UPDATE zb.memory SET embedding = NULL, embedding_model = NULL WHERE tenant_id = 'probe' AND layer = 'episodic'`)
	execSQL(t, pool, `UPDATE zb.memory SET status = 'archived' WHERE tenant_id = 'probe' AND layer = 'cross_context'`)
	execSQL(t, pool, `UPDATE zb.memory SET status = 'archived' WHERE tenant_id = 'probe' AND id IN (
		SELECT id FROM zb.memory WHERE tenant_id = 'probe' AND layer = 'short_term' ORDER BY id LIMIT 2)`)
	execSQL(t, pool, `ANALYZE zb.memory`)

	// 0028's function, as 0030's down migration restores it, under another name.
	down, err := schema.FS.ReadFile("0030_recall_layer_probe.down.sql")
	require.NoError(t, err)
	ref := strings.Replace(string(down), "zb.recall_vector_scan(", "zb.recall_vector_scan_0028(", 2)
	require.Equal(t, 2, strings.Count(ref, "zb.recall_vector_scan_0028("), "the function and its ALTER")
	execSQL(t, pool, ref)

	var queries []string
	require.NoError(t, pool.QueryRow(ctx, `SELECT array_agg(embedding::text ORDER BY id) FROM (
		SELECT id, embedding FROM zb.memory WHERE tenant_id = 'probe' AND embedding IS NOT NULL ORDER BY md5(id::text) LIMIT 12) q`).
		Scan(&queries))
	layerOf := func(ids []int64) map[string]int {
		t.Helper()
		out := map[string]int{}
		rows, err := pool.Query(ctx, `SELECT layer::text FROM zb.memory WHERE tenant_id = 'probe' AND id = ANY ($1)`, ids)
		require.NoError(t, err)
		defer rows.Close()
		for rows.Next() {
			var l string
			require.NoError(t, rows.Scan(&l))
			out[l]++
		}
		require.NoError(t, rows.Err())
		return out
	}
	calls := []struct {
		name, args string
		want       map[string]int // per-layer counts of the new function's answer, for the first query
	}{
		{
			"every layer", `enum_range(NULL::zb.memory_layer), 10, now(), NULL, NULL, NULL, NULL, false, NULL`,
			map[string]int{"semantic": 10, "procedural": 3, "short_term": 2},
		},
		{
			"every layer, deep", `enum_range(NULL::zb.memory_layer), 10, now(), NULL, NULL, NULL, NULL, true, NULL`,
			map[string]int{"semantic": 10, "procedural": 3, "short_term": 4, "cross_context": 2},
		},
		{
			"sparse layers only, k 2", `'{procedural,episodic,cross_context,core}', 2, now(), NULL, NULL, NULL, NULL, false, NULL`,
			map[string]int{"procedural": 2},
		},
		{
			"context side", `enum_range(NULL::zb.memory_layer), 10, now(), NULL, NULL, NULL, '{side}', true, NULL`,
			map[string]int{"procedural": 3, "short_term": 4, "cross_context": 2},
		},
		{
			"as of before any memory", `enum_range(NULL::zb.memory_layer), 10, now(), NULL, NULL, '2000-01-01'::timestamptz, NULL, true, NULL`,
			map[string]int{},
		},
		{
			"another model", `enum_range(NULL::zb.memory_layer), 10, now(), NULL, NULL, NULL, NULL, true, 'none'`,
			map[string]int{},
		},
	}
	for _, c := range calls {
		for i, q := range queries {
			var got, want []int64
			require.NoError(t, pool.QueryRow(ctx, `SELECT zb.recall_vector_scan('probe', $1::vector, `+c.args+`)`, q).Scan(&got), c.name)
			require.NoError(t, pool.QueryRow(ctx, `SELECT zb.recall_vector_scan_0028('probe', $1::vector, `+c.args+`)`, q).Scan(&want), c.name)
			require.ElementsMatch(t, want, got, "%s, query %d", c.name, i)
			if i == 0 {
				require.Equal(t, c.want, layerOf(got), c.name)
			}
		}
	}
}
