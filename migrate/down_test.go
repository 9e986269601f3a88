package migrate_test

import (
	"context"
	"fmt"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/internal/zbtest"
	"github.com/zenbrain/zb/migrate"
)

// insertDuplicateUniqueJobs writes two finished River jobs of one kind and unique key, as
// River's current uniqueness scheme allows (unique_states NULL: not unique any more). River's
// own down migration 006 rebuilds its old index river_job_kind_unique_key_idx (kind,
// unique_key), which these rows violate.
func insertDuplicateUniqueJobs(ctx context.Context, t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	_, err := pool.Exec(ctx, `INSERT INTO river.river_job (kind, args, max_attempts, priority, queue, state, unique_key, finalized_at)
		SELECT 'zb_test', '{}', 25, 1, 'default', 'completed', '\x01'::bytea, now() FROM generate_series(1, 2)`)
	require.NoError(t, err)
}

// schemaState is what a failed down must leave untouched.
type schemaState struct {
	Pending      int
	RiverVersion int
	Namespaces   int
	Jobs         int
}

func stateOf(ctx context.Context, t *testing.T, pool *pgxpool.Pool, m *migrate.Migrator) schemaState {
	t.Helper()
	st, err := m.Status(ctx)
	require.NoError(t, err)
	s := schemaState{Pending: st.Pending, RiverVersion: st.RiverVersion}
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname IN ('zb', 'zb_meta', 'river')").Scan(&s.Namespaces))
	if s.Namespaces == 3 {
		require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM river.river_job").Scan(&s.Jobs))
	}
	return s
}

// down --all on a database whose worker left River jobs that River's own down migration cannot
// re-index: every job goes with River's tables anyway, so the revert completes.
func TestDownAllWithRiverDuplicateUniqueKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := zbtest.Pool(t, nil)
	insertDuplicateUniqueJobs(ctx, t, pool)
	m, err := migrate.New(pool)
	require.NoError(t, err)

	res, err := m.Down(ctx, &migrate.DownOpts{All: true, Yes: true})
	require.NoError(t, err)
	require.Len(t, res.River, 8)
	require.Contains(t, res.Drops, migrate.Drop{Migration: "river 002 (initial schema)", Kind: migrate.DropTable, Table: "river.river_job", Rows: 2})
	require.Equal(t, schemaState{Pending: len(mustMigrations(t))}, stateOf(ctx, t, pool, m))
}

// down --all runs River's and zb's down migrations in one transaction: whichever fails, River's
// or zb's, nothing changes.
func TestDownAllIsAtomic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, breakIt := range map[string]string{
		// River's 005 down refuses a database with another migration line; 008-006 ran before.
		"river": "INSERT INTO river.river_migration (line, version) VALUES ('zb_test_line', 1)",
		// zb's 0002 down cannot drop zb.memory while a view depends on it; River's ran before.
		"zb": "CREATE VIEW public.memory_ids AS SELECT id FROM zb.memory",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			pool := zbtest.Pool(t, nil)
			insertDuplicateUniqueJobs(ctx, t, pool)
			_, err := pool.Exec(ctx, breakIt)
			require.NoError(t, err)
			m, err := migrate.New(pool)
			require.NoError(t, err)
			before := stateOf(ctx, t, pool, m)
			require.Equal(t, schemaState{RiverVersion: 8, Namespaces: 3, Jobs: 2}, before)

			_, err = m.Down(ctx, &migrate.DownOpts{All: true, Yes: true})
			require.ErrorContains(t, err, "nothing was changed")
			require.Equal(t, before, stateOf(ctx, t, pool, m))
			var n int
			require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM pg_attribute
				WHERE attrelid = 'river.river_job'::regclass AND attname = 'unique_states'`).Scan(&n))
			require.Equal(t, 1, n, "River's 006 down is rolled back too")
		})
	}
}

// A revert that drops data says what and needs Yes; without it nothing changes. The counts are
// exact, and a dry run reports the same without Yes.
func TestDownThatDropsDataNeedsYes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := zbtest.Pool(t, nil)
	m, err := migrate.New(pool)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `
		INSERT INTO zb.tenant (id) VALUES ('t1');
		INSERT INTO zb.memory_activation (tenant_id, at, memory_id) SELECT 't1', now() - i * interval '1 minute', i FROM generate_series(1, 5) i;
		INSERT INTO zb.prospective_intention (tenant_id, content, trigger_kind, due_at, status, resolved_at, created_at)
		VALUES ('t1', 'call Bob', 'time', now(), 'dismissed', now() - interval '3 days', now() - interval '9 days'),
		       ('t1', 'water plants', 'time', now(), 'pending', NULL, now())`)
	require.NoError(t, err)

	// The last migration drops nothing: no confirmation needed.
	migs := mustMigrations(t)
	res, err := m.Down(ctx, &migrate.DownOpts{DryRun: true})
	require.NoError(t, err)
	require.True(t, res.DryRun)
	require.Equal(t, []string{fmt.Sprintf("%04d_%s", migs[len(migs)-1].Version, migs[len(migs)-1].Name)}, res.Reverted)
	require.Empty(t, res.Drops)

	// Back to 0012: 0027 drops the activation log, 0013 the intentions' resolved_at.
	steps := len(migs) - 12
	_, err = m.Down(ctx, &migrate.DownOpts{Steps: steps})
	var confirm *migrate.ConfirmationRequiredError
	require.ErrorAs(t, err, &confirm)
	require.ErrorIs(t, err, migrate.ErrConfirmationRequired)
	require.Len(t, confirm.Reverting, steps)
	require.Contains(t, confirm.Drops, migrate.Drop{Migration: "0027_activation_log", Kind: migrate.DropTable, Table: "zb.memory_activation", Rows: 5})
	require.Contains(t, confirm.Drops, migrate.Drop{Migration: "0027_activation_log", Kind: migrate.DropTable, Table: "zb.memory_activation_horizon"})
	require.Contains(t, confirm.Drops, migrate.Drop{Migration: "0013_beyond", Kind: migrate.DropColumn, Table: "zb.prospective_intention", Column: "resolved_at", Rows: 1})
	require.Contains(t, confirm.Drops, migrate.Drop{Migration: "0013_beyond", Kind: migrate.DropColumn, Table: "zb.prospective_intention", Column: "priority", Rows: 2})
	require.Equal(t, "column zb.prospective_intention.resolved_at (1 non-null value)", migrate.Drop{Kind: migrate.DropColumn, Table: "zb.prospective_intention", Column: "resolved_at", Rows: 1}.String())
	st, err := m.Status(ctx)
	require.NoError(t, err)
	require.Zero(t, st.Pending, "a refused revert changes nothing")

	dry, err := m.Down(ctx, &migrate.DownOpts{Steps: steps, DryRun: true})
	require.NoError(t, err)
	require.Equal(t, confirm.Drops, dry.Drops)
	require.Equal(t, confirm.Reverting, dry.Reverted)

	res, err = m.Down(ctx, &migrate.DownOpts{Steps: steps, Yes: true})
	require.NoError(t, err)
	require.Equal(t, confirm.Drops, res.Drops)
	require.Len(t, res.Reverted, steps)
	st, err = m.Status(ctx)
	require.NoError(t, err)
	require.Equal(t, steps, st.Pending)
}

// Row-level security forced on a table's owner would hide its rows from a count by the owner:
// the planner counts them all anyway.
func TestDownCountsRowsHiddenByRowLevelSecurity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := zbtest.Pool(t, &zbtest.Opts{Empty: true})
	role := fmt.Sprintf("zbt_owner_%d", time.Now().UnixNano())
	_, err := pool.Exec(ctx, fmt.Sprintf("CREATE ROLE %s NOLOGIN NOSUPERUSER NOBYPASSRLS", role))
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = pool.Exec(context.Background(), fmt.Sprintf("DROP OWNED BY %[1]s; DROP ROLE %[1]s", role))
	})
	fsys := fstest.MapFS{
		"0001_secret.up.sql": &fstest.MapFile{Data: []byte(`CREATE TABLE public.secret (id int);
			ALTER TABLE public.secret ENABLE ROW LEVEL SECURITY; ALTER TABLE public.secret FORCE ROW LEVEL SECURITY;`)},
		"0001_secret.down.sql": &fstest.MapFile{Data: []byte("DROP TABLE public.secret;")},
	}
	m, err := migrate.NewFromFS(pool, fsys)
	require.NoError(t, err)
	_, err = m.Up(ctx, &migrate.Opts{SkipRiver: true})
	require.NoError(t, err)
	_, err = pool.Exec(ctx, fmt.Sprintf(`INSERT INTO public.secret SELECT generate_series(1, 3);
		ALTER TABLE public.secret OWNER TO %[1]s;
		GRANT USAGE ON SCHEMA zb_meta, river TO %[1]s; GRANT SELECT, DELETE ON zb_meta.migration TO %[1]s`, role))
	require.NoError(t, err)

	// The owner sees no row through the policy-less forced RLS...
	owner := zbtest.PoolWithParams(t, pool, map[string]string{"role": role})
	var visible int
	require.NoError(t, owner.QueryRow(ctx, "SELECT count(*) FROM public.secret").Scan(&visible))
	require.Zero(t, visible)
	// ...but the revert's count has all three.
	mo, err := migrate.NewFromFS(owner, fsys)
	require.NoError(t, err)
	_, err = mo.Down(ctx, nil)
	var confirm *migrate.ConfirmationRequiredError
	require.ErrorAs(t, err, &confirm)
	require.Equal(t, []migrate.Drop{{Migration: "0001_secret", Kind: migrate.DropTable, Table: "public.secret", Rows: 3}}, confirm.Drops)
	var force bool
	require.NoError(t, pool.QueryRow(ctx, "SELECT relforcerowsecurity FROM pg_class WHERE oid = 'public.secret'::regclass").Scan(&force))
	require.True(t, force, "the count leaves row-level security as it was")
}

func mustMigrations(t *testing.T) []migrate.Migration {
	t.Helper()
	migs, err := migrate.Migrations()
	require.NoError(t, err)
	return migs
}
