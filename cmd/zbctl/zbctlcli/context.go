package zbctlcli

import (
	"fmt"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
)

// ContextBudgetDefault is the default token budget of 'zbctl context'.
const ContextBudgetDefault = 500

// ContextBudgetMax is the largest budget 'zbctl context' accepts.
const ContextBudgetMax = 1000000

func (a *app) contextCmd() *cobra.Command {
	var budget int
	var session string
	cmd := &cobra.Command{
		Use:   "context QUERY",
		Short: "Assemble the token-budgeted context block an agent would get for a query",
		Long: `context assembles core memories (always first), the session's working memory and the
memories recalled for QUERY into a block of at most --budget estimated tokens (about 1.3 tokens
per word), as an agent's prompt would receive it. An empty QUERY gives core and working memory
only. Recalling counts as an access (like 'zbctl recall').`,
		Example: `  zbctl context "what should I know about the Zeus release?"
  zbctl context --budget 200 --session 7f0c… "next steps"
  zbctl --json context "Alice" | jq -r .text`,
		Args: cobra.ExactArgs(1),
	}
	tenant := a.tenantFlag(cmd)
	intRangeVar(cmd.Flags(), &budget, "budget", ContextBudgetDefault, 1, ContextBudgetMax, fmt.Sprintf("token budget of the block (1..%d)", ContextBudgetMax))
	cmd.Flags().StringVar(&session, "session", "", "session UUID whose working memory to include")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var sess *uuid.UUID
		if session != "" {
			id, err := uuid.Parse(session)
			if err != nil {
				return fmt.Errorf("--session %q is not a UUID", session)
			}
			sess = &id
		}
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		blk, err := co.Context(cmd.Context(), *tenant, sess, args[0], budget)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(blk)
		}
		if len(blk.Items) == 0 {
			fmt.Fprintf(a.stdout, "no memories fit (budget %d tokens)\n", budget)
			return nil
		}
		fmt.Fprint(a.stdout, blk.Text)
		fmt.Fprintf(a.stdout, "\n%d memories, %d of %d tokens\n", len(blk.Items), blk.Used, blk.Budget)
		return nil
	}
	return cmd
}
