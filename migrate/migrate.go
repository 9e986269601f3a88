// Package migrate applies zenbrain's schema: the numbered migrations embedded from sql/schema
// (schema zb) followed by River's own migrations (schema river, through rivermigrate), so one
// command sets a database up.
//
// # Safety
//
// A run holds an advisory lock, so concurrent runs (several replicas starting at once)
// serialize. Up applies zb's pending migrations in one transaction, so a failure there leaves
// the database exactly as it was; River's follow, each in its own transaction as River
// requires (one uses an enum value an earlier one adds), and a run that fails among them is
// completed by the next. Down runs River's and zb's down migrations in one transaction: a
// failure anywhere leaves the database exactly as it was. Applied migrations are recorded with
// a SHA-256 checksum in zb_meta.migration; an applied migration whose file has since changed
// is refused.
//
// Before reverting, Down counts what the down migrations would remove; a revert that removes
// data needs an explicit confirmation (DownOpts.Yes).
//
// # Schema version
//
// CheckSchema tells a program whose database lacks some of its migrations so, in one query,
// before a missing column fails a query with a bare SQL error.
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
	// Steps is the number of zb migrations to revert. Defaults to 1 (0 means 1); negative is
	// refused. Ignored when All is set.
	Steps int

	// All reverts every River and zb migration and drops the bookkeeping schema: every memory
	// and job is deleted. It needs Yes.
	All bool

	// Yes confirms a revert that removes data: All, or down migrations that drop a non-empty
	// table or column, or delete or rewrite rows. Without it such a revert is refused with a
	// *ConfirmationRequiredError and nothing changes.
	Yes bool

	// DryRun counts what the revert would remove (Result.Drops) and lists the migrations it
	// would revert, then rolls back: nothing changes, and Yes is not needed.
	DryRun bool
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
	// Applied lists the zb migrations applied ("0034_integrity").
	Applied []string `json:"applied"`
	// Reverted lists the zb migrations reverted, newest first (with DryRun: would revert).
	Reverted []string `json:"reverted"`
	// River lists River's migration versions applied or reverted.
	River []int `json:"river_versions"`
	// EmbeddingDim is the install's embedding dimension (Up).
	EmbeddingDim int `json:"embedding_dim"`
	// Drops is what Down removed (with DryRun: would remove), counted before it ran, empty
	// tables included.
	Drops []Drop `json:"drops,omitempty"`
	// DryRun is set when Down only counted and changed nothing.
	DryRun bool `json:"dry_run,omitempty"`
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
// River and zb migration and the bookkeeping schema. A failure anywhere, River's down
// migrations included, leaves the database exactly as it was.
//
// Before anything runs, Down counts what the down migrations remove (tables with their rows,
// columns with their non-null values, rows deleted or rewritten; see Drop) and reports it in
// Result.Drops. When something would be removed, or All is set, and Yes is not, it refuses
// with a *ConfirmationRequiredError listing it, and changes nothing.
func (m *Migrator) Down(ctx context.Context, opts *DownOpts) (*Result, error) {
	if opts == nil {
		opts = &DownOpts{}
	}
	if opts.Steps < 0 {
		return nil, fmt.Errorf("%w: steps must be positive, got %d", ErrInvalidOpts, opts.Steps)
	}
	steps := cmp.Or(opts.Steps, 1)
	res := &Result{DryRun: opts.DryRun}
	err := m.withLock(ctx, func(conn *pgxpool.Conn) error {
		return inTx(ctx, conn, func(tx pgx.Tx) error { return m.downTx(ctx, tx, opts, steps, res) })
	})
	if errors.Is(err, errDryRun) {
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// errDryRun rolls back a dry run's transaction.
var errDryRun = errors.New("dry run")

func (m *Migrator) downTx(ctx context.Context, tx pgx.Tx, opts *DownOpts, steps int, res *Result) error {
	var exists, riverExists bool
	if err := tx.QueryRow(ctx, "SELECT to_regclass('zb_meta.migration') IS NOT NULL, to_regclass($1) IS NOT NULL",
		RiverSchema+".river_migration").Scan(&exists, &riverExists); err != nil {
		return fmt.Errorf("error checking migration bookkeeping: %w", err)
	}

	// What to revert: River's migrations (All only) and then zb's, newest first.
	var plan []downStep
	var river []rivermigrate.Migration
	if opts.All && riverExists {
		existing, err := m.river.ExistingVersionsTx(ctx, tx)
		if err != nil {
			return fmt.Errorf("error reading River's migrations: %w", err)
		}
		for i := len(existing) - 1; i >= 0; i-- {
			mig, err := m.river.GetVersion(existing[i].Version)
			if err != nil {
				return fmt.Errorf("error reading River's migration %d: %w", existing[i].Version, err)
			}
			river = append(river, mig)
			plan = append(plan, downStep{
				label: fmt.Sprintf("river %03d (%s)", mig.Version, mig.Name),
				sql:   strings.ReplaceAll(mig.SQLDown, "/* TEMPLATE: schema */", RiverSchema+"."),
			})
		}
	}
	var zb []Migration
	if exists {
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
			zb = append(zb, mig)
			plan = append(plan, downStep{label: fmt.Sprintf("%04d_%s", mig.Version, mig.Name), sql: mig.Down})
		}
	}

	drops, err := planDrops(ctx, tx, plan)
	if err != nil {
		return err
	}
	res.Drops = drops
	var reverting []string
	for _, mig := range zb {
		reverting = append(reverting, fmt.Sprintf("%04d_%s", mig.Version, mig.Name))
	}
	var riverVersions []int
	for _, mig := range river {
		riverVersions = append(riverVersions, mig.Version)
	}
	losesData := slices.ContainsFunc(drops, Drop.LosesData)
	if opts.DryRun {
		res.Reverted, res.River = reverting, riverVersions
		return errDryRun
	}
	if (losesData || opts.All && len(zb)+len(river) > 0) && !opts.Yes {
		return &ConfirmationRequiredError{All: opts.All, Reverting: reverting, River: riverVersions, Drops: drops}
	}

	if len(river) > 0 {
		// River's own down migrations rebuild indexes over river_job (006 rebuilds the unique
		// index of 005, which the rows of River's newer uniqueness scheme can violate), and 002
		// drops the table: every job goes anyway, so empty it first. TRUNCATE is not subject
		// to row-level security.
		if _, err := tx.Exec(ctx, "DO $$ BEGIN IF to_regclass('"+RiverSchema+".river_job') IS NOT NULL THEN "+
			"TRUNCATE "+RiverSchema+".river_job; END IF; END $$"); err != nil {
			return fmt.Errorf("error emptying River's job table: %w", err)
		}
		// MigrateTx is deprecated because some of River's up migrations cannot share a
		// transaction (an enum value added and used); its down migrations can, and must, so
		// that a failure leaves River's schema as it was.
		rr, err := m.river.MigrateTx(ctx, tx, rivermigrate.DirectionDown, //nolint:staticcheck // see above
			&rivermigrate.MigrateOpts{TargetVersion: -1})
		if err != nil {
			return fmt.Errorf("error reverting River migrations (nothing was changed): %w", err)
		}
		for _, v := range rr.Versions {
			res.River = append(res.River, v.Version)
		}
	}
	for _, mig := range zb {
		if _, err := tx.Exec(ctx, mig.Down); err != nil {
			return fmt.Errorf("error reverting migration %04d_%s (nothing was changed): %w", mig.Version, mig.Name, err)
		}
		if _, err := tx.Exec(ctx, "DELETE FROM zb_meta.migration WHERE version = $1", mig.Version); err != nil {
			return fmt.Errorf("error unrecording migration %04d_%s: %w", mig.Version, mig.Name, err)
		}
		res.Reverted = append(res.Reverted, fmt.Sprintf("%04d_%s", mig.Version, mig.Name))
	}
	if opts.All {
		ddl := "DROP SCHEMA IF EXISTS " + RiverSchema
		if exists {
			ddl = "DROP TABLE zb_meta.migration; DROP SCHEMA zb_meta; " + ddl
		}
		if _, err := tx.Exec(ctx, ddl); err != nil {
			return fmt.Errorf("error dropping migration bookkeeping (nothing was changed): %w", err)
		}
	}
	return nil
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
