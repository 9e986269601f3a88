package zbctlcli

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/migrate"
)

func (a *app) devCmd() *cobra.Command {
	dev := &cobra.Command{
		Use:   "dev",
		Short: "Manage the embedded local PostgreSQL cluster (ZB_HOME, default ./.zb)",
		Long: `The dev cluster is a PostgreSQL server owned by the project, in ZB_HOME (default ./.zb),
listening on a unix socket in ZB_HOME/run and on 127.0.0.1:ZB_DEV_PORT (default 54329),
with the database "zenbrain", the vector extension and every migration applied.
When zbctl runs as root, the server runs as ZB_PG_USER (default postgres).`,
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
			if a.json {
				return a.printJSON(map[string]any{"dir": cl.Dir(), "created": created, "url": u, "migrate": res})
			}
			if created {
				fmt.Fprintf(a.stdout, "created the dev cluster in %s\n", cl.Dir())
			}
			fmt.Fprintf(a.stdout, "dev cluster running; %s\n", describeMigrate(res))
			fmt.Fprintf(a.stdout, "export ZB_DATABASE_URL='%s'\n", u)
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
				out["running"] = cl.Running(ctx)
				if out["running"] == true {
					u, _ := cl.URL()
					out["url"] = u
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
			for _, k := range []string{"dir", "initialized", "running", "port", "version", "socket_dir", "url", "migrations_up_to_date", "pending"} {
				if v, ok := out[k]; ok {
					fmt.Fprintf(tw, "%s\t%v\n", k, v)
				}
			}
			return tw.Flush()
		},
	}

	url := &cobra.Command{
		Use:   "url",
		Short: "Print the dev cluster's connection URL",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := a.cluster()
			if err != nil {
				return err
			}
			u, err := cl.URL()
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
