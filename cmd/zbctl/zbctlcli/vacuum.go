package zbctlcli

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/coordinator"
)

func (a *app) vacuumCmd() *cobra.Command {
	var status, full bool
	var limit int
	cmd := &cobra.Command{
		Use:   "vacuum [--status]",
		Short: "Vacuum and analyze zenbrain's tables for the pending erase requests, or show the requests",
		Long: `vacuum completes the physical cleanup after erases. An erase (zbctl forget, the retention
sweep) removes content in one transaction, but the old row versions that held it stay in the
tables and indexes until VACUUM reclaims them, and the planner statistics (pg_statistic) keep
sampled values until ANALYZE replaces them. Every erase that removed something therefore
queues a vacuum request; the worker runs the pending ones every minute (zbworker
--vacuum-interval).

Only a table's owner, the database's owner or a superuser may vacuum and analyze it. When the
worker connects as another role (e.g. a member of zb_worker) the requests stay pending: run
'zbctl vacuum' with ZB_DATABASE_URL naming the tables' owner or a superuser. It runs
VACUUM (ANALYZE) over every table of schema zb and River's job table, one at a time, and marks
the pending requests done. One run at a time: while another holds the lock, it does nothing.

Plain VACUUM leaves the freed space inside each 8 KiB page as it was, so a superuser reading raw
pages could still find erased bytes there until PostgreSQL reuses the space. --full rewrites
every table instead (VACUUM (FULL, ANALYZE)), pending requests or not: no page keeps them. Each
table is locked against reads and writes while it is rewritten: run it in a maintenance window.

--status lists the latest requests instead (pending, started or done).`,
		Example: "  zbctl vacuum\n  zbctl vacuum --full\n  zbctl vacuum --status\n  zbctl --json vacuum --status --limit 5",
		Args:    cobra.NoArgs,
	}
	cmd.Flags().BoolVar(&status, "status", false, "list the latest vacuum requests instead of running the pending ones")
	cmd.Flags().BoolVar(&full, "full", false, "rewrite every table (VACUUM FULL: locks each table while it runs), pending requests or not")
	intRangeVar(cmd.Flags(), &limit, "limit", coordinator.VacuumRequestListDefault, 1, coordinator.VacuumRequestListMax,
		fmt.Sprintf("with --status: number of requests (1..%d)", coordinator.VacuumRequestListMax))
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		if status {
			return a.vacuumStatus(cmd, co, limit)
		}
		if status && full {
			return fmt.Errorf("--status and --full exclude each other")
		}
		rep, err := co.VacuumErased(cmd.Context(), &coordinator.VacuumOpts{Full: full})
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(rep)
		}
		switch {
		case rep.Busy:
			fmt.Fprintln(a.stdout, "another vacuum run (a worker's or zbctl's) is in progress: nothing done")
		case len(rep.Requests) == 0 && !full:
			fmt.Fprintln(a.stdout, "nothing pending")
		case full:
			fmt.Fprintf(a.stdout, "rewrote %d tables (VACUUM FULL) for %d erase %s in %s\n", len(rep.Tables), len(rep.Requests),
				plural(len(rep.Requests), "request", "requests"), rep.Elapsed.Round(time.Millisecond))
		default:
			fmt.Fprintf(a.stdout, "vacuumed %d tables for %d erase %s (ids %s) in %s\n", len(rep.Tables), len(rep.Requests),
				plural(len(rep.Requests), "request", "requests"), joinInt64(rep.Requests), rep.Elapsed.Round(time.Millisecond))
		}
		return nil
	}
	return cmd
}

func (a *app) vacuumStatus(cmd *cobra.Command, co *coordinator.Coordinator, limit int) error {
	reqs, err := co.VacuumRequests(cmd.Context(), limit)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(map[string]any{"requests": reqs})
	}
	if len(reqs) == 0 {
		fmt.Fprintln(a.stdout, "no vacuum requests (no erase has removed anything)")
		return nil
	}
	pending := 0
	for _, r := range reqs {
		if r.State != coordinator.VacuumStateDone {
			pending++
		}
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tREQUESTED\tSTARTED\tDONE\tTABLES")
	for _, r := range reqs {
		tables := "-"
		if r.State == coordinator.VacuumStateDone {
			tables = strconv.Itoa(r.Tables)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.State, stamp(&r.RequestedAt), stamp(r.StartedAt), stamp(r.DoneAt), tables)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if pending > 0 {
		fmt.Fprintf(a.stdout, "%d not done: the worker runs them (zbworker --vacuum-interval) when it connects as a role that may vacuum; else run 'zbctl vacuum' as the tables' owner\n", pending)
	}
	return nil
}

// joinInt64 formats ids as "3, 4".
func joinInt64(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ", ")
}

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
