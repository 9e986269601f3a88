package zbctlcli

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/db"
)

func (a *app) jobsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "jobs",
		Short: "List, retry and cancel the worker's River jobs; run decay, review or sleep now",
		Long: `jobs shows and steers the River jobs zbworker runs: derivation, re-embedding, consolidation,
decay, review, sleep, propagation and the periodic schedules. 'jobs run' enqueues a lifecycle
job now; a running zbworker picks it up within seconds.`,
	}
	cmd.AddCommand(a.jobsListCmd(), a.jobsRetryCmd(), a.jobsCancelCmd(), a.jobsRunCmd())
	return cmd
}

func (a *app) jobsListCmd() *cobra.Command {
	var states, kinds []string
	var limit int
	var tenant string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List jobs, newest first",
		Example: `  zbctl jobs list
  zbctl jobs list --state retryable,discarded
  zbctl jobs list --kind sleep --tenant acme --limit 5`,
		Args: cobra.NoArgs,
	}
	f := cmd.Flags()
	f.StringSliceVar(&states, "state", nil, "only these states: "+strings.Join(coordinator.JobStates(), ", "))
	f.StringSliceVar(&kinds, "kind", nil, "only these kinds: "+strings.Join(coordinator.JobKinds(), ", "))
	intRangeVar(f, &limit, "limit", coordinator.JobListLimitDefault, 1, coordinator.JobListMax, fmt.Sprintf("number of jobs (1..%d)", coordinator.JobListMax))
	optionalTenantVar(f, &tenant, "only jobs of this tenant (default: all)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		js, err := co.Jobs(cmd.Context(), &coordinator.JobListOpts{States: states, Kinds: kinds, Tenant: tenant, Limit: limit})
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(map[string]any{"jobs": js})
		}
		if len(js) == 0 {
			fmt.Fprintln(a.stdout, "no jobs")
			return nil
		}
		tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tKIND\tSTATE\tTENANT\tATTEMPT\tCREATED\tLAST ERROR")
		for _, j := range js {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d/%d\t%s\t%s\n", j.ID, j.Kind, j.State, orDash(j.Tenant), j.Attempt, j.MaxAttempts,
				stamp(&j.CreatedAt), textproc.OneLine(orDash(j.LastError), 60))
		}
		return tw.Flush()
	}
	return cmd
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (a *app) jobsAction(use, short, verb string, act func(*coordinator.Coordinator, *cobra.Command, int64) (*coordinator.Job, error)) *cobra.Command {
	cmd := &cobra.Command{Use: use + " JOB_ID", Short: short, Args: cobra.ExactArgs(1)}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		id, err := parsePositive("job id", args[0])
		if err != nil {
			return err
		}
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		j, err := act(co, cmd, id)
		if errors.Is(err, coordinator.ErrNotFound) {
			return fmt.Errorf("job %d not found (see 'zbctl jobs list')", id)
		}
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(j)
		}
		fmt.Fprintf(a.stdout, "%s job %d (%s): now %s\n", verb, j.ID, j.Kind, j.State)
		return nil
	}
	return cmd
}

func (a *app) jobsRetryCmd() *cobra.Command {
	return a.jobsAction("retry", "Make a failed, discarded or cancelled job run again now", "retried",
		func(co *coordinator.Coordinator, cmd *cobra.Command, id int64) (*coordinator.Job, error) {
			return co.RetryJob(cmd.Context(), id)
		})
}

func (a *app) jobsCancelCmd() *cobra.Command {
	return a.jobsAction("cancel", "Cancel a waiting job, or ask a running one to stop", "cancelled",
		func(co *coordinator.Coordinator, cmd *cobra.Command, id int64) (*coordinator.Job, error) {
			return co.CancelJob(cmd.Context(), id)
		})
}

func (a *app) jobsRunCmd() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "run decay|review|sleep",
		Short: "Enqueue decay, review or a sleep now for a tenant (or all)",
		Long: `run enqueues a lifecycle job now: decay archives faded memories and prunes edges, review runs
the due FSRS reviews, sleep runs a Simulation-Selection sleep with consolidation. A job that
is already waiting for the tenant is not duplicated. A running zbworker executes it.`,
		Example:   "  zbctl jobs run sleep --tenant acme\n  zbctl jobs run decay --all-tenants",
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{coordinator.TaskDecay, coordinator.TaskReview, coordinator.TaskSleep},
	}
	tenant := a.tenantFlag(cmd)
	cmd.Flags().BoolVar(&all, "all-tenants", false, "enqueue for every tenant")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		task := args[0]
		switch task {
		case coordinator.TaskDecay, coordinator.TaskReview, coordinator.TaskSleep:
		default:
			return fmt.Errorf("unknown task %q: want decay, review or sleep", task)
		}
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		var tenants []string
		if !all {
			tenants = []string{*tenant}
		}
		enq, err := co.EnqueueLifecycle(cmd.Context(), task, tenants)
		if errors.Is(err, coordinator.ErrNotFound) {
			return fmt.Errorf("tenant %s does not exist (nothing enqueued): %w", *tenant, err)
		}
		if err != nil {
			return err
		}
		workers, err := db.New(pool).WorkerHeartbeatList(cmd.Context(), time.Now().Add(-time.Minute))
		if err != nil {
			return fmt.Errorf("error reading worker heartbeats: %w", err)
		}
		if a.json {
			return a.printJSON(map[string]any{"task": task, "jobs": enq, "workers": len(workers)})
		}
		for _, j := range enq {
			if j.Duplicate {
				fmt.Fprintf(a.stdout, "%s for tenant %s is already queued as job %d\n", task, j.Tenant, j.ID)
			} else {
				fmt.Fprintf(a.stdout, "enqueued %s for tenant %s as job %d\n", task, j.Tenant, j.ID)
			}
		}
		if len(enq) == 0 {
			fmt.Fprintln(a.stdout, "no tenants")
		}
		if len(workers) == 0 {
			fmt.Fprintln(a.stderr, "zbctl: no zbworker has reported in the last minute; start one to run the jobs")
		}
		return nil
	}
	return cmd
}
