package zbctlcli

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/coordinator"
)

func (a *app) reconsolidationCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "reconsolidation",
		Aliases: []string{"recon"},
		Short:   "Show the reconsolidation log and snapshots; roll an event back",
		Long: `A memory recalled in the last 10 minutes is labile: a new, related memory may update it
(reconsolidation). Every such event keeps a snapshot of the memory before it, which 'show'
compares with the memory now and 'rollback' restores exactly.`,
	}
	var memory int64
	var limit int
	log := &cobra.Command{
		Use:     "log",
		Short:   "List reconsolidation events, newest first",
		Example: "  zbctl reconsolidation log\n  zbctl reconsolidation log --memory 42",
		Args:    cobra.NoArgs,
	}
	ltenant := a.tenantFlag(log)
	log.Flags().Int64Var(&memory, "memory", 0, "only events of this memory")
	intRangeVar(log.Flags(), &limit, "limit", coordinator.ReconLogLimitDefault, 1, coordinator.MaxLifecycleLimit, fmt.Sprintf("number of events (1..%d)", coordinator.MaxLifecycleLimit))
	log.RunE = func(cmd *cobra.Command, _ []string) error {
		if memory < 0 {
			return fmt.Errorf("--memory %d is not a memory id", memory)
		}
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		evs, err := co.ReconsolidationLog(cmd.Context(), *ltenant, memory, limit)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(map[string]any{"tenant": *ltenant, "events": evs})
		}
		if len(evs) == 0 {
			fmt.Fprintln(a.stdout, "no reconsolidation events")
			return nil
		}
		tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "EVENT\tMEMORY\tTRIGGER\tMODE\tACTION\tPE\tAPPLIED\tROLLED BACK")
		for _, e := range evs {
			trig := "-"
			if e.TriggerID != nil {
				trig = fmt.Sprint(*e.TriggerID)
			}
			fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%.2f\t%s\t%s\n", e.ID, e.MemoryID, trig, e.Mode, orDash(e.Action), e.EffectivePE,
				stamp(&e.AppliedAt), stamp(e.RolledBackAt))
		}
		return tw.Flush()
	}

	show := &cobra.Command{
		Use:     "show EVENT_ID",
		Short:   "Show an event with the memory before it (its snapshot) and now",
		Example: "  zbctl reconsolidation show 7",
		Args:    cobra.ExactArgs(1),
	}
	stenant := a.tenantFlag(show)
	show.RunE = func(cmd *cobra.Command, args []string) error {
		id, err := parsePositive("event id", args[0])
		if err != nil {
			return err
		}
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		d, err := co.ReconsolidationEvent(cmd.Context(), *stenant, id)
		if errors.Is(err, coordinator.ErrNotFound) {
			return fmt.Errorf("reconsolidation event %d of tenant %s not found (see 'zbctl reconsolidation log')", id, *stenant)
		}
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(d)
		}
		w := a.stdout
		fmt.Fprintf(w, "event %d on memory %d: %s (%s), PE %.2f raw / %.2f effective, applied %s\n", d.ID, d.MemoryID, d.Mode,
			orDash(d.Action), d.RawPE, d.EffectivePE, stamp(&d.AppliedAt))
		if d.RolledBackAt != nil {
			fmt.Fprintf(w, "rolled back %s (%s)\n", stamp(d.RolledBackAt), d.RollbackNote)
		}
		if d.TriggerContent != "" {
			fmt.Fprintf(w, "trigger:  %s\n", textproc.OneLine(d.TriggerContent, 100))
		}
		fmt.Fprintf(w, "before:   %s  [confidence %.2f]\n", textproc.OneLine(d.Before.Content, 100), d.Before.Confidence)
		if d.LoggedContent != "" {
			fmt.Fprintf(w, "wrote:    %s\n", textproc.OneLine(d.LoggedContent, 100))
		}
		if d.After == nil {
			fmt.Fprintln(w, "now:      (the memory is gone)")
			return nil
		}
		fmt.Fprintf(w, "now:      %s  [confidence %.2f]\n", textproc.OneLine(d.After.Content, 100), d.After.Confidence)
		if len(d.Changed) == 0 {
			fmt.Fprintln(w, "the memory equals its snapshot")
		} else {
			fmt.Fprintf(w, "changed:  %v — 'zbctl reconsolidation rollback %d' restores the snapshot\n", d.Changed, d.ID)
		}
		return nil
	}

	rollback := &cobra.Command{
		Use:   "rollback EVENT_ID",
		Short: "Restore the memory of an event exactly as its snapshot holds it",
		Long: `rollback restores the memory of a reconsolidation event from the event's snapshot (content,
metadata, sources, stability, confidence, index terms, embedding, derivation state), removes
the memory link the event created, and marks the event rolled back. Rolling back twice
changes nothing.`,
		Example: "  zbctl reconsolidation rollback 7",
		Args:    cobra.ExactArgs(1),
	}
	rtenant := a.tenantFlag(rollback)
	rollback.RunE = func(cmd *cobra.Command, args []string) error {
		id, err := parsePositive("event id", args[0])
		if err != nil {
			return err
		}
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		err = co.Rollback(cmd.Context(), *rtenant, id)
		if errors.Is(err, coordinator.ErrNotFound) {
			return fmt.Errorf("reconsolidation event %d of tenant %s not found (see 'zbctl reconsolidation log'; nothing changed)", id, *rtenant)
		}
		if err != nil {
			return err
		}
		d, err := co.ReconsolidationEvent(cmd.Context(), *rtenant, id)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(map[string]any{"event": id, "memory": d.MemoryID, "rolled_back_at": d.RolledBackAt, "changed": d.Changed})
		}
		fmt.Fprintf(a.stdout, "rolled back event %d: memory %d is restored\n", id, d.MemoryID)
		return nil
	}
	cmd.AddCommand(log, show, rollback)
	return cmd
}
