package migrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// ErrSchemaBehind is returned (wrapped) by CheckSchema when the database lacks migrations the
// running program was built with.
var ErrSchemaBehind = errors.New("the database schema is older than this program")

// behind returns an error wrapping ErrSchemaBehind whose message is the formatted text alone.
func behind(format string, args ...any) error {
	return &schemaBehindError{msg: fmt.Sprintf(format, args...)}
}

type schemaBehindError struct{ msg string }

func (e *schemaBehindError) Error() string { return e.msg }
func (e *schemaBehindError) Unwrap() error { return ErrSchemaBehind }

// Querier runs one query: a *pgxpool.Pool, a *pgx.Conn or a pgx.Tx.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// latest is the newest zb and River migration this build embeds.
var latest = sync.OnceValues(func() ([2]int, error) {
	migs, err := Migrations()
	if err != nil {
		return [2]int{}, err
	}
	rm, err := rivermigrate.New(riverpgxv5.New(nil), &rivermigrate.Config{Schema: RiverSchema})
	if err != nil {
		return [2]int{}, fmt.Errorf("error creating River migrator: %w", err)
	}
	all := rm.AllVersions()
	if len(migs) == 0 || len(all) == 0 {
		return [2]int{}, errors.New("this build embeds no migrations")
	}
	return [2]int{migs[len(migs)-1].Version, all[len(all)-1].Version}, nil
})

// CheckSchema checks, with one query, that the database behind q has every zb and River
// migration this build embeds, so a program started against an older schema says so instead
// of failing later with a missing column. The error wraps ErrSchemaBehind and reads like "the
// database schema is at 0031 but this zbctl needs 0034: run 'zbctl migrate up'"; program names
// the running program in it ("zbctl", "zbworker"). A database with migrations newer than the
// build passes (old binaries keep running during a rolling upgrade).
//
// A role that may not read the bookkeeping (zb_meta.migration, river.river_migration; zb's
// application roles cannot) is not checked: CheckSchema returns nil.
func CheckSchema(ctx context.Context, q Querier, program string) error {
	want, err := latest()
	if err != nil {
		return err
	}
	var applied []int32
	var river int
	err = q.QueryRow(ctx, `SELECT coalesce((SELECT array_agg(version ORDER BY version) FROM zb_meta.migration), '{}'),
		coalesce((SELECT max(version) FROM `+RiverSchema+`.river_migration), 0)`).Scan(&applied, &river)
	switch {
	case isPgError(err, pgerrcode.InsufficientPrivilege):
		return nil
	case isPgError(err, pgerrcode.UndefinedTable, pgerrcode.InvalidSchemaName):
		// Not migrated, or River's bookkeeping is missing: rare, so a second query finds which.
		var zbExists bool
		if err := q.QueryRow(ctx, "SELECT to_regclass('zb_meta.migration') IS NOT NULL").Scan(&zbExists); err != nil {
			return fmt.Errorf("error checking the database schema: %w", err)
		}
		if !zbExists {
			return behind("the database is not migrated but this %s needs schema %04d: run 'zbctl migrate up'", program, want[0])
		}
		return behind("the database has no River schema but this %s needs River's version %d: run 'zbctl migrate up'", program, want[1])
	case err != nil:
		return fmt.Errorf("error checking the database schema: %w", err)
	}
	var missing []string
	at := 0
	for _, v := range applied {
		at = max(at, int(v))
	}
	for v := 1; v <= want[0]; v++ {
		if !slices.Contains(applied, int32(v)) {
			missing = append(missing, fmt.Sprintf("%04d", v))
		}
	}
	switch {
	case len(applied) == 0:
		return behind("the database is not migrated but this %s needs schema %04d: run 'zbctl migrate up'", program, want[0])
	case at < want[0]:
		return behind("the database schema is at %04d but this %s needs %04d: run 'zbctl migrate up'", at, program, want[0])
	case len(missing) > 0:
		return behind("the database schema lacks migrations %s that this %s needs: run 'zbctl migrate up'", strings.Join(missing, ", "), program)
	case river < want[1]:
		return behind("River's schema in the database is at version %d but this %s needs %d: run 'zbctl migrate up'", river, program, want[1])
	}
	return nil
}
