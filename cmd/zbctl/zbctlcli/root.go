// Package zbctlcli implements the zbctl command line. [Run] is the whole program: it takes the
// arguments and the standard streams, so tests drive it in-process.
package zbctlcli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/internal/pgcluster"
	"github.com/zenbrain/zb/migrate"
)

// env is the environment zbctl reads, in one place.
type env struct {
	DatabaseURL string // ZB_DATABASE_URL
	Home        string // ZB_HOME, default ./.zb
	DevPort     int    // ZB_DEV_PORT, default pgcluster.PortDefault
	PgBinDir    string // ZB_PG_BINDIR
	PgUser      string // ZB_PG_USER
	Tenant      string // ZB_TENANT
	Embedder    string // ZB_EMBEDDER, default hash
	EmbedModel  string // ZB_EMBED_MODEL
	EmbedURL    string // ZB_EMBED_URL
	EmbedAPIKey string // ZB_EMBED_API_KEY
	Actor       string // ZB_ACTOR, default "zbctl:$USER" (or "zbctl")
}

func readEnv(getenv func(string) string) (env, error) {
	e := env{
		DatabaseURL: getenv("ZB_DATABASE_URL"),
		Home:        getenv("ZB_HOME"),
		PgBinDir:    getenv("ZB_PG_BINDIR"),
		PgUser:      getenv("ZB_PG_USER"),
		Tenant:      getenv("ZB_TENANT"),
		Embedder:    getenv("ZB_EMBEDDER"),
		EmbedModel:  getenv("ZB_EMBED_MODEL"),
		EmbedURL:    getenv("ZB_EMBED_URL"),
		EmbedAPIKey: getenv("ZB_EMBED_API_KEY"),
		Actor:       getenv("ZB_ACTOR"),
	}
	if e.Actor == "" {
		e.Actor = "zbctl"
		if u := getenv("USER"); u != "" {
			e.Actor = "zbctl:" + u
		}
	}
	if e.Home == "" {
		e.Home = ".zb"
	}
	if p := getenv("ZB_DEV_PORT"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return e, fmt.Errorf("ZB_DEV_PORT=%q is not a TCP port (1..65535)", p)
		}
		e.DevPort = n
	}
	return e, nil
}

// app is the state shared by all subcommands.
type app struct {
	env    env
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	json   bool
}

// Run executes zbctl with args and returns the process exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return RunContext(ctx, args, os.Getenv, stdin, stdout, stderr)
}

// RunContext is Run with an explicit context and environment lookup.
func RunContext(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	// The environment is read before the commands are built: flag defaults (--tenant from
	// ZB_TENANT) come from it.
	var envErr error
	a.env, envErr = readEnv(getenv)
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if envErr != nil {
			return envErr
		}
		return checkTenantDefault(cmd)
	}
	if err := root.ExecuteContext(ctx); err != nil {
		if a.json {
			_ = json.NewEncoder(stdout).Encode(map[string]string{"error": err.Error()})
		} else {
			fmt.Fprintf(stderr, "zbctl: %v\n", err)
		}
		var ee exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		return 1
	}
	return 0
}

type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "zbctl",
		Short: "Operate zenbrain: long-term memory for LLM agents in PostgreSQL",
		Long: `zbctl operates zenbrain: the embedded dev database, schema migrations and more.

Every command that needs a database uses ZB_DATABASE_URL when it is set, else the dev
cluster under ZB_HOME (default ./.zb) started by 'zbctl dev up'.

Environment:
  ZB_DATABASE_URL  PostgreSQL URL of a server with pgvector >= 0.8
  ZB_HOME          directory of the embedded dev cluster (default ./.zb)
  ZB_DEV_PORT      loopback TCP port of a new dev cluster (default 54329)
  ZB_PG_BINDIR     directory of the PostgreSQL server binaries (default: newest >= 15 found)
  ZB_PG_USER       user the dev server runs as when zbctl runs as root (default postgres)
  ZB_TENANT        tenant of store/recall/stats (default "default")
  ZB_EMBEDDER      embedder: hash (default, offline), ollama or openai
  ZB_EMBED_MODEL, ZB_EMBED_URL, ZB_EMBED_API_KEY  settings of the ollama/openai embedders`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(flagError) // flags.go
	root.PersistentFlags().BoolVar(&a.json, "json", false, "print machine-readable JSON")
	root.AddCommand(a.devCmd(), a.migrateCmd(), a.storeCmd(), a.recallCmd(), a.statsCmd(), a.demoCmd(), a.mcpCmd(), a.benchCmd(), a.algorithmsCmd(), a.forgetCmd())
	root.AddCommand(a.contextCmd(), a.exportCmd(), a.importCmd(), a.jobsCmd(), a.reviewCmd(), a.reconsolidationCmd(), a.healthCmd(), a.reembedCmd())
	root.AddCommand(a.approvalCmds()...)
	root.AddCommand(a.intentionsCmd()) // intentions.go
	root.AddCommand(a.vacuumCmd())     // vacuum.go
	return root
}

// printJSON writes v as indented JSON.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (a *app) clusterConfig() *pgcluster.Config {
	return &pgcluster.Config{
		Dir:       a.env.Home,
		Port:      a.env.DevPort,
		BinDir:    a.env.PgBinDir,
		RunAsUser: a.env.PgUser,
	}
}

func (a *app) cluster() (*pgcluster.Cluster, error) {
	return pgcluster.New(a.clusterConfig())
}

// databaseURL returns ZB_DATABASE_URL, else the URL of the running dev cluster.
func (a *app) databaseURL(ctx context.Context) (string, error) {
	if a.env.DatabaseURL != "" {
		return a.env.DatabaseURL, nil
	}
	return pgcluster.RunningURL(ctx, a.clusterConfig())
}

func (a *app) pool(ctx context.Context) (*pgxpool.Pool, error) {
	u, err := a.databaseURL(ctx)
	if err != nil {
		return nil, err
	}
	pool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: u, ApplicationName: "zbctl", MaxConns: 4})
	if err != nil {
		return nil, err
	}
	// Every command that uses the database first checks, in one query, that it has this
	// zbctl's migrations: an older schema is reported as such, not as a missing column later.
	if err := migrate.CheckSchema(ctx, pool, "zbctl"); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}
