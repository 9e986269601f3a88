package zbctlcli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/internal/zbtest"
	"github.com/zenbrain/zb/migrate"
)

// migrateState is what a refused or failed revert must leave as it was.
func migrateState(t *testing.T, u string) migrate.Status {
	t.Helper()
	r := run(t, map[string]string{"ZB_DATABASE_URL": u}, "--json", "migrate", "status")
	require.Zero(t, r.code, r.stderr)
	var st migrate.Status
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &st))
	for i := range st.Migrations {
		st.Migrations[i].AppliedAt = nil
	}
	return st
}

func execSQL(t *testing.T, u, sql string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), u)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	_, err = conn.Exec(context.Background(), sql)
	require.NoError(t, err)
}

// --steps 0 is refused like a negative count, before anything runs.
func TestMigrateDownStepsMustBePositive(t *testing.T) {
	t.Parallel()
	u := zbtest.DB(t, nil)
	env := map[string]string{"ZB_DATABASE_URL": u}
	before := migrateState(t, u)
	for _, n := range []string{"0", "-1"} {
		r := run(t, env, "migrate", "down", "--steps", n)
		require.Equal(t, 1, r.code, n)
		require.Contains(t, r.stderr, "--steps must be at least 1, got "+n)
	}
	r := run(t, env, "migrate", "down", "--all", "--steps", "2", "--yes")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "none of the others can be")
	require.Equal(t, before, migrateState(t, u))
}

// down --all reverts River's and zb's migrations in one transaction: when River's down
// migrations fail halfway, nothing changes; and River jobs its old unique index cannot hold
// do not stop it.
func TestMigrateDownAllIsAtomic(t *testing.T) {
	t.Parallel()
	u := zbtest.DB(t, nil)
	env := map[string]string{"ZB_DATABASE_URL": u}
	// Finished jobs sharing a kind and unique key, as the worker's lifecycle jobs leave them:
	// River's 006 down cannot rebuild river_job_kind_unique_key_idx over them.
	execSQL(t, u, `INSERT INTO river.river_job (kind, args, max_attempts, priority, queue, state, unique_key, finalized_at)
		SELECT 'zb_test', '{}', 25, 1, 'default', 'completed', '\x01'::bytea, now() FROM generate_series(1, 2)`)
	// A second River migration line: River's 005 down refuses it, after 008-006 ran.
	execSQL(t, u, "INSERT INTO river.river_migration (line, version) VALUES ('zb_test_line', 1)")
	before := migrateState(t, u)
	require.True(t, before.UpToDate)

	r := run(t, env, "migrate", "down", "--all", "--yes")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "error reverting River migrations (nothing was changed)")
	require.Equal(t, before, migrateState(t, u))

	execSQL(t, u, "DELETE FROM river.river_migration WHERE line = 'zb_test_line'")
	r = run(t, env, "migrate", "down", "--all", "--yes")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, fmt.Sprintf("and %d River migrations", before.RiverLatest))
	require.Contains(t, r.stdout, "table river.river_job (2 rows)")
	st := migrateState(t, u)
	require.Equal(t, len(st.Migrations), st.Pending)
	require.Zero(t, st.RiverVersion)
}

// A revert that drops data lists it (text and JSON) and needs --yes; --dry-run lists it and
// changes nothing.
func TestMigrateDownThatDropsDataNeedsYes(t *testing.T) {
	t.Parallel()
	u := zbtest.DB(t, &zbtest.Opts{EmbeddingDim: 64})
	env := map[string]string{"ZB_DATABASE_URL": u, "ZB_TENANT": "cli"}
	r := run(t, env, "store", "Alice's favourite colour is green")
	require.Zero(t, r.code, r.stderr)
	execSQL(t, u, `INSERT INTO zb.prospective_intention (tenant_id, content, trigger_kind, due_at, status, resolved_at, created_at)
		VALUES ('cli', 'call Bob', 'time', now(), 'dismissed', now(), now())`)
	before := migrateState(t, u)
	steps := fmt.Sprint(len(before.Migrations) - 12)

	// The last migration alone drops nothing: no --yes needed (shown with --dry-run).
	r = run(t, env, "migrate", "down", "--dry-run")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "would revert 00")
	require.Contains(t, r.stdout, "would remove no data")

	r = run(t, env, "migrate", "down", "--steps", steps)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "add --yes to confirm")
	require.Contains(t, r.stderr, "nothing was changed")
	require.Contains(t, r.stdout, "would remove:")
	require.Contains(t, r.stdout, "0027_activation_log")
	require.Contains(t, r.stdout, "table zb.memory_activation (")
	require.Contains(t, r.stdout, "column zb.prospective_intention.resolved_at (1 non-null value)")
	require.Equal(t, before, migrateState(t, u))

	r = run(t, env, "--json", "migrate", "down", "--steps", steps)
	require.Equal(t, 1, r.code)
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	var refusal struct {
		NeedsConfirmation bool           `json:"needs_confirmation"`
		Reverting         []string       `json:"reverting"`
		Drops             []migrate.Drop `json:"drops"`
	}
	require.NoError(t, dec.Decode(&refusal))
	require.True(t, refusal.NeedsConfirmation)
	require.Len(t, refusal.Reverting, len(before.Migrations)-12)
	require.Contains(t, refusal.Drops, migrate.Drop{Migration: "0013_beyond", Kind: migrate.DropColumn, Table: "zb.prospective_intention", Column: "resolved_at", Rows: 1})
	var errOut map[string]string
	require.NoError(t, dec.Decode(&errOut))
	require.Contains(t, errOut["error"], "--yes")

	r = run(t, env, "migrate", "down", "--steps", steps, "--dry-run")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "would revert")
	require.Contains(t, r.stdout, "column zb.prospective_intention.resolved_at (1 non-null value)")
	require.Equal(t, before, migrateState(t, u))

	r = run(t, env, "migrate", "down", "--steps", steps, "--yes")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "reverted 00")
	require.Contains(t, r.stdout, "removed:")
	require.Contains(t, r.stdout, "column zb.prospective_intention.resolved_at (1 non-null value)")
	require.Equal(t, len(before.Migrations)-12, migrateState(t, u).Pending)
}

// Commands that use the database say that its schema is behind this zbctl, with the versions
// and the fix, instead of failing on a missing column.
func TestCommandsRefuseAnOlderSchema(t *testing.T) {
	t.Parallel()
	u := zbtest.DB(t, &zbtest.Opts{Empty: true})
	env := map[string]string{"ZB_DATABASE_URL": u}
	r := run(t, env, "migrate", "up", "--target", "31", "--embedding-dim", "64")
	require.Zero(t, r.code, r.stderr)
	want := fmt.Sprintf("the database schema is at 0031 but this zbctl needs %04d: run 'zbctl migrate up'", numMigrations(t))
	for _, args := range [][]string{{"recall", "colour"}, {"store", "x"}, {"stats"}, {"jobs", "list"}, {"--json", "stats"}} {
		r = run(t, env, args...)
		require.Equal(t, 1, r.code, args)
		require.Contains(t, r.stderr+r.stdout, want, args)
		require.NotContains(t, r.stderr+r.stdout, "42703", args)
	}
	r = run(t, env, "migrate", "up")
	require.Zero(t, r.code, r.stderr)
	r = run(t, env, "stats")
	require.Zero(t, r.code, r.stderr)
}
