package integration

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/internal/zbtest"
	"github.com/zenbrain/zb/migrate"
)

// catalogQuery lists every object of the zb, zb_meta and river schemas with its definition, in
// a stable order, so two installs can be compared.
const catalogQuery = `
SELECT 'rel ' || c.relname || ' ' || c.relkind::text
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname IN ('zb', 'zb_meta', 'river')
UNION ALL
SELECT 'col ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull
       || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '') || ' ' || a.attgenerated::text || a.attidentity::text
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE n.nspname IN ('zb', 'zb_meta', 'river') AND a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'v', 'm')
UNION ALL
SELECT 'con ' || c.relname || ' ' || pg_get_constraintdef(k.oid)
FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname IN ('zb', 'zb_meta', 'river')
UNION ALL
SELECT 'idx ' || pg_get_indexdef(i.indexrelid)
FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname IN ('zb', 'zb_meta', 'river')
UNION ALL
SELECT 'fn ' || p.proname || ' ' || md5(pg_get_functiondef(p.oid))
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname IN ('zb', 'zb_meta', 'river') AND p.prokind IN ('f', 'p')
UNION ALL
SELECT 'trg ' || pg_get_triggerdef(t.oid)
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname IN ('zb', 'zb_meta', 'river') AND NOT t.tgisinternal
UNION ALL
SELECT 'enum ' || t.typname || ' ' || string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder)
FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
WHERE n.nspname IN ('zb', 'zb_meta', 'river')
GROUP BY t.typname
ORDER BY 1`

func catalog(ctx context.Context, t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(ctx, catalogQuery)
	require.NoError(t, err)
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return lines
}

func emptyPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	return zbtest.Pool(t, &zbtest.Opts{Empty: true})
}

func newMigrator(t *testing.T, pool *pgxpool.Pool) *migrate.Migrator {
	t.Helper()
	m, err := migrate.New(pool)
	require.NoError(t, err)
	return m
}

func TestMigrationsUpDownUpIdenticalCatalog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := emptyPool(t)
	m := newMigrator(t, pool)

	res, err := m.Up(ctx, nil)
	require.NoError(t, err)
	migs, err := migrate.Migrations()
	require.NoError(t, err)
	require.Len(t, res.Applied, len(migs))
	require.NotEmpty(t, res.River)
	require.Equal(t, migrate.EmbeddingDimDefault, res.EmbeddingDim)
	first := catalog(ctx, t, pool)
	require.Greater(t, len(first), 300, "the catalog holds the whole data model")

	st, err := m.Status(ctx)
	require.NoError(t, err)
	require.True(t, st.UpToDate)
	require.Zero(t, st.Pending)

	// A second up changes nothing.
	res, err = m.Up(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, res.Applied)
	require.Empty(t, res.River)
	require.Equal(t, first, catalog(ctx, t, pool))

	// One step down reverts only the last migration.
	res, err = m.Down(ctx, &migrate.DownOpts{Steps: 1})
	require.NoError(t, err)
	require.Equal(t, []string{fmt.Sprintf("%04d_%s", migs[len(migs)-1].Version, migs[len(migs)-1].Name)}, res.Reverted)
	st, err = m.Status(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, st.Pending)

	_, err = m.Down(ctx, &migrate.DownOpts{All: true, Yes: true})
	require.NoError(t, err)
	require.Empty(t, catalog(ctx, t, pool), "down --all leaves nothing of zb, zb_meta or river")

	_, err = m.Up(ctx, nil)
	require.NoError(t, err)
	require.Equal(t, first, catalog(ctx, t, pool))
}

func TestMigrateConcurrentRunsApplyOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := emptyPool(t)
	var wg sync.WaitGroup
	results := make([]*migrate.Result, 3)
	errs := make([]error, 3)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := migrate.New(pool)
			if err != nil {
				errs[i] = err
				return
			}
			results[i], errs[i] = m.Up(ctx, nil)
		}()
	}
	wg.Wait()
	applied := 0
	for i := range results {
		require.NoError(t, errs[i])
		applied += len(results[i].Applied)
	}
	migs, err := migrate.Migrations()
	require.NoError(t, err)
	require.Equal(t, len(migs), applied, "each migration is applied by exactly one run")
}

func TestEmbeddingDimensionTakesEffect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := emptyPool(t)
	m := newMigrator(t, pool)
	_, err := m.Up(ctx, &migrate.Opts{EmbeddingDim: 16})
	require.NoError(t, err)

	for _, col := range []string{"zb.memory.embedding", "zb.entity.embedding", "zb.review_state.context_embedding", "zb.prospective_intention.cue_embedding"} {
		i := strings.LastIndex(col, ".")
		var typ string
		require.NoError(t, pool.QueryRow(ctx,
			"SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = $1::regclass AND attname = $2",
			col[:i], col[i+1:]).Scan(&typ))
		require.Equal(t, "vector(16)", typ, col)
	}
	q := db.New(pool)
	v, err := q.ConfigGet(ctx, "embedding_dim")
	require.NoError(t, err)
	require.Equal(t, "16", v)

	// A later run asking for another dimension is refused and changes nothing.
	_, err = m.Up(ctx, &migrate.Opts{EmbeddingDim: 32})
	require.ErrorIs(t, err, migrate.ErrDimensionMismatch)
	require.Contains(t, err.Error(), "installed with embedding dimension 16")
	_, err = m.Up(ctx, &migrate.Opts{EmbeddingDim: 16})
	require.NoError(t, err)
	_, err = m.Up(ctx, nil)
	require.NoError(t, err)

	// Vectors of the wrong dimension are rejected by the column type.
	require.NoError(t, q.TenantEnsure(ctx, db.TenantEnsureParams{ID: "t1", Name: "t1"}))
	now := time.Now()
	stab := 1.0
	mem, err := q.MemoryInsert(ctx, db.MemoryInsertParams{
		TenantID: "t1", Context: "default", Layer: db.ZbMemoryLayerSemantic,
		Kind: "fact", Content: "dimension check", Now: now, SourceIDs: []int64{}, Metadata: []byte("{}"), Stability: &stab,
	})
	require.NoError(t, err)
	_, err = q.MemorySetEmbedding(ctx, db.MemorySetEmbeddingParams{TenantID: "t1", ID: mem.ID, Embedding: ptr(pgvector.NewVector(make([]float32, 768))), EmbeddingModel: "x", Now: now})
	require.Error(t, err)
	require.Contains(t, err.Error(), "expected 16 dimensions")
	n, err := q.MemorySetEmbedding(ctx, db.MemorySetEmbeddingParams{TenantID: "t1", ID: mem.ID, Embedding: ptr(pgvector.NewVector(make([]float32, 16))), EmbeddingModel: "x", Now: now})
	require.NoError(t, err)
	require.EqualValues(t, 1, n)

	// Out-of-range dimensions are refused before touching the database.
	_, err = m.Up(ctx, &migrate.Opts{EmbeddingDim: migrate.EmbeddingDimMax + 1})
	require.ErrorIs(t, err, migrate.ErrInvalidOpts)
}

func TestUnreachableDatabaseIsNamed(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := dbconn.NewPool(ctx, &dbconn.Config{URL: "postgres://zb@127.0.0.1:1/zenbrain?sslmode=disable&connect_timeout=2"})
	require.ErrorIs(t, err, dbconn.ErrUnreachable)
	require.Contains(t, err.Error(), "ZB_DATABASE_URL")
}

func TestNearestNeighbourUsesHNSW(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := zbtest.Pool(t, &zbtest.Opts{EmbeddingDim: 16})
	_, err := pool.Exec(ctx, `
		INSERT INTO zb.tenant (id) VALUES ('t1');
		INSERT INTO zb.memory (tenant_id, layer, content, created_at, updated_at, last_accessed_at, stability, embedding, embedding_model)
		SELECT 't1', 'semantic', 'fact ' || g, now(), now(), now(), 7,
		       (SELECT array_agg(sin(g * 7.0 + d))::real[] FROM generate_series(1, 16) d)::vector, 'test'
		FROM generate_series(1, 5000) g;
		ANALYZE zb.memory;`)
	require.NoError(t, err)
	q := pgvector.NewVector([]float32{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})
	rows, err := pool.Query(ctx, `EXPLAIN WITH q AS (SELECT $1::vector AS v)
		SELECT m.id FROM zb.memory m, q
		WHERE m.tenant_id = 't1' AND m.status = 'active' AND m.embedding IS NOT NULL
		ORDER BY m.embedding <=> q.v LIMIT 10`, q)
	require.NoError(t, err)
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Contains(t, strings.Join(plan, "\n"), "memory_embedding_hnsw_idx", "plan:\n%s", strings.Join(plan, "\n"))

	got, err := db.New(pool).MemorySearchNearest(ctx, db.MemorySearchNearestParams{TenantID: "t1", Query: &q, K: 10})
	require.NoError(t, err)
	require.Len(t, got, 10)
	for i := 1; i < len(got); i++ {
		require.LessOrEqual(t, got[i-1].Distance, got[i].Distance)
	}
}

func TestAuditEventIsAppendOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := zbtest.Pool(t, nil)
	q := db.New(pool)
	require.NoError(t, q.AuditEventInsert(ctx, db.AuditEventInsertParams{TenantID: "t1", At: time.Now(), Actor: "test", Action: "memory.store", Detail: []byte(`{"n":1}`)}))
	for _, stmt := range []string{"UPDATE zb.audit_event SET actor = 'x'", "DELETE FROM zb.audit_event", "TRUNCATE zb.audit_event"} {
		_, err := pool.Exec(ctx, stmt)
		requireSQLState(t, err, "42501", stmt)
	}
	// The erase path may scrub.
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, "SET LOCAL zb.erase = 'on'")
	require.NoError(t, err)
	tag, err := tx.Exec(ctx, "UPDATE zb.audit_event SET detail = '{}'")
	require.NoError(t, err)
	require.EqualValues(t, 1, tag.RowsAffected())
}

func requireSQLState(t *testing.T, err error, code, msg string) {
	t.Helper()
	require.Error(t, err, msg)
	var pgErr *pgconn.PgError
	require.True(t, errors.As(err, &pgErr), "%s: not a PostgreSQL error: %v", msg, err)
	require.Equal(t, code, pgErr.Code, "%s: %s", msg, pgErr.Message)
}

func ptr[T any](v T) *T { return &v }
