package migrate

import (
	"io/fs"

	"github.com/jackc/pgx/v5/pgxpool"
)

// NewFromFS returns a Migrator over the migrations of fsys, for tests.
func NewFromFS(pool *pgxpool.Pool, fsys fs.FS) (*Migrator, error) {
	migs, err := migrationsFromFS(fsys)
	if err != nil {
		return nil, err
	}
	return newMigrator(pool, migs)
}

// MigrationsFromFS exposes migrationsFromFS to tests.
var MigrationsFromFS = migrationsFromFS

// VersionAtLeast exposes versionAtLeast to tests.
var VersionAtLeast = versionAtLeast

// SplitStatements exposes splitStatements to tests.
var SplitStatements = splitStatements

// Actions returns what parseActions finds in sql, one string each: "table zb.t",
// "column zb.t.c", "rows zb.t where ...", "rewrite zb.t where ..." or "unknown: statement".
func Actions(sql string) []string {
	var out []string
	for _, a := range parseActions(sql) {
		s := string(a.kind) + " " + a.table
		switch a.kind {
		case DropColumn:
			s += "." + a.column
		case DropUnknown:
			s = "unknown: " + a.stmt
		}
		if a.where != "" {
			s += " where " + a.where
		}
		out = append(out, s)
	}
	return out
}
