package zbctlcli

import (
	"fmt"
	"strconv"
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

func (a *app) forgetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "forget MEMORY_ID",
		Short: "Remove one memory with its review state, copies, mentions, windows and links",
		Args:  cobra.ExactArgs(1),
	}
	tenant := a.tenantFlag(cmd)
	dry := cmd.Flags().Bool("dry-run", false, "show what would be removed, remove nothing")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		id, err := strconv.ParseInt(args[0], 10, 64)
		if err != nil || id <= 0 {
			return fmt.Errorf("memory id %q is not a positive integer", args[0])
		}
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		if *dry {
			var layer, content string
			err := pool.QueryRow(cmd.Context(), `SELECT layer::text, content FROM zb.memory WHERE tenant_id = $1 AND id = $2`, *tenant, id).Scan(&layer, &content)
			if err != nil {
				return fmt.Errorf("memory %d of tenant %s not found", id, *tenant)
			}
			if a.json {
				return a.printJSON(map[string]any{"would_forget": id, "layer": layer, "content": content})
			}
			fmt.Fprintf(a.stdout, "would forget memory %d (%s): %s\n", id, layer, oneLine(content, 80))
			return nil
		}
		ok, err := co.Forget(cmd.Context(), *tenant, id)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(map[string]any{"id": id, "forgotten": ok})
		}
		if !ok {
			return fmt.Errorf("memory %d of tenant %s not found (nothing removed)", id, *tenant)
		}
		fmt.Fprintf(a.stdout, "forgot memory %d\n", id)
		return nil
	}
	return cmd
}
