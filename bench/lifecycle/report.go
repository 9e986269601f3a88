package lifecycle

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/zenbrain/zb/bench/internal/stmtstats"
)

// Write stores r as results.json and results.md in dir (created when missing).
func (r *Results) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	var md strings.Builder
	r.Markdown(&md)
	return os.WriteFile(filepath.Join(dir, "results.md"), []byte(md.String()), 0o644)
}

// Markdown writes r as Markdown tables: one per experiment, ratios first, absolute times in
// seconds after them.
func (r *Results) Markdown(w io.Writer) {
	fmt.Fprintf(w, "# Lifecycle benchmarks\n\n")
	fmt.Fprintf(w, "Run %s (%.0f s) on %s/%s, %d CPUs, PostgreSQL %s%s. Ratios are measured in the same run; absolute times are for context only.\n\n",
		r.Started.Format("2006-01-02 15:04 MST"), float64(r.Duration), r.Machine.GoOS, r.Machine.GoArch, r.Machine.CPUs, r.Machine.ServerVersion, sharedBuffers(r.Machine.SharedBuffers))
	if len(r.Decay) > 0 {
		fmt.Fprintf(w, "## Decay: DecayDue over N memories (1%% faded) vs a plain UPDATE archiving those rows\n\n")
		fmt.Fprintf(w, "| N | faded | ratio | target | met | decay (s) | archive UPDATE (s) | archived | rescheduled | rows read | seq scans | load (s) |\n")
		fmt.Fprintf(w, "|---:|---:|---:|---:|:---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, f := range r.Decay {
			fmt.Fprintf(w, "| %d | %d | %.2f× | ≤ %.0f× | %s | %.4f | %.4f | %d | %d | %d | %d | %.1f |\n", f.N, f.Faded, f.Ratio, f.Target,
				yes(f.Met), float64(f.Decay), float64(f.Archive), f.Archived, f.Rescheduled, f.RowsRead, f.SeqScans, float64(f.Load))
		}
		fmt.Fprintf(w, "\nRows read: the zb.memory rows one DecayDue transaction read (sequential and index fetches, pg_stat_xact_user_tables).\n")
		fmt.Fprintln(w)
	}
	if len(r.Maint) > 0 {
		fmt.Fprintf(w, "## Review and propagation: cost by tenant size at fixed work\n\n")
		fmt.Fprintf(w, "ReviewDue over the due cards (1%% of N) vs a plain UPDATE rescheduling those cards; Propagate from %d seeds "+
			"over their fixed trees (%d memories) vs a plain UPDATE writing those memories' confidence. The time relative to the "+
			"smallest N shows whether cost follows the work (flat for propagation, linear in the due count for review).\n\n",
			MaintSeeds, MaintSeeds*(1+MaintFanout+MaintFanout*MaintFanout))
		fmt.Fprintf(w, "| N | links | due | review ratio | review (s) | UPDATE (s) | rows read | seq scans | nodes | propagate ratio | propagate (s) | vs smallest N | UPDATE (s) | rows read | seq scans | load (s) |\n")
		fmt.Fprintf(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, f := range r.Maint {
			fmt.Fprintf(w, "| %d | %d | %d | %.2f× | %.4f | %.4f | %d | %d | %d | %.2f× | %.4f | %.2f× | %.4f | %d | %d | %.1f |\n", f.N, f.Links, f.Due,
				f.ReviewRatio, float64(f.Review), float64(f.ReviewUpdate), f.ReviewRowsRead, f.ReviewSeqScans, f.Nodes, f.PropagateRatio,
				float64(f.Propagate), float64(f.Propagate)/float64(r.Maint[0].Propagate), float64(f.PropagateUpdate), f.PropagateRowsRead,
				f.PropagateSeqScans, float64(f.Load))
		}
		fmt.Fprintln(w)
	}
	if len(r.Sleep) > 0 {
		fmt.Fprintf(w, "## Sleep: one tenant's sleep time by memory count, relative to the smallest\n\n")
		fmt.Fprintf(w, "Sleep time is the sum over the rounds that cover the tenant's sleep window (at most %d episodes per round).\n\n", r.Sleep[0].MaxEpisodes)
		fmt.Fprintf(w, "The target at s times the first size is %.0f×^log10(s): %.0f× per tenfold step.\n\n", SleepTargetRatio, SleepTargetRatio)
		fmt.Fprintf(w, "| N | ratio | target | met | step | sleep (s) | rounds | round p50 (s) | round max (s) | episodes | LTP | LTD | new assoc. | pruned | archived | schemas | edges before | setup (s) |\n")
		fmt.Fprintf(w, "|---:|---:|---:|:---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, f := range r.Sleep {
			target, met, step := "", "", ""
			if f.Met != nil {
				target, met, step = fmt.Sprintf("≤ %.1f×", f.Target), yes(*f.Met), fmt.Sprintf("%.2f×", f.StepRatio)
			}
			fmt.Fprintf(w, "| %d | %.2f× | %s | %s | %s | %.3f | %d | %.3f | %.3f | %d | %d | %d | %d | %d | %d | %d | %d | %.1f |\n", f.N, f.Ratio, target, met, step,
				float64(f.Sleep), f.Rounds, float64(f.RoundP50), float64(f.RoundMax), f.Episodes, f.LTP, f.LTD, f.NewAssociations, f.Pruned, f.Archived, f.Schemas, f.EdgesBefore,
				float64(f.Setup))
		}
		fmt.Fprintln(w)
		for _, f := range r.Sleep {
			if f.StatementsUnavailable != "" {
				fmt.Fprintf(w, "pg_stat_statements unavailable at %d: %s\n\n", f.N, f.StatementsUnavailable)
				continue
			}
			stmtstats.Markdown(w, fmt.Sprintf("Top statements of the sleep rounds at %d (pg_stat_statements, by total time):", f.N), f.SleepStatements)
			stmtstats.Markdown(w, fmt.Sprintf("Top statements of the setup at %d (store and derivation):", f.N), f.SetupStatements)
		}
	}
	if f := r.Derive; f != nil {
		fmt.Fprintf(w, "## Derive: worker throughput (hash embedder, %d replicas × 1 slot) vs a plain INSERT with precomputed embeddings\n\n", f.Workers)
		fmt.Fprintf(w, "| memories | tenants | ratio | target | met | derive (s) | derive/s | INSERT (s) | INSERT/s | mentions | edges |\n")
		fmt.Fprintf(w, "|---:|---:|---:|---:|:---:|---:|---:|---:|---:|---:|---:|\n")
		fmt.Fprintf(w, "| %d | %d | %.3f× | ≥ %.1f× | %s | %.2f | %.0f | %.3f | %.0f | %d | %d |\n\n", f.Memories, f.Tenants, f.Ratio, f.Target,
			yes(f.Met), float64(f.Derive), f.DerivePerSecond, float64(f.Insert), f.InsertPerSecond, f.Mentions, f.Edges)
	}
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

// sharedBuffers is ", shared_buffers s", or nothing for a run that did not record it.
func sharedBuffers(s string) string {
	if s == "" {
		return ""
	}
	return ", shared_buffers " + s
}
