package coordinator_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

// requireUnderivedQueueMirrors checks that derive's queue zb.memory_underived holds exactly the
// memories of tenant whose derived_at is NULL and returns how many.
func requireUnderivedQueueMirrors(t *testing.T, pool *pgxpool.Pool, tenant string) int {
	t.Helper()
	var want, diff int
	require.NoError(t, pool.QueryRow(ctxT(t), `
		WITH m AS (SELECT id FROM zb.memory WHERE tenant_id = $1 AND derived_at IS NULL),
		     u AS (SELECT memory_id AS id FROM zb.memory_underived WHERE tenant_id = $1)
		SELECT (SELECT count(*) FROM m), (SELECT count(*) FROM m FULL JOIN u USING (id) WHERE m.id IS NULL OR u.id IS NULL)`,
		tenant).Scan(&want, &diff))
	require.Zero(t, diff, "zb.memory_underived differs from the memories whose derived_at is NULL in %d rows", diff)
	return want
}

// Derive's queue lives in zb.memory_underived since 0017, kept by triggers on zb.memory: INSERT
// (Store), COPY (StoreBatch), derive, any writer of derived_at and erasure leave it equal to the
// memories whose derived_at is NULL, and derive's sweep (Pending, UnderivedTenants) reads it.
// No index of zb.memory names derived_at any more, so derive's write is HOT-eligible.
func TestUnderivedQueueMirrorsMemory(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx, pool := ctxT(t), b.cfg.Pool
	const ten = "underivedq"

	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM pg_index i
		WHERE i.indrelid = 'zb.memory'::regclass
		  AND (EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey) AND a.attname = 'derived_at')
		       OR pg_get_expr(i.indpred, i.indrelid) ~ 'derived_at' OR pg_get_expr(i.indexprs, i.indrelid) ~ 'derived_at')`).Scan(&n))
	require.Zero(t, n, "an index of zb.memory names derived_at: derive's write would be a non-HOT update")

	var items []coordinator.StoreInput
	for i := range 30 {
		items = append(items, coordinator.StoreInput{
			TenantID: ten,
			Content:  fmt.Sprintf("%s repaired the %s bicycle in %s", hotName(i), hotWord(i), hotPlace(i)),
		})
	}
	stored, err := b.co.StoreBatch(ctx, items) // COPY
	require.NoError(t, err)
	require.EqualValues(t, 30, stored)
	one, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: ten, Content: "Greta keeps the tandem keys in the blue drawer"})
	require.NoError(t, err)
	require.Equal(t, 31, requireUnderivedQueueMirrors(t, pool, ten))
	tenants, err := b.co.UnderivedTenants(ctx, 100000)
	require.NoError(t, err)
	require.Contains(t, tenants, ten)

	// Derive one memory by id, then the rest through the sweep (which reads the queue).
	_, err = b.co.Derive(ctx, jobs.DeriveArgs{TenantID: ten, MemoryIDs: []int64{one.ID}}, nil)
	require.NoError(t, err)
	require.Equal(t, 30, requireUnderivedQueueMirrors(t, pool, ten))
	rep, err := b.co.Derive(ctx, jobs.DeriveArgs{TenantID: ten, Pending: true}, nil)
	require.NoError(t, err)
	require.Len(t, rep.Derived, 30, "the sweep derives every queued memory")
	require.False(t, slices.Contains(rep.Derived, one.ID), "a derived memory is not derived again")
	require.Zero(t, requireUnderivedQueueMirrors(t, pool, ten))
	tenants, err = b.co.UnderivedTenants(ctx, 100000)
	require.NoError(t, err)
	require.NotContains(t, tenants, ten)

	// Any writer of derived_at: cleared returns the memory to the queue, set removes it.
	execSQL(t, pool, `UPDATE zb.memory SET derived_at = NULL WHERE tenant_id = $1 AND id = $2`, ten, one.ID)
	require.Equal(t, 1, requireUnderivedQueueMirrors(t, pool, ten))
	tenants, err = b.co.UnderivedTenants(ctx, 100000)
	require.NoError(t, err)
	require.Contains(t, tenants, ten)
	execSQL(t, pool, `UPDATE zb.memory SET significance = significance WHERE tenant_id = $1`, ten)
	require.Equal(t, 1, requireUnderivedQueueMirrors(t, pool, ten), "updates that leave derived_at alone leave the queue alone")
	rep, err = b.co.Derive(ctx, jobs.DeriveArgs{TenantID: ten, Pending: true}, nil)
	require.NoError(t, err)
	require.Equal(t, []int64{one.ID}, rep.Derived)
	require.Zero(t, requireUnderivedQueueMirrors(t, pool, ten))

	// Erase one underived memory, then the tenant.
	two, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: ten, Content: "Hugo lent the red tandem to Greta"})
	require.NoError(t, err)
	require.Equal(t, 1, requireUnderivedQueueMirrors(t, pool, ten))
	_, err = b.co.Erase(ctx, ten, coordinator.ScopeMemory(two.ID), nil)
	require.NoError(t, err)
	requireUnderivedQueueMirrors(t, pool, ten)
	_, err = b.co.Erase(ctx, ten, coordinator.ScopeTenant(), nil)
	require.NoError(t, err)
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory_underived WHERE tenant_id = $1`, ten).Scan(&n))
	require.Zero(t, n)
}
