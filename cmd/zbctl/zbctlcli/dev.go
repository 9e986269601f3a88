package zbctlcli

import (
	"context"
	"errors"
	"fmt"
	neturl "net/url"
	"os/exec"
	"path/filepath"
	"text/tabwriter"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/internal/pgcluster"
	"github.com/zenbrain/zb/migrate"
)

// The dev cluster's application login: a member of the application role (row-level security
// applies to it, unlike to the superuser) with a statement timeout, as docs/security.md
// recommends for every application login. Its password is the cluster's.
const (
	devAppLogin            = "zbapp"
	devAppStatementTimeout = "30s"
)

// ensureDevAppLogin creates the dev cluster's application login when it is missing and sets its
// statement timeout, connected as the superuser at superURL.
func ensureDevAppLogin(ctx context.Context, superURL, password string) error {
	conn, err := pgx.Connect(ctx, superURL)
	if err != nil {
		return fmt.Errorf("error connecting to the dev cluster: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var ddl []string
	err = conn.QueryRow(ctx, `
		SELECT ARRAY[
		    CASE WHEN NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)
		         THEN format('CREATE ROLE %I LOGIN PASSWORD %L', $1::text, $2::text) ELSE '' END,
		    format('GRANT %I TO %I', zb.role_name('app'), $1::text),
		    format('ALTER ROLE %I SET statement_timeout = %L', $1::text, $3::text)]`,
		devAppLogin, password, devAppStatementTimeout).Scan(&ddl)
	if err != nil {
		return fmt.Errorf("error preparing the dev application login: %w", err)
	}
	for _, q := range ddl {
		if q == "" {
			continue
		}
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("error creating the dev application login %s: %w", devAppLogin, err)
		}
	}
	return nil
}

// devAppURL is the dev cluster's URL for its application login.
func devAppURL(cl *pgcluster.Cluster) (string, error) {
	u, err := cl.URL()
	if err != nil {
		return "", err
	}
	info, err := cl.Info()
	if err != nil {
		return "", err
	}
	pu, err := neturl.Parse(u)
	if err != nil {
		return "", fmt.Errorf("error parsing the dev cluster's URL: %w", err)
	}
	pu.User = neturl.UserPassword(devAppLogin, info.Password)
	return pu.String(), nil
}

func (a *app) devCmd() *cobra.Command {
	dev := &cobra.Command{
		Use:   "dev",
		Short: "Manage the embedded local PostgreSQL cluster (ZB_HOME, default ./.zb)",
		Long: `The dev cluster is a PostgreSQL server owned by the project, in ZB_HOME (default ./.zb),
listening on a unix socket in ZB_HOME/run and on 127.0.0.1:ZB_DEV_PORT (default 54329),
with the database "zenbrain", the vector extension and every migration applied.
When zbctl runs as root, the server runs as ZB_PG_USER (default postgres).
'dev up' and 'dev status' show the connection URL with its password hidden; 'dev url'
prints it whole: export ZB_DATABASE_URL="$(zbctl dev url)".`,
	}
	var dim int
	up := &cobra.Command{
		Use:   "up",
		Short: "Create (first time) and start the dev cluster, then apply all migrations",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			cl, err := a.cluster()
			if err != nil {
				return err
			}
			created := !cl.Initialized()
			if err := cl.Init(ctx); err != nil {
				return err
			}
			if err := cl.Start(ctx); err != nil {
				return err
			}
			u, err := cl.URL()
			if err != nil {
				return err
			}
			res, err := a.migrateUp(ctx, u, &migrate.Opts{EmbeddingDim: dim})
			if err != nil {
				return err
			}
			info, err := cl.Info()
			if err != nil {
				return err
			}
			if err := ensureDevAppLogin(ctx, u, info.Password); err != nil {
				return err
			}
			// The password stays out of the output (terminals, CI logs): 'dev url' prints it.
			shown, err := cl.RedactedURL()
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(map[string]any{
					"dir": cl.Dir(), "created": created, "url": shown, "migrate": res, "app_login": devAppLogin,
				})
			}
			if created {
				fmt.Fprintf(a.stdout, "created the dev cluster in %s\n", cl.Dir())
			}
			fmt.Fprintf(a.stdout, "dev cluster running; %s\n", describeMigrate(res))
			fmt.Fprintf(a.stdout, "connection URL (password hidden): %s\n", shown)
			fmt.Fprintln(a.stdout, `export ZB_DATABASE_URL="$(zbctl dev url)"   # 'zbctl dev url' prints the URL with its password`)
			fmt.Fprintf(a.stdout, "application login %s (row-level security applies; statement_timeout %s): zbctl dev url --app\n",
				devAppLogin, devAppStatementTimeout)
			return nil
		},
	}
	up.Flags().IntVar(&dim, "embedding-dim", 0, "embedding dimension of a new install (default 768; a different value on an existing install is refused)")

	down := &cobra.Command{
		Use:   "down",
		Short: "Stop the dev cluster (--destroy also deletes its data)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			cl, err := a.cluster()
			if err != nil {
				return err
			}
			destroy, _ := cmd.Flags().GetBool("destroy")
			wasRunning := cl.Running(ctx)
			if destroy {
				err = cl.Destroy(ctx)
			} else {
				err = cl.Stop(ctx)
			}
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(map[string]any{"dir": cl.Dir(), "was_running": wasRunning, "destroyed": destroy})
			}
			switch {
			case destroy:
				fmt.Fprintf(a.stdout, "dev cluster stopped and %s removed\n", cl.Dir())
			case wasRunning:
				fmt.Fprintln(a.stdout, "dev cluster stopped")
			default:
				fmt.Fprintln(a.stdout, "dev cluster was not running")
			}
			return nil
		},
	}
	down.Flags().Bool("destroy", false, "also delete the cluster directory and all its data")

	status := &cobra.Command{
		Use:   "status",
		Short: "Show whether the dev cluster exists and runs, and its migration state",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			cl, err := a.cluster()
			if err != nil {
				return err
			}
			out := map[string]any{"dir": cl.Dir(), "initialized": cl.Initialized(), "running": false}
			if cl.Initialized() {
				info, err := cl.Info()
				if err != nil {
					return err
				}
				out["port"] = info.Port
				out["version"] = info.Version
				out["socket_dir"] = info.SocketDir
				out["app_login"] = devAppLogin
				out["running"] = cl.Running(ctx)
				if out["running"] == true {
					u, _ := cl.URL()
					out["url"] = info.RedactedURL(info.Database) // 'dev url' prints it with the password
					if st, err := a.migrateStatus(ctx, u); err == nil {
						out["migrations_up_to_date"] = st.UpToDate
						out["pending"] = st.Pending
					}
				}
			}
			if a.json {
				return a.printJSON(out)
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			for _, k := range []string{"dir", "initialized", "running", "port", "version", "socket_dir", "url", "app_login", "migrations_up_to_date", "pending"} {
				if v, ok := out[k]; ok {
					fmt.Fprintf(tw, "%s\t%v\n", k, v)
				}
			}
			return tw.Flush()
		},
	}

	var asApp bool
	url := &cobra.Command{
		Use:   "url",
		Short: "Print the dev cluster's connection URL, password included",
		Long: `Print the dev cluster's connection URL, password included: the superuser's, or with --app
the application login's (zbapp: a member of the application role, so row-level security
applies; statement_timeout 30s), e.g. psql "$(zbctl dev url --app)".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := a.cluster()
			if err != nil {
				return err
			}
			u, err := cl.URL()
			if asApp {
				u, err = devAppURL(cl)
			}
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(map[string]string{"url": u})
			}
			fmt.Fprintln(a.stdout, u)
			return nil
		},
	}

	url.Flags().BoolVar(&asApp, "app", false, "the application login's URL (zbapp) instead of the superuser's")

	psql := &cobra.Command{
		Use:   "psql [-- psql arguments]",
		Short: "Open psql on the dev cluster's database (arguments after -- go to psql)",
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := a.cluster()
			if err != nil {
				return err
			}
			if !cl.Running(cmd.Context()) {
				home, _ := filepath.Abs(a.env.Home)
				return fmt.Errorf("the dev cluster in %s is not running: run 'zbctl dev up'", home)
			}
			argv, err := cl.PsqlArgs()
			if err != nil {
				return err
			}
			c := exec.CommandContext(cmd.Context(), argv[0], append(argv[1:], args...)...)
			c.Stdin, c.Stdout, c.Stderr = a.stdin, a.stdout, a.stderr
			if err := c.Run(); err != nil {
				if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
					return exitError{code: ee.ExitCode(), err: fmt.Errorf("psql exited with status %d", ee.ExitCode())}
				}
				return fmt.Errorf("error running psql: %w", err)
			}
			return nil
		},
	}
	dev.AddCommand(up, down, status, url, psql)
	return dev
}
