package coordinator_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
)

// requireFadeQueueMirrors checks that decay's schedule zb.memory_fade holds exactly the active
// memories of tenant that have a fade time, each with its fade_at, and returns how many.
func requireFadeQueueMirrors(t *testing.T, pool *pgxpool.Pool, tenant string) int {
	t.Helper()
	var want, diff int
	require.NoError(t, pool.QueryRow(ctxT(t), `
		WITH m AS (SELECT id, fade_at FROM zb.memory WHERE tenant_id = $1 AND status = 'active' AND fade_at IS NOT NULL),
		     f AS (SELECT memory_id AS id, fade_at FROM zb.memory_fade WHERE tenant_id = $1)
		SELECT (SELECT count(*) FROM m),
		       (SELECT count(*) FROM m FULL JOIN f USING (id) WHERE m.id IS NULL OR f.id IS NULL OR m.fade_at <> f.fade_at)`,
		tenant).Scan(&want, &diff))
	require.Zero(t, diff, "zb.memory_fade differs from the active memories' fade_at in %d rows", diff)
	return want
}

// Decay's schedule lives in zb.memory_fade since 0016, kept by triggers on zb.memory: every way a
// memory is written — INSERT (Store), COPY (StoreBatch), decay's reschedule and archive, recall,
// erase, the deletion of a tenant — leaves it equal to the active memories' fade_at. No index
// of zb.memory names fade_at any more, so writing it keeps the update HOT-eligible.
func TestFadeQueueMirrorsMemory(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx, pool := ctxT(t), b.cfg.Pool
	const ten = "fadeq"

	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM pg_index i
		WHERE i.indrelid = 'zb.memory'::regclass
		  AND (EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey) AND a.attname = 'fade_at')
		       OR pg_get_expr(i.indpred, i.indrelid) ~ 'fade_at' OR pg_get_expr(i.indexprs, i.indrelid) ~ 'fade_at')`).Scan(&n))
	require.Zero(t, n, "an index of zb.memory names fade_at: writing it would be a non-HOT update")

	var items []coordinator.StoreInput
	for i := range 40 {
		layer := coordinator.LayerSemantic
		if i%2 == 1 {
			layer = coordinator.LayerEpisodic
		}
		items = append(items, coordinator.StoreInput{
			TenantID: ten, Layer: layer,
			Content: fmt.Sprintf("%s repaired the %s bicycle in %s", hotName(i), hotWord(i), hotPlace(i)),
		})
	}
	stored, err := b.co.StoreBatch(ctx, items) // COPY
	require.NoError(t, err)
	require.EqualValues(t, 40, stored)
	one, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: ten, Content: "Greta keeps the tandem keys in the blue drawer"})
	require.NoError(t, err)
	core, err := b.co.Store(ctx, coordinator.StoreInput{
		TenantID: ten, Layer: coordinator.LayerCore, CoreLabel: "name",
		Content: "The user's name is Ines",
	})
	require.NoError(t, err)
	scheduled := requireFadeQueueMirrors(t, pool, ten)
	require.Equal(t, 41, scheduled, "the 40 batch memories and the single store have a fade time, core has none")
	var coreFade *time.Time
	require.NoError(t, pool.QueryRow(ctx, `SELECT fade_at FROM zb.memory WHERE tenant_id = $1 AND id = $2`, ten, core.ID).Scan(&coreFade))
	require.Nil(t, coreFade)

	// Recall: side effects leave fade_at alone, and the queue with it.
	_, err = b.co.Recall(ctx, ten, "who repaired the tandem bicycle?", &coordinator.RecallOpts{K: 5})
	require.NoError(t, err)
	require.Equal(t, 41, requireFadeQueueMirrors(t, pool, ten))

	// Decay weeks later: faded episodes are archived (their rows leave the queue), the others
	// are rescheduled (their rows move).
	var before string
	require.NoError(t, pool.QueryRow(ctx, `SELECT string_agg(memory_id || '@' || fade_at, ',' ORDER BY memory_id)
		FROM zb.memory_fade WHERE tenant_id = $1`, ten).Scan(&before))
	b.clock.Add(40 * 24 * time.Hour)
	var archived, rescheduled int
	for range 10 {
		rep, err := b.co.DecayDue(ctx, ten, 0, nil)
		require.NoError(t, err)
		archived += len(rep.Archived)
		rescheduled += rep.Rescheduled
		if !rep.More {
			break
		}
	}
	require.Positive(t, rescheduled, "faded memories are kept and rescheduled")
	after := requireFadeQueueMirrors(t, pool, ten)
	require.Equal(t, 41-archived, after)
	var moved string
	require.NoError(t, pool.QueryRow(ctx, `SELECT string_agg(memory_id || '@' || fade_at, ',' ORDER BY memory_id)
		FROM zb.memory_fade WHERE tenant_id = $1`, ten).Scan(&moved))
	require.NotEqual(t, before, moved)
	var due int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory_fade WHERE tenant_id = $1 AND fade_at <= $2`,
		ten, b.clock.Now()).Scan(&due))
	require.Zero(t, due, "after decay nothing in the queue is due")

	// Any writer of status: archived leaves the queue, reactivated returns to it.
	var victim int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT memory_id FROM zb.memory_fade WHERE tenant_id = $1 AND memory_id <> $2
		ORDER BY memory_id LIMIT 1`, ten, one.ID).Scan(&victim))
	execSQL(t, pool, `UPDATE zb.memory SET status = 'archived' WHERE tenant_id = $1 AND id = $2`, ten, victim)
	require.Equal(t, after-1, requireFadeQueueMirrors(t, pool, ten))
	execSQL(t, pool, `UPDATE zb.memory SET status = 'active' WHERE tenant_id = $1 AND id = $2`, ten, victim)
	require.Equal(t, after, requireFadeQueueMirrors(t, pool, ten))
	execSQL(t, pool, `UPDATE zb.memory SET fade_at = NULL WHERE tenant_id = $1 AND id = $2`, ten, victim)
	require.Equal(t, after-1, requireFadeQueueMirrors(t, pool, ten))

	// Erase one memory, then the tenant.
	_, err = b.co.Erase(ctx, ten, coordinator.ScopeMemory(one.ID), nil)
	require.NoError(t, err)
	require.Equal(t, after-2, requireFadeQueueMirrors(t, pool, ten))
	_, err = b.co.Erase(ctx, ten, coordinator.ScopeTenant(), nil)
	require.NoError(t, err)
	require.Zero(t, requireFadeQueueMirrors(t, pool, ten))
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory_fade WHERE tenant_id = $1`, ten).Scan(&n))
	require.Zero(t, n)
}
