package zbctlcli

import (
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/coordinator"
)

// approvalCmds returns the approval queue's commands: approvals (list), approve and deny.
func (a *app) approvalCmds() []*cobra.Command {
	return []*cobra.Command{a.approvalsCmd(), a.decideCmd(true), a.decideCmd(false)}
}

func (a *app) approvalsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "approvals",
		Short: "The approval queue of sensitive operations (tenant erase, core overwrite, disabling an algorithm)",
		Long: `A tenant's governance settings may put sensitive operations behind an operator's approval:
a tenant or context erase, overwriting a core memory's value, switching a mechanism off. Such an
operation queues a request instead of running; 'zbctl approve ID' carries it out, 'zbctl deny ID'
rejects it. The actor who made a request cannot approve it (another operator must: name the
approver with --actor); it may deny it. Listing every tenant's requests needs an operator role
(zb_admin).`,
	}
	var status, tenant string
	var limit int
	list := &cobra.Command{Use: "list", Short: "List requests (pending ones by default)", Args: cobra.NoArgs}
	optionalTenantVar(list.Flags(), &tenant, "only this tenant's requests (default: every tenant)")
	list.Flags().StringVar(&status, "status", "pending", "pending, approved, rejected, expired, executed or all")
	intRangeVar(list.Flags(), &limit, "limit", 100, 1, coordinator.MaxApprovalList, fmt.Sprintf("at most this many requests (1..%d)", coordinator.MaxApprovalList))
	list.RunE = func(cmd *cobra.Command, _ []string) error {
		st := status
		if st == "all" {
			st = ""
		}
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		reqs, err := co.Approvals(cmd.Context(), tenant, st, limit)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(map[string]any{"approvals": reqs})
		}
		if len(reqs) == 0 {
			fmt.Fprintln(a.stdout, "no requests")
			return nil
		}
		tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tTENANT\tOPERATION\tSTATUS\tREQUESTED BY\tREQUESTED AT\tDETAIL")
		for _, r := range reqs {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.TenantID, r.Operation, r.Status, r.RequestedBy,
				r.RequestedAt.UTC().Format("2006-01-02 15:04:05"), textproc.OneLine(string(r.Payload), 60))
		}
		return tw.Flush()
	}
	cmd.AddCommand(list)
	return cmd
}

func (a *app) decideCmd(approve bool) *cobra.Command {
	use, short := "deny ID", "Reject a pending request"
	if approve {
		use, short = "approve ID", "Approve a pending request and carry it out"
	}
	var reason, actor string
	cmd := &cobra.Command{Use: use, Short: short, Args: cobra.ExactArgs(1)}
	cmd.Flags().StringVar(&reason, "reason", "", "why (stored with the decision)")
	cmd.Flags().StringVar(&actor, "actor", a.env.Actor, "who decides (recorded in the audit trail; must differ from the requester to approve; default $ZB_ACTOR or zbctl:$USER)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		id, err := strconv.ParseInt(args[0], 10, 64)
		if err != nil || id <= 0 {
			return fmt.Errorf("request id %q is not a positive integer", args[0])
		}
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		r, err := co.Decide(cmd.Context(), id, approve, actor, reason)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(r)
		}
		fmt.Fprintf(a.stdout, "request %d (%s of tenant %s): %s\n", r.ID, r.Operation, r.TenantID, r.Status)
		return nil
	}
	return cmd
}
