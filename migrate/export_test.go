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
