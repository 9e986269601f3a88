package zbctlcli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/algorithms/textproc"
)

func (a *app) healthCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "health",
		Short: "Show a tenant's memory health: graph connectivity, metacognitive alerts, knowledge gaps",
		Long: `health reports three things about a tenant's memory:

  spectral   λ₂ (Fiedler value) of the knowledge graph now and after each recent sleep run;
             below 0.01 the graph is fragmented (islands of knowledge that do not connect)
  metacog    the metacognitive monitor's signals and alerts of the last 30 days (every sleep
             run assesses the recall log and records them)
  gaps       the largest knowledge gaps of the curiosity engine: topics (recent queries grouped
             by their index terms) with their gap score, the facts held about them, recall
             success, learning progress (success of the newer half of the topic's queries
             minus the older half) and a suggested action (review, ask_user, consolidate,
             monitor)

It only reads.`,
		Example: "  zbctl health --tenant acme",
		Args:    cobra.NoArgs,
	}
	tenant := a.tenantFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		h, err := co.Health(cmd.Context(), *tenant)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(h)
		}
		w := a.stdout
		sp := h.Spectral
		fmt.Fprintf(w, "spectral (knowledge graph connectivity)\n")
		if sp.Enabled {
			state := "connected"
			if sp.Fragmented {
				state = fmt.Sprintf("FRAGMENTED (λ₂ < %g): consolidation (zbctl jobs run sleep) links islands", sp.Threshold)
			}
			fmt.Fprintf(w, "  λ₂ now %.4f, %s\n", sp.Fiedler, state)
		} else {
			fmt.Fprintln(w, "  spectral_health is off for this tenant (zbctl algorithms enable spectral_health)")
		}
		if len(sp.Trend) == 0 {
			fmt.Fprintln(w, "  no sleep runs yet")
		} else {
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  RUN\tAT\tTRIGGER\tλ₂ BEFORE\tλ₂ AFTER\tEDGES")
			for _, p := range sp.Trend {
				fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\n", p.RunID, stamp(&p.At), p.Trigger, f4(p.FiedlerBefore), f4(p.FiedlerAfter), i32(p.Edges))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(w, "  trend: %s (%+.4f per run)\n", sp.Direction, sp.Slope)
		}

		mc := h.Metacog
		fmt.Fprintf(w, "\nmetacognition (last 30 days): %d events, %d alerts\n", mc.Events, len(mc.Alerts))
		for _, al := range mc.Alerts {
			fmt.Fprintf(w, "  ALERT %s = %.3f at %s %s\n", al.Kind, al.Value, stamp(&al.At), textproc.OneLine(string(al.Detail), 60))
		}
		for _, l := range mc.Latest {
			fmt.Fprintf(w, "  latest %s = %.3f at %s\n", l.Kind, l.Value, stamp(&l.At))
		}

		g := h.Gaps
		fmt.Fprintf(w, "\nknowledge gaps (curiosity): %d topics\n", len(g.Gaps))
		switch {
		case !g.Enabled:
			fmt.Fprintln(w, "  curiosity is off for this tenant (zbctl algorithms enable curiosity)")
		case len(g.Gaps) == 0:
			fmt.Fprintln(w, "  no topics yet (the query log is filled by recalls)")
		default:
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  TOPIC\tGAP\tQUERIES\tFACTS\tCONFIDENCE\tRECALL OK\tPROGRESS\tACTION")
			for _, x := range g.Gaps {
				fmt.Fprintf(tw, "  %s\t%.2f\t%d\t%d\t%.2f\t%.2f\t%+.2f\t%s\n", textproc.OneLine(x.Label, 30), x.Score, x.Queries, x.Facts,
					x.MeanConfidence, x.RecallSuccess, x.Progress, x.Action)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
		return nil
	}
	return cmd
}

func f4(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.4f", *p)
}

func i32(p *int32) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}
