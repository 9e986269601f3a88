package zbctlcli

import (
	"errors"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/coordinator"
)

// exitPendingApproval is zbctl's exit status when an operation was queued for an approval.
const exitPendingApproval = 2

func (a *app) forgetCmd() *cobra.Command {
	var session, context_, reason string
	var all, dry, yes bool
	cmd := &cobra.Command{
		Use:   "forget [MEMORY_ID] [--session ID | --context NAME | --all]",
		Short: "Erase a memory, a session, a context or a whole tenant with everything derived from it",
		Long: `forget erases (GDPR Art. 17) one memory, a session's memories, a context's memories or a
whole tenant, with every derivative: embeddings, index terms, mentions, entities and edges no
memory supports any more, reconsolidation snapshots, triple copies, consolidated schemas, audit
payload text and River job error texts. Erased memories stay as tombstones without content.
The erase is audited with counts, never content. The old row versions and planner statistics
that still hold the content go when the tables are vacuumed: the erase queues a vacuum request,
which the worker runs, or 'zbctl vacuum' ('zbctl vacuum --status' shows it).

--dry-run counts what would be removed and removes nothing. --all (the whole tenant named by
--tenant) needs --yes. A tenant or context erase that the tenant's settings put behind an
approval queues a request and exits with status 2; an operator runs 'zbctl approve ID'.`,
		Example: "  zbctl forget 42\n  zbctl forget --dry-run --session 7d1c...\n  zbctl forget --context health\n  zbctl forget --tenant acme --all --yes",
		Args:    cobra.MaximumNArgs(1),
	}
	tenant := a.tenantFlag(cmd)
	cmd.Flags().StringVar(&session, "session", "", "erase the memories of this session (UUID) and the session")
	cmd.Flags().StringVar(&context_, "context", "", "erase the memories, sessions, entities and intentions of this context")
	cmd.Flags().BoolVar(&all, "all", false, "erase the whole tenant (needs --yes)")
	cmd.Flags().BoolVar(&dry, "dry-run", false, "show what would be removed, remove nothing")
	cmd.Flags().BoolVar(&yes, "yes", false, "confirm --all")
	cmd.Flags().StringVar(&reason, "reason", "", "reason code stored in the audit event (a-z 0-9 _ . : -, at most 40 characters)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var scope coordinator.EraseScope
		n := 0
		if len(args) == 1 {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return fmt.Errorf("memory id %q is not a positive integer", args[0])
			}
			scope, n = coordinator.ScopeMemory(id), n+1
		}
		if session != "" {
			id, err := uuid.Parse(session)
			if err != nil {
				return fmt.Errorf("--session %q is not a UUID", session)
			}
			scope, n = coordinator.ScopeSession(id), n+1
		}
		if context_ != "" {
			scope, n = coordinator.ScopeContext(context_), n+1
		}
		if all {
			scope, n = coordinator.ScopeTenant(), n+1
		}
		if n != 1 {
			return errors.New("give exactly one of MEMORY_ID, --session, --context and --all")
		}
		if all && !dry && !yes {
			return fmt.Errorf("--all erases everything of tenant %s: add --yes to confirm (or --dry-run to count)", *tenant)
		}
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		rep, err := co.Erase(cmd.Context(), *tenant, scope, &coordinator.EraseOpts{DryRun: dry, Reason: reason})
		var pending *coordinator.ApprovalRequiredError
		if errors.As(err, &pending) {
			if a.json {
				_ = a.printJSON(map[string]any{"pending_approval": pending.ID, "operation": pending.Operation, "tenant": pending.Tenant})
			}
			return exitError{code: exitPendingApproval, err: err}
		}
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(map[string]any{"tenant": *tenant, "scope": scope.String(), "report": rep})
		}
		if scope.Kind == coordinator.EraseMemory && rep.Memories == 0 {
			return fmt.Errorf("memory %d of tenant %s not found (nothing removed)", scope.MemoryID, *tenant)
		}
		verb := "forgot"
		if dry {
			verb = "would forget"
		}
		switch scope.Kind {
		case coordinator.EraseMemory:
			fmt.Fprintf(a.stdout, "%s memory %d", verb, scope.MemoryID)
		default:
			fmt.Fprintf(a.stdout, "%s %s of tenant %s: %d memories", verb, scope, *tenant, rep.Memories)
		}
		fmt.Fprintf(a.stdout, " (%d derived erased, %d restored)\n", rep.Derived, rep.Restored)
		if rep.VacuumRequest > 0 {
			fmt.Fprintf(a.stdout, "physical cleanup (old row versions, planner statistics) is queued as vacuum request %d: "+
				"'zbctl vacuum --status' shows it\n", rep.VacuumRequest)
		}
		tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "TABLE\tROWS")
		for _, t := range rep.Tables() {
			fmt.Fprintf(tw, "%s\t%d\n", t, rep.Counts[t])
		}
		return tw.Flush()
	}
	return cmd
}

// aiMark prefixes the content of AI-generated memories in listings.
func aiMark(ai bool) string {
	if ai {
		return "[ai] "
	}
	return ""
}
