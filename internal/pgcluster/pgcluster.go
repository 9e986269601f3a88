// Package pgcluster manages a PostgreSQL cluster owned by the project: the embedded local
// database behind `zbctl dev` and the throwaway servers of the test harness.
//
// A cluster lives in one directory:
//
//	<dir>/data          PGDATA
//	<dir>/run           unix socket directory (or a short directory under /tmp when the path is too long)
//	<dir>/postgres.log  server log
//	<dir>/cluster.json  port, password, binaries and version, written at init
//
// PostgreSQL refuses to run as root. When the calling process is root, the server runs as an
// unprivileged user (RunAsUser, default "postgres", else "nobody") and the cluster's files are
// owned by that user. Local socket connections are trusted (the socket directory is private to
// the server's owner); TCP connections on the loopback address need the generated password.
package pgcluster

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5/pgconn"
)

// PortDefault is the loopback TCP port of the dev cluster when Config.Port is 0 and
// Config.AnyPort is false.
const PortDefault = 54329

// DatabaseDefault is the name of the database created in a new cluster.
const DatabaseDefault = "zenbrain"

// SuperuserDefault is the superuser created by initdb.
const SuperuserDefault = "zb"

// MinMajorVersion is the oldest PostgreSQL major version zenbrain supports.
const MinMajorVersion = 15

// ErrNotInitialized is returned when a cluster directory holds no cluster yet.
var ErrNotInitialized = errors.New("cluster is not initialized")

// Config configures a Cluster.
type Config struct {
	// Dir is the cluster directory. Required.
	Dir string

	// BinDir is the directory of the PostgreSQL server binaries (initdb, pg_ctl, postgres).
	// Defaults to the newest /usr/lib/postgresql/<major>/bin with major >= 15, then the
	// directory reported by pg_config on PATH.
	BinDir string

	// Port is the loopback TCP port. Defaults to PortDefault; see AnyPort.
	Port int

	// AnyPort picks a free port at init instead of PortDefault when Port is 0. Test servers
	// set it.
	AnyPort bool

	// Database is the database created at init. Defaults to DatabaseDefault.
	Database string

	// RunAsUser is the user the server runs as when the caller is root. Defaults to
	// "postgres" when that user exists, else "nobody". Ignored when not root.
	RunAsUser string

	// Ephemeral trades durability for speed (fsync, full_page_writes and synchronous_commit
	// off). For test servers only.
	Ephemeral bool

	// Settings are extra postgresql.conf settings written at init.
	Settings map[string]string
}

// Info is what init records in cluster.json.
type Info struct {
	Port      int    `json:"port"`
	Password  string `json:"password"`
	Superuser string `json:"superuser"`
	Database  string `json:"database"`
	BinDir    string `json:"bin_dir"`
	Version   string `json:"version"`
	SocketDir string `json:"socket_dir"`
}

// Cluster is a PostgreSQL cluster in a directory. Its methods are safe to call repeatedly:
// Init on an initialized cluster and Start on a running one do nothing.
type Cluster struct {
	cfg  Config
	cred *syscall.Credential // nil unless running as root
	uid  int
	gid  int
}

// New returns a Cluster for cfg, resolving binaries and the run-as user. It does not touch
// the directory.
func New(cfg *Config) (*Cluster, error) {
	c := &Cluster{cfg: *cfg}
	if c.cfg.Dir == "" {
		return nil, errors.New("pgcluster: Config.Dir is required")
	}
	dir, err := filepath.Abs(c.cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("error resolving cluster directory %q: %w", c.cfg.Dir, err)
	}
	c.cfg.Dir = dir
	c.cfg.Database = cmp.Or(c.cfg.Database, DatabaseDefault)
	if c.cfg.BinDir == "" {
		c.cfg.BinDir, err = FindBinDir()
		if err != nil {
			return nil, err
		}
	}
	for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
		if _, err := os.Stat(filepath.Join(c.cfg.BinDir, name)); err != nil {
			return nil, fmt.Errorf("PostgreSQL binary %s not found in %s: run 'make deps' or set ZB_PG_BINDIR", name, c.cfg.BinDir)
		}
	}
	c.uid, c.gid = os.Getuid(), os.Getgid()
	if os.Geteuid() == 0 {
		name := c.cfg.RunAsUser
		if name == "" {
			name = "postgres"
			if _, err := user.Lookup(name); err != nil {
				name = "nobody"
			}
		}
		u, err := user.Lookup(name)
		if err != nil {
			return nil, fmt.Errorf("running as root, the server needs an unprivileged user; user %q not found (set ZB_PG_USER): %w", name, err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if uid == 0 {
			return nil, fmt.Errorf("user %q is root; PostgreSQL needs an unprivileged user (set ZB_PG_USER)", name)
		}
		c.uid, c.gid = uid, gid
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	return c, nil
}

// Dir returns the cluster directory.
func (c *Cluster) Dir() string { return c.cfg.Dir }

func (c *Cluster) dataDir() string  { return filepath.Join(c.cfg.Dir, "data") }
func (c *Cluster) logFile() string  { return filepath.Join(c.cfg.Dir, "postgres.log") }
func (c *Cluster) infoFile() string { return filepath.Join(c.cfg.Dir, "cluster.json") }

// FindBinDir returns the bin directory of the newest installed PostgreSQL server whose major
// version is at least MinMajorVersion.
func FindBinDir() (string, error) {
	type cand struct {
		dir   string
		major int
	}
	var cands []cand
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	for _, m := range matches {
		major, err := strconv.Atoi(filepath.Base(filepath.Dir(m)))
		if err == nil {
			cands = append(cands, cand{m, major})
		}
	}
	if pgc, err := exec.LookPath("pg_config"); err == nil {
		if out, err := exec.Command(pgc, "--bindir").Output(); err == nil {
			dir := strings.TrimSpace(string(out))
			if v, err := exec.Command(pgc, "--version").Output(); err == nil {
				if major, ok := parseMajor(string(v)); ok {
					cands = append(cands, cand{dir, major})
				}
			}
		}
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].major > cands[j].major })
	for _, c := range cands {
		if c.major < MinMajorVersion {
			continue
		}
		if _, err := os.Stat(filepath.Join(c.dir, "postgres")); err == nil {
			return c.dir, nil
		}
	}
	return "", fmt.Errorf("no PostgreSQL >= %d server binaries found: run 'make deps', set ZB_PG_BINDIR, "+
		"or point ZB_DATABASE_URL at a PostgreSQL with pgvector", MinMajorVersion)
}

var majorRE = regexp.MustCompile(`PostgreSQL\)? (\d+)`)

func parseMajor(s string) (int, bool) {
	m := majorRE.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// Initialized reports whether the directory holds an initialized cluster.
func (c *Cluster) Initialized() bool {
	_, err1 := os.Stat(filepath.Join(c.dataDir(), "PG_VERSION"))
	_, err2 := os.Stat(c.infoFile())
	return err1 == nil && err2 == nil
}

// Info reads cluster.json.
func (c *Cluster) Info() (*Info, error) {
	b, err := os.ReadFile(c.infoFile())
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s: run 'zbctl dev up'", ErrNotInitialized, c.cfg.Dir)
	}
	if err != nil {
		return nil, fmt.Errorf("error reading %s: %w", c.infoFile(), err)
	}
	var info Info
	if err := json.Unmarshal(b, &info); err != nil {
		return nil, fmt.Errorf("error parsing %s: %w", c.infoFile(), err)
	}
	return &info, nil
}

// checkOwnership refuses a cluster directory owned by someone other than the server's user.
func (c *Cluster) checkOwnership(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if int(sys.Uid) != c.uid {
		owner := strconv.Itoa(int(sys.Uid))
		if u, err := user.LookupId(owner); err == nil {
			owner = u.Username
		}
		return fmt.Errorf("data directory %s is owned by %s, but the server would run as uid %d: "+
			"use another directory (ZB_HOME=/path) or fix the owner (chown -R)", path, owner, c.uid)
	}
	return nil
}

// Init creates the cluster directory, runs initdb and records cluster.json. It does nothing
// when the cluster already exists.
func (c *Cluster) Init(ctx context.Context) error {
	if c.Initialized() {
		return c.checkOwnership(c.dataDir())
	}
	if _, err := os.Stat(c.dataDir()); err == nil {
		entries, _ := os.ReadDir(c.dataDir())
		if len(entries) > 0 {
			return fmt.Errorf("%s exists but holds no complete cluster (no cluster.json or PG_VERSION): "+
				"remove it or choose another ZB_HOME", c.dataDir())
		}
	}
	if err := os.MkdirAll(c.cfg.Dir, 0o755); err != nil {
		return fmt.Errorf("error creating cluster directory %s: %w", c.cfg.Dir, err)
	}
	if err := c.chown(c.cfg.Dir); err != nil {
		return err
	}
	if err := c.checkAccess(ctx); err != nil {
		return err
	}
	port := c.cfg.Port
	if port == 0 {
		port = PortDefault
		if c.cfg.AnyPort {
			var err error
			if port, err = freePort(); err != nil {
				return err
			}
		}
	}
	password, err := randomHex(16)
	if err != nil {
		return err
	}
	pwFile := filepath.Join(c.cfg.Dir, ".pwfile")
	if err := os.WriteFile(pwFile, []byte(password+"\n"), 0o600); err != nil {
		return fmt.Errorf("error writing password file: %w", err)
	}
	defer os.Remove(pwFile)
	if err := c.chown(pwFile); err != nil {
		return err
	}
	out, err := c.run(ctx, "initdb", "-D", c.dataDir(), "-U", SuperuserDefault, "--pwfile", pwFile,
		"--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8", "--no-instructions")
	if err != nil {
		return fmt.Errorf("initdb failed: %w\n%s", err, out)
	}
	socketDir, err := c.socketDir()
	if err != nil {
		return err
	}
	settings := map[string]string{
		"listen_addresses":         "'127.0.0.1'",
		"port":                     strconv.Itoa(port),
		"unix_socket_directories":  quoteConf(socketDir),
		"max_connections":          "200",
		"shared_buffers":           "128MB",
		"log_min_messages":         "warning",
		"shared_preload_libraries": "'pg_stat_statements'",
	}
	if c.cfg.Ephemeral {
		settings["fsync"] = "off"
		settings["full_page_writes"] = "off"
		settings["synchronous_commit"] = "off"
	}
	for k, v := range c.cfg.Settings {
		settings[k] = v
	}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var conf bytes.Buffer
	conf.WriteString("# written by zenbrain (internal/pgcluster)\n")
	for _, k := range keys {
		fmt.Fprintf(&conf, "%s = %s\n", k, settings[k])
	}
	confPath := filepath.Join(c.dataDir(), "zenbrain.conf")
	if err := os.WriteFile(confPath, conf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("error writing %s: %w", confPath, err)
	}
	if err := c.chown(confPath); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(c.dataDir(), "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("error opening postgresql.conf: %w", err)
	}
	_, err = f.WriteString("\ninclude 'zenbrain.conf'\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("error writing postgresql.conf: %w", err)
	}
	version, _ := c.run(ctx, "postgres", "--version")
	info := Info{
		Port: port, Password: password, Superuser: SuperuserDefault, Database: c.cfg.Database,
		BinDir: c.cfg.BinDir, Version: strings.TrimSpace(version), SocketDir: socketDir,
	}
	b, _ := json.MarshalIndent(info, "", "  ")
	if err := os.WriteFile(c.infoFile(), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("error writing %s: %w", c.infoFile(), err)
	}
	return nil
}

// checkAccess verifies that the server's user can write the cluster directory (as root, a
// directory under a private home such as /root is unreachable for it).
func (c *Cluster) checkAccess(ctx context.Context) error {
	if c.cred == nil {
		return nil
	}
	out, err := c.runPath(ctx, "/bin/sh", "-c", `test -w "$1" && test -x "$1"`, "sh", c.cfg.Dir)
	if err != nil {
		return fmt.Errorf("the server user (uid %d) cannot write %s (a parent directory is private?): "+
			"set ZB_HOME to a directory it can reach, e.g. ZB_HOME=/var/tmp/zb: %w %s", c.uid, c.cfg.Dir, err, out)
	}
	return nil
}

// socketDir returns <dir>/run, or a private directory under /tmp when that path is too long
// for a unix socket (108 bytes including the file name).
func (c *Cluster) socketDir() (string, error) {
	dir := filepath.Join(c.cfg.Dir, "run")
	if len(dir)+len("/.s.PGSQL.65535") >= 100 {
		var err error
		dir, err = os.MkdirTemp("", "zbpg")
		if err != nil {
			return "", fmt.Errorf("error creating socket directory: %w", err)
		}
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("error creating socket directory: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", fmt.Errorf("error creating socket directory: %w", err)
	}
	return dir, c.chown(dir)
}

// Running reports whether the server is running: pg_ctl status finds it, and the postmaster
// of postmaster.pid is alive. A postmaster that died (a crash, SIGKILL) but was not reaped yet
// is a zombie, which pg_ctl status still takes for a running server.
func (c *Cluster) Running(ctx context.Context) bool {
	if !c.Initialized() {
		return false
	}
	if _, err := c.run(ctx, "pg_ctl", "status", "-D", c.dataDir()); err != nil {
		return false
	}
	pid := c.postmasterPID()
	return pid > 0 && processAlive(pid)
}

// ReadyTimeoutDefault is how long Start waits for the server to accept connections.
const ReadyTimeoutDefault = 60 * time.Second

// Start starts the server and waits until it accepts connections (a real connection to the
// postgres database over TCP succeeds, as pg_isready checks) for up to ReadyTimeoutDefault;
// when it does not, the error names the server log. A server that is already running is not
// started again, but Start still waits until it accepts connections (it may be starting up
// or recovering from a crash). After a crash, Start removes the lock files of the dead
// postmaster when they would stop the new one (see clearStaleLock).
func (c *Cluster) Start(ctx context.Context) error {
	if !c.Initialized() {
		return fmt.Errorf("%w in %s", ErrNotInitialized, c.cfg.Dir)
	}
	if err := c.checkOwnership(c.dataDir()); err != nil {
		return err
	}
	info, err := c.Info()
	if err != nil {
		return err
	}
	if c.Running(ctx) {
		err := c.waitReady(ctx, info, ReadyTimeoutDefault)
		if !errors.Is(err, errServerGone) {
			return err
		}
		// The postmaster was dying when we looked (a SIGKILL takes a moment to land): start
		// a new one.
	}
	if err := c.clearStaleLock(info); err != nil {
		return err
	}
	// The socket directory may be under /tmp, which a reboot empties.
	if err := os.MkdirAll(info.SocketDir, 0o700); err != nil {
		return fmt.Errorf("error creating socket directory: %w", err)
	}
	if err := c.chown(info.SocketDir); err != nil {
		return err
	}
	if err := portFree(info.Port); err != nil {
		return err
	}
	if _, err := os.Stat(c.logFile()); errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(c.logFile(), nil, 0o600); err != nil {
			return fmt.Errorf("error creating %s: %w", c.logFile(), err)
		}
		if err := c.chown(c.logFile()); err != nil {
			return err
		}
	}
	out, err := c.runEnv(ctx, ServerEnv(os.Environ()), filepath.Join(c.cfg.BinDir, "pg_ctl"),
		"start", "-D", c.dataDir(), "-l", c.logFile(), "-w", "-t", "60", "-s")
	if err != nil {
		tail, _ := tailFile(c.logFile(), 15)
		return fmt.Errorf("error starting PostgreSQL: %w\n%s\nlog %s:\n%s", err, out, c.logFile(), tail)
	}
	if err := c.waitReady(ctx, info, ReadyTimeoutDefault); err != nil {
		if errors.Is(err, errServerGone) {
			tail, _ := tailFile(c.logFile(), 15)
			return fmt.Errorf("PostgreSQL exited right after it started: %w\nlog %s:\n%s", err, c.logFile(), tail)
		}
		return err
	}
	return c.ensureDatabase(ctx, info)
}

// clearStaleLock removes postmaster.pid, and the socket's lock file, when the postmaster they
// name is dead. PostgreSQL replaces a lock file whose process is gone by itself, but a dead
// postmaster its parent has not reaped yet is a zombie whose pid still answers kill(pid, 0):
// the new postmaster would take the lock for a live server's and refuse to start. Removing the
// files is safe: the server's other interlock, its shared memory segment, still keeps a new
// postmaster away while a backend of the dead one is attached to it.
func (c *Cluster) clearStaleLock(info *Info) error {
	pid := c.postmasterPID()
	if pid <= 0 || processAlive(pid) {
		return nil
	}
	socketLock := filepath.Join(info.SocketDir, fmt.Sprintf(".s.PGSQL.%d.lock", info.Port))
	for _, f := range []string{socketLock, filepath.Join(c.dataDir(), "postmaster.pid")} {
		if lockPID(f) != pid {
			continue
		}
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("error removing the stale lock file %s of dead postmaster %d: %w", f, pid, err)
		}
	}
	return nil
}

// lockPID returns the pid on the first line of a PostgreSQL lock file, or 0.
func lockPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	return pid
}

// readyPollInterval is the pause between two connection attempts of waitReady.
const readyPollInterval = 25 * time.Millisecond

// errServerGone is returned by waitReady when the postmaster is dead (or a zombie).
var errServerGone = errors.New("the postmaster is not running")

// waitReady waits until the server accepts connections over TCP on the loopback address (the
// address clients use), for at most timeout: it connects to the postgres database until the
// server answers with anything but "the database system is starting up" (SQLSTATE 57P03), as
// pg_isready does. pg_ctl start -w returns when the postmaster reports itself ready in
// postmaster.pid; this checks what a client sees. It returns errServerGone as soon as the
// postmaster of postmaster.pid is dead.
func (c *Cluster) waitReady(ctx context.Context, info *Info, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	u := info.url("postgres")
	u.RawQuery += "&connect_timeout=5&application_name=pgcluster_ready"
	for {
		conn, err := pgconn.Connect(ctx, u.String())
		if err == nil {
			return conn.Close(ctx)
		}
		// A server that answers (a refused password, too many connections) accepts connections.
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code != pgerrcode.CannotConnectNow {
			return nil
		}
		if pid := c.postmasterPID(); pid <= 0 || !processAlive(pid) {
			return fmt.Errorf("error connecting to PostgreSQL on 127.0.0.1:%d: %w (%w)", info.Port, errServerGone, err)
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				tail, _ := tailFile(c.logFile(), 15)
				return fmt.Errorf("PostgreSQL did not accept connections on 127.0.0.1:%d within %s (see the server log %s): %w\n%s",
					info.Port, timeout, c.logFile(), err, tail)
			}
			return fmt.Errorf("error waiting for PostgreSQL to accept connections: %w", ctx.Err())
		case <-time.After(readyPollInterval):
		}
	}
}

func (c *Cluster) ensureDatabase(ctx context.Context, info *Info) error {
	psql := filepath.Join(c.cfg.BinDir, "psql")
	if _, err := os.Stat(psql); err != nil {
		psql = "psql"
	}
	q := fmt.Sprintf("SELECT 1 FROM pg_database WHERE datname = '%s'", strings.ReplaceAll(info.Database, "'", "''"))
	out, err := c.runPath(ctx, psql, "-h", info.SocketDir, "-p", strconv.Itoa(info.Port), "-U", info.Superuser,
		"-d", "postgres", "-Atqc", q)
	if err != nil {
		return fmt.Errorf("error checking database %s: %w\n%s", info.Database, err, out)
	}
	if strings.TrimSpace(out) == "1" {
		return nil
	}
	create := fmt.Sprintf(`CREATE DATABASE "%s"`, strings.ReplaceAll(info.Database, `"`, `""`))
	if out, err := c.runPath(ctx, psql, "-h", info.SocketDir, "-p", strconv.Itoa(info.Port), "-U", info.Superuser,
		"-d", "postgres", "-qc", create); err != nil {
		return fmt.Errorf("error creating database %s: %w\n%s", info.Database, err, out)
	}
	return nil
}

// Stop stops the server (fast shutdown) and waits for it to exit. It does nothing when the
// server is not running.
func (c *Cluster) Stop(ctx context.Context) error {
	if !c.Running(ctx) {
		return nil
	}
	pid := c.postmasterPID()
	out, err := c.run(ctx, "pg_ctl", "stop", "-D", c.dataDir(), "-m", "fast", "-w", "-t", "60", "-s")
	if err != nil {
		return fmt.Errorf("error stopping PostgreSQL: %w\n%s", err, out)
	}
	// pg_ctl returns once postmaster.pid is gone; the process itself exits a moment later.
	// Wait for it, so that a stopped cluster leaves no process behind.
	deadline := time.Now().Add(30 * time.Second)
	for pid > 0 && processAlive(pid) {
		if time.Now().After(deadline) {
			return fmt.Errorf("PostgreSQL (pid %d) is still running 30s after shutdown", pid)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// postmasterPID returns the server's pid from postmaster.pid, or 0.
func (c *Cluster) postmasterPID() int {
	return lockPID(filepath.Join(c.dataDir(), "postmaster.pid"))
}

// processAlive reports whether pid is a live (not zombie) process.
func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	// The state follows the command name in parentheses: "pid (comm) S ...".
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] != 'Z' && b[i+2] != 'X'
	}
	return true
}

// Destroy stops the server and removes the cluster directory.
func (c *Cluster) Destroy(ctx context.Context) error {
	err := c.Stop(ctx)
	info, ierr := c.Info()
	if ierr == nil && !strings.HasPrefix(info.SocketDir, c.cfg.Dir) {
		_ = os.RemoveAll(info.SocketDir)
	}
	if rerr := os.RemoveAll(c.cfg.Dir); err == nil {
		err = rerr
	}
	return err
}

// URL returns a connection URL for the cluster's database over TCP on the loopback address,
// password included.
func (c *Cluster) URL() (string, error) {
	info, err := c.Info()
	if err != nil {
		return "", err
	}
	return info.URL(info.Database), nil
}

// RedactedURL is URL with the password replaced by RedactedPassword: the form to show in
// status output and logs.
func (c *Cluster) RedactedURL() (string, error) {
	info, err := c.Info()
	if err != nil {
		return "", err
	}
	return info.RedactedURL(info.Database), nil
}

// RedactedPassword stands for the password in RedactedURL.
const RedactedPassword = "xxxxx"

// URL returns a connection URL for database db, password included.
func (i *Info) URL(db string) string {
	return i.url(db).String()
}

// RedactedURL returns the connection URL for database db with the password replaced by
// RedactedPassword.
func (i *Info) RedactedURL(db string) string {
	// url.URL.Redacted writes RedactedPassword in place of the password.
	return i.url(db).Redacted()
}

func (i *Info) url(db string) *url.URL {
	u := &url.URL{
		Scheme: "postgres",
		User:   url.UserPassword(i.Superuser, i.Password),
		Host:   net.JoinHostPort("127.0.0.1", strconv.Itoa(i.Port)),
		Path:   "/" + db,
	}
	u.RawQuery = "sslmode=disable"
	return u
}

// PsqlArgs returns the psql command line (binary and arguments) that connects to the cluster's
// database over its unix socket.
func (c *Cluster) PsqlArgs() ([]string, error) {
	info, err := c.Info()
	if err != nil {
		return nil, err
	}
	psql := filepath.Join(c.cfg.BinDir, "psql")
	if _, err := os.Stat(psql); err != nil {
		psql = "psql"
	}
	return []string{psql, "-h", info.SocketDir, "-p", strconv.Itoa(info.Port), "-U", info.Superuser, "-d", info.Database}, nil
}

func (c *Cluster) run(ctx context.Context, bin string, args ...string) (string, error) {
	return c.runPath(ctx, filepath.Join(c.cfg.BinDir, bin), args...)
}

func (c *Cluster) runPath(ctx context.Context, path string, args ...string) (string, error) {
	return c.runEnv(ctx, os.Environ(), path, args...)
}

// MallocSettings are the glibc allocator settings the server starts with, unless the
// environment of the starting process sets them itself. Without them a backend that runs the
// same HNSW scan again and again can hand the memory of each scan back to the kernel and fault
// it in anew for the next (glibc trims the top of its heap, and its dynamic mmap threshold
// depends on the backend's history): in one 100k tenant a plain top-100 statement at
// ef_search 300 took 400 minor page faults a call and 22–25 ms, 14.7 ms with these
// (docs/performance.md, "The server's allocator, and recall's least vector work"). Fixed
// thresholds keep allocations up to 32 MiB on the heap and up to 64 MiB of it from being
// trimmed; larger ones (index builds) are still mapped and returned.
var MallocSettings = []string{"MALLOC_MMAP_THRESHOLD_=33554432", "MALLOC_TRIM_THRESHOLD_=67108864"}

// ServerEnv is environ with MallocSettings added where environ does not set them.
func ServerEnv(environ []string) []string {
	out := slices.Clone(environ)
	for _, kv := range MallocSettings {
		name := kv[:strings.IndexByte(kv, '=')+1]
		if !slices.ContainsFunc(environ, func(e string) bool { return strings.HasPrefix(e, name) }) {
			out = append(out, kv)
		}
	}
	return out
}

// runEnv runs path with environ (and the locale and time zone of the cluster) as the
// cluster's owner.
func (c *Cluster) runEnv(ctx context.Context, environ []string, path string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = "/"
	cmd.Env = append(slices.Clone(environ), "LC_ALL=C.UTF-8", "PGTZ=UTC")
	// Start the server in its own process group so a Ctrl-C in the terminal does not reach it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if c.cred != nil {
		cmd.SysProcAttr.Credential = c.cred
		if u, err := user.LookupId(strconv.Itoa(c.uid)); err == nil {
			cmd.Env = append(cmd.Env, "HOME="+u.HomeDir, "USER="+u.Username)
		}
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	// pg_ctl start leaves the server holding inherited descriptors; do not wait for them.
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	return out.String(), err
}

func (c *Cluster) chown(path string) error {
	if c.cred == nil {
		return nil
	}
	if err := os.Chown(path, c.uid, c.gid); err != nil {
		return fmt.Errorf("error giving %s to uid %d: %w", path, c.uid, err)
	}
	return nil
}

func quoteConf(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("error generating password: %w", err)
	}
	return hex.EncodeToString(b), nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("error finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func portFree(port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("port %d on 127.0.0.1 is in use by another program: stop it, or remove the "+
			"cluster directory and run again with another port (ZB_DEV_PORT): %w", port, err)
	}
	return l.Close()
}

func tailFile(path string, n int) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n"), nil
}

// RunningURL returns the connection URL of the cluster in cfg.Dir when it is initialized and
// running, else an error that says how to start it (or to set ZB_DATABASE_URL instead).
func RunningURL(ctx context.Context, cfg *Config) (string, error) {
	home, _ := filepath.Abs(cfg.Dir)
	cl, err := New(cfg)
	if err != nil {
		return "", fmt.Errorf("ZB_DATABASE_URL is not set and the dev cluster is unavailable: %w", err)
	}
	if !cl.Initialized() {
		return "", fmt.Errorf("no database: set ZB_DATABASE_URL, or run 'zbctl dev up' to create the dev cluster in %s", home)
	}
	if !cl.Running(ctx) {
		return "", fmt.Errorf("the dev cluster in %s is not running: run 'zbctl dev up' (or set ZB_DATABASE_URL)", home)
	}
	return cl.URL()
}
