package zbctlcli

import (
	"context"
	"errors"
	"fmt"
	"io"
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
tables (schema river). Each run holds an advisory lock, so concurrent runs serialize.

'up' applies zb's pending migrations in one transaction (on error, nothing changes), then
River's, each in its own transaction as River requires (a run that fails among them is
completed by the next). 'down' runs River's and zb's down migrations in one transaction: on
error, nothing changes; a revert that removes data needs --yes.

The commands that read or write memories, jobs or settings first check that the database has
every migration of this zbctl; when it lacks some they stop and say so (run 'zbctl migrate up').`,
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
	var all, yes, dry bool
	down := &cobra.Command{
		Use:   "down",
		Short: "Revert the last migration (--steps N, or --all to remove everything)",
		Long: `Down reverts the last zb migration, the last N with --steps N, or with --all every River and
zb migration and the bookkeeping (every memory and job is deleted). River's and zb's down
migrations run in one transaction: on error, nothing changes.

Before reverting, down counts what the down migrations remove: tables with their rows,
columns with their non-null values, rows deleted. When that is any data, or with --all, it
lists it and reverts only with --yes; --dry-run lists it and changes nothing.`,
		Example: `  zbctl migrate down --steps 3 --dry-run
  zbctl migrate down --steps 3 --yes
  zbctl migrate down --all --yes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if steps < 1 {
				return fmt.Errorf("--steps must be at least 1, got %d (--all reverts everything)", steps)
			}
			u, err := a.databaseURL(cmd.Context())
			if err != nil {
				return err
			}
			m, done, err := a.migrator(cmd.Context(), u)
			if err != nil {
				return err
			}
			defer done()
			res, err := m.Down(cmd.Context(), &migrate.DownOpts{Steps: steps, All: all, Yes: yes, DryRun: dry})
			var confirm *migrate.ConfirmationRequiredError
			if errors.As(err, &confirm) {
				return a.refuseDown(confirm)
			}
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(res)
			}
			a.describeDown(res)
			return nil
		},
	}
	down.Flags().IntVar(&steps, "steps", 1, "number of zb migrations to revert (at least 1)")
	down.Flags().BoolVar(&all, "all", false, "revert every migration, River's included (deletes all data; needs --yes)")
	down.Flags().BoolVar(&yes, "yes", false, "confirm a revert that removes data (always needed with --all)")
	down.Flags().BoolVar(&dry, "dry-run", false, "list what would be reverted and removed, and change nothing")
	down.MarkFlagsMutuallyExclusive("steps", "all")

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

// refuseDown prints what a refused revert would remove (stdout; JSON with --json) and returns
// the error that asks for --yes. Nothing was changed.
func (a *app) refuseDown(c *migrate.ConfirmationRequiredError) error {
	if a.json {
		_ = a.printJSON(map[string]any{"needs_confirmation": true, "reverting": c.Reverting, "river_versions": c.River, "drops": c.Drops})
	} else {
		if len(c.Reverting) > 0 {
			fmt.Fprintf(a.stdout, "would revert %s", strings.Join(c.Reverting, ", "))
			if len(c.River) > 0 {
				fmt.Fprintf(a.stdout, " and %d River migrations", len(c.River))
			}
			fmt.Fprintln(a.stdout)
		}
		printDrops(a.stdout, "would remove", c.Drops)
	}
	if c.All {
		return errors.New("'migrate down --all' deletes every memory and job; add --yes to confirm (nothing was changed)")
	}
	return errors.New("reverting these migrations removes the data listed above; add --yes to confirm, or 'zbctl export' first (nothing was changed)")
}

// describeDown prints what a revert did (or, with --dry-run, would do).
func (a *app) describeDown(res *migrate.Result) {
	if len(res.Reverted) == 0 && len(res.River) == 0 {
		fmt.Fprintln(a.stdout, "nothing to revert")
		return
	}
	verb, removed := "reverted", "removed"
	if res.DryRun {
		verb, removed = "would revert", "would remove"
	}
	fmt.Fprintf(a.stdout, "%s %s", verb, strings.Join(res.Reverted, ", "))
	if len(res.River) > 0 {
		fmt.Fprintf(a.stdout, " and %d River migrations", len(res.River))
	}
	fmt.Fprintln(a.stdout)
	printDrops(a.stdout, removed, res.Drops)
}

// printDrops lists the drops that remove data, one a line, and counts the empty ones.
func printDrops(w io.Writer, verb string, drops []migrate.Drop) {
	var data []migrate.Drop
	for _, d := range drops {
		if d.LosesData() {
			data = append(data, d)
		}
	}
	empty := len(drops) - len(data)
	switch {
	case len(drops) == 0:
		fmt.Fprintf(w, "%s no data (the down migrations drop no table or column)\n", verb)
	case len(data) == 0:
		fmt.Fprintf(w, "%s no data (%d empty tables or columns)\n", verb, empty)
	default:
		fmt.Fprintf(w, "%s:\n", verb)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, d := range data {
			fmt.Fprintf(tw, "  %s\t%s\n", d.Migration, d)
		}
		_ = tw.Flush()
		if empty > 0 {
			fmt.Fprintf(w, "and %d empty tables or columns\n", empty)
		}
	}
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
