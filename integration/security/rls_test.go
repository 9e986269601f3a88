package security

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// tenantTable is a table or view of schema zb that holds tenant rows, from the catalog.
type tenantTable struct {
	name   string
	column string // tenant_id, or id for zb.tenant
	view   bool
}

// tenantTables lists every table and view of schema zb with a tenant_id column, plus zb.tenant.
// A table added by a later migration appears here by itself, so the tests below cover it (and
// fail until it is under row-level security).
func tenantTables(t *testing.T, pool *pgxpool.Pool) []tenantTable {
	t.Helper()
	rows, err := pool.Query(ctxT(t), `
		SELECT c.relname, CASE WHEN c.relname = 'tenant' THEN 'id' ELSE 'tenant_id' END, c.relkind = 'v'
		FROM pg_class c
		WHERE c.relnamespace = 'zb'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm')
		  AND (c.relname = 'tenant' OR EXISTS (SELECT 1 FROM pg_attribute a
		                                       WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped))
		ORDER BY 1`)
	require.NoError(t, err)
	var out []tenantTable
	for rows.Next() {
		var tb tenantTable
		require.NoError(t, rows.Scan(&tb.name, &tb.column, &tb.view))
		out = append(out, tb)
	}
	require.NoError(t, rows.Err())
	require.Greater(t, len(out), 30)
	return out
}

// sqlState returns the SQLSTATE of err, or "".
func sqlState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// attempt runs sql in a savepoint of tx and returns the rows it affected and its error.
func attempt(t *testing.T, tx pgx.Tx, sql string, args ...any) (int64, error) {
	t.Helper()
	ctx := ctxT(t)
	_, err := tx.Exec(ctx, "SAVEPOINT probe")
	require.NoError(t, err)
	tag, err := tx.Exec(ctx, sql, args...)
	if err != nil {
		_, rerr := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT probe")
		require.NoError(t, rerr)
		return 0, err
	}
	_, rerr := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT probe")
	require.NoError(t, rerr)
	return tag.RowsAffected(), nil
}

const tenantA, tenantB = "tenant-a", "tenant-b"

// TestRowLevelSecurityCatalog checks the policies themselves for every tenant table the catalog
// lists: row-level security enabled and forced (the owner too), and exactly one policy applying
// to zb_app, keyed on zb.current_tenant() for reading and for writing.
func TestRowLevelSecurityCatalog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	app := e.role(t, "app")
	qual := regexp.MustCompile(`^\((tenant_id|id) = \( SELECT (zb\.)?current_tenant\(\) AS current_tenant\)\)$`)
	for _, tb := range tenantTables(t, e.super) {
		if tb.view {
			var opts []string
			require.NoError(t, e.super.QueryRow(ctxT(t), `SELECT coalesce(reloptions, '{}') FROM pg_class WHERE oid = $1::regclass`,
				"zb."+tb.name).Scan(&opts))
			require.Contains(t, opts, "security_invoker=true", "view %s must run with the caller's rights", tb.name)
			continue
		}
		var rls, force bool
		require.NoError(t, e.super.QueryRow(ctxT(t), `SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE oid = $1::regclass`,
			"zb."+tb.name).Scan(&rls, &force))
		require.True(t, rls && force, "table %s needs row-level security, enabled and forced (SELECT zb.secure_tenant_table('zb.%s'))", tb.name, tb.name)
		rows, err := e.super.Query(ctxT(t), `
			SELECT p.polname, p.polcmd::text, coalesce(pg_get_expr(p.polqual, p.polrelid), ''),
			       coalesce(pg_get_expr(p.polwithcheck, p.polrelid), '')
			FROM pg_policy p
			WHERE p.polrelid = $1::regclass AND p.polpermissive
			  AND (0 = ANY (p.polroles) OR EXISTS (SELECT 1 FROM unnest(p.polroles) r WHERE pg_has_role($2, r, 'MEMBER')))`,
			"zb."+tb.name, app)
		require.NoError(t, err)
		type pol struct{ name, cmd, using, check string }
		var pols []pol
		for rows.Next() {
			var p pol
			require.NoError(t, rows.Scan(&p.name, &p.cmd, &p.using, &p.check))
			pols = append(pols, p)
		}
		require.NoError(t, rows.Err())
		if tb.name == "tenant_binding" {
			require.Len(t, pols, 1, tb.name)
			require.Equal(t, "r", pols[0].cmd, "the application only reads its own bindings")
			continue
		}
		require.Len(t, pols, 1, "exactly one policy applies to %s on %s: %v", app, tb.name, pols)
		require.Equal(t, "*", pols[0].cmd, tb.name)
		require.Regexp(t, qual, pols[0].using, tb.name)
		require.Regexp(t, qual, pols[0].check, tb.name)
	}
}

// TestRowLevelSecurityAsApp connects as a LOGIN role in zb_app and checks, for every tenant
// table and view of the catalog, with two tenants' full data sets: bound to tenant A it sees all
// of A's rows and none of B's, cannot change, delete or create B's rows (nor move its own rows
// to B), also not through the SECURITY DEFINER erase functions or any function that reads
// tenant data; without a tenant it sees nothing; a login bound to A sees nothing when it names
// B; zb_worker sees every tenant only without a bound tenant; nobody but the erase may change
// the audit trail.
func TestRowLevelSecurityAsApp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	populate(t, e, tenantA, "Alphamarka")
	wb := populate(t, e, tenantB, "Bravomarka")
	tables := tenantTables(t, e.super)
	countIn := func(tx pgx.Tx, tb tenantTable, where string, args ...any) int64 {
		t.Helper()
		var n int64
		require.NoError(t, tx.QueryRow(ctx, "SELECT count(*) FROM zb."+tb.name+" WHERE "+where, args...).Scan(&n), tb.name)
		return n
	}
	superCount := map[string][2]int64{}
	for _, tb := range tables {
		a := queryInt(t, e.super, "SELECT count(*) FROM zb."+tb.name+" WHERE "+tb.column+" = $1", tenantA)
		b := queryInt(t, e.super, "SELECT count(*) FROM zb."+tb.name+" WHERE "+tb.column+" = $1", tenantB)
		require.Positive(t, b, "the fixture must give tenant B rows in %s (extend populate)", tb.name)
		superCount[tb.name] = [2]int64{a, b}
	}

	app, _ := e.login(t, "app")

	t.Run("bound to A reads all of A and nothing of B", func(t *testing.T) {
		inTenant(t, app, tenantA, func(tx pgx.Tx) {
			for _, tb := range tables {
				require.Zero(t, countIn(tx, tb, tb.column+" <> $1", tenantA), "%s shows other tenants' rows", tb.name)
				if tb.name != "tenant_binding" { // bindings are visible to the bound role only
					require.Equal(t, superCount[tb.name][0], countIn(tx, tb, "true"), "%s hides rows of the bound tenant", tb.name)
				}
			}
		})
	})

	t.Run("without a tenant reads nothing", func(t *testing.T) {
		inTenant(t, app, "", func(tx pgx.Tx) {
			for _, tb := range tables {
				require.Zero(t, countIn(tx, tb, "true"), "%s shows rows without a tenant", tb.name)
			}
			require.Zero(t, queryInt(t, tx, "SELECT count(*) FROM river.river_job"))
		})
	})

	t.Run("bound to A cannot write B", func(t *testing.T) {
		inTenant(t, app, tenantA, func(tx pgx.Tx) {
			for _, tb := range tables {
				if tb.view {
					continue
				}
				for _, sql := range []string{
					fmt.Sprintf("UPDATE zb.%s SET %s = %s WHERE %s = $1", tb.name, tb.column, tb.column, tb.column),
					fmt.Sprintf("DELETE FROM zb.%s WHERE %s = $1", tb.name, tb.column),
				} {
					n, err := attempt(t, tx, sql, tenantB)
					require.True(t, err == nil && n == 0 || sqlState(err) == "42501", "%s: %d rows, %v", sql, n, err)
				}
				// A copy of one of A's rows under B, and A's rows moved to B, are refused.
				cols := insertableColumns(t, tx, tb.name)
				sel := strings.ReplaceAll(","+strings.Join(cols, ",")+",", ","+tb.column+",", ",$1::text,")
				ins := fmt.Sprintf("INSERT INTO zb.%s (%s) OVERRIDING SYSTEM VALUE SELECT %s FROM zb.%s WHERE %s = $2 LIMIT 1",
					tb.name, strings.Join(cols, ","), strings.Trim(sel, ","), tb.name, tb.column)
				if superCount[tb.name][0] > 0 && tb.name != "tenant_binding" {
					_, err := attempt(t, tx, ins, tenantB, tenantA)
					require.Equal(t, "42501", sqlState(err), "%s: inserting a row of B: %v", tb.name, err)
					_, err = attempt(t, tx, fmt.Sprintf("UPDATE zb.%s SET %s = $1 WHERE %s = $2", tb.name, tb.column, tb.column), tenantB, tenantA)
					require.Equal(t, "42501", sqlState(err), "%s: moving rows to B: %v", tb.name, err)
				}
			}
		})
	})

	t.Run("functions return nothing of B and write nothing of B", func(t *testing.T) {
		inTenant(t, app, tenantA, func(tx pgx.Tx) {
			probeFunctions(t, e, tx, wb)
		})
		// B is intact.
		for _, tb := range tables {
			require.Equal(t, superCount[tb.name][1], queryInt(t, e.super, "SELECT count(*) FROM zb."+tb.name+" WHERE "+tb.column+" = $1", tenantB), tb.name)
		}
	})

	t.Run("River jobs of the bound tenant only", func(t *testing.T) {
		require.Positive(t, queryInt(t, e.super, "SELECT count(*) FROM river.river_job WHERE args ->> 'tenant_id' = $1", tenantB))
		inTenant(t, app, tenantA, func(tx pgx.Tx) {
			require.Positive(t, queryInt(t, tx, "SELECT count(*) FROM river.river_job"))
			require.Zero(t, queryInt(t, tx, "SELECT count(*) FROM river.river_job WHERE args ->> 'tenant_id' IS DISTINCT FROM $1", tenantA))
			n, err := attempt(t, tx, "UPDATE river.river_job SET priority = 2 WHERE args ->> 'tenant_id' = $1", tenantB)
			require.True(t, err == nil && n == 0, "%d %v", n, err)
			_, err = attempt(t, tx, "DELETE FROM river.river_job")
			require.Equal(t, "42501", sqlState(err), "the application may not delete jobs")
		})
	})

	t.Run("a login bound to A sees nothing when it names B", func(t *testing.T) {
		bound, _ := e.login(t, "app", tenantA)
		for tenant, want := range map[string]bool{tenantA: true, tenantB: false} {
			inTenant(t, bound, tenant, func(tx pgx.Tx) {
				var cur string
				require.NoError(t, tx.QueryRow(ctx, "SELECT coalesce(zb.current_tenant(), '')").Scan(&cur))
				for _, tb := range tables {
					n := countIn(tx, tb, "true")
					if tb.name == "tenant_binding" {
						require.EqualValues(t, 1, n, "a login reads its own binding only")
					} else if want {
						require.Equal(t, superCount[tb.name][0], n, tb.name)
					} else if !want {
						require.Zero(t, n, "%s: a login bound to A named B", tb.name)
					}
				}
				if !want {
					require.Empty(t, cur)
					_, err := attempt(t, tx, "SELECT zb.remember($1, 'planted by a bound login')", tenantB)
					require.Equal(t, "42501", sqlState(err))
				}
			})
		}
	})

	t.Run("the worker sees every tenant only without a bound tenant", func(t *testing.T) {
		wrk, _ := e.login(t, "worker")
		inTenant(t, wrk, "", func(tx pgx.Tx) {
			for _, tb := range tables {
				if tb.name == "tenant_binding" {
					continue
				}
				require.Equal(t, superCount[tb.name][0]+superCount[tb.name][1], countIn(tx, tb, tb.column+" IN ($1, $2)", tenantA, tenantB), tb.name)
			}
		})
		inTenant(t, wrk, tenantA, func(tx pgx.Tx) {
			for _, tb := range tables {
				require.Zero(t, countIn(tx, tb, tb.column+" <> $1", tenantA), tb.name)
			}
		})
	})

	t.Run("the audit trail changes only through an erase", func(t *testing.T) {
		for _, kind := range []string{"app", "worker", "admin"} {
			pool, _ := e.login(t, kind)
			inTenant(t, pool, tenantA, func(tx pgx.Tx) {
				_, err := tx.Exec(ctx, "SET LOCAL zb.erase = 'on'")
				require.NoError(t, err)
				for _, sql := range []string{"UPDATE zb.audit_event SET detail = '{}'", "DELETE FROM zb.audit_event", "TRUNCATE zb.audit_event"} {
					_, err := attempt(t, tx, sql)
					require.Equal(t, "42501", sqlState(err), "%s: %s: %v", kind, sql, err)
				}
			})
		}
	})
}

// insertableColumns lists a table's columns that an INSERT may name (not generated).
func insertableColumns(t *testing.T, tx pgx.Tx, table string) []string {
	t.Helper()
	rows, err := tx.Query(ctxT(t), `SELECT a.attname FROM pg_attribute a
		WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' ORDER BY a.attnum`,
		"zb."+table)
	require.NoError(t, err)
	cols, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return cols
}

// probeFunctions calls, in tx (bound to tenant A as zb_app), every function of schema zb that
// can read or write tenant data — every function that is not IMMUTABLE and not a trigger, as
// the catalog lists them — asking for tenant B: each returns nothing of B or is refused. A
// function without a probe here fails the test, so a new function is covered when it appears.
func probeFunctions(t *testing.T, e *env, tx pgx.Tx, b *world) {
	t.Helper()
	ctx := ctxT(t)
	const empty, denied, none, relative = "empty", "denied", "no tenant data", "relative"
	layers := "enum_range(NULL::zb.memory_layer)"
	probes := map[string]struct{ sql, want string }{
		"recall":                  {"SELECT count(*) FROM zb.recall('tenant-b', 'codename Bravomarka')", empty},
		"recall_candidates/11":    {"SELECT count(*) FROM zb.recall_candidates('tenant-b', NULL, ARRAY['bravomarka', 'codenam'], " + layers + ", 8, now(), NULL, NULL, NULL, NULL, false)", empty},
		"recall_candidates/12":    {"SELECT count(*) FROM zb.recall_candidates('tenant-b', NULL, ARRAY['bravomarka', 'codenam'], " + layers + ", 8, now(), NULL, NULL, NULL, NULL, true, NULL)", empty},
		"recall_candidates_model": {"SELECT count(*) FROM zb.recall_candidates_model('tenant-b', NULL, ARRAY['bravomarka'], " + layers + ", 8, now(), NULL, NULL, NULL, NULL, true, NULL)", empty},
		// 0014: the lexical and vector halves of recall for large tenants; the SECURITY DEFINER
		// ones refuse any tenant but the bound one, the invoker ones see only its rows.
		"recall_lexical":      {"SELECT count(*) FROM zb.recall_lexical('tenant-b', ARRAY['bravomarka'], 1, 1, 1, " + layers + ", 8, now(), NULL, NULL, NULL, NULL, true)", denied},
		"recall_lexical_scan": {"SELECT cardinality(ids) FROM zb.recall_lexical_scan('tenant-b', ARRAY['bravomarka'], 1, 1, 1, " + layers + ", 8, now(), NULL, NULL, NULL, NULL, true)", empty},
		// 0018: the postings half (live recall) and the GIN half (deep recall) behind recall_lexical_scan.
		"recall_lexical_postings": {"SELECT cardinality(ids) FROM zb.recall_lexical_postings('tenant-b', ARRAY['bravomarka'], 1, 1, 1, " + layers + ", 8, now(), NULL, NULL, NULL, NULL)", empty},
		// 0032: the SQL lexical half behind the dispatcher, and the compiled one (zb_lexical),
		// which reads the postings without row-level security: only the schema's owner may
		// execute it, and its definer wrapper only that owner and the <prefix>_search role.
		"recall_lexical_postings_sql": {"SELECT cardinality(ids) FROM zb.recall_lexical_postings_sql('tenant-b', ARRAY['bravomarka'], 1, 1, 1, " + layers + ", 8, now(), NULL, NULL, NULL, NULL)", empty},
		"lexical_topk":                {"SELECT cardinality(ids) FROM zb.lexical_topk('tenant-b', ARRAY['bravomarka'], 1, 1, 1, " + layers + ", 8, now(), NULL, NULL, NULL, NULL)", denied},
		"lexical_topk_definer":        {"SELECT cardinality(ids) FROM zb.lexical_topk_definer('tenant-b', ARRAY['bravomarka'], 1, 1, 1, " + layers + ", 8, now(), NULL, NULL, NULL, NULL)", denied},
		"lexical_scorer":              {"SELECT zb.lexical_scorer()", none},
		// 0024: the postings merged in memory order, behind recall_lexical_postings.
		"recall_lexical_merge": {"SELECT cardinality(zb.recall_lexical_merge('tenant-b', ARRAY['bravomarka'], ARRAY[1.0::float8], 1, " + layers + ", 8, now(), NULL, NULL, NULL, NULL))", empty},
		"recall_lexical_gin":   {"SELECT cardinality(ids) FROM zb.recall_lexical_gin('tenant-b', ARRAY['bravomarka'], 1, 1, 1, " + layers + ", 8, now(), NULL, NULL, NULL, NULL, true)", empty},
		"recall_vector":        {"SELECT cardinality(zb.recall_vector('tenant-b', (SELECT embedding FROM zb.memory WHERE embedding IS NOT NULL LIMIT 1), " + layers + ", 8, now(), NULL, NULL, NULL, NULL, true, NULL))", denied},
		"recall_vector_scan":   {"SELECT cardinality(zb.recall_vector_scan('tenant-b', (SELECT embedding FROM zb.memory WHERE embedding IS NOT NULL LIMIT 1), " + layers + ", 8, now(), NULL, NULL, NULL, NULL, true, NULL))", empty},
		// 0026: recall's candidate function in three parts (the coordinator reads the halves on
		// two connections for a large tenant): invoker functions that see only the bound tenant.
		"recall_lexical_half": {"SELECT cardinality(ids) FROM zb.recall_lexical_half('tenant-b', ARRAY['bravomarka'], " + layers + ", 8, now(), NULL, NULL, NULL, NULL, true)", empty},
		"recall_vector_half":  {"SELECT cardinality(zb.recall_vector_half('tenant-b', (SELECT embedding FROM zb.memory WHERE embedding IS NOT NULL LIMIT 1), " + layers + ", 8, now(), NULL, NULL, NULL, NULL, true, NULL))", empty},
		"recall_candidates_join": {"SELECT count(*) FROM zb.recall_candidates_join('tenant-b', NULL, NULL, NULL, NULL, " + layers +
			", now(), NULL, NULL, NULL, NULL, true, NULL, ARRAY(SELECT id FROM zb.memory WHERE tenant_id = 'tenant-b'), '{}', 1, 1, 1, 1, true)", empty},
		// 0027: sleep's pruning of the activation log, asked for B's: refused (B's horizon
		// cannot be written), nothing of B deleted.
		"memory_activation_prune": {"SELECT zb.memory_activation_prune('tenant-b', now() + interval '100 years')", denied},
		"memory_activation_count": {"SELECT zb.memory_activation_count('tenant-b', '-infinity', 'infinity', 1000000)", empty},
		// 0016: derive's nearest facts, asked for B's facts by id.
		"similar_semantic":         {fmt.Sprintf("SELECT count(*) FROM zb.similar_semantic('tenant-b', ARRAY[%s]::bigint[], 5)", joinIDs(b.facts)), empty},
		"memory_live":              {"SELECT count(*) FROM zb.memory_live(now()) WHERE tenant_id <> 'tenant-a'", empty},
		"lexical_stat_compact":     {"SELECT zb.lexical_stat_compact('tenant-b')", empty},
		"tenant_approval_required": {"SELECT count(*) FROM (SELECT zb.tenant_approval_required('tenant-b', 'core_overwrite') AS r) x WHERE r", empty},
		"remember":                 {"SELECT zb.remember('tenant-b', 'planted by tenant A')", denied},
		"remember_insert": {
			"SELECT zb.remember_insert('tenant-b', 'planted by tenant A', 'semantic', 'default', '{}', NULL, NULL, NULL, NULL, now())", denied,
		},
		"forget":          {fmt.Sprintf("SELECT zb.forget('tenant-b', %d)", b.plain), denied},
		"erase":           {"SELECT zb.erase('tenant-b', 'tenant')", denied},
		"erase_memories":  {fmt.Sprintf("SELECT zb.erase_memories('tenant-b', ARRAY[%d::bigint], now())", b.plain), denied},
		"erase_bind":      {"SELECT zb.erase_bind('tenant-b')", denied},
		"apply_retention": {"SELECT zb.apply_retention('tenant-b', now() + interval '100 years') ->> 'memory'", empty},
		"job_counts":      {"SELECT count(*) FROM zb.job_counts()", denied},
		// River's jobs of one kind, counted under row-level security: as many as the bound
		// tenant's jobs of that kind.
		"job_kind_counts": {"SELECT (SELECT coalesce(sum(n), 0) FROM zb.job_kind_counts('zb_derive')) - " +
			"(SELECT count(*) FROM river.river_job WHERE kind = 'zb_derive')", relative},
		// The notified worker's check for waiting derive jobs: under row-level security it
		// counts only what River's table shows the caller (the bound tenant's jobs).
		"derive_waiting": {"SELECT (SELECT count(*) FROM zb.derive_waiting(ARRAY['tenant-a', 'tenant-b'])) - " +
			"(SELECT count(DISTINCT args ->> 'tenant_id') FROM river.river_job WHERE kind = 'zb_derive' " +
			"AND state IN ('available', 'scheduled') AND args @> '{\"pending\": true}' AND args ->> 'tenant_id' IN ('tenant-a', 'tenant-b'))", relative},
		"apply_embedding_dim": {"SELECT zb.apply_embedding_dim('zb.memory', 'embedding')", denied},
		"secure_tenant_table": {"SELECT zb.secure_tenant_table('zb.memory')", denied},
		"secure_river":        {"SELECT zb.secure_river()", denied},
		"current_tenant":      {"SELECT zb.current_tenant()", none},
		"bind_tenant":         {"SELECT zb.bind_tenant('tenant-a')", none},
		"xact_stamp":          {"SELECT zb.xact_stamp()", none},
		"tenant_setting":      {"SELECT zb.tenant_setting()", none},
		"role_name":           {"SELECT zb.role_name('app')", none},
		"embedding_dim":       {"SELECT zb.embedding_dim()", none},
	}
	// zb.lexical_topk exists only where the zb_lexical extension is installed.
	var compiled bool
	require.NoError(t, tx.QueryRow(ctx, `SELECT to_regproc('zb.lexical_topk') IS NOT NULL`).Scan(&compiled))
	if !compiled {
		delete(probes, "lexical_topk")
	}
	rows, err := tx.Query(ctx, `SELECT p.proname, p.oid::regprocedure::text, p.pronargs, p.prosecdef FROM pg_proc p
		WHERE p.pronamespace = 'zb'::regnamespace AND p.prokind = 'f' AND p.provolatile <> 'i'
		  AND p.prorettype <> 'trigger'::regtype ORDER BY 1, 3`)
	require.NoError(t, err)
	type fn struct {
		name, sig string
		nargs     int
		definer   bool
	}
	fns, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (fn, error) {
		var f fn
		return f, r.Scan(&f.name, &f.sig, &f.nargs, &f.definer)
	})
	require.NoError(t, err)
	var definers []string
	seen := map[string]bool{}
	for _, f := range fns {
		key := f.name
		if _, ok := probes[key]; !ok {
			key = fmt.Sprintf("%s/%d", f.name, f.nargs)
		}
		p, ok := probes[key]
		require.True(t, ok, "function %s reads or writes the database and has no probe in probeFunctions: add one", f.sig)
		seen[key] = true
		if f.definer {
			definers = append(definers, f.name)
			require.Equal(t, denied, p.want, "SECURITY DEFINER %s must refuse another tenant", f.sig)
		}
		_, err := attempt(t, tx, "SELECT ("+p.sql+")::text")
		switch p.want {
		case denied:
			require.Equal(t, "42501", sqlState(err), "%s: %v", f.sig, err)
		case empty, relative:
			require.NoError(t, err, f.sig)
			var v string
			require.NoError(t, tx.QueryRow(ctx, "SELECT ("+p.sql+")::text").Scan(&v), f.sig)
			require.Equal(t, "0", v, "%s returned data of tenant B", f.sig)
			if p.want == empty {
				// The probe is not vacuous: the superuser, whom row-level security does not
				// restrict, gets B's data from the same call.
				inTenant(t, e.super, "", func(stx pgx.Tx) {
					require.NoError(t, stx.QueryRow(ctx, "SELECT ("+p.sql+")::text").Scan(&v), f.sig)
					require.NotEqual(t, "0", v, "probe %s finds no data of tenant B even as the superuser", f.sig)
				})
			}
		case none:
			require.NoError(t, err, f.sig)
		}
	}
	for key := range probes {
		require.True(t, seen[key], "probe %s matches no function of schema zb", key)
	}
	sort.Strings(definers)
	require.Equal(t, []string{"erase", "erase_memories", "lexical_topk_definer", "recall_lexical", "recall_vector"}, definers,
		"the SECURITY DEFINER functions")
}

func joinIDs(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, ",")
}
