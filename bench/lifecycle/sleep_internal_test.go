package lifecycle

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/embed"
	"github.com/zenbrain/zb/internal/zbtest"
)

// TestSleepSetupCopies: a sleep tenant larger than SleepDerived is its derived memories plus
// server-side copies of them that carry the same state and derived rows, in whole and partial
// copies, with the id sequence moved past them; the copies then sleep as episodes of the window.
func TestSleepSetupCopies(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := (&Config{AdminURL: zbtest.AdminURL(t), SleepDerived: 100}).withDefaults()
	require.NoError(t, c.validate())
	bdb, err := newDB(ctx, &c, 4)
	require.NoError(t, err)
	defer bdb.drop()
	emb, err := embed.New(&embed.Config{Dim: c.Dim})
	require.NoError(t, err)
	co, err := coordinator.New(&coordinator.Config{Pool: bdb.pool, Embedder: emb})
	require.NoError(t, err)
	const tenant = "sleep"
	hnswDef := func() string {
		var def string
		require.NoError(t, bdb.pool.QueryRow(ctx, `SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i
			WHERE i.indexrelid = 'zb.memory_embedding_hnsw_idx'::regclass AND i.indisvalid`).Scan(&def))
		return def
	}
	migrated := hnswDef()
	copied, err := sleepSetup(ctx, &c, co, bdb.pool, tenant, 250)
	require.NoError(t, err)
	require.Equal(t, 150, copied)
	require.Equal(t, migrated, hnswDef(), "the HNSW index is built again as the migration defines it")

	one := func(sql string, args ...any) int64 {
		t.Helper()
		var n int64
		require.NoError(t, bdb.pool.QueryRow(ctx, sql, args...).Scan(&n), sql)
		return n
	}
	require.EqualValues(t, 250, one(`SELECT count(*) FROM zb.memory WHERE tenant_id = $1`, tenant))
	require.EqualValues(t, 250, one(`SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND derived_at IS NOT NULL AND status = 'active'`, tenant))
	// The originals are the 100 lowest ids; copy k of original o has id o + k·span.
	origMax := one(`SELECT id FROM zb.memory WHERE tenant_id = $1 ORDER BY id OFFSET 99 LIMIT 1`, tenant)
	span := origMax + 1
	pairs := `FROM zb.memory c JOIN zb.memory o ON o.tenant_id = c.tenant_id AND o.id = c.id - $2 * ((c.id - 1) / $2)
		WHERE c.tenant_id = $1 AND c.id > $3`
	require.EqualValues(t, 150, one(`SELECT count(*) `+pairs, tenant, span, origMax), "every copy has its original")
	require.EqualValues(t, 100, one(`SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND id BETWEEN $2 AND $2 + $3`, tenant, span, origMax),
		"the first copy is whole")
	require.Zero(t, one(`SELECT count(*) `+pairs+` AND (c.content, c.layer, c.kind, c.embedding::text, c.terms, c.term_count, c.stability,
		c.fade_at, c.derived_at, c.created_at, c.last_accessed_at, c.confidence, c.subject, c.attribute, c.valid_to)
		IS DISTINCT FROM (o.content, o.layer, o.kind, o.embedding::text, o.terms, o.term_count, o.stability, o.fade_at, o.derived_at,
		o.created_at, o.last_accessed_at, o.confidence, o.subject, o.attribute, o.valid_to)`, tenant, span, origMax),
		"a copy carries its original's content and state")
	// Derived rows: each copy has exactly its original's mentions, review state and triple copies.
	for _, tbl := range []string{"zb.mention", "zb.review_state", "zb.triple_copy", "zb.memory_posting"} {
		orig := one(`SELECT count(*) FROM `+tbl+` x JOIN zb.memory c ON c.tenant_id = x.tenant_id AND c.id - $2 * ((c.id - 1) / $2) = x.memory_id
			WHERE x.tenant_id = $1 AND c.id > $3`, tenant, span, origMax)
		copied := one(`SELECT count(*) FROM `+tbl+` WHERE tenant_id = $1 AND memory_id > $2`, tenant, origMax)
		require.Positive(t, orig, tbl)
		require.Equal(t, orig, copied, tbl)
	}
	require.Zero(t, one(`SELECT count(*) FROM (
			SELECT memory_id - $2 * ((memory_id - 1) / $2) AS o, entity_id FROM zb.mention WHERE tenant_id = $1 AND memory_id > $3
			EXCEPT ALL
			SELECT m.memory_id, m.entity_id FROM zb.mention m JOIN zb.memory c ON c.tenant_id = m.tenant_id AND c.id - $2 * ((c.id - 1) / $2) = m.memory_id
			WHERE m.tenant_id = $1 AND c.id > $3) d`, tenant, span, origMax), "a copy mentions its original's entities")
	require.Equal(t, one(`SELECT count(*) FROM zb.mention WHERE tenant_id = $1`, tenant),
		one(`SELECT sum(mention_count) FROM zb.entity WHERE tenant_id = $1`, tenant), "entity mention counts follow the copies")
	// The triggers kept the BM25 statistics (and wrote the postings, counted above).
	require.EqualValues(t, 250, one(`SELECT sum(docs) FROM zb.lexical_stat_delta WHERE tenant_id = $1`, tenant))
	// The sequence is past the copies: a new memory gets a fresh id.
	res, err := co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: "Ada met Bob after the copies"})
	require.NoError(t, err)
	require.Greater(t, res.ID, span+origMax, "above the second copy's ids")

	rep, err := co.Sleep(ctx, tenant, &coordinator.SleepOpts{Trigger: "benchmark", Seed: 1}, nil)
	require.NoError(t, err)
	require.Equal(t, 251, rep.Episodes, "the copies are episodes of the window like their originals")
}
