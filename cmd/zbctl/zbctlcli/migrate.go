package zbctlcli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/migrate"
)

func (a *app) migrateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply, revert or list schema migrations (zb's and River's)",
		Long: `Migrations create schema zb (memories, graph, mechanism state, governance) and River's job
tables (schema river). Each run holds an advisory lock and applies everything in one
transaction: on error, nothing changes.`,
	}
	var dim, target int
	up := &cobra.Command{
		Use:   "up",
		Short: "Apply all pending migrations",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			u, err := a.databaseURL(cmd.Context())
			if err != nil {
				return err
			}
			res, err := a.migrateUp(cmd.Context(), u, &migrate.Opts{EmbeddingDim: dim, Target: target})
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(res)
			}
			fmt.Fprintln(a.stdout, describeMigrate(res))
			return nil
		},
	}
	up.Flags().IntVar(&dim, "embedding-dim", 0, "embedding dimension of a new install (default 768; a different value on an existing install is refused)")
	up.Flags().IntVar(&target, "target", 0, "apply zb migrations up to this version only (default: all)")

	var steps int
	var all, yes bool
	down := &cobra.Command{
		Use:   "down",
		Short: "Revert the last migration (--steps N, or --all to remove everything)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if all && !yes {
				return fmt.Errorf("'migrate down --all' deletes every memory and job; add --yes to confirm")
			}
			u, err := a.databaseURL(cmd.Context())
			if err != nil {
				return err
			}
			pool, err := dbconn.NewPool(cmd.Context(), &dbconn.Config{URL: u, ApplicationName: "zbctl migrate", MaxConns: 2})
			if err != nil {
				return err
			}
			defer pool.Close()
			m, err := migrate.New(pool)
			if err != nil {
				return err
			}
			res, err := m.Down(cmd.Context(), &migrate.DownOpts{Steps: steps, All: all})
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(res)
			}
			if len(res.Reverted) == 0 && len(res.River) == 0 {
				fmt.Fprintln(a.stdout, "nothing to revert")
				return nil
			}
			fmt.Fprintf(a.stdout, "reverted %s", strings.Join(res.Reverted, ", "))
			if len(res.River) > 0 {
				fmt.Fprintf(a.stdout, " and %d River migrations", len(res.River))
			}
			fmt.Fprintln(a.stdout)
			return nil
		},
	}
	down.Flags().IntVar(&steps, "steps", 1, "number of zb migrations to revert")
	down.Flags().BoolVar(&all, "all", false, "revert every migration, River's included (deletes all data)")
	down.Flags().BoolVar(&yes, "yes", false, "confirm --all")

	status := &cobra.Command{
		Use:     "status",
		Aliases: []string{"list"},
		Short:   "List migrations and whether each is applied",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			u, err := a.databaseURL(cmd.Context())
			if err != nil {
				return err
			}
			st, err := a.migrateStatus(cmd.Context(), u)
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(st)
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "VERSION\tNAME\tSTATE\tAPPLIED AT")
			for _, m := range st.Migrations {
				state, at := "pending", ""
				if m.Applied {
					state = "applied"
					at = m.AppliedAt.UTC().Format("2006-01-02 15:04:05Z")
				}
				if m.Modified {
					state = "MODIFIED SINCE APPLIED"
				}
				fmt.Fprintf(tw, "%04d\t%s\t%s\t%s\n", m.Version, m.Name, state, at)
			}
			fmt.Fprintf(tw, "river\tRiver job queue\tversion %d of %d\t\n", st.RiverVersion, st.RiverLatest)
			if err := tw.Flush(); err != nil {
				return err
			}
			if st.EmbeddingDim > 0 {
				fmt.Fprintf(a.stdout, "embedding dimension %d; PostgreSQL %s; pgvector %s\n", st.EmbeddingDim, st.ServerVersion, st.PgvectorVersion)
			}
			switch {
			case st.LexicalScorer == "compiled":
				fmt.Fprintf(a.stdout, "lexical scorer: compiled (zb_lexical %s)\n", st.ZbLexicalVersion)
			case st.LexicalScorer != "" && st.ZbLexicalVersion == "":
				fmt.Fprintln(a.stdout, "lexical scorer: sql (the zb_lexical extension is not installed: make deps builds it, a superuser runs CREATE EXTENSION zb_lexical SCHEMA zb)")
			case st.LexicalScorer != "":
				fmt.Fprintf(a.stdout, "lexical scorer: sql (zb_lexical %s installed; the setting zb.lexical_scorer or a missing grant keeps it off)\n", st.ZbLexicalVersion)
			}
			if len(st.UnknownVersions) > 0 {
				fmt.Fprintf(a.stdout, "the database has migrations this zbctl does not know: %v (a newer release applied them)\n", st.UnknownVersions)
			}
			if st.UpToDate {
				fmt.Fprintln(a.stdout, "up to date")
			} else {
				fmt.Fprintf(a.stdout, "%d pending: run 'zbctl migrate up'\n", st.Pending)
			}
			return nil
		},
	}
	cmd.AddCommand(up, down, status)
	return cmd
}

func (a *app) migrator(ctx context.Context, u string) (*migrate.Migrator, func(), error) {
	pool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: u, ApplicationName: "zbctl migrate", MaxConns: 2})
	if err != nil {
		return nil, nil, err
	}
	m, err := migrate.New(pool)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return m, pool.Close, nil
}

func (a *app) migrateUp(ctx context.Context, u string, opts *migrate.Opts) (*migrate.Result, error) {
	m, done, err := a.migrator(ctx, u)
	if err != nil {
		return nil, err
	}
	defer done()
	return m.Up(ctx, opts)
}

func (a *app) migrateStatus(ctx context.Context, u string) (*migrate.Status, error) {
	m, done, err := a.migrator(ctx, u)
	if err != nil {
		return nil, err
	}
	defer done()
	return m.Status(ctx)
}

func describeMigrate(res *migrate.Result) string {
	if len(res.Applied) == 0 && len(res.River) == 0 {
		return fmt.Sprintf("migrations up to date (embedding dimension %d)", res.EmbeddingDim)
	}
	s := fmt.Sprintf("applied %d zb migrations", len(res.Applied))
	if len(res.Applied) > 0 {
		s += " (" + strings.Join(res.Applied, ", ") + ")"
	}
	return s + fmt.Sprintf(" and %d River migrations; embedding dimension %d", len(res.River), res.EmbeddingDim)
}
