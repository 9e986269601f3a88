package security

import (
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// textColumn is a column that can hold text: text-like, JSON, tsvector or an array.
type textColumn struct {
	Schema, Table, Column string
	bytea                 bool
}

func (c textColumn) String() string { return c.Schema + "." + c.Table + "." + c.Column }

// textColumns lists, from the catalog, every column of every table and materialized view in
// every schema of the database except PostgreSQL's own whose type is text-like (text, varchar,
// char, name, citext), JSON, jsonb, tsvector, xml, bytea, or an array of anything.
func textColumns(t *testing.T, pool *pgxpool.Pool) []textColumn {
	t.Helper()
	rows, err := pool.Query(ctxT(t), `
		SELECT n.nspname, c.relname, a.attname, ty.typname = 'bytea'
		FROM pg_attribute a
		JOIN pg_class c ON c.oid = a.attrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_type ty ON ty.oid = a.atttypid
		WHERE c.relkind IN ('r', 'p', 'm') AND a.attnum > 0 AND NOT a.attisdropped
		  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
		  AND n.nspname NOT LIKE 'pg_temp%'
		  AND (ty.typcategory IN ('S', 'A') OR ty.typname IN ('json', 'jsonb', 'tsvector', 'xml', 'bytea'))
		ORDER BY 1, 2, 3`)
	require.NoError(t, err)
	cols, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (textColumn, error) {
		var c textColumn
		return c, r.Scan(&c.Schema, &c.Table, &c.Column, &c.bytea)
	})
	require.NoError(t, err)
	return cols
}

// scanMarker searches every text and bytea column of the database and the planner statistics
// (pg_statistic: most common values and histograms of every column) as the superuser for marker,
// case insensitively, and returns the number of rows holding it per column ("pg_statistic.<table>"
// for statistics).
func scanMarker(t *testing.T, pool *pgxpool.Pool, marker string) map[string]int64 {
	t.Helper()
	hits := map[string]int64{}
	pattern := "%" + strings.ToLower(marker) + "%"
	for _, c := range textColumns(t, pool) {
		col := pgx.Identifier{c.Column}.Sanitize() + "::text"
		if c.bytea {
			col = "encode(" + pgx.Identifier{c.Column}.Sanitize() + ", 'escape')"
		}
		q := "SELECT count(*) FROM " + pgx.Identifier{c.Schema, c.Table}.Sanitize() + " WHERE lower(" + col + ") LIKE $1"
		if n := queryInt(t, pool, q, pattern); n > 0 {
			hits[c.String()] = n
		}
	}
	for name, n := range countsBy(t, pool, `
		SELECT 'pg_statistic.' || n.nspname || '.' || c.relname, count(*)
		FROM pg_statistic s
		JOIN pg_class c ON c.oid = s.starelid
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE lower(concat_ws(' ', s.stavalues1::text, s.stavalues2::text, s.stavalues3::text, s.stavalues4::text,
		                      s.stavalues5::text)) LIKE $1
		GROUP BY 1`, pattern) {
		hits[name] = n
	}
	return hits
}

// tupleMarker counts, per table of schemas zb and river and their TOAST tables, the row versions
// in the heap — live or dead, whatever their visibility — whose bytes hold marker (pageinspect's
// heap_page_items, as the superuser). After an erase and its vacuum there are none; the freed
// space of a page may still hold the bytes (docs/security.md, residual risks).
func tupleMarker(t *testing.T, pool *pgxpool.Pool, marker string) map[string]int64 {
	t.Helper()
	return countsBy(t, pool, pageScan(t, pool, "CROSS JOIN LATERAL heap_page_items(get_raw_page(c.oid::regclass::text, b)) h",
		"c.relkind IN ('r', 't', 'm') AND position(convert_to($1, 'UTF8') IN h.t_data) > 0"), marker)
}

// pageMarker counts, per table, index and TOAST table of schemas zb and river, the pages whose
// raw bytes hold marker anywhere — in a row version, an index entry or freed space (pageinspect's
// get_raw_page, as the superuser).
func pageMarker(t *testing.T, pool *pgxpool.Pool, marker string) map[string]int64 {
	t.Helper()
	return countsBy(t, pool, pageScan(t, pool, "",
		"position(convert_to($1, 'UTF8') IN get_raw_page(c.oid::regclass::text, b)) > 0"), marker)
}

// pageScan returns a query counting, per relation of schemas zb and river — tables, indexes,
// their TOAST tables and TOAST indexes — the pages b (joined with join) where cond holds; it
// creates pageinspect first.
func pageScan(t *testing.T, pool *pgxpool.Pool, join, cond string) string {
	t.Helper()
	_, err := pool.Exec(ctxT(t), "CREATE EXTENSION IF NOT EXISTS pageinspect")
	require.NoError(t, err)
	return `
		SELECT n.nspname || '.' || c.relname, count(*)
		FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace
		CROSS JOIN LATERAL generate_series(0, (pg_relation_size(c.oid) / current_setting('block_size')::int)::int - 1) b
		` + join + `
		WHERE c.relkind IN ('r', 't', 'm', 'i')
		  AND (c.relnamespace IN ('zb'::regnamespace, 'river'::regnamespace)
		       OR c.oid IN (SELECT r.reltoastrelid FROM pg_class r
		                    WHERE r.relnamespace IN ('zb'::regnamespace, 'river'::regnamespace))
		       OR c.oid IN (SELECT i.indexrelid FROM pg_index i JOIN pg_class r ON r.oid = i.indrelid
		                    WHERE r.relnamespace = 'pg_toast'::regnamespace))
		  AND ` + cond + `
		GROUP BY 1`
}

// countsBy runs query (as the superuser) and returns its rows of (name, count) as a map.
func countsBy(t *testing.T, pool *pgxpool.Pool, query string, args ...any) map[string]int64 {
	t.Helper()
	rows, err := pool.Query(ctxT(t), query, args...)
	require.NoError(t, err)
	hits := map[string]int64{}
	for rows.Next() {
		var name string
		var n int64
		require.NoError(t, rows.Scan(&name, &n))
		hits[name] = n
	}
	require.NoError(t, rows.Err())
	return hits
}

// quietAutovacuum turns autovacuum off for every table of schemas zb and river in the test's
// database and waits until no autovacuum worker runs there. An autovacuum ANALYZE holds a
// snapshot while it runs, and VACUUM keeps every row version a snapshot older than the erase may
// still see (docs/security.md): on a loaded machine one running across an erase would leave its
// rows to the next vacuum, and the row-version scans would depend on timing.
func quietAutovacuum(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	ctx := ctxT(t)
	_, err := pool.Exec(ctx, `DO $$
		DECLARE r regclass;
		BEGIN
			FOR r IN SELECT c.oid::regclass FROM pg_class c
			         WHERE c.relkind IN ('r', 'm') AND c.relnamespace IN ('zb'::regnamespace, 'river'::regnamespace) LOOP
				EXECUTE format('ALTER TABLE %s SET (autovacuum_enabled = off, toast.autovacuum_enabled = off)', r);
			END LOOP;
		END $$`)
	require.NoError(t, err)
	deadline := time.Now().Add(2 * time.Minute)
	for queryInt(t, pool, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND backend_type = 'autovacuum worker'`) > 0 {
		require.True(t, time.Now().Before(deadline), "an autovacuum worker still runs in the test database")
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
