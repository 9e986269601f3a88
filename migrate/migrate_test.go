package migrate_test

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/internal/zbtest"
	"github.com/zenbrain/zb/migrate"
	"github.com/zenbrain/zb/sql/schema"
)

func TestMain(m *testing.M) { zbtest.Main(m) }

func TestMigrationsFromFSValidates(t *testing.T) {
	t.Parallel()
	up, down := &fstest.MapFile{Data: []byte("SELECT 1;")}, &fstest.MapFile{Data: []byte("SELECT 1;")}
	cases := []struct {
		name string
		fs   fstest.MapFS
		err  string
	}{
		{"ok", fstest.MapFS{"0001_a.up.sql": up, "0001_a.down.sql": down, "README": up}, ""},
		{"missing down", fstest.MapFS{"0001_a.up.sql": up}, "needs both"},
		{"gap", fstest.MapFS{"0001_a.up.sql": up, "0001_a.down.sql": down, "0003_c.up.sql": up, "0003_c.down.sql": down}, "without gaps"},
		{"two names", fstest.MapFS{"0001_a.up.sql": up, "0001_b.down.sql": down}, "two names"},
	}
	for _, tc := range cases {
		_, err := migrate.MigrationsFromFS(tc.fs)
		if tc.err == "" {
			require.NoError(t, err, tc.name)
		} else {
			require.ErrorContains(t, err, tc.err, tc.name)
		}
	}
	migs, err := migrate.Migrations()
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(migs), 5)
	for i, m := range migs {
		require.Equal(t, i+1, m.Version)
		require.Len(t, m.Checksum, 64)
	}
}

func TestVersionAtLeast(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v, min string
		want   bool
	}{{"0.8.0", "0.8.0", true}, {"0.8.1", "0.8.0", true}, {"0.10.0", "0.8.0", true}, {"0.7.4", "0.8.0", false}, {"1.0", "0.8.0", true}, {"0.8", "0.8.0", true}} {
		require.Equal(t, tc.want, migrate.VersionAtLeast(tc.v, tc.min), "%s >= %s", tc.v, tc.min)
	}
}

// A migration that fails leaves the database exactly as it was: nothing half-migrated.
func TestFailedMigrationLeavesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := zbtest.Pool(t, &zbtest.Opts{Empty: true})
	fsys := fstest.MapFS{}
	for _, name := range []string{"0001_foundation.up.sql", "0001_foundation.down.sql", "0002_memory.up.sql", "0002_memory.down.sql"} {
		b, err := schema.FS.ReadFile(name)
		require.NoError(t, err)
		fsys[name] = &fstest.MapFile{Data: b}
	}
	fsys["0003_broken.up.sql"] = &fstest.MapFile{Data: []byte("CREATE TABLE zb.ok (id int); SELECT 1/0;")}
	fsys["0003_broken.down.sql"] = &fstest.MapFile{Data: []byte("DROP TABLE zb.ok;")}
	m, err := migrate.NewFromFS(pool, fsys)
	require.NoError(t, err)
	_, err = m.Up(ctx, nil)
	require.ErrorContains(t, err, "0003_broken")
	var n int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname IN ('zb', 'zb_meta')").Scan(&n))
	require.Zero(t, n, "nothing of the failed run remains")

	// The valid prefix applies when asked for.
	res, err := m.Up(ctx, &migrate.Opts{Target: 2, SkipRiver: true})
	require.NoError(t, err)
	require.Equal(t, []string{"0001_foundation", "0002_memory"}, res.Applied)
}

// An applied migration whose file changed is refused, and status reports it.
func TestModifiedMigrationIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := zbtest.Pool(t, &zbtest.Opts{Empty: true})
	one := func(body string) fstest.MapFS {
		return fstest.MapFS{
			"0001_a.up.sql":   &fstest.MapFile{Data: []byte(body)},
			"0001_a.down.sql": &fstest.MapFile{Data: []byte("DROP TABLE t;")},
		}
	}
	m, err := migrate.NewFromFS(pool, one("CREATE TABLE t (id int);"))
	require.NoError(t, err)
	_, err = m.Up(ctx, &migrate.Opts{SkipRiver: true})
	require.NoError(t, err)

	m2, err := migrate.NewFromFS(pool, one("CREATE TABLE t (id bigint);"))
	require.NoError(t, err)
	_, err = m2.Up(ctx, &migrate.Opts{SkipRiver: true})
	require.ErrorIs(t, err, migrate.ErrModified)
	st, err := m2.Status(ctx)
	require.NoError(t, err)
	require.True(t, st.Migrations[0].Modified)
	require.False(t, st.UpToDate)
}
