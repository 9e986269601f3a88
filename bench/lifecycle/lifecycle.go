package lifecycle

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/zenbrain/zb/bench/internal/pgvacuum"
	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/migrate"
)

// Targets of issue 6.
const (
	// DecayTargetRatio is the largest acceptable decay time over the plain archive time.
	DecayTargetRatio = 3.0
	// SleepTargetRatio is the largest acceptable sleep time at ten times the memories (10k over
	// 1k): 20 % above proportional. A size s times the first gets SleepTargetRatio^log10(s)
	// (144× at 100k over 1k), i.e. each tenfold step may cost at most 12× — see [SleepTarget].
	SleepTargetRatio = 12.0
	// DeriveTargetRatio is the smallest acceptable derive throughput over the plain INSERT's.
	DeriveTargetRatio = 0.5
)

// Defaults of Config.
const (
	// DimDefault is the embedding dimension of the benchmark databases.
	DimDefault = 64
	// FadedFractionDefault is the fraction of memories that have faded in the decay benchmark.
	FadedFractionDefault = 0.01
	// RepeatsDefault is how many times each decay and baseline timing is repeated (median).
	RepeatsDefault = 3
	// DeriveTenantsDefault and DerivePerTenantDefault shape the derive benchmark: one StoreBatch
	// of DerivePerTenantDefault memories per tenant (at most coordinator.DeriveMaxPerCall, so one
	// derive job covers a tenant).
	DeriveTenantsDefault   = 8
	DerivePerTenantDefault = 500
	// SleepDerivedDefault is Config.SleepDerived's default: sleep tenants up to 100k are
	// stored and derived whole (a derived 300k tenant took 73 minutes to set up here).
	SleepDerivedDefault = 100_000
	// DeriveWorkersDefault is the number of worker replicas (one job slot each) of the derive
	// benchmark.
	DeriveWorkersDefault = 2
)

// DecaySizesDefault are the decay benchmark's default sizes.
var DecaySizesDefault = []int{10_000, 100_000}

// SleepSizesDefault are the sleep benchmark's sizes.
var SleepSizesDefault = []int{1_000, 2_000, 5_000, 10_000}

// Config configures Run. Zero fields take their defaults; a nil size list runs the default
// sizes and an empty non-nil one skips the experiment.
type Config struct {
	// AdminURL is a PostgreSQL URL whose role may CREATE DATABASE. Required.
	AdminURL string
	// Dim is the embedding dimension. Defaults to DimDefault.
	Dim int
	// MigrateTarget is the last zb migration applied (0: all).
	MigrateTarget int
	// DecaySizes are the memory counts of the decay benchmark. Nil means DecaySizesDefault.
	DecaySizes []int
	// FadedFraction is the fraction of faded memories. Defaults to FadedFractionDefault.
	FadedFraction float64
	// SleepSizes are the memory counts of the sleep benchmark. Nil means SleepSizesDefault.
	SleepSizes []int
	// SleepDerived is how many memories of a sleep tenant are stored and derived; a larger size
	// adds server-side copies of those with their derived rows (see SleepFigure.Copied).
	// Defaults to SleepDerivedDefault.
	SleepDerived int
	// MaintSizes are the tenant sizes of the review and propagation benchmark (FadedFraction
	// of the cards due). Nil means MaintSizesDefault.
	MaintSizes []int
	// DeriveTenants and DerivePerTenant shape the derive benchmark (DeriveTenants < 0 skips
	// it). Default DeriveTenantsDefault and DerivePerTenantDefault.
	DeriveTenants, DerivePerTenant int
	// DeriveWorkers is the number of worker replicas. Defaults to DeriveWorkersDefault.
	DeriveWorkers int
	// Repeats is how many times the decay timings are repeated. Defaults to RepeatsDefault.
	Repeats int
	// Seed seeds the generated content and the choice of faded memories.
	Seed uint64
	// Logger receives progress. Defaults to a discarding logger.
	Logger *slog.Logger
}

func (c *Config) withDefaults() Config {
	o := *c
	o.Dim = cmp.Or(o.Dim, DimDefault)
	if o.DecaySizes == nil {
		o.DecaySizes = DecaySizesDefault
	}
	if o.SleepSizes == nil {
		o.SleepSizes = SleepSizesDefault
	}
	if o.MaintSizes == nil {
		o.MaintSizes = MaintSizesDefault
	}
	o.SleepDerived = cmp.Or(o.SleepDerived, SleepDerivedDefault)
	o.FadedFraction = cmp.Or(o.FadedFraction, FadedFractionDefault)
	o.DeriveTenants = cmp.Or(o.DeriveTenants, DeriveTenantsDefault)
	o.DerivePerTenant = cmp.Or(o.DerivePerTenant, DerivePerTenantDefault)
	o.DeriveWorkers = cmp.Or(o.DeriveWorkers, DeriveWorkersDefault)
	o.Repeats = cmp.Or(o.Repeats, RepeatsDefault)
	o.Seed = cmp.Or(o.Seed, 1)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

func (c *Config) validate() error {
	if c.AdminURL == "" {
		return errors.New("lifecycle: Config.AdminURL is required")
	}
	if c.Dim < 1 || c.Dim > migrate.EmbeddingDimMax {
		return fmt.Errorf("lifecycle: Config.Dim must be in 1..%d, got %d", migrate.EmbeddingDimMax, c.Dim)
	}
	if !(c.FadedFraction > 0 && c.FadedFraction <= 1) {
		return fmt.Errorf("lifecycle: Config.FadedFraction must be in (0, 1], got %v", c.FadedFraction)
	}
	for _, n := range slices.Concat(c.DecaySizes, c.SleepSizes, c.MaintSizes) {
		if n < 100 || n > 10_000_000 {
			return fmt.Errorf("lifecycle: sizes must be in 100..10000000, got %d", n)
		}
	}
	if c.SleepDerived < 100 {
		return fmt.Errorf("lifecycle: Config.SleepDerived must be at least 100, got %d", c.SleepDerived)
	}
	if c.DerivePerTenant < 1 || c.DerivePerTenant > 500 {
		return fmt.Errorf("lifecycle: Config.DerivePerTenant must be in 1..500, got %d", c.DerivePerTenant)
	}
	if c.DeriveWorkers < 1 || c.DeriveWorkers > 64 || c.Repeats < 1 || c.Repeats > 100 {
		return errors.New("lifecycle: Config.DeriveWorkers must be in 1..64 and Config.Repeats in 1..100")
	}
	return nil
}

// Results are the figures of one Run.
type Results struct {
	// Started is when the run began; Duration how long it took.
	Started  time.Time `json:"started"`
	Duration Seconds   `json:"duration_s"`
	// Machine describes where it ran.
	Machine Machine `json:"machine"`
	// Decay, Sleep and Derive are the three experiments' figures.
	Decay []DecayFigure `json:"decay"`
	Sleep []SleepFigure `json:"sleep"`
	// Maint are the review and propagation figures by tenant size.
	Maint  []MaintFigure  `json:"maint,omitempty"`
	Derive *DeriveFigure  `json:"derive,omitempty"`
	Config map[string]any `json:"config"`
}

// Machine describes the benchmark machine.
type Machine struct {
	GoOS, GoArch  string
	CPUs          int
	ServerVersion string
	// SharedBuffers is the server's shared_buffers setting.
	SharedBuffers string `json:",omitempty"`
}

// Seconds is a duration in seconds in JSON.
type Seconds float64

func secs(d time.Duration) Seconds { return Seconds(d.Seconds()) }

// Run runs the benchmarks of cfg.
func Run(ctx context.Context, cfg *Config) (*Results, error) {
	c := cfg.withDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	started := time.Now()
	res := &Results{
		Started: started.UTC(), Machine: Machine{GoOS: runtime.GOOS, GoArch: runtime.GOARCH, CPUs: runtime.NumCPU()},
		Config: map[string]any{
			"dim": c.Dim, "faded_fraction": c.FadedFraction, "repeats": c.Repeats, "seed": c.Seed,
			"sleep_derived": c.SleepDerived, "derive_tenants": c.DeriveTenants, "derive_per_tenant": c.DerivePerTenant, "derive_workers": c.DeriveWorkers,
		},
	}
	if err := serverSettings(ctx, c.AdminURL, &res.Machine); err != nil {
		return nil, err
	}
	for _, n := range c.DecaySizes {
		f, err := benchDecay(ctx, &c, n)
		if err != nil {
			return nil, fmt.Errorf("decay at %d: %w", n, err)
		}
		c.Logger.Info("decay", "n", n, "ratio", f.Ratio, "decay_s", f.Decay, "archive_s", f.Archive)
		res.Decay = append(res.Decay, *f)
	}
	for _, n := range c.MaintSizes {
		f, err := benchMaint(ctx, &c, n)
		if err != nil {
			return nil, fmt.Errorf("review/propagate at %d: %w", n, err)
		}
		c.Logger.Info("maint", "n", n, "review_ratio", f.ReviewRatio, "propagate_ratio", f.PropagateRatio,
			"review_s", f.Review, "propagate_s", f.Propagate)
		res.Maint = append(res.Maint, *f)
	}
	if len(c.SleepSizes) > 0 {
		fs, err := benchSleep(ctx, &c)
		if err != nil {
			return nil, fmt.Errorf("sleep: %w", err)
		}
		res.Sleep = fs
	}
	if c.DeriveTenants > 0 {
		f, err := benchDerive(ctx, &c)
		if err != nil {
			return nil, fmt.Errorf("derive: %w", err)
		}
		c.Logger.Info("derive", "ratio", f.Ratio, "derive_per_s", f.DerivePerSecond, "insert_per_s", f.InsertPerSecond)
		res.Derive = f
	}
	res.Duration = secs(time.Since(started))
	return res, nil
}

// serverSettings records the server's version and shared_buffers in m.
func serverSettings(ctx context.Context, admin string, m *Machine) error {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("error connecting to %s: %w", redact(admin), err)
	}
	defer conn.Close(ctx)
	return conn.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('shared_buffers')").Scan(&m.ServerVersion, &m.SharedBuffers)
}

var dbSeq atomic.Int64

// benchDB is one experiment's database.
type benchDB struct {
	url  string
	pool *pgxpool.Pool
	drop func()
}

// newDB creates and migrates a database for one experiment.
func newDB(ctx context.Context, c *Config, maxConns int32) (*benchDB, error) {
	name := fmt.Sprintf("zblcbench_%d_%d", os.Getpid(), dbSeq.Add(1))
	if err := adminExec(ctx, c.AdminURL, "CREATE DATABASE "+name+" TEMPLATE template0"); err != nil {
		return nil, fmt.Errorf("error creating database %s: %w", name, err)
	}
	drop := func() {
		dctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := adminExec(dctx, c.AdminURL, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			c.Logger.Warn("error dropping benchmark database", "db", name, "error", err)
		}
	}
	u, err := withDatabase(c.AdminURL, name)
	if err != nil {
		drop()
		return nil, err
	}
	// Migrate through a pool of its own: connections register the pgvector codecs when they
	// open, so the benchmark's pool must open after the extension exists.
	mpool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: u, ApplicationName: "zblifecyclebench-migrate", MaxConns: 2})
	if err != nil {
		drop()
		return nil, err
	}
	m, err := migrate.New(mpool)
	if err == nil {
		_, err = m.Up(ctx, &migrate.Opts{EmbeddingDim: c.Dim, Target: c.MigrateTarget})
	}
	mpool.Close()
	if err != nil {
		drop()
		return nil, fmt.Errorf("error migrating %s: %w", name, err)
	}
	pool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: u, ApplicationName: "zblifecyclebench", MaxConns: maxConns})
	if err != nil {
		drop()
		return nil, err
	}
	return &benchDB{url: u, pool: pool, drop: func() { pool.Close(); drop() }}, nil
}

func adminExec(ctx context.Context, admin, sql string) error {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

func withDatabase(raw, db string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return "", fmt.Errorf("lifecycle: AdminURL must be a postgres:// URL: %q", redact(raw))
	}
	u.Path = "/" + db
	return u.String(), nil
}

func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<unparsable URL>"
	}
	return u.Redacted()
}

// median returns the median of ds (the lower middle for an even count).
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// ratio returns a/b, or 0 when b is zero.
func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// steady vacuums and analyzes tables (the whole database when none is named) until their
// visibility maps are complete, as autovacuum leaves them in a steady state (pgvacuum.Visible:
// an older snapshot, such as an autovacuum ANALYZE begun during the setup, can keep a VACUUM
// from marking any page); it logs a warning when they stayed incomplete for a minute.
func steady(ctx context.Context, c *Config, pool *pgxpool.Pool, tables ...string) error {
	share, rounds, err := pgvacuum.Visible(ctx, pool, time.Minute, tables...)
	if err != nil {
		return err
	}
	if share < pgvacuum.Enough {
		c.Logger.Warn("visibility map incomplete before the timed work", "tables", tables, "visible", share, "vacuums", rounds)
	}
	return nil
}
