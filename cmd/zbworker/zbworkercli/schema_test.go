package zbworkercli_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/internal/zbtest"
	"github.com/zenbrain/zb/migrate"
)

// A database that lacks migrations of this build stops the worker at startup with the versions
// and the fix, before any job runs.
func TestOlderSchemaIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := zbtest.Pool(t, &zbtest.Opts{Empty: true})
	m, err := migrate.New(pool)
	require.NoError(t, err)
	_, err = m.Up(ctx, &migrate.Opts{Target: 31})
	require.NoError(t, err)
	migs, err := migrate.Migrations()
	require.NoError(t, err)

	code, _, errOut := run(t, nil, "--database-url", pool.Config().ConnString(), "--http-addr", "", "--once")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, fmt.Sprintf("the database schema is at 0031 but this zbworker needs %04d: run 'zbctl migrate up'", len(migs)))
}
