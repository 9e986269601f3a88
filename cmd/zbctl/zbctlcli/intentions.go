package zbctlcli

import (
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/coordinator"
)

func (a *app) intentionsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "intentions",
		Aliases: []string{"intention"},
		Short:   "Prospective memory: reminders fired by time or by a cue",
		Long: `Intentions are things to be reminded of. A time intention fires once due (the worker's
prospective_tick, every minute); a cue intention fires when a stored memory or a recall query
mentions its cue (an entity, its keywords, or a similar embedding). Fired intentions appear in
the context block for a day. States: pending, fired, dismissed, expired.`,
	}
	cmd.AddCommand(a.intentionsAddCmd(), a.intentionsListCmd(), a.intentionsDismissCmd(), a.intentionsTickCmd())
	return cmd
}

func (a *app) intentionsAddCmd() *cobra.Command {
	var content, due, in, cue, priority, expires, ctxName, tz string
	var entities []string
	cmd := &cobra.Command{
		Use:   "add [TEXT]",
		Short: "Add an intention from a sentence (English or German) or from flags",
		Example: `  zbctl intentions add "remind me to call mom tomorrow at 9"
  zbctl intentions add "erinnere mich in zwei Stunden an den Ofen"
  zbctl intentions add "when I talk to Anna, ask about the trip"
  zbctl intentions add --content "send the slides" --in 90m --priority high
  zbctl intentions add --content "mention the budget" --cue "quarterly budget" --entity Anna`,
		Args: cobra.MaximumNArgs(1),
	}
	tenant := a.tenantFlag(cmd)
	f := cmd.Flags()
	f.StringVar(&content, "content", "", "what to remind of (instead of TEXT; needs --due, --in, --cue or --entity)")
	f.StringVar(&due, "due", "", "due time, RFC 3339 (time intention)")
	f.StringVar(&in, "in", "", "due after this duration from now, e.g. 90m or 2h (time intention)")
	f.StringVar(&cue, "cue", "", "cue text: fires when a stored or recalled text contains its terms or is similar")
	f.StringSliceVar(&entities, "entity", nil, "cue entity name (repeatable): fires when a text mentions it")
	f.StringVar(&priority, "priority", "", "low, medium or high (default: parsed, else medium)")
	f.StringVar(&expires, "expires", "", "expiry, RFC 3339 (default: 7 days after due, 30 days for cues)")
	f.StringVar(&ctxName, "context", "", "context (domain), e.g. work or personal")
	f.StringVar(&tz, "tz", "", "IANA time zone in which TEXT's times are read (default UTC)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		input := coordinator.IntentionInput{Content: content, Cue: cue, CueEntities: entities, Priority: priority, Context: ctxName}
		if len(args) == 1 {
			input.Text = args[0]
		}
		if due != "" && in != "" {
			return fmt.Errorf("give --due or --in, not both")
		}
		if due != "" {
			t, err := time.Parse(time.RFC3339, due)
			if err != nil {
				return fmt.Errorf("--due %q is not an RFC 3339 time (e.g. 2025-05-08T14:00:00Z)", due)
			}
			input.DueAt = &t
		}
		if in != "" {
			d, err := time.ParseDuration(in)
			if err != nil || d <= 0 {
				return fmt.Errorf("--in %q is not a positive duration (e.g. 90m, 2h)", in)
			}
			t := time.Now().Add(d)
			input.DueAt = &t
		}
		if expires != "" {
			t, err := time.Parse(time.RFC3339, expires)
			if err != nil {
				return fmt.Errorf("--expires %q is not an RFC 3339 time", expires)
			}
			input.ExpiresAt = &t
		}
		if tz != "" {
			loc, err := time.LoadLocation(tz)
			if err != nil {
				return fmt.Errorf("--tz %q is not a time zone: %w", tz, err)
			}
			input.Location = loc
		}
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		it, err := co.AddIntention(cmd.Context(), *tenant, input)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(it)
		}
		fmt.Fprintf(a.stdout, "intention %d (%s, %s): %s — %s\n", it.ID, it.Trigger, it.Priority, it.Content, triggerText(*it))
		return nil
	}
	return cmd
}

func triggerText(it coordinator.Intention) string {
	switch {
	case it.Trigger == "time" && it.DueAt != nil:
		return "due " + it.DueAt.Format(time.RFC3339)
	case len(it.CueEntities) > 0:
		return fmt.Sprintf("when %q comes up (entities %v)", it.Cue, it.CueEntities)
	}
	return fmt.Sprintf("when %q comes up", it.Cue)
}

func (a *app) intentionsListCmd() *cobra.Command {
	var status string
	var limit int
	cmd := &cobra.Command{Use: "list", Short: "List intentions, newest first", Args: cobra.NoArgs}
	tenant := a.tenantFlag(cmd)
	cmd.Flags().StringVar(&status, "status", "", "only this status: pending, fired, dismissed or expired")
	intRangeVar(cmd.Flags(), &limit, "limit", 100, 1, coordinator.MaxLifecycleLimit, fmt.Sprintf("at most this many (1..%d)", coordinator.MaxLifecycleLimit))
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		list, err := co.Intentions(cmd.Context(), *tenant, status, limit)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(map[string]any{"tenant": *tenant, "intentions": list})
		}
		tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSTATUS\tPRIORITY\tTRIGGER\tCONTENT\tFIRED")
		for _, it := range list {
			fired := ""
			if it.FiredAt != nil {
				fired = it.FiredAt.Format(time.RFC3339) + " by " + it.FiredReason
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", it.ID, it.Status, it.Priority, textproc.OneLine(triggerText(it), 50),
				textproc.OneLine(it.Content, 60), fired)
		}
		return tw.Flush()
	}
	return cmd
}

func (a *app) intentionsDismissCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "dismiss ID...", Short: "Dismiss pending or expired intentions", Args: cobra.MinimumNArgs(1)}
	tenant := a.tenantFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ids := make([]int64, len(args))
		for i, s := range args {
			id, err := strconv.ParseInt(s, 10, 64)
			if err != nil || id <= 0 {
				return fmt.Errorf("intention id %q is not a positive integer", s)
			}
			ids[i] = id
		}
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		var done []*coordinator.Intention
		for _, id := range ids {
			it, err := co.DismissIntention(cmd.Context(), *tenant, id)
			if err != nil {
				return err
			}
			done = append(done, it)
		}
		if a.json {
			return a.printJSON(map[string]any{"tenant": *tenant, "dismissed": done})
		}
		for _, it := range done {
			fmt.Fprintf(a.stdout, "dismissed intention %d: %s\n", it.ID, it.Content)
		}
		return nil
	}
	return cmd
}

func (a *app) intentionsTickCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tick",
		Short: "Fire due time intentions and expire old ones now, for every tenant (what the worker does every minute)",
		Args:  cobra.NoArgs,
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		rep, err := co.ProspectiveTick(cmd.Context(), 0, nil)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(rep)
		}
		for _, f := range rep.Fired {
			fmt.Fprintf(a.stdout, "fired intention %d of tenant %s: %s\n", f.ID, f.TenantID, f.Content)
		}
		fmt.Fprintf(a.stdout, "%d fired, %d expired\n", len(rep.Fired), rep.Expired)
		return nil
	}
	return cmd
}
