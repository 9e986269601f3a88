package migrate_test

import (
	"strings"
	"testing"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/migrate"
)

// Every statement of every embedded down migration, zb's and River's, is one whose effect on
// data the planner knows: nothing it must report as uncountable.
func TestDownMigrationsAreCountable(t *testing.T) {
	t.Parallel()
	migs, err := migrate.Migrations()
	require.NoError(t, err)
	found := map[int][]string{}
	for _, m := range migs {
		for _, a := range migrate.Actions(m.Down) {
			require.NotContains(t, a, "unknown", "%04d_%s", m.Version, m.Name)
			found[m.Version] = append(found[m.Version], a)
		}
	}
	// The data the down migrations remove that an up does not give back.
	require.Equal(t, []string{"table zb.memory_activation_horizon", "table zb.memory_activation"}, found[27])
	require.Contains(t, found[13], "column zb.prospective_intention.resolved_at")
	require.Contains(t, found[13], "column zb.recall_event.query_terms")
	require.Equal(t, []string{"table zb.import_key", "rows zb.config where key IN ('install_id', 'embedding_model')"}, found[10])
	require.Equal(t, []string{"table zb.vacuum_request", "table zb.audit_action", "column zb.audit_event.recorded_at", "column zb.audit_event.login"}, found[33])
	require.Empty(t, found[34])

	rm, err := rivermigrate.New(riverpgxv5.New(nil), nil)
	require.NoError(t, err)
	var river []string
	for _, m := range rm.AllVersions() {
		for _, a := range migrate.Actions(strings.ReplaceAll(m.SQLDown, "/* TEMPLATE: schema */", "river.")) {
			require.NotContains(t, a, "unknown", "River %03d", m.Version)
			river = append(river, a)
		}
	}
	require.Contains(t, river, "table river.river_job")
}

func TestParseActions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{"DROP TABLE zb.a, zb.b CASCADE; DROP TABLE IF EXISTS \"Zb\".\"C\"", []string{"table zb.a", "table zb.b", `table "Zb"."C"`}},
		{
			"ALTER TABLE zb.t DROP CONSTRAINT c, DROP COLUMN IF EXISTS x, DROP y, ALTER COLUMN z DROP DEFAULT, ADD COLUMN w int",
			[]string{"column zb.t.x", "column zb.t.y"},
		},
		{"ALTER TABLE ONLY zb.t ALTER COLUMN z TYPE bigint", []string{"unknown: ALTER TABLE ONLY zb.t ALTER COLUMN z TYPE bigint"}},
		{"ALTER TABLE zb.t RENAME TO u", []string{"unknown: ALTER TABLE zb.t RENAME TO u"}},
		{"DELETE FROM zb.config WHERE key = 'a;b'; TRUNCATE zb.x, zb.y RESTART IDENTITY", []string{"rows zb.config where key = 'a;b'", "rows zb.x", "rows zb.y"}},
		{"UPDATE zb.t SET a = (SELECT 1 WHERE true) WHERE b", []string{"rewrite zb.t where b"}},
		{"UPDATE zb.t SET a = o.a FROM zb.o WHERE o.id = t.id", []string{"unknown: UPDATE zb.t SET a = o.a FROM zb.o WHERE o.id = t.id"}},
		{"DROP TYPE zb.k CASCADE", []string{"unknown: DROP TYPE zb.k CASCADE"}},
		{"VACUUM zb.t", []string{"unknown: VACUUM zb.t"}},
		// Comments, function bodies and DO blocks are not statements.
		{"-- DROP TABLE zb.a;\n/* DROP TABLE /* nested */ zb.b; */ CREATE FUNCTION f() RETURNS void AS $f$ DROP TABLE zb.c; $f$ LANGUAGE sql;\n" +
			"DO $$ BEGIN DELETE FROM zb.d; END $$; DROP FUNCTION f(); SELECT E'it\\'s; DROP TABLE zb.e'", nil},
	} {
		require.Equal(t, tc.want, migrate.Actions(tc.sql), tc.sql)
	}
	require.Equal(t, []string{"CREATE FUNCTION f() RETURNS void AS $$ LANGUAGE sql", "SELECT 'a''b;c'"},
		migrate.SplitStatements("CREATE FUNCTION f()\n  RETURNS void AS $body$ SELECT 1; $body$ LANGUAGE sql; -- c\nSELECT 'a''b;c';"))
}
