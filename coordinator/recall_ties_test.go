package coordinator_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
)

// queryIDs runs a query returning one bigint column and collects it.
func queryIDs(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) []int64 {
	t.Helper()
	rows, err := pool.Query(ctxT(t), sql, args...)
	require.NoError(t, err)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)
	return ids
}

// Recall's vector signal in a small tenant ranks each layer's memories by cosine and keeps the
// top k. Memories with equal cosines (the same terms under a bag-of-words or hash embedder —
// common) were ordered by whatever order the scan read them in, which depends on where updates
// put the rows' new versions: the same database content could give different candidates, and
// the ablation's runs differed from one another. Since 0017 ties go to the lower id. Here 16
// memories share one embedding, the 8 oldest are rewritten so that their new versions sit after
// the others on the page, and the 8 vector candidates must still be the 8 oldest.
func TestRecallVectorTiesGoToLowerIDs(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx, pool := ctxT(t), b.cfg.Pool
	const ten, k = "ties", 8
	var items []coordinator.StoreInput
	for i := range 2 * k {
		// The same terms: the same embedding, the same cosine to any query.
		items = append(items, coordinator.StoreInput{
			TenantID: ten, Layer: coordinator.LayerSemantic,
			Content: fmt.Sprintf("Ines parks the red tandem at the station%s", []string{".", "!", "", "..."}[i%4]),
		})
	}
	n, err := b.co.StoreBatch(ctx, items)
	require.NoError(t, err)
	require.EqualValues(t, 2*k, n)
	ids := queryIDs(t, pool, `SELECT id FROM zb.memory WHERE tenant_id = $1 ORDER BY id`, ten)
	require.Len(t, ids, 2*k)
	var distinct int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(DISTINCT embedding::text) FROM zb.memory WHERE tenant_id = $1`, ten).Scan(&distinct))
	require.Equal(t, 1, distinct, "the memories share one embedding")

	// A new version of each of the 8 oldest rows (subject is indexed: not HOT), placed after the
	// others in the scan order.
	execSQL(t, pool, `UPDATE zb.memory SET subject = 'moved ' || id WHERE tenant_id = $1 AND id <= $2`, ten, ids[k-1])
	firstRead := queryIDs(t, pool, `SELECT id FROM zb.memory WHERE tenant_id = $1 AND layer = 'semantic' ORDER BY ctid LIMIT $2`, ten, k)
	require.NotEqual(t, ids[:k], firstRead, "the rewrite moved the oldest rows after the others")

	for range 3 {
		got := queryIDs(t, pool, `SELECT c.id FROM zb.recall_candidates_model($1,
				(SELECT embedding FROM zb.memory WHERE tenant_id = $1 AND id = $2), NULL, '{semantic}', $3,
				$4, NULL, NULL, NULL, NULL, false, NULL) c
			WHERE c.by_vector ORDER BY c.id`, ten, ids[0], k, b.clock.Now())
		require.Equal(t, ids[:k], got, "equal cosines: the lower ids")
	}

	// Recall itself returns the same memories, best first and ties by id.
	rec, err := b.co.Recall(ctx, ten, "Where does Ines park the red tandem?", &coordinator.RecallOpts{K: 3, ReadOnly: true})
	require.NoError(t, err)
	require.NotEmpty(t, rec.Results)
	for _, r := range rec.Results {
		require.True(t, slices.Contains(ids[:k], r.ID), "result %d is not among the 8 oldest", r.ID)
	}
}
