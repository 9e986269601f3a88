package zbctlcli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/cmd/zbctl/zbctlcli"
	"github.com/zenbrain/zb/internal/pgcluster"
	"github.com/zenbrain/zb/internal/zbtest"
	"github.com/zenbrain/zb/migrate"
)

func TestMain(m *testing.M) { zbtest.Main(m) }

type result struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string { return env[k] }
	code := zbctlcli.RunContext(context.Background(), args, getenv, strings.NewReader(""), &out, &errb)
	return result{code, out.String(), errb.String()}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// homeDir returns a cluster directory the server's user can reach (as root, the server runs
// as an unprivileged user, which cannot enter a 0700 temporary directory).
func homeDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "zbctl-test-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return filepath.Join(dir, "zb")
}

// devPassword reads the dev cluster's generated password from its cluster.json.
func devPassword(t *testing.T, home string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "cluster.json"))
	require.NoError(t, err)
	var info pgcluster.Info
	require.NoError(t, json.Unmarshal(b, &info))
	require.Len(t, info.Password, 32)
	return info.Password
}

func postmasterPID(t *testing.T, home string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "data", "postmaster.pid"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	require.NoError(t, err)
	return pid
}

func TestDevLifecycle(t *testing.T) {
	t.Parallel()
	home := homeDir(t)
	env := map[string]string{"ZB_HOME": home, "ZB_DEV_PORT": strconv.Itoa(freePort(t))}
	t.Cleanup(func() { run(t, env, "dev", "down") })

	r := run(t, env, "dev", "up")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "created the dev cluster")
	require.Contains(t, r.stdout, fmt.Sprintf("applied %d zb migrations", numMigrations(t)))
	pid := postmasterPID(t, home)
	// The password is shown only by 'dev url'; 'dev up' shows the URL without it and how to
	// get it.
	password := devPassword(t, home)
	require.NotContains(t, r.stdout, password)
	require.Contains(t, r.stdout, "postgres://zb:"+pgcluster.RedactedPassword+"@127.0.0.1:"+env["ZB_DEV_PORT"]+"/zenbrain")
	require.Contains(t, r.stdout, `export ZB_DATABASE_URL="$(zbctl dev url)"`)

	// Running it twice changes nothing.
	r = run(t, env, "dev", "up")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "migrations up to date")
	require.NotContains(t, r.stdout, password)
	require.Equal(t, pid, postmasterPID(t, home))
	r = run(t, env, "--json", "dev", "up")
	require.Zero(t, r.code, r.stderr)
	require.NotContains(t, r.stdout, password)
	var du map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &du))
	require.Contains(t, du["url"], "postgres://zb:"+pgcluster.RedactedPassword+"@")

	r = run(t, env, "--json", "migrate", "status")
	require.Zero(t, r.code, r.stderr)
	var st struct {
		Migrations []struct {
			Applied bool `json:"applied"`
		} `json:"migrations"`
		UpToDate         bool   `json:"up_to_date"`
		EmbeddingDim     int    `json:"embedding_dim"`
		LexicalScorer    string `json:"lexical_scorer"`
		ZbLexicalVersion string `json:"zb_lexical_version"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &st))
	require.True(t, st.UpToDate)
	require.Equal(t, 768, st.EmbeddingDim)
	for _, m := range st.Migrations {
		require.True(t, m.Applied)
	}
	// Which lexical scorer recall uses (0032): compiled where make deps installed zb_lexical.
	require.Contains(t, []string{"compiled", "sql"}, st.LexicalScorer)
	if os.Getenv("ZB_REQUIRE_ZB_LEXICAL") == "1" {
		require.Equal(t, "compiled", st.LexicalScorer)
		require.Equal(t, "1.0", st.ZbLexicalVersion)
	}
	r = run(t, env, "migrate", "status")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "lexical scorer: "+st.LexicalScorer)

	r = run(t, env, "--json", "dev", "status")
	require.Zero(t, r.code, r.stderr)
	require.NotContains(t, r.stdout, password)
	var ds map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &ds))
	require.Equal(t, true, ds["running"])
	require.Equal(t, true, ds["migrations_up_to_date"])
	require.Contains(t, ds["url"], "postgres://zb:"+pgcluster.RedactedPassword+"@")

	r = run(t, env, "dev", "status")
	require.Zero(t, r.code, r.stderr)
	require.NotContains(t, r.stdout, password)
	require.Contains(t, r.stdout, "postgres://zb:"+pgcluster.RedactedPassword+"@")

	r = run(t, env, "dev", "url")
	require.Zero(t, r.code, r.stderr)
	require.Equal(t, "postgres://zb:"+password+"@127.0.0.1:"+env["ZB_DEV_PORT"]+"/zenbrain?sslmode=disable", strings.TrimSpace(r.stdout))
	r = run(t, env, "--json", "dev", "url")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, password)

	// The application login: row-level security applies to it (unbound it sees no tenant's
	// memories) and it has a statement timeout.
	r = run(t, env, "dev", "url", "--app")
	require.Zero(t, r.code, r.stderr)
	appURL := strings.TrimSpace(r.stdout)
	require.Equal(t, "postgres://zbapp:"+password+"@127.0.0.1:"+env["ZB_DEV_PORT"]+"/zenbrain?sslmode=disable", appURL)
	func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, appURL)
		require.NoError(t, err)
		defer conn.Close(ctx)
		var timeout string
		var rls bool
		require.NoError(t, conn.QueryRow(ctx, "SELECT current_setting('statement_timeout'), row_security_active('zb.memory')").Scan(&timeout, &rls))
		require.Equal(t, "30s", timeout)
		require.True(t, rls)
	}()

	r = run(t, env, "dev", "psql", "--", "-Atc", "SELECT count(*) FROM zb.config WHERE key = 'embedding_dim'")
	require.Zero(t, r.code, r.stderr)
	require.Equal(t, "1", strings.TrimSpace(r.stdout))

	// A different embedding dimension on an existing install is refused.
	r = run(t, env, "migrate", "up", "--embedding-dim", "384")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "installed with embedding dimension 768")

	r = run(t, env, "dev", "down")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "dev cluster stopped")
	require.True(t, gone(pid), "no postgres process is left")
	_, err := os.Stat(filepath.Join(home, "data", "postmaster.pid"))
	require.ErrorIs(t, err, os.ErrNotExist)

	r = run(t, env, "dev", "down")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "was not running")

	// Commands needing a database say how to get one.
	r = run(t, env, "migrate", "status")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "zbctl dev up")

	r = run(t, env, "dev", "down", "--destroy")
	require.Zero(t, r.code, r.stderr)
	_, err = os.Stat(home)
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestNoDatabaseConfigured(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ZB_HOME": homeDir(t)}
	r := run(t, env, "migrate", "status")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "set ZB_DATABASE_URL, or run 'zbctl dev up'")

	r = run(t, env, "--json", "migrate", "status")
	require.Equal(t, 1, r.code)
	var e map[string]string
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &e))
	require.Contains(t, e["error"], "ZB_DATABASE_URL")

	r = run(t, map[string]string{"ZB_DATABASE_URL": "postgres://zb@127.0.0.1:1/x?connect_timeout=2"}, "migrate", "status")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "cannot reach PostgreSQL")

	r = run(t, map[string]string{"ZB_DEV_PORT": "http"}, "dev", "status")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "ZB_DEV_PORT")
}

func TestMigrateAgainstURL(t *testing.T) {
	t.Parallel()
	u := zbtest.DB(t, &zbtest.Opts{Empty: true})
	env := map[string]string{"ZB_DATABASE_URL": u}
	r := run(t, env, "migrate", "up", "--embedding-dim", "64")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "embedding dimension 64")
	r = run(t, env, "migrate", "status")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "up to date")
	r = run(t, env, "migrate", "down", "--all")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "--yes")
	r = run(t, env, "migrate", "down", "--all", "--yes")
	require.Zero(t, r.code, r.stderr)
	r = run(t, env, "migrate", "status")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, fmt.Sprintf("%d pending", numMigrations(t)))
}

func TestDataDirectoryOwnedBySomeoneElse(t *testing.T) {
	t.Parallel()
	home := homeDir(t)
	// A cluster directory whose data belongs to another user than the server's.
	require.NoError(t, os.MkdirAll(filepath.Join(home, "data"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, "data", "PG_VERSION"), []byte("15\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(home, "cluster.json"), []byte(`{"port":1}`), 0o600))
	if os.Geteuid() != 0 {
		// Without root we cannot give files away; a directory we cannot create stands in.
		r := run(t, map[string]string{"ZB_HOME": "/proc/zb-cannot-exist"}, "dev", "up")
		require.Equal(t, 1, r.code)
		require.Contains(t, r.stderr, "/proc/zb-cannot-exist")
		return
	}
	// As root the server runs as an unprivileged user, so root-owned data is someone else's.
	r := run(t, map[string]string{"ZB_HOME": home}, "dev", "up")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "is owned by root")
	require.Contains(t, r.stderr, "ZB_HOME")
}

// gone reports whether pid no longer names a live process (a zombie awaiting its reaper
// counts as gone).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

func numMigrations(t *testing.T) int {
	t.Helper()
	migs, err := migrate.Migrations()
	require.NoError(t, err)
	return len(migs)
}

func TestStoreRecallStats(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ZB_DATABASE_URL": zbtest.DB(t, &zbtest.Opts{EmbeddingDim: 128}), "ZB_TENANT": "cli"}
	r := run(t, env, "store", "Alice's favourite colour is green")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "in semantic (fact")
	r = run(t, env, "store", "--layer", "core", "--label", "name", "My name is Sam")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "in core")
	r = run(t, env, "--json", "store", "How to deploy: step 1 build the image, step 2 push it")
	require.Zero(t, r.code, r.stderr)
	var stored map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &stored))
	require.Equal(t, "procedural", stored["Layer"])

	r = run(t, env, "recall", "--explain", "what is Alice's favourite colour?")
	require.Zero(t, r.code, r.stderr)
	lines := strings.Split(r.stdout, "\n")
	require.Contains(t, lines[1], "Alice's favourite colour is green", "the fact ranks first:\n%s", r.stdout)
	require.Contains(t, r.stdout, "query class factual")
	require.Contains(t, r.stdout, "retention")
	require.Regexp(t, `candidates; [0-9.]+ ms: embed [0-9.]+, candidates [0-9.]+, rank [0-9.]+, side effects [0-9.]+\n`, r.stdout,
		"--explain says where the time went")

	r = run(t, env, "--json", "recall", "-k", "1", "deploy image")
	require.Zero(t, r.code, r.stderr)
	var rec struct {
		Results []struct {
			Content string `json:"content"`
			Layer   string `json:"layer"`
		} `json:"results"`
		Timing map[string]float64 `json:"timing"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rec))
	require.Len(t, rec.Results, 1)
	require.Equal(t, "procedural", rec.Results[0].Layer)
	require.Positive(t, rec.Timing["total_ms"], r.stdout)
	require.Positive(t, rec.Timing["candidates_ms"])
	require.GreaterOrEqual(t, rec.Timing["total_ms"], rec.Timing["candidates_ms"]+rec.Timing["side_effects_ms"]-0.002)

	r = run(t, env, "stats")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "total               3")

	// Bad input is refused with a clear message and writes nothing.
	r = run(t, env, "recall", "-k", "0", "x")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "k")
	r = run(t, env, "store", "--layer", "limbic", "x")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "limbic")
	r = run(t, env, "store", "--occurred-at", "yesterday", "x")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "RFC 3339")
	r = run(t, env, "stats")
	require.Contains(t, r.stdout, "total               3")
}

func TestDemoLoadIsIdempotent(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ZB_DATABASE_URL": zbtest.DB(t, &zbtest.Opts{EmbeddingDim: 96})}
	r := run(t, env, "demo", "load")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "16 memories stored, 0 already there")
	r = run(t, env, "demo", "load")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "0 memories stored, 16 already there")
	r = run(t, env, "stats", "--tenant", "demo")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "total               16")
	r = run(t, env, "recall", "--tenant", "demo", "-k", "1", "how do I deploy Zeus?")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "How to deploy Zeus")
}

func TestAlgorithmsAndForget(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ZB_DATABASE_URL": zbtest.DB(t, &zbtest.Opts{EmbeddingDim: 64}), "ZB_TENANT": "abl"}
	r := run(t, env, "--json", "algorithms", "list")
	require.Zero(t, r.code, r.stderr)
	var list struct {
		Algorithms []struct {
			ID      string `json:"id"`
			Enabled bool   `json:"enabled"`
		} `json:"algorithms"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &list))
	require.Len(t, list.Algorithms, 22, "the fifteen mechanisms, the PMA extras and the four beyond them")
	ids := make([]string, 0, len(list.Algorithms))
	for _, al := range list.Algorithms {
		require.True(t, al.Enabled, al.ID)
		ids = append(ids, al.ID)
	}
	// Every id the registry knows is accepted by the database's check constraint.
	r = run(t, env, append([]string{"algorithms", "disable"}, ids...)...)
	require.Zero(t, r.code, r.stderr)
	r = run(t, env, append([]string{"algorithms", "enable"}, ids[1:]...)...)
	require.Zero(t, r.code, r.stderr)
	r = run(t, env, "algorithms", "list")
	require.Zero(t, r.code, r.stderr)
	require.Regexp(t, `(?m)^decay\s+OFF\s`, r.stdout)
	require.Regexp(t, `(?m)^two_factor_hebbian\s+on\s`, r.stdout)
	r = run(t, env, "algorithms", "disable", "telepathy")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, `unknown algorithm "telepathy"`)

	// With decay off, recall reports retrievability 1 and retention 1 for an old memory.
	r = run(t, env, "--json", "store", "Carol is allergic to peanuts")
	require.Zero(t, r.code, r.stderr)
	var stored struct{ ID int64 }
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &stored))
	r = run(t, env, "--json", "recall", "-k", "1", "what is Carol allergic to?")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, `"Retention": 1`)

	id := strconv.FormatInt(stored.ID, 10)
	r = run(t, env, "forget", "--dry-run", id)
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "would forget memory "+id)
	r = run(t, env, "forget", id)
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "forgot memory "+id)
	r = run(t, env, "forget", id)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "not found")
	r = run(t, env, "forget", "abc")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "positive integer")
	r = run(t, env, "stats")
	require.Regexp(t, `(?m)^total\s+0$`, r.stdout)
}
