package zbctlcli

import (
	"context"
	"fmt"

	"github.com/zenbrain/zb/bench/locomo"
	"github.com/zenbrain/zb/bench/locomo/zbsystem"
	"github.com/zenbrain/zb/coordinator"
)

// parseAblate returns the registry ids of 'bench locomo --ablate': nil for an empty value,
// every id for "all", else the listed ids, which must all be known.
func parseAblate(s string) ([]string, error) {
	ids := evalSplitList(s)
	switch {
	case len(ids) == 0:
		return nil, nil
	case len(ids) == 1 && ids[0] == "all":
		return coordinator.AlgorithmIDs(), nil
	}
	if err := zbsystem.CheckAlgorithms(ids); err != nil {
		return nil, fmt.Errorf("--ablate: %w", err)
	}
	return ids, nil
}

// benchAblate runs one arm per id against the zenbrain system's per-conversation result in
// rep; full is that system's configuration (nil when it was not measured).
func benchAblate(ctx context.Context, ds *locomo.Dataset, rep *locomo.Report, full *zbsystem.Config, ids []string,
	opts locomo.Options,
) (*locomo.AblationReport, error) {
	res := rep.Result(locomo.PerConversation, zbsystem.NameDefault)
	if full == nil || res == nil {
		return nil, fmt.Errorf("error running the ablation: %s was not measured per conversation", zbsystem.NameDefault)
	}
	arms, err := zbsystem.Arms(full, ids)
	if err != nil {
		return nil, err
	}
	return locomo.Ablate(ctx, ds, res, arms, opts)
}

// printAblation prints the ablation table and where it was written.
func (a *app) printAblation(r *locomo.AblationReport, out string) {
	fmt.Fprintf(a.stdout, "\nablation against %s (%d questions; Δ = arm − full, negative: less evidence without the mechanism)\n",
		r.Full.System, r.Questions)
	fmt.Fprintf(a.stdout, "%-24s %9s %7s %9s %7s %9s %7s %9s %8s\n",
		"mechanism", "ΔS@250", "p", "ΔS@1000", "p", "Δctx@250", "p", "identical", "ms/query")
	for _, row := range r.Arms {
		ctxDelta, ctxP := "-", "-"
		if c := row.Context250; c != nil {
			ctxDelta, ctxP = fmt.Sprintf("%+.3f", c.Delta), fmt.Sprintf("%.4f", c.P)
		}
		fmt.Fprintf(a.stdout, "%-24s %+9.3f %7.4f %+9.3f %7.4f %9s %7s %9s %8.1f\n", row.ID,
			row.Strict250.Delta, row.Strict250.P, row.Strict1000.Delta, row.Strict1000.P, ctxDelta, ctxP,
			evalYesNo(row.Identical), row.SearchMeanMillis)
	}
	fmt.Fprintf(a.stdout, "wrote %s and %s to %s in %.0f s\n", locomo.AblationJSON, locomo.AblationMarkdown, out, r.Seconds)
}
