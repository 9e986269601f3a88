package zbctlcli

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/coordinator"
)

func (a *app) reviewCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "review",
		Short: "List the FSRS reviews that are due, and grade a memory",
		Long: `review shows the spaced-repetition (FSRS) cards that are due and grades one by hand. The worker
reviews due cards by itself, inferring the grade from use since the last review; a grade given
here is the user's own judgement and goes through the same scheduler (with the vmPFC context
coupling when it is on).`,
	}
	var limit int
	due := &cobra.Command{
		Use:     "due",
		Short:   "List the cards that are due, earliest first",
		Example: "  zbctl review due --limit 10",
		Args:    cobra.NoArgs,
	}
	tenant := a.tenantFlag(due)
	intRangeVar(due.Flags(), &limit, "limit", coordinator.DueReviewLimitDefault, 1, coordinator.MaxLifecycleLimit, fmt.Sprintf("number of cards (1..%d)", coordinator.MaxLifecycleLimit))
	due.RunE = func(cmd *cobra.Command, _ []string) error {
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		rs, total, err := co.DueReviews(cmd.Context(), *tenant, limit)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(map[string]any{"tenant": *tenant, "due": total, "reviews": rs})
		}
		if len(rs) == 0 {
			fmt.Fprintln(a.stdout, "no reviews due")
			return nil
		}
		tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "MEMORY\tDUE\tSTATE\tREPS\tLAPSES\tSTABILITY\tCONTENT")
		for _, r := range rs {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%.1fd\t%s\n", r.MemoryID, stamp(&r.Due), r.State, r.Reps, r.Lapses, r.Stability,
				textproc.OneLine(r.Content, 60))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "%d of %d due; grade one with 'zbctl review grade MEMORY_ID again|hard|good|easy'\n", len(rs), total)
		return nil
	}

	grade := &cobra.Command{
		Use:   "grade MEMORY_ID again|hard|good|easy",
		Short: "Review one memory now with an explicit grade",
		Long: `grade reviews a memory now, due or not: again (forgotten), hard, good or easy. Good and easy
count as a successful recall and make the memory more stable; again counts a lapse. A memory
without a card (e.g. an episode) gets one.`,
		Example:   "  zbctl review grade 42 good",
		Args:      cobra.ExactArgs(2),
		ValidArgs: []string{"again", "hard", "good", "easy"},
	}
	gtenant := a.tenantFlag(grade)
	grade.RunE = func(cmd *cobra.Command, args []string) error {
		id, err := parsePositive("memory id", args[0])
		if err != nil {
			return err
		}
		g, err := coordinator.ParseGrade(args[1])
		if err != nil {
			return fmt.Errorf("grade %q: want again, hard, good or easy", args[1])
		}
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		res, err := co.GradeReview(cmd.Context(), *gtenant, id, g)
		if errors.Is(err, coordinator.ErrNotFound) {
			return fmt.Errorf("memory %d of tenant %s not found or not active (nothing graded)", id, *gtenant)
		}
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(res)
		}
		fmt.Fprintf(a.stdout, "graded memory %d %s: %s → %s, next review %s (in %.1f days)\n", res.MemoryID, res.Grade,
			res.StateBefore, res.State, stamp(&res.Due), res.IntervalDays)
		return nil
	}
	cmd.AddCommand(due, grade)
	return cmd
}
