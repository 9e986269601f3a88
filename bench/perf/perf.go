package perf

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/migrate"
)

// Targets of issue 10.
const (
	// RecallP50Target is the largest acceptable Recall p50 over the bare HNSW query's p50.
	RecallP50Target = 1.5
	// RecallP99Target is the largest acceptable Recall p99 over the bare HNSW query's p99.
	RecallP99Target = 3.0
	// FilteredRecallTarget is the smallest acceptable mean recall@10 of a filtered ANN search.
	FilteredRecallTarget = 0.95
	// ImportTarget is the smallest acceptable StoreBatch throughput over a plain COPY's.
	ImportTarget = 0.5
)

// Defaults of Config.
const (
	// DimDefault is the embedding dimension (the install default).
	DimDefault = 768
	// TenantsDefault is the number of tenants of the multi-tenant layout.
	TenantsDefault = 100
	// QueriesDefault is the number of timed queries per recall figure.
	QueriesDefault = 200
	// FilteredQueriesDefault is the number of queries per filtered-search setting.
	FilteredQueriesDefault = 50
	// PartialMaxDefault is the largest size at which partial HNSW indexes are built and measured.
	PartialMaxDefault = 10_000
	// HalfvecMaxDefault is the largest size at which a half-precision HNSW graph is built and
	// measured (in tenants large enough for recall's HNSW scan).
	HalfvecMaxDefault = 10_000
	// ImportSizeDefault is the number of rows of the import benchmark.
	ImportSizeDefault = 10_000
	// BatchSizeDefault is the number of rows per StoreBatch call (and per COPY of the baseline).
	BatchSizeDefault = 1_000
	// StoresDefault is the number of timed single Store calls.
	StoresDefault = 300
	// ClientsDefault is the number of concurrent clients of the load test.
	ClientsDefault = 32
	// LoadDurationDefault is the length of the load test.
	LoadDurationDefault = 60 * time.Second
	// PoolSizeDefault is the client pool size of the load test.
	PoolSizeDefault = 16
	// K is the number of results of every timed query.
	K = 10
)

// SizesDefault are the default memory counts of the recall benchmark.
var SizesDefault = []int{10_000, 100_000}

// Config configures Run. Zero fields take their defaults; a nil Sizes runs SizesDefault.
type Config struct {
	// AdminURL is a PostgreSQL URL whose role may CREATE DATABASE. Required.
	AdminURL string
	// Dim is the embedding dimension. Defaults to DimDefault.
	Dim int
	// Sizes are the memory counts of the recall benchmark. Nil means SizesDefault; empty
	// non-nil skips recall (and the load test).
	Sizes []int
	// Tenants is the number of tenants of the multi-tenant layout. Defaults to TenantsDefault.
	Tenants int
	// Queries and FilteredQueries are the timed queries per figure. Default QueriesDefault and
	// FilteredQueriesDefault.
	Queries, FilteredQueries int
	// PartialMax is the largest size at which partial per-layer HNSW indexes are measured.
	// Defaults to PartialMaxDefault; -1 never.
	PartialMax int
	// HalfvecMax is the largest size at which recall's one-scan shape is measured on a graph of
	// half-precision vectors as well (tenants above 1 000 memories). Defaults to
	// HalfvecMaxDefault; -1 never.
	HalfvecMax int
	// ImportSize is the row count of the import benchmark. Defaults to ImportSizeDefault; -1
	// skips the write benchmarks.
	ImportSize int
	// BatchSize is the rows per StoreBatch and per COPY. Defaults to BatchSizeDefault.
	BatchSize int
	// Stores is the number of timed Store calls. Defaults to StoresDefault.
	Stores int
	// Clients, LoadDuration and PoolSize shape the load test (LoadDuration -1 skips it).
	// Default ClientsDefault, LoadDurationDefault and PoolSizeDefault.
	Clients      int
	LoadDuration time.Duration
	PoolSize     int
	// NoWorker runs the load test without the in-process worker.
	NoWorker bool
	// WorkerBin, when set, is a zbworker program that the load test runs as a separate process
	// (against the test's database, at its default settings) instead of the in-process worker:
	// the test then reports that process's resident set, goroutines and connections, and how
	// it stopped on SIGTERM. Exclusive with NoWorker.
	WorkerBin string
	// Keep leaves the recall databases behind (their names are logged) for profiling.
	Keep bool
	// MultiOnly skips the one-tenant layout (only the Tenants layout is measured).
	MultiOnly bool
	// RecallSplitMinDocs is passed to the coordinator (Config.RecallSplitMinDocs): 0 its
	// default, -1 recall's candidates always in one statement.
	RecallSplitMinDocs int64
	// LexicalScorer, when set, is the setting zb.lexical_scorer of every benchmark database
	// (auto, sql or compiled: migration 0032): "sql" measures recall without the zb_lexical
	// extension on a server that has it. Empty leaves the server's default (auto).
	LexicalScorer string
	// HNSWM and HNSWEfConstruction, when set, replace the HNSW index's m and ef_construction
	// (migration 0002: 16 and 64) in the recall databases' index build, to measure the graph's
	// parameters; 0 keeps the migration's.
	HNSWM, HNSWEfConstruction int
	// Seed seeds the generated content and queries.
	Seed uint64
	// Logger receives progress. Defaults to a discarding logger.
	Logger *slog.Logger
	// OnProgress, when set, is called with the results so far after each figure (e.g. to
	// save partial results of a long run).
	OnProgress func(*Results)

	template string // the migrated template database of this run
}

func (c *Config) withDefaults() Config {
	o := *c
	o.Dim = cmp.Or(o.Dim, DimDefault)
	if o.Sizes == nil {
		o.Sizes = SizesDefault
	}
	o.Tenants = cmp.Or(o.Tenants, TenantsDefault)
	o.Queries = cmp.Or(o.Queries, QueriesDefault)
	o.FilteredQueries = cmp.Or(o.FilteredQueries, FilteredQueriesDefault)
	o.PartialMax = cmp.Or(o.PartialMax, PartialMaxDefault)
	o.HalfvecMax = cmp.Or(o.HalfvecMax, HalfvecMaxDefault)
	o.ImportSize = cmp.Or(o.ImportSize, ImportSizeDefault)
	o.BatchSize = cmp.Or(o.BatchSize, BatchSizeDefault)
	o.Stores = cmp.Or(o.Stores, StoresDefault)
	o.Clients = cmp.Or(o.Clients, ClientsDefault)
	o.LoadDuration = cmp.Or(o.LoadDuration, LoadDurationDefault)
	o.PoolSize = cmp.Or(o.PoolSize, PoolSizeDefault)
	o.Seed = cmp.Or(o.Seed, 1)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

func (c *Config) validate() error {
	if c.AdminURL == "" {
		return errors.New("perf: Config.AdminURL is required")
	}
	if c.Dim < 2 || c.Dim > migrate.EmbeddingDimMax {
		return fmt.Errorf("perf: Config.Dim must be in 2..%d, got %d", migrate.EmbeddingDimMax, c.Dim)
	}
	if c.Tenants < 1 || c.Tenants > 10_000 {
		return fmt.Errorf("perf: Config.Tenants must be in 1..10000, got %d", c.Tenants)
	}
	for _, n := range c.Sizes {
		if n < c.Tenants || n > 10_000_000 {
			return fmt.Errorf("perf: sizes must be in Tenants..10000000, got %d", n)
		}
	}
	if c.Queries < 1 || c.FilteredQueries < 1 || c.Stores < 1 || c.Queries > 1_000_000 || c.FilteredQueries > 1_000_000 || c.Stores > 1_000_000 {
		return errors.New("perf: Config.Queries, FilteredQueries and Stores must be in 1..1000000")
	}
	if c.ImportSize != -1 && (c.ImportSize < 1 || c.ImportSize > 10_000_000) {
		return fmt.Errorf("perf: Config.ImportSize must be -1 or in 1..10000000, got %d", c.ImportSize)
	}
	if c.BatchSize < 1 || c.BatchSize > 100_000 {
		return fmt.Errorf("perf: Config.BatchSize must be in 1..100000, got %d", c.BatchSize)
	}
	if c.Clients < 1 || c.Clients > 1024 || c.PoolSize < 1 || c.PoolSize > 1024 {
		return errors.New("perf: Config.Clients and Config.PoolSize must be in 1..1024")
	}
	if c.LoadDuration != -1 && c.LoadDuration < 100*time.Millisecond {
		return fmt.Errorf("perf: Config.LoadDuration must be -1 or at least 100ms, got %v", c.LoadDuration)
	}
	// pgvector's limits: m in 2..100, ef_construction in 4..1000 and at least 2·m.
	if c.HNSWM != 0 && (c.HNSWM < 2 || c.HNSWM > 100) {
		return fmt.Errorf("perf: Config.HNSWM must be 0 or in 2..100, got %d", c.HNSWM)
	}
	if c.HNSWEfConstruction != 0 && (c.HNSWEfConstruction < 4 || c.HNSWEfConstruction > 1000) {
		return fmt.Errorf("perf: Config.HNSWEfConstruction must be 0 or in 4..1000, got %d", c.HNSWEfConstruction)
	}
	if m, efc := cmp.Or(c.HNSWM, 16), cmp.Or(c.HNSWEfConstruction, 64); efc < 2*m {
		return fmt.Errorf("perf: the HNSW ef_construction (%d) must be at least twice m (%d)", efc, m)
	}
	switch c.LexicalScorer {
	case "", "auto", "sql", "compiled":
	default:
		return fmt.Errorf("perf: Config.LexicalScorer must be auto, sql or compiled, got %q", c.LexicalScorer)
	}
	if c.WorkerBin != "" {
		if c.NoWorker {
			return errors.New("perf: Config.WorkerBin and Config.NoWorker exclude each other")
		}
		// Checked before the hours of loading that precede the load test.
		if _, err := exec.LookPath(c.WorkerBin); err != nil {
			return fmt.Errorf("perf: Config.WorkerBin: %w", err)
		}
	}
	return nil
}

// Results are the figures of one Run.
type Results struct {
	// Started is when the run began; Duration how long it took (seconds).
	Started  time.Time `json:"started"`
	Duration float64   `json:"duration_s"`
	// Machine describes where it ran.
	Machine Machine `json:"machine"`
	// Recall are the recall latency figures, one per size and layout.
	Recall []RecallFigure `json:"recall"`
	// Filtered are the filtered-search figures, one per size, layout and setting.
	Filtered []FilteredFigure `json:"filtered"`
	// Writes are the write figures (nil when skipped).
	Writes *WriteFigure `json:"writes,omitempty"`
	// Load is the load test (nil when skipped).
	Load *LoadFigure `json:"load,omitempty"`
	// Config echoes the configuration.
	Config map[string]any `json:"config"`
}

// Machine describes the benchmark machine.
type Machine struct {
	GoOS          string            `json:"goos"`
	GoArch        string            `json:"goarch"`
	CPUs          int               `json:"cpus"`
	LoadAvg       string            `json:"loadavg,omitempty"`
	ServerVersion string            `json:"server_version"`
	Pgvector      string            `json:"pgvector"`
	Settings      map[string]string `json:"settings"`
	// ServerMalloc is the server's allocator settings (MALLOC_* variables of its environment,
	// "glibc's defaults" without any, "unknown" where they could not be read).
	ServerMalloc string `json:"server_malloc,omitempty"`
	// HugePages is this machine's huge pages in use and reserved when the server was described
	// (/proc/meminfo; the server's, when it runs here), "none reserved" without any.
	HugePages string `json:"huge_pages,omitempty"`
}

// hugePagesInUse describes the huge pages of meminfo (a /proc/meminfo file): "U of T 2048 kB
// pages in use" (U = total − free + reserved), "none reserved", or "" when unreadable.
func hugePagesInUse(meminfo string) string {
	b, err := os.ReadFile(meminfo)
	if err != nil {
		return ""
	}
	v := map[string]int{}
	size := ""
	for _, line := range strings.Split(string(b), "\n") {
		k, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		rest = strings.TrimSpace(rest)
		switch k {
		case "HugePages_Total", "HugePages_Free", "HugePages_Rsvd":
			v[k], _ = strconv.Atoi(rest)
		case "Hugepagesize":
			size = rest
		}
	}
	if v["HugePages_Total"] == 0 {
		return "none reserved"
	}
	return fmt.Sprintf("%d of %d %s pages in use", v["HugePages_Total"]-v["HugePages_Free"]+v["HugePages_Rsvd"], v["HugePages_Total"], size)
}

func (c *Config) progress(res *Results) {
	if c.OnProgress != nil {
		res.Duration = time.Since(res.Started).Seconds()
		c.OnProgress(res)
	}
}

// Run runs the benchmarks of cfg.
func Run(ctx context.Context, cfg *Config) (*Results, error) {
	c := cfg.withDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	started := time.Now()
	res := &Results{
		Started: started.UTC(), Machine: Machine{
			GoOS: runtime.GOOS, GoArch: runtime.GOARCH, CPUs: runtime.NumCPU(),
			LoadAvg: loadAvg(),
		},
		Config: map[string]any{
			"dim": c.Dim, "sizes": c.Sizes, "tenants": c.Tenants, "queries": c.Queries,
			"filtered_queries": c.FilteredQueries, "partial_max": c.PartialMax, "halfvec_max": c.HalfvecMax, "import_size": c.ImportSize,
			"batch_size": c.BatchSize, "stores": c.Stores, "clients": c.Clients, "load_duration_s": c.LoadDuration.Seconds(),
			"pool_size": c.PoolSize, "worker": !c.NoWorker, "worker_bin": c.WorkerBin, "seed": c.Seed, "k": K,
			"recall_split_min_docs": c.RecallSplitMinDocs,
			"lexical_scorer":        c.LexicalScorer,
			"hnsw_m":                c.HNSWM, "hnsw_ef_construction": c.HNSWEfConstruction,
		},
	}
	if err := describeServer(ctx, c.AdminURL, &res.Machine); err != nil {
		return nil, err
	}
	tmpl, dropTemplate, err := newTemplate(ctx, &c)
	if err != nil {
		return nil, err
	}
	defer dropTemplate()
	c.template = tmpl
	if c.ImportSize > 0 {
		w, err := benchWrites(ctx, &c)
		if err != nil {
			return nil, fmt.Errorf("writes: %w", err)
		}
		c.Logger.Info("writes", "store_p50_ms", w.StoreP50MS, "import_ratio", w.ImportRatio)
		res.Writes = w
		c.progress(res)
	}
	largest := 0
	for _, n := range c.Sizes {
		largest = max(largest, n)
	}
	for _, n := range c.Sizes {
		layouts := []int{c.Tenants, 1}
		if c.MultiOnly {
			layouts = layouts[:1]
		}
		for _, tenants := range layouts {
			doLoad := n == largest && tenants == c.Tenants && c.LoadDuration > 0
			if err := benchRecallSize(ctx, &c, n, tenants, doLoad, res); err != nil {
				return nil, fmt.Errorf("recall at %d memories, %d tenants: %w", n, tenants, err)
			}
		}
	}
	res.Duration = time.Since(started).Seconds()
	return res, nil
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil || len(b) < 14 {
		return ""
	}
	return string(b[:14])
}

func describeServer(ctx context.Context, admin string, m *Machine) error {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("error connecting to %s: %w", redact(admin), err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&m.ServerVersion); err != nil {
		return err
	}
	_ = conn.QueryRow(ctx, "SELECT coalesce(default_version, '') FROM pg_available_extensions WHERE name = 'vector'").Scan(&m.Pgvector)
	m.Settings = map[string]string{}
	for _, s := range []string{
		"shared_buffers", "work_mem", "maintenance_work_mem", "max_connections", "fsync",
		"synchronous_commit", "shared_preload_libraries", "max_parallel_maintenance_workers",
		// "try" falls back to 4 KiB pages when the kernel has none reserved, and a backend then
		// faults in each page of shared memory it touches the first time.
		"huge_pages",
	} {
		var v string
		if err := conn.QueryRow(ctx, "SELECT current_setting($1)", s).Scan(&v); err == nil {
			m.Settings[s] = v
		}
	}
	m.HugePages = hugePagesInUse("/proc/meminfo")
	// The allocator settings the server runs with (pgcluster.MallocSettings), read from the
	// postmaster's environment where the role may read server files (a backend's own has been
	// overwritten by its process title); "unknown" otherwise.
	m.ServerMalloc = "unknown"
	var env []byte
	if err := conn.QueryRow(ctx, `SELECT pg_read_binary_file('/proc/' || split_part(pg_read_file('postmaster.pid'), E'\n', 1) || '/environ')`).Scan(&env); err == nil {
		var malloc []string
		for _, kv := range strings.Split(string(env), "\x00") {
			if strings.HasPrefix(kv, "MALLOC_") {
				malloc = append(malloc, kv)
			}
		}
		m.ServerMalloc = cmp.Or(strings.Join(malloc, " "), "glibc's defaults")
	}
	return nil
}

var dbSeq atomic.Int64

// benchDB is one experiment's database.
type benchDB struct {
	name string
	url  string
	pool *pgxpool.Pool
	drop func()
}

// newTemplate creates and migrates the database every experiment's database is copied from
// (CREATE DATABASE ... TEMPLATE: one migration per run) and returns a function that drops it.
func newTemplate(ctx context.Context, c *Config) (string, func(), error) {
	name := fmt.Sprintf("zbperf_%d_template", os.Getpid())
	if err := adminExec(ctx, c.AdminURL, "CREATE DATABASE "+name+" TEMPLATE template0"); err != nil {
		return "", nil, fmt.Errorf("error creating database %s: %w", name, err)
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
		return "", nil, err
	}
	mpool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: u, ApplicationName: "zbperfbench-migrate", MaxConns: 2})
	if err != nil {
		drop()
		return "", nil, err
	}
	m, err := migrate.New(mpool)
	if err == nil {
		_, err = m.Up(ctx, &migrate.Opts{EmbeddingDim: c.Dim})
	}
	mpool.Close()
	if err != nil {
		drop()
		return "", nil, fmt.Errorf("error migrating %s: %w", name, err)
	}
	return name, drop, nil
}

// newDB creates a database from the migrated template; its pool has maxConns connections.
func newDB(ctx context.Context, c *Config, maxConns int32) (*benchDB, error) {
	name := fmt.Sprintf("zbperf_%d_%d", os.Getpid(), dbSeq.Add(1))
	if err := adminExec(ctx, c.AdminURL, "CREATE DATABASE "+name+" TEMPLATE "+c.template); err != nil {
		return nil, fmt.Errorf("error creating database %s: %w", name, err)
	}
	drop := func() {
		dctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := adminExec(dctx, c.AdminURL, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			c.Logger.Warn("error dropping benchmark database", "db", name, "error", err)
		}
	}
	if c.LexicalScorer != "" {
		if err := adminExec(ctx, c.AdminURL, fmt.Sprintf("ALTER DATABASE %s SET zb.lexical_scorer = '%s'", name, c.LexicalScorer)); err != nil {
			drop()
			return nil, fmt.Errorf("error setting zb.lexical_scorer on %s: %w", name, err)
		}
	}
	u, err := withDatabase(c.AdminURL, name)
	if err != nil {
		drop()
		return nil, err
	}
	pool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: u, ApplicationName: "zbperfbench", MaxConns: maxConns})
	if err != nil {
		drop()
		return nil, err
	}
	if c.Keep {
		drop = func() { c.Logger.Info("kept database", "db", name) }
	}
	return &benchDB{name: name, url: u, pool: pool, drop: func() { pool.Close(); drop() }}, nil
}

// bareSettings are the session settings of the bare HNSW baseline: those zb.recall_candidates
// declares on itself.
var bareSettings = map[string]string{"hnsw.iterative_scan": "relaxed_order", "hnsw.ef_search": "100"}

// newPoolWith opens a pool on u whose connections carry the given settings.
func newPoolWith(ctx context.Context, u, app string, maxConns int32, settings map[string]string) (*pgxpool.Pool, error) {
	pcfg, err := pgxpool.ParseConfig(u)
	if err != nil {
		return nil, err
	}
	pcfg.MaxConns = maxConns
	pcfg.ConnConfig.RuntimeParams["application_name"] = app
	pcfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		for k, v := range settings {
			if _, err := conn.Exec(ctx, "SELECT set_config($1, $2, false)", k, v); err != nil {
				return err
			}
		}
		return dbconn.RegisterTypes(ctx, conn)
	}
	return pgxpool.NewWithConfig(ctx, pcfg)
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
		return "", fmt.Errorf("perf: AdminURL must be a postgres:// URL: %q", redact(raw))
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

// Latency summarizes timed operations in milliseconds.
type Latency struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

// summarize returns the percentiles of ds (nearest rank).
func summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	pick := func(q float64) float64 {
		i := int(math.Ceil(q*float64(len(s)))) - 1
		return ms(s[max(0, min(i, len(s)-1))])
	}
	return Latency{N: len(s), P50: pick(0.50), P99: pick(0.99), Max: ms(s[len(s)-1])}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}
