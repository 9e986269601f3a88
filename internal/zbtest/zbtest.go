// Package zbtest is zenbrain's database test kit. It finds a real PostgreSQL with pgvector by
// itself and never skips:
//
//  1. ZB_TEST_DATABASE_URL when set (a role that may CREATE DATABASE);
//  2. else a pgvector/pgvector container through dockertest when a Docker engine answers;
//  3. else a throwaway cluster started from the installed PostgreSQL binaries (internal/pgcluster),
//     removed when the test binary exits.
//
// Every test gets its own database, cloned from a migrated template (CREATE DATABASE ... TEMPLATE),
// so tests run in parallel and never share mutable state. Templates are keyed by the migration
// checksums and the embedding dimension, and built once per server under an advisory lock.
//
// Use [Main] in TestMain and [DB] or [Pool] in tests.
package zbtest

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ory/dockertest/v3"
	"github.com/ory/dockertest/v3/docker"
	"go.uber.org/goleak"

	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/internal/pgcluster"
	"github.com/zenbrain/zb/migrate"
)

// DockerImage is the image used when a Docker engine answers.
const DockerImage = "pgvector/pgvector"

// DockerTag is the tag of DockerImage.
const DockerTag = "pg16"

type server struct {
	adminURL string // URL of the "postgres" database with CREATE DATABASE rights
	kind     string
	cleanup  func()
}

var (
	srvOnce sync.Once
	srv     *server
	srvErr  error

	tplMu sync.Mutex
	tpls  = map[int]string{}

	dbCounter atomic.Int64
)

// Main runs the package's tests, then stops a server it started and checks for leaked
// goroutines. Call it from TestMain: func TestMain(m *testing.M) { zbtest.Main(m) }.
func Main(m *testing.M) {
	code := m.Run()
	if srv != nil && srv.cleanup != nil {
		srv.cleanup()
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// Kind names the server in use: "url", "docker" or "local". It starts the server if needed.
func Kind(t testing.TB) string {
	t.Helper()
	return getServer(t).kind
}

func getServer(t testing.TB) *server {
	t.Helper()
	srvOnce.Do(func() { srv, srvErr = startServer() })
	if srvErr != nil {
		t.Fatalf("zbtest: no PostgreSQL with pgvector for tests: %v", srvErr)
	}
	return srv
}

func startServer() (*server, error) {
	if u := os.Getenv("ZB_TEST_DATABASE_URL"); u != "" {
		return &server{adminURL: u, kind: "url"}, nil
	}
	if s, err := startDocker(); err == nil {
		return s, nil
	}
	return startLocal()
}

func startDocker() (*server, error) {
	if os.Getenv("DOCKER_HOST") == "" {
		if _, err := os.Stat("/var/run/docker.sock"); err != nil {
			return nil, errors.New("no docker socket")
		}
	}
	pool, err := dockertest.NewPool("")
	if err != nil {
		return nil, err
	}
	pool.MaxWait = 90 * time.Second
	if err := pool.Client.Ping(); err != nil {
		return nil, err
	}
	res, err := pool.RunWithOptions(&dockertest.RunOptions{
		Repository: DockerImage, Tag: DockerTag,
		Env: []string{"POSTGRES_PASSWORD=zb", "POSTGRES_USER=zb", "POSTGRES_DB=postgres"},
		Cmd: []string{"postgres", "-c", "fsync=off", "-c", "max_connections=200"},
	}, func(hc *docker.HostConfig) { hc.AutoRemove = true })
	if err != nil {
		return nil, err
	}
	_ = res.Expire(1800)
	u := fmt.Sprintf("postgres://zb:zb@%s/postgres?sslmode=disable", res.GetHostPort("5432/tcp"))
	err = pool.Retry(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			return err
		}
		return conn.Close(ctx)
	})
	if err != nil {
		_ = pool.Purge(res)
		return nil, err
	}
	return &server{adminURL: u, kind: "docker", cleanup: func() { _ = pool.Purge(res) }}, nil
}

func startLocal() (*server, error) {
	dir, err := os.MkdirTemp("", "zbtest-pg-")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	cl, err := pgcluster.New(&pgcluster.Config{
		Dir: dir, AnyPort: true, Ephemeral: true, Database: "postgres",
		BinDir:   os.Getenv("ZB_PG_BINDIR"),
		Settings: map[string]string{"max_connections": "300", "log_min_messages": "fatal"},
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := cl.Init(ctx); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := cl.Start(ctx); err != nil {
		_ = cl.Destroy(ctx)
		return nil, err
	}
	u, err := cl.URL()
	if err != nil {
		_ = cl.Destroy(ctx)
		return nil, err
	}
	return &server{adminURL: u, kind: "local", cleanup: func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = cl.Destroy(ctx)
	}}, nil
}

// withDatabase returns rawURL with its database name replaced.
func withDatabase(rawURL, db string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		// keyword/value form
		cfg, perr := pgconn.ParseConfig(rawURL)
		if perr != nil {
			return "", fmt.Errorf("error parsing test database URL: %w", perr)
		}
		u = &url.URL{Scheme: "postgres", Host: fmt.Sprintf("%s:%d", cfg.Host, cfg.Port)}
		u.User = url.UserPassword(cfg.User, cfg.Password)
		u.RawQuery = "sslmode=disable"
	}
	u.Path = "/" + db
	return u.String(), nil
}

// Opts are the options of DB and Pool.
type Opts struct {
	// EmbeddingDim is the embedding dimension of the migrated database. Defaults to 768.
	EmbeddingDim int

	// Empty returns a database with nothing migrated (no zb schema, no River).
	Empty bool
}

// AdminURL returns the URL of the server's maintenance database ("postgres"), for tests that
// create databases themselves.
func AdminURL(t testing.TB) string {
	t.Helper()
	return getServer(t).adminURL
}

// DB creates a database for the test (migrated unless opts.Empty) and returns its URL. The
// database is dropped when the test ends.
func DB(t testing.TB, opts *Opts) string {
	t.Helper()
	if opts == nil {
		opts = &Opts{}
	}
	s := getServer(t)
	ctx := context.Background()
	template := "template0"
	if !opts.Empty {
		var err error
		template, err = templateFor(ctx, s, cmp.Or(opts.EmbeddingDim, migrate.EmbeddingDimDefault))
		if err != nil {
			t.Fatalf("zbtest: %v", err)
		}
	}
	name := fmt.Sprintf("zbt_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, dbCounter.Add(1))
	if err := createDatabase(ctx, s.adminURL, name, template); err != nil {
		t.Fatalf("zbtest: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := adminExec(ctx, s.adminURL, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
			t.Logf("zbtest: error dropping %s: %v", name, err)
		}
	})
	u, err := withDatabase(s.adminURL, name)
	if err != nil {
		t.Fatalf("zbtest: %v", err)
	}
	return u
}

// Pool returns a pool on a fresh database for the test (see DB); it is closed when the test
// ends.
func Pool(t testing.TB, opts *Opts) *pgxpool.Pool {
	t.Helper()
	u := DB(t, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: u, ApplicationName: "zbtest", MaxConns: 8})
	if err != nil {
		t.Fatalf("zbtest: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func templateFor(ctx context.Context, s *server, dim int) (string, error) {
	tplMu.Lock()
	defer tplMu.Unlock()
	if name, ok := tpls[dim]; ok {
		return name, nil
	}
	migs, err := migrate.Migrations()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, m := range migs {
		h.Write([]byte(m.Checksum))
	}
	name := fmt.Sprintf("zbtpl_%s_%d", hex.EncodeToString(h.Sum(nil))[:12], dim)

	conn, err := pgx.Connect(ctx, s.adminURL)
	if err != nil {
		return "", fmt.Errorf("error connecting to the test server: %w", err)
	}
	defer conn.Close(ctx)
	// Serialize template builds across test processes sharing the server.
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(7254)"); err != nil {
		return "", fmt.Errorf("error locking template build: %w", err)
	}
	defer func() { _, _ = conn.Exec(context.Background(), "SELECT pg_advisory_unlock(7254)") }()
	var ready bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate)", name).Scan(&ready); err != nil {
		return "", fmt.Errorf("error checking template: %w", err)
	}
	if !ready {
		if _, err := conn.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
			return "", fmt.Errorf("error dropping stale template: %w", err)
		}
		if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE template0", name)); err != nil {
			return "", fmt.Errorf("error creating template: %w", err)
		}
		u, err := withDatabase(s.adminURL, name)
		if err != nil {
			return "", err
		}
		if err := migrateURL(ctx, u, dim); err != nil {
			return "", fmt.Errorf("error migrating template %s: %w", name, err)
		}
		if _, err := conn.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s WITH is_template true ALLOW_CONNECTIONS false", name)); err != nil {
			return "", fmt.Errorf("error marking template: %w", err)
		}
	}
	tpls[dim] = name
	return name, nil
}

func migrateURL(ctx context.Context, u string, dim int) error {
	pool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: u, ApplicationName: "zbtest-migrate", MaxConns: 2})
	if err != nil {
		return err
	}
	defer pool.Close()
	m, err := migrate.New(pool)
	if err != nil {
		return err
	}
	_, err = m.Up(ctx, &migrate.Opts{EmbeddingDim: dim})
	return err
}

func createDatabase(ctx context.Context, adminURL, name, template string) error {
	var err error
	for attempt := 0; attempt < 20; attempt++ {
		err = adminExec(ctx, adminURL, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, template))
		var pgErr *pgconn.PgError
		// 55006 object_in_use: the template still has a closing connection.
		if err == nil || !errors.As(err, &pgErr) || pgErr.Code != "55006" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("error creating test database %s: %w", name, err)
	}
	return nil
}

func adminExec(ctx context.Context, adminURL, sql string) error {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// Psql runs psql with the given arguments against the database URL u and returns its
// combined output.
func Psql(t testing.TB, u string, args ...string) (string, error) {
	t.Helper()
	path, err := exec.LookPath("psql")
	if err != nil {
		if bin, ferr := pgcluster.FindBinDir(); ferr == nil {
			path = bin + "/psql"
		} else {
			return "", err
		}
	}
	cmd := exec.Command(path, append([]string{"-X", "-v", "ON_ERROR_STOP=1", u}, args...)...)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// RequireZbLexical skips t when the test database lacks zenbrain's optional zb_lexical extension
// (ext/zb_lexical, migration 0032). Under ZB_REQUIRE_ZB_LEXICAL=1 (make test sets it: make deps
// installs the extension for the local server) a missing extension on the local test cluster
// fails t instead; a Docker or ZB_TEST_DATABASE_URL server may lack it and is skipped.
func RequireZbLexical(t testing.TB, pool *pgxpool.Pool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var have bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'zb_lexical')`).Scan(&have); err != nil {
		t.Fatalf("zbtest: %v", err)
	}
	if have {
		return
	}
	if os.Getenv("ZB_REQUIRE_ZB_LEXICAL") == "1" && Kind(t) == "local" {
		t.Fatal("zbtest: the zb_lexical extension is not installed on the local test server (make deps installs it)")
	}
	t.Skip("zbtest: the zb_lexical extension is not installed on this server (make deps installs it)")
}

// FunctionCalls returns the calls of function schema.name that this backend counted and has not
// yet reported (pg_stat_xact_user_functions; needs track_functions = all). Counts of earlier
// transactions stay in it until the backend reports them, so compare two readings in one
// transaction.
func FunctionCalls(t testing.TB, tx pgx.Tx, schema, name string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var c int64
	if err := tx.QueryRow(ctx, `SELECT coalesce(sum(calls), 0) FROM pg_stat_xact_user_functions
		WHERE schemaname = $1 AND funcname = $2`, schema, name).Scan(&c); err != nil {
		t.Fatalf("zbtest: %v", err)
	}
	return c
}

// PoolWithParams opens a pool on pool's database whose connections set the given run-time
// parameters (e.g. zb.lexical_scorer); it is closed when t ends.
func PoolWithParams(t testing.TB, pool *pgxpool.Pool, params map[string]string) *pgxpool.Pool {
	t.Helper()
	cfg := pool.Config().Copy()
	for k, v := range params {
		cfg.ConnConfig.RuntimeParams[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("zbtest: %v", err)
	}
	t.Cleanup(p.Close)
	return p
}
