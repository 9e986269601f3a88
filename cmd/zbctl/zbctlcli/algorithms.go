package zbctlcli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func (a *app) algorithmsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "algorithms",
		Short: "List and switch a tenant's mechanisms (the ablation registry)",
		Long: `Every mechanism can be switched off per tenant, for ablation or to opt out of it. A tenant
without settings has every mechanism on.`,
	}
	list := &cobra.Command{Use: "list", Short: "List the mechanisms and whether each is on", Args: cobra.NoArgs}
	tenant := a.tenantFlag(list)
	list.RunE = func(cmd *cobra.Command, _ []string) error {
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		algs, err := co.Algorithms(cmd.Context(), *tenant)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(map[string]any{"tenant": *tenant, "algorithms": algs})
		}
		tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ALGORITHM\tSTATE\tWHAT SWITCHING IT OFF REMOVES")
		for _, al := range algs {
			state := "on"
			if !al.Enabled {
				state = "OFF"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", al.ID, state, al.Description)
		}
		return tw.Flush()
	}
	set := func(use string, enabled bool) *cobra.Command {
		c := &cobra.Command{Use: use + " ALGORITHM...", Short: "Switch mechanisms " + map[bool]string{true: "on", false: "off"}[enabled], Args: cobra.MinimumNArgs(1)}
		t := a.tenantFlag(c)
		c.RunE = func(cmd *cobra.Command, args []string) error {
			co, pool, err := a.openCoordinator(cmd.Context())
			if err != nil {
				return err
			}
			defer pool.Close()
			for _, id := range args {
				if err := co.SetAlgorithm(cmd.Context(), *t, id, enabled); err != nil {
					return err
				}
			}
			if a.json {
				return a.printJSON(map[string]any{"tenant": *t, "algorithms": args, "enabled": enabled})
			}
			fmt.Fprintf(a.stdout, "%v: %s for tenant %s\n", args, map[bool]string{true: "on", false: "off"}[enabled], *t)
			return nil
		}
		return c
	}
	cmd.AddCommand(list, set("enable", true), set("disable", false))
	return cmd
}
