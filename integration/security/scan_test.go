package security

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// textColumn is a column that can hold text: text-like, JSON, tsvector or an array.
type textColumn struct {
	Schema, Table, Column string
}

func (c textColumn) String() string { return c.Schema + "." + c.Table + "." + c.Column }

// textColumns lists, from the catalog, every column of every table and materialized view in
// every schema of the database except PostgreSQL's own whose type is text-like (text, varchar,
// char, name, citext), JSON, jsonb, tsvector, xml, or an array of anything.
func textColumns(t *testing.T, pool *pgxpool.Pool) []textColumn {
	t.Helper()
	rows, err := pool.Query(ctxT(t), `
		SELECT n.nspname, c.relname, a.attname
		FROM pg_attribute a
		JOIN pg_class c ON c.oid = a.attrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_type ty ON ty.oid = a.atttypid
		WHERE c.relkind IN ('r', 'p', 'm') AND a.attnum > 0 AND NOT a.attisdropped
		  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
		  AND n.nspname NOT LIKE 'pg_temp%'
		  AND (ty.typcategory IN ('S', 'A') OR ty.typname IN ('json', 'jsonb', 'tsvector', 'xml'))
		ORDER BY 1, 2, 3`)
	require.NoError(t, err)
	cols, err := pgx.CollectRows(rows, pgx.RowToStructByPos[textColumn])
	require.NoError(t, err)
	return cols
}

// scanMarker searches every text column of the database (as the superuser) for marker, case
// insensitively, and returns the number of rows holding it per column.
func scanMarker(t *testing.T, pool *pgxpool.Pool, marker string) map[string]int64 {
	t.Helper()
	hits := map[string]int64{}
	pattern := "%" + strings.ToLower(marker) + "%"
	for _, c := range textColumns(t, pool) {
		q := "SELECT count(*) FROM " + pgx.Identifier{c.Schema, c.Table}.Sanitize() + " WHERE lower(" +
			pgx.Identifier{c.Column}.Sanitize() + "::text) LIKE $1"
		if n := queryInt(t, pool, q, pattern); n > 0 {
			hits[c.String()] = n
		}
	}
	return hits
}
