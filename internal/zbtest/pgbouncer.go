package zbtest

import (
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
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// PgBouncerPath is where Debian's pgbouncer package installs the binary. PgBouncer looks for
// pgbouncer on PATH first, then here (/usr/sbin is often not on a normal user's PATH).
const PgBouncerPath = "/usr/sbin/pgbouncer"

// pgBouncerStartTimeout bounds how long PgBouncer waits for the pooler to accept connections.
const pgBouncerStartTimeout = 15 * time.Second

// PgBouncer starts a PgBouncer in transaction pooling mode in front of the server and database of
// serverURL, for tests of what clients of a shared pooler can do to each other, and returns a
// connection URL of that database through it, without user or password
// ("postgres://127.0.0.1:<port>/<database>?sslmode=disable"): the caller sets the user
// information (url.URL.User) to one of logins. PgBouncer stops when t ends.
//
// The pooler:
//
//   - listens on 127.0.0.1 on a free port (never on a unix socket, and never on 6432, where
//     Debian's package runs its own service);
//   - authenticates clients with SCRAM-SHA-256 against logins, a map of login names to
//     plain-text passwords, and logs into the server as the same login with the same password
//     (the test clusters authenticate TCP connections with scram-sha-256);
//   - runs with pool_mode = transaction and default_pool_size = 1, so all clients of one login
//     share one server connection, each holding it for one transaction at a time;
//   - ignores the startup parameters extra_float_digits and options.
//
// PgBouncer 1.18 in transaction mode does not support named prepared statements, so pgx's
// default QueryExecModeCacheStatement fails (42P05, the statement "already exists" on the shared
// server connection): connect with QueryExecModeSimpleProtocol (or QueryExecModeExec, which
// uses only the unnamed statement). The binary is pgbouncer on PATH or [PgBouncerPath] (make deps
// installs it). As root it runs as an unprivileged user ("postgres" when that user exists, else
// "nobody"), as internal/pgcluster runs PostgreSQL, since PgBouncer refuses to run as root.
func PgBouncer(t testing.TB, serverURL string, logins map[string]string) string {
	t.Helper()
	bin, err := pgBouncerBinary()
	if err != nil {
		t.Fatalf("zbtest: %v", err)
	}
	cfg, err := pgconn.ParseConfig(serverURL)
	if err != nil {
		t.Fatalf("zbtest: error parsing server URL for PgBouncer: %v", err)
	}
	if len(logins) == 0 {
		t.Fatal("zbtest: PgBouncer needs at least one login")
	}
	cred, uid, gid, err := pgBouncerCredential()
	if err != nil {
		t.Fatalf("zbtest: %v", err)
	}

	dir, err := os.MkdirTemp("", "zbtest-pgbouncer-")
	if err != nil {
		t.Fatalf("zbtest: error creating PgBouncer directory: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatalf("zbtest: error creating PgBouncer directory: %v", err)
	}

	userlist := filepath.Join(dir, "userlist.txt")
	var ul strings.Builder
	names := make([]string, 0, len(logins))
	for name := range logins {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(&ul, "%s %s\n", quotePgBouncerUser(name), quotePgBouncerUser(logins[name]))
	}
	if err := os.WriteFile(userlist, []byte(ul.String()), 0o600); err != nil {
		t.Fatalf("zbtest: error writing PgBouncer userlist: %v", err)
	}

	logPath := filepath.Join(dir, "pgbouncer.log")
	files := []string{dir, userlist}
	var lastErr error
	// A free port may be taken between choosing it and pgbouncer binding it: try a few.
	for attempt := 0; attempt < 3; attempt++ {
		port, err := pgBouncerFreePort()
		if err != nil {
			t.Fatalf("zbtest: %v", err)
		}
		ini := filepath.Join(dir, "pgbouncer.ini")
		conf, err := pgBouncerConfig(cfg, port, userlist)
		if err != nil {
			t.Fatalf("zbtest: %v", err)
		}
		if err := os.WriteFile(ini, []byte(conf), 0o600); err != nil {
			t.Fatalf("zbtest: error writing PgBouncer configuration: %v", err)
		}
		if cred != nil {
			for _, f := range append(files, ini) {
				if err := os.Chown(f, uid, gid); err != nil {
					t.Fatalf("zbtest: error giving %s to uid %d: %v", f, uid, err)
				}
			}
		}
		bouncer, err := startPgBouncer(bin, ini, logPath, cred, port)
		if err == nil {
			t.Cleanup(bouncer.stop)
			u := &url.URL{
				Scheme:   "postgres",
				Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
				Path:     "/" + cfg.Database,
				RawQuery: "sslmode=disable",
			}
			return u.String()
		}
		lastErr = err
		if !errors.Is(err, errPgBouncerAddrInUse) {
			break
		}
	}
	t.Fatalf("zbtest: %v", lastErr)
	return ""
}

var errPgBouncerAddrInUse = errors.New("address in use")

// pgBouncerProcess is a running pgbouncer; exited is closed when it has exited.
type pgBouncerProcess struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// startPgBouncer starts bin with the configuration ini, its output appended to logPath, and waits
// until it accepts TCP connections on port.
func startPgBouncer(bin, ini, logPath string, cred *syscall.Credential, port int) (*pgBouncerProcess, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("error opening PgBouncer log: %w", err)
	}
	defer logFile.Close() // the child holds its own copy
	cmd := exec.Command(bin, ini)
	cmd.Dir = "/"
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	// Its own process group, as pgcluster starts PostgreSQL: a Ctrl-C in the terminal goes to the
	// test binary, whose cleanup stops the pooler.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: cred}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("error starting PgBouncer: %w", err)
	}
	p := &pgBouncerProcess{cmd: cmd, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()

	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(pgBouncerStartTimeout)
	for {
		select {
		case <-p.exited:
			log, _ := tailFile(logPath, 15)
			err := fmt.Errorf("PgBouncer exited at start (%s)\nlog %s:\n%s", cmd.ProcessState, logPath, log)
			if strings.Contains(log, "Address already in use") {
				err = fmt.Errorf("%w: %w", errPgBouncerAddrInUse, err)
			}
			return nil, err
		default:
		}
		conn, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			_ = conn.Close()
			return p, nil
		}
		if time.Now().After(deadline) {
			p.stop()
			log, _ := tailFile(logPath, 15)
			return nil, fmt.Errorf("PgBouncer did not accept connections on %s within %s: %w\nlog %s:\n%s",
				addr, pgBouncerStartTimeout, err, logPath, log)
		}
		select {
		case <-p.exited:
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// stop shuts the pooler down at once (SIGTERM), then kills it if it has not exited within 10s,
// and waits for it.
func (p *pgBouncerProcess) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// pgBouncerConfig returns a pgbouncer.ini for the database of cfg, listening on port.
func pgBouncerConfig(cfg *pgconn.Config, port int, userlist string) (string, error) {
	for what, v := range map[string]string{"host": cfg.Host, "database": cfg.Database} {
		if !pgBouncerSafeRE.MatchString(v) {
			return "", fmt.Errorf("PgBouncer: unsupported server %s %q (want letters, digits, _ . -)", what, v)
		}
	}
	if strings.HasPrefix(cfg.Host, "/") {
		return "", fmt.Errorf("PgBouncer: server host %q is a unix socket; want a TCP server", cfg.Host)
	}
	var b strings.Builder
	b.WriteString("; written by zenbrain (internal/zbtest.PgBouncer)\n")
	b.WriteString("[databases]\n")
	fmt.Fprintf(&b, "%s = host=%s port=%d dbname=%s\n", cfg.Database, cfg.Host, cfg.Port, cfg.Database)
	b.WriteString("\n[pgbouncer]\n")
	for _, kv := range [][2]string{
		{"listen_addr", "127.0.0.1"},
		{"listen_port", strconv.Itoa(port)},
		{"unix_socket_dir", ""},
		{"auth_type", "scram-sha-256"},
		{"auth_file", userlist},
		{"pool_mode", "transaction"},
		{"max_client_conn", "200"},
		{"default_pool_size", "1"},
		{"min_pool_size", "0"},
		{"reserve_pool_size", "0"},
		{"ignore_startup_parameters", "extra_float_digits,options"},
		{"server_tls_sslmode", "disable"},
		{"client_tls_sslmode", "disable"},
		{"server_login_retry", "1"},
		{"logfile", ""},
		{"pidfile", ""},
		{"syslog", "0"},
	} {
		fmt.Fprintf(&b, "%s = %s\n", kv[0], kv[1])
	}
	return b.String(), nil
}

var pgBouncerSafeRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// quotePgBouncerUser quotes s for a PgBouncer auth file: in double quotes, a double quote doubled.
func quotePgBouncerUser(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// pgBouncerBinary returns the path of the pgbouncer binary.
func pgBouncerBinary() (string, error) {
	if p, err := exec.LookPath("pgbouncer"); err == nil {
		return p, nil
	}
	if _, err := os.Stat(PgBouncerPath); err == nil {
		return PgBouncerPath, nil
	}
	return "", errors.New("pgbouncer not found on PATH or at " + PgBouncerPath + ": run 'make deps' (Debian package pgbouncer)")
}

// pgBouncerCredential returns the credential to run pgbouncer with and its uid and gid: an
// unprivileged user when the process is root, else nil (run as the caller).
func pgBouncerCredential() (*syscall.Credential, int, int, error) {
	if os.Geteuid() != 0 {
		return nil, os.Getuid(), os.Getgid(), nil
	}
	name := "postgres"
	if _, err := user.Lookup(name); err != nil {
		name = "nobody"
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("running as root, PgBouncer needs an unprivileged user; user %q not found: %w", name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if uid == 0 {
		return nil, 0, 0, fmt.Errorf("user %q is root; PgBouncer needs an unprivileged user", name)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, uid, gid, nil
}

// pgBouncerFreePort returns a TCP port on 127.0.0.1 that is free now.
func pgBouncerFreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("error finding a free port for PgBouncer: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tailFile returns the last n lines of the file at path.
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
