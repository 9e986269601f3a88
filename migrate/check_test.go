package migrate_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/internal/zbtest"
	"github.com/zenbrain/zb/migrate"
)

func TestCheckSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	latest := len(mustMigrations(t))

	t.Run("UpToDate", func(t *testing.T) {
		t.Parallel()
		pool := zbtest.Pool(t, nil)
		require.NoError(t, migrate.CheckSchema(ctx, pool, "zbctl"))
	})

	t.Run("NotMigrated", func(t *testing.T) {
		t.Parallel()
		pool := zbtest.Pool(t, &zbtest.Opts{Empty: true})
		err := migrate.CheckSchema(ctx, pool, "zbctl")
		require.ErrorIs(t, err, migrate.ErrSchemaBehind)
		require.EqualError(t, err, fmt.Sprintf("the database is not migrated but this zbctl needs schema %04d: run 'zbctl migrate up'", latest))
	})

	t.Run("Behind", func(t *testing.T) {
		t.Parallel()
		pool := zbtest.Pool(t, &zbtest.Opts{Empty: true})
		m, err := migrate.New(pool)
		require.NoError(t, err)
		_, err = m.Up(ctx, &migrate.Opts{Target: 31})
		require.NoError(t, err)
		err = migrate.CheckSchema(ctx, pool, "zbworker")
		require.ErrorIs(t, err, migrate.ErrSchemaBehind)
		require.EqualError(t, err, fmt.Sprintf("the database schema is at 0031 but this zbworker needs %04d: run 'zbctl migrate up'", latest))
	})

	t.Run("RiverBehind", func(t *testing.T) {
		t.Parallel()
		pool := zbtest.Pool(t, nil)
		rm, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Schema: migrate.RiverSchema})
		require.NoError(t, err)
		all := rm.AllVersions()
		_, err = rm.Migrate(ctx, rivermigrate.DirectionDown, nil)
		require.NoError(t, err)
		err = migrate.CheckSchema(ctx, pool, "zbctl")
		require.ErrorIs(t, err, migrate.ErrSchemaBehind)
		require.EqualError(t, err, fmt.Sprintf("River's schema in the database is at version %d but this zbctl needs %d: run 'zbctl migrate up'",
			all[len(all)-2].Version, all[len(all)-1].Version))
	})

	// zb's application role may not read the bookkeeping: it is not checked.
	t.Run("ApplicationRole", func(t *testing.T) {
		t.Parallel()
		pool := zbtest.Pool(t, &zbtest.Opts{Empty: true})
		m, err := migrate.New(pool)
		require.NoError(t, err)
		_, err = m.Up(ctx, &migrate.Opts{Target: 31})
		require.NoError(t, err)
		tx, err := pool.Begin(ctx)
		require.NoError(t, err)
		defer func() { _ = tx.Rollback(ctx) }()
		_, err = tx.Exec(ctx, "SET LOCAL ROLE zb_app")
		require.NoError(t, err)
		require.NoError(t, migrate.CheckSchema(ctx, tx, "zbctl"))
	})
}
