// Package migrate applies zenbrain's schema: the numbered migrations embedded from sql/schema
// (schema zb) followed by River's own migrations (schema river, through rivermigrate), so one
// command sets a database up.
//
// # Safety
//
// A run takes a transaction-scoped advisory lock, so concurrent runs (several replicas starting
// at once) serialize, and it applies everything in that one transaction: a failure leaves the
// database exactly as it was. Applied migrations are recorded with a SHA-256 checksum in
// zb_meta.migration; an applied migration whose file has since changed is refused.
//
// # Embedding dimension
//
// The dimension of every embedding column is chosen at the first `up` (Opts.EmbeddingDim,
// default 768) and recorded in zb.config. A later run that asks for another dimension is
// refused with ErrDimensionMismatch.
package migrate

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/zenbrain/zb/sql/schema"
)

// EmbeddingDimDefault is the embedding dimension of a new install.
const EmbeddingDimDefault = 768

// EmbeddingDimMax is the largest embedding dimension accepted (pgvector's HNSW limit for
// vector is 2000 dimensions).
const EmbeddingDimMax = 2000

// RiverSchema is the schema holding River's tables.
const RiverSchema = "river"

// MinPgvectorVersion is the oldest pgvector zenbrain supports.
const MinPgvectorVersion = "0.8.0"

// lockKey is the advisory lock key of migration runs ("zenbrain" in ASCII, truncated).
const lockKey int64 = 0x7a656e627261696e

// Errors returned (wrapped) by the migrator.
var (
	ErrDimensionMismatch = errors.New("embedding dimension mismatch")
	ErrNoPgvector        = errors.New("pgvector is not available")
	ErrModified          = errors.New("applied migration was modified")
	ErrInvalidOpts       = errors.New("invalid migrate options")
)

// Migration is one numbered migration of sql/schema.
type Migration struct {
	Version  int
	Name     string
	Up       string
	Down     string
	Checksum string
}

// Migrations returns the embedded migrations in version order.
func Migrations() ([]Migration, error) {
	return migrationsFromFS(schema.FS)
}

var fileRE = regexp.MustCompile(`^(\d{4})_([a-z0-9_]+)\.(up|down)\.sql$`)

func migrationsFromFS(fsys fs.FS) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("error reading migrations: %w", err)
	}
	byVersion := map[int]*Migration{}
	for _, e := range entries {
		m := fileRE.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		v, _ := strconv.Atoi(m[1])
		b, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("error reading migration %s: %w", e.Name(), err)
		}
		mig := byVersion[v]
		if mig == nil {
			mig = &Migration{Version: v, Name: m[2]}
			byVersion[v] = mig
		}
		if mig.Name != m[2] {
			return nil, fmt.Errorf("migration %04d has two names: %s and %s", v, mig.Name, m[2])
		}
		if m[3] == "up" {
			mig.Up = string(b)
			sum := sha256.Sum256(b)
			mig.Checksum = hex.EncodeToString(sum[:])
		} else {
			mig.Down = string(b)
		}
	}
	out := make([]Migration, 0, len(byVersion))
	for _, m := range byVersion {
		if m.Up == "" || m.Down == "" {
			return nil, fmt.Errorf("migration %04d_%s needs both an .up.sql and a .down.sql file", m.Version, m.Name)
		}
		out = append(out, *m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migrations must be numbered 0001, 0002, ... without gaps; found %04d at position %d", m.Version, i+1)
		}
	}
	return out, nil
}

// Opts are the options of Up.
type Opts struct {
	// EmbeddingDim is the embedding dimension. 0 means the recorded dimension, or
	// EmbeddingDimDefault on a new install. A value different from the recorded one is refused.
	EmbeddingDim int

	// Target is the last zb migration version to apply. 0 applies all.
	Target int

	// SkipRiver leaves River's migrations alone.
	SkipRiver bool
}

// DownOpts are the options of Down.
type DownOpts struct {
	// Steps is the number of zb migrations to revert. 0 means 1. Ignored when All is set.
	Steps int

	// All reverts every zb migration and River's, and drops the bookkeeping schema.
	All bool
}

// Applied is one applied migration.
type Applied struct {
	Version   int       `json:"version"`
	Name      string    `json:"name"`
	Checksum  string    `json:"checksum"`
	AppliedAt time.Time `json:"applied_at"`
}

// Result reports what a run changed.
type Result struct {
	Applied      []string `json:"applied"`
	Reverted     []string `json:"reverted"`
	River        []int    `json:"river_versions"`
	EmbeddingDim int      `json:"embedding_dim"`
}

// MigrationStatus is the state of one migration.
type MigrationStatus struct {
	Version   int        `json:"version"`
	Name      string     `json:"name"`
	Applied   bool       `json:"applied"`
	AppliedAt *time.Time `json:"applied_at,omitempty"`
	Modified  bool       `json:"modified"`
}

// Status is the state of a database's schema.
type Status struct {
	Migrations      []MigrationStatus `json:"migrations"`
	Pending         int               `json:"pending"`
	RiverVersion    int               `json:"river_version"`
	RiverLatest     int               `json:"river_latest"`
	EmbeddingDim    int               `json:"embedding_dim,omitempty"`
	PgvectorVersion string            `json:"pgvector_version,omitempty"`
	// LexicalScorer is zb.lexical_scorer() (migration 0032): compiled when the zb_lexical
	// extension scores recall's live lexical half, sql otherwise; empty before 0032.
	LexicalScorer string `json:"lexical_scorer,omitempty"`
	// ZbLexicalVersion is the installed zb_lexical extension's version, empty without it.
	ZbLexicalVersion string `json:"zb_lexical_version,omitempty"`
	ServerVersion    string `json:"server_version"`
	UnknownVersions  []int  `json:"unknown_versions,omitempty"`
	UpToDate         bool   `json:"up_to_date"`
}

// Migrator applies migrations through a pool.
type Migrator struct {
	pool       *pgxpool.Pool
	migrations []Migration
	river      *rivermigrate.Migrator[pgx.Tx]
}

// New returns a Migrator for the embedded migrations.
func New(pool *pgxpool.Pool) (*Migrator, error) {
	migs, err := Migrations()
	if err != nil {
		return nil, err
	}
	return newMigrator(pool, migs)
}

func newMigrator(pool *pgxpool.Pool, migs []Migration) (*Migrator, error) {
	rm, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Schema: RiverSchema})
	if err != nil {
		return nil, fmt.Errorf("error creating River migrator: %w", err)
	}
	return &Migrator{pool: pool, migrations: migs, river: rm}, nil
}

const bookkeepingDDL = `
CREATE SCHEMA IF NOT EXISTS zb_meta;
CREATE TABLE IF NOT EXISTS zb_meta.migration (
    version    integer     PRIMARY KEY,
    name       text        NOT NULL,
    checksum   text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
);
CREATE SCHEMA IF NOT EXISTS ` + RiverSchema + `;`

// Up applies the pending migrations (zb's, then River's) in one transaction.
func (m *Migrator) Up(ctx context.Context, opts *Opts) (*Result, error) {
	if opts == nil {
		opts = &Opts{}
	}
	if opts.EmbeddingDim < 0 || opts.EmbeddingDim > EmbeddingDimMax {
		return nil, fmt.Errorf("%w: embedding dimension %d is outside 1..%d", ErrInvalidOpts, opts.EmbeddingDim, EmbeddingDimMax)
	}
	if opts.Target < 0 || opts.Target > len(m.migrations) {
		return nil, fmt.Errorf("%w: target %d is not a migration version (1..%d)", ErrInvalidOpts, opts.Target, len(m.migrations))
	}
	res := &Result{}
	err := m.withLock(ctx, func(conn *pgxpool.Conn) error {
		if err := inTx(ctx, conn, func(tx pgx.Tx) error { return m.upTx(ctx, tx, opts, res) }); err != nil {
			return err
		}
		if opts.SkipRiver {
			return nil
		}
		// River's migrations cannot share one transaction (a new enum value is used by a later
		// migration), so rivermigrate applies each in its own transaction.
		rr, err := m.river.Migrate(ctx, rivermigrate.DirectionUp, nil)
		if err != nil {
			return fmt.Errorf("error applying River migrations: %w", err)
		}
		for _, v := range rr.Versions {
			res.River = append(res.River, v.Version)
		}
		// River's tables exist only now: grant zenbrain's roles what they need on them and put
		// river_job under row-level security (zb.secure_river, migration 0011).
		var secure bool
		if err := conn.QueryRow(ctx, "SELECT to_regprocedure('zb.secure_river()') IS NOT NULL").Scan(&secure); err != nil {
			return fmt.Errorf("error securing River's tables: %w", err)
		}
		if secure {
			if _, err := conn.Exec(ctx, "SELECT zb.secure_river()"); err != nil {
				return fmt.Errorf("error securing River's tables: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (m *Migrator) upTx(ctx context.Context, tx pgx.Tx, opts *Opts, res *Result) error {
	{
		if err := checkPgvector(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, bookkeepingDDL); err != nil {
			return fmt.Errorf("error creating migration bookkeeping: %w", err)
		}
		applied, err := appliedMigrations(ctx, tx)
		if err != nil {
			return err
		}
		dim, err := resolveDim(ctx, tx, opts.EmbeddingDim)
		if err != nil {
			return err
		}
		res.EmbeddingDim = dim
		if _, err := tx.Exec(ctx, "SELECT set_config('zb.embedding_dim', $1, true)", strconv.Itoa(dim)); err != nil {
			return fmt.Errorf("error setting the embedding dimension: %w", err)
		}
		target := cmp.Or(opts.Target, len(m.migrations))
		for _, mig := range m.migrations {
			if a, ok := applied[mig.Version]; ok {
				if a.Checksum != mig.Checksum {
					return fmt.Errorf("%w: %04d_%s changed after it was applied on %s; released migrations are immutable, "+
						"add a new migration instead", ErrModified, mig.Version, mig.Name, a.AppliedAt.Format(time.RFC3339))
				}
				continue
			}
			if mig.Version > target {
				break
			}
			if _, err := tx.Exec(ctx, mig.Up); err != nil {
				return fmt.Errorf("error applying migration %04d_%s: %w", mig.Version, mig.Name, err)
			}
			if _, err := tx.Exec(ctx, "INSERT INTO zb_meta.migration (version, name, checksum) VALUES ($1, $2, $3)",
				mig.Version, mig.Name, mig.Checksum); err != nil {
				return fmt.Errorf("error recording migration %04d_%s: %w", mig.Version, mig.Name, err)
			}
			res.Applied = append(res.Applied, fmt.Sprintf("%04d_%s", mig.Version, mig.Name))
		}
		return nil
	}
}

// Down reverts migrations in one transaction: the last Steps zb migrations, or with All every
// zb and River migration and the bookkeeping schema.
func (m *Migrator) Down(ctx context.Context, opts *DownOpts) (*Result, error) {
	if opts == nil {
		opts = &DownOpts{}
	}
	if opts.Steps < 0 {
		return nil, fmt.Errorf("%w: steps must be positive, got %d", ErrInvalidOpts, opts.Steps)
	}
	steps := cmp.Or(opts.Steps, 1)
	res := &Result{}
	err := m.withLock(ctx, func(conn *pgxpool.Conn) error {
		if opts.All {
			var riverExists bool
			if err := conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", RiverSchema+".river_migration").Scan(&riverExists); err != nil {
				return fmt.Errorf("error checking River's schema: %w", err)
			}
			if riverExists {
				rr, err := m.river.Migrate(ctx, rivermigrate.DirectionDown, &rivermigrate.MigrateOpts{TargetVersion: -1})
				if err != nil {
					return fmt.Errorf("error reverting River migrations: %w", err)
				}
				for _, v := range rr.Versions {
					res.River = append(res.River, v.Version)
				}
			}
		}
		return inTx(ctx, conn, func(tx pgx.Tx) error { return m.downTx(ctx, tx, opts, steps, res) })
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (m *Migrator) downTx(ctx context.Context, tx pgx.Tx, opts *DownOpts, steps int, res *Result) error {
	{
		var exists bool
		if err := tx.QueryRow(ctx, "SELECT to_regclass('zb_meta.migration') IS NOT NULL").Scan(&exists); err != nil {
			return fmt.Errorf("error checking migration bookkeeping: %w", err)
		}
		if !exists {
			return nil
		}
		applied, err := appliedMigrations(ctx, tx)
		if err != nil {
			return err
		}
		versions := make([]int, 0, len(applied))
		for v := range applied {
			versions = append(versions, v)
		}
		slices.Sort(versions)
		slices.Reverse(versions)
		if !opts.All && len(versions) > steps {
			versions = versions[:steps]
		}
		for _, v := range versions {
			if v < 1 || v > len(m.migrations) {
				return fmt.Errorf("database has migration %d, which this zbctl does not know: use the zbctl of that release to revert it", v)
			}
			mig := m.migrations[v-1]
			if _, err := tx.Exec(ctx, mig.Down); err != nil {
				return fmt.Errorf("error reverting migration %04d_%s: %w", mig.Version, mig.Name, err)
			}
			if _, err := tx.Exec(ctx, "DELETE FROM zb_meta.migration WHERE version = $1", v); err != nil {
				return fmt.Errorf("error unrecording migration %04d_%s: %w", mig.Version, mig.Name, err)
			}
			res.Reverted = append(res.Reverted, fmt.Sprintf("%04d_%s", mig.Version, mig.Name))
		}
		if opts.All {
			if _, err := tx.Exec(ctx, "DROP TABLE zb_meta.migration; DROP SCHEMA zb_meta; DROP SCHEMA IF EXISTS "+RiverSchema); err != nil {
				return fmt.Errorf("error dropping migration bookkeeping: %w", err)
			}
		}
		return nil
	}
}

// Status reports which migrations are applied, River's version and the install's settings.
func (m *Migrator) Status(ctx context.Context) (*Status, error) {
	st := &Status{}
	tx, err := m.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("error starting transaction: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := tx.QueryRow(ctx, "SELECT current_setting('server_version')").Scan(&st.ServerVersion); err != nil {
		return nil, fmt.Errorf("error reading server version: %w", err)
	}
	_ = tx.QueryRow(ctx, "SELECT coalesce((SELECT extversion FROM pg_extension WHERE extname = 'vector'), '')").Scan(&st.PgvectorVersion)
	_ = tx.QueryRow(ctx, "SELECT coalesce((SELECT extversion FROM pg_extension WHERE extname = 'zb_lexical'), '')").Scan(&st.ZbLexicalVersion)
	lexicalScorer(ctx, tx, st)
	applied := map[int]Applied{}
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT to_regclass('zb_meta.migration') IS NOT NULL").Scan(&exists); err != nil {
		return nil, fmt.Errorf("error checking migration bookkeeping: %w", err)
	}
	if exists {
		if applied, err = appliedMigrations(ctx, tx); err != nil {
			return nil, err
		}
	}
	for _, mig := range m.migrations {
		ms := MigrationStatus{Version: mig.Version, Name: mig.Name}
		if a, ok := applied[mig.Version]; ok {
			ms.Applied = true
			at := a.AppliedAt
			ms.AppliedAt = &at
			ms.Modified = a.Checksum != mig.Checksum
		} else {
			st.Pending++
		}
		st.Migrations = append(st.Migrations, ms)
	}
	for v := range applied {
		if v > len(m.migrations) {
			st.UnknownVersions = append(st.UnknownVersions, v)
		}
	}
	slices.Sort(st.UnknownVersions)
	if dim, ok, err := recordedDim(ctx, tx); err != nil {
		return nil, err
	} else if ok {
		st.EmbeddingDim = dim
	}
	all := m.river.AllVersions()
	if len(all) > 0 {
		st.RiverLatest = all[len(all)-1].Version
	}
	var riverExists bool
	if err := tx.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", RiverSchema+".river_migration").Scan(&riverExists); err != nil {
		return nil, fmt.Errorf("error checking River's schema: %w", err)
	}
	if riverExists {
		existing, err := m.river.ExistingVersionsTx(ctx, tx)
		if err != nil {
			return nil, fmt.Errorf("error reading River's migrations: %w", err)
		}
		if len(existing) > 0 {
			st.RiverVersion = existing[len(existing)-1].Version
		}
	}
	st.UpToDate = st.Pending == 0 && st.RiverVersion == st.RiverLatest
	for _, ms := range st.Migrations {
		if ms.Modified {
			st.UpToDate = false
		}
	}
	return st, nil
}

// withLock runs fn holding the session-level migration advisory lock on one connection, so
// concurrent runs serialize.
func (m *Migrator) withLock(ctx context.Context, fn func(*pgxpool.Conn) error) error {
	conn, err := m.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("error acquiring a connection for migrations: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockKey); err != nil {
		return fmt.Errorf("error taking the migration lock: %w", err)
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", lockKey); err != nil {
			// A connection that cannot unlock must not return to the pool holding the lock.
			_ = conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()
	return fn(conn)
}

func inTx(ctx context.Context, conn *pgxpool.Conn, fn func(pgx.Tx) error) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("error starting migration transaction: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("error committing migrations: %w", err)
	}
	return nil
}

func appliedMigrations(ctx context.Context, tx pgx.Tx) (map[int]Applied, error) {
	rows, err := tx.Query(ctx, "SELECT version, name, checksum, applied_at FROM zb_meta.migration ORDER BY version")
	if err != nil {
		return nil, fmt.Errorf("error reading applied migrations: %w", err)
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Applied])
	if err != nil {
		return nil, fmt.Errorf("error reading applied migrations: %w", err)
	}
	out := make(map[int]Applied, len(list))
	for _, a := range list {
		out[a.Version] = a
	}
	return out, nil
}

func recordedDim(ctx context.Context, tx pgx.Tx) (int, bool, error) {
	var s *string
	if err := tx.QueryRow(ctx, "SELECT CASE WHEN to_regclass('zb.config') IS NULL THEN NULL ELSE '' END").Scan(&s); err != nil {
		return 0, false, fmt.Errorf("error checking zb.config: %w", err)
	}
	if s == nil {
		return 0, false, nil
	}
	var v string
	err := tx.QueryRow(ctx, "SELECT value FROM zb.config WHERE key = 'embedding_dim'").Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("error reading the recorded embedding dimension: %w", err)
	}
	dim, err := strconv.Atoi(v)
	if err != nil {
		return 0, false, fmt.Errorf("zb.config holds an invalid embedding_dim %q", v)
	}
	return dim, true, nil
}

func resolveDim(ctx context.Context, tx pgx.Tx, asked int) (int, error) {
	dim, ok, err := recordedDim(ctx, tx)
	if err != nil {
		return 0, err
	}
	if !ok {
		return cmp.Or(asked, EmbeddingDimDefault), nil
	}
	if asked != 0 && asked != dim {
		return 0, fmt.Errorf("%w: this database was installed with embedding dimension %d, but %d was asked; "+
			"omit --embedding-dim, or reinstall with 'zbctl migrate down --all' (which deletes all memories) "+
			"and 'zbctl migrate up --embedding-dim %d'", ErrDimensionMismatch, dim, asked, asked)
	}
	return dim, nil
}

// lexicalScorer reads zb.lexical_scorer() (0032) into st when the database has it, in a
// savepoint: a bad zb.lexical_scorer setting makes it raise, and that must not abort the status.
func lexicalScorer(ctx context.Context, tx pgx.Tx, st *Status) {
	var have bool
	if err := tx.QueryRow(ctx, "SELECT to_regprocedure('zb.lexical_scorer()') IS NOT NULL").Scan(&have); err != nil || !have {
		return
	}
	sp, err := tx.Begin(ctx)
	if err != nil {
		return
	}
	defer func() { _ = sp.Rollback(ctx) }()
	if err := sp.QueryRow(ctx, "SELECT zb.lexical_scorer()").Scan(&st.LexicalScorer); err != nil {
		st.LexicalScorer = ""
	}
}

func checkPgvector(ctx context.Context, tx pgx.Tx) error {
	var available, installed string
	err := tx.QueryRow(ctx, `SELECT coalesce((SELECT default_version FROM pg_available_extensions WHERE name = 'vector'), ''),
	                                coalesce((SELECT extversion FROM pg_extension WHERE extname = 'vector'), '')`).Scan(&available, &installed)
	if err != nil {
		return fmt.Errorf("error checking for pgvector: %w", err)
	}
	if available == "" && installed == "" {
		return fmt.Errorf("%w: the server has no 'vector' extension; install pgvector >= %s on the database server "+
			"('make deps' does it for a local Debian/Ubuntu server; see https://github.com/pgvector/pgvector#installation), "+
			"or point ZB_DATABASE_URL at a server that has it", ErrNoPgvector, MinPgvectorVersion)
	}
	v := cmp.Or(installed, available)
	if !versionAtLeast(v, MinPgvectorVersion) {
		return fmt.Errorf("%w: pgvector %s is older than %s; upgrade it (ALTER EXTENSION vector UPDATE after installing a newer build)",
			ErrNoPgvector, v, MinPgvectorVersion)
	}
	return nil
}

func versionAtLeast(v, min string) bool {
	parse := func(s string) []int {
		var out []int
		for _, p := range strings.Split(s, ".") {
			n, _ := strconv.Atoi(strings.TrimFunc(p, func(r rune) bool { return r < '0' || r > '9' }))
			out = append(out, n)
		}
		return out
	}
	a, b := parse(v), parse(min)
	for i := 0; i < max(len(a), len(b)); i++ {
		var x, y int
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return x > y
		}
	}
	return true
}
