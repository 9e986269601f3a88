package zbctlcli

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/coordinator"
)

// demoData is the built-in demo memory set: identity facts, facts, episodes, skills, one
// emotional memory and two German memories.
//
//go:embed demo.jsonl
var demoData []byte

type demoItem struct {
	ID         string     `json:"id"`
	Layer      string     `json:"layer"`
	Label      string     `json:"label"`
	Content    string     `json:"content"`
	OccurredAt *time.Time `json:"occurred_at"`
}

func (a *app) demoCmd() *cobra.Command {
	demo := &cobra.Command{Use: "demo", Short: "The built-in demo memory set"}
	load := &cobra.Command{
		Use:   "load",
		Short: "Store the demo memories (idempotent: a second run stores nothing new)",
		Args:  cobra.NoArgs,
	}
	tenant := tenantVar(load.Flags(), "demo", "tenant to load the demo into")
	load.RunE = func(cmd *cobra.Command, _ []string) error {
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		var created, unchanged int
		sc := bufio.NewScanner(bytes.NewReader(demoData))
		for line := 1; sc.Scan(); line++ {
			var it demoItem
			if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
				return fmt.Errorf("demo.jsonl line %d: %w", line, err)
			}
			res, err := co.Store(cmd.Context(), coordinator.StoreInput{
				TenantID: *tenant, Content: it.Content, Layer: coordinator.Layer(it.Layer),
				CoreLabel: it.Label, ExternalID: it.ID, OccurredAt: it.OccurredAt,
			})
			if errors.Is(err, coordinator.ErrConflict) {
				unchanged++ // stored by an earlier run (same external id)
				continue
			}
			if err != nil {
				return fmt.Errorf("error storing demo memory %s: %w", it.ID, err)
			}
			if res.Outcome == coordinator.OutcomeCreated {
				created++
			} else {
				unchanged++
			}
		}
		if a.json {
			return a.printJSON(map[string]any{"tenant": *tenant, "created": created, "unchanged": unchanged})
		}
		fmt.Fprintf(a.stdout, "demo tenant %q: %d memories stored, %d already there\n", *tenant, created, unchanged)
		return nil
	}
	demo.AddCommand(load)
	return demo
}
