package locomo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/zenbrain/zb/algorithms/simstat"
)

// File names written by [WriteAblation].
const (
	// AblationJSON is the JSON ablation report.
	AblationJSON = "ablation.json"
	// AblationMarkdown is the Markdown ablation report.
	AblationMarkdown = "ablation.md"
)

// AblationTest describes the paired test of [CompareArm] for reports.
const AblationTest = "two-sided Wilcoxon signed-rank test over questions (algorithms/simstat): zero differences " +
	"dropped, average ranks for ties, exact null distribution up to 25 non-zero pairs, normal approximation above"

// AblationArm is one arm of an ablation: the full system with a mechanism switched off.
type AblationArm struct {
	// ID names what the arm removes (an ablation registry id).
	ID string
	// System is the arm's system. Its name must differ from the full system's and the other
	// arms' (systems keep their tenants apart by name).
	System System
}

// PairedDelta compares one figure of an arm with the full system's, question by question.
type PairedDelta struct {
	// Delta is the mean over questions of the arm's figure minus the full system's.
	Delta float64 `json:"delta"`
	// P is the two-sided p-value of [AblationTest] on the questions' differences (1 when none
	// differs).
	P float64 `json:"p"`
	// N counts the questions whose figure differs (the pairs the test ranks).
	N int `json:"n"`
}

// AblationFull holds the full system's figures the arms are compared with (means over all
// questions).
type AblationFull struct {
	// System is the full system's name.
	System string `json:"system"`
	// Strict250 is the strict credit of its hits packed into [BudgetSmall] tokens.
	Strict250 float64 `json:"strict_250"`
	// Strict1000 is the strict credit of its hits packed into [BudgetMedium] tokens.
	Strict1000 float64 `json:"strict_1000"`
	// Context250 is the strict credit of its own context block at [BudgetSmall] tokens; nil
	// for a system that is no [ContextSystem].
	Context250 *float64 `json:"context_250,omitempty"`
	// SearchMeanMillis is the mean time of one Search call.
	SearchMeanMillis float64 `json:"search_mean_millis"`
}

// AblationRow is one arm compared with the full system.
type AblationRow struct {
	// ID names what the arm removes.
	ID string `json:"id"`
	// System is the arm's system name.
	System string `json:"system"`
	// Strict250 compares the strict credit at [BudgetSmall] tokens.
	Strict250 PairedDelta `json:"strict_250"`
	// Strict1000 compares the strict credit at [BudgetMedium] tokens.
	Strict1000 PairedDelta `json:"strict_1000"`
	// Context250 compares the strict credit of the context blocks at [BudgetSmall] tokens; nil
	// unless both systems assemble blocks.
	Context250 *PairedDelta `json:"context_250,omitempty"`
	// Identical reports whether every question's figures and top hits' sources equal the full
	// system's: the mechanism does nothing on this path.
	Identical bool `json:"identical"`
	// SearchMeanMillis is the arm's mean time of one Search call.
	SearchMeanMillis float64 `json:"search_mean_millis"`
}

// AblationReport is the outcome of [Ablate]: one row per arm, in the arms' order.
type AblationReport struct {
	// Source is the dataset's source (its path).
	Source string `json:"source"`
	// Conversations are the sample_ids of the conversations run.
	Conversations []string `json:"conversations"`
	// Questions counts the questions compared (those with evidence).
	Questions int `json:"questions"`
	// Mode is the protocol ([PerConversation]).
	Mode Mode `json:"mode"`
	// K is the number of hits requested per question.
	K int `json:"k"`
	// Test describes the paired test ([AblationTest]).
	Test string `json:"test"`
	// StartedAt is when the arms started running (wall clock, UTC).
	StartedAt time.Time `json:"started_at"`
	// Seconds is the time the arms took.
	Seconds float64 `json:"seconds"`
	// Full holds the full system's figures.
	Full AblationFull `json:"full"`
	// Arms holds one row per arm.
	Arms []AblationRow `json:"arms"`
}

// Ablate runs every arm on ds in [PerConversation] mode with every question's figures and
// compares it with full ([CompareArm]), the full system's per-conversation result of a [Run]
// on the same dataset with [Options.PerQuestion]. Each arm is one [Run] with a progress bar of
// its own; opts gives K (which should be that of full's run) and the progress settings, and
// its Mode must be empty or [PerConversation]. The first error stops the ablation.
func Ablate(ctx context.Context, ds *Dataset, full *Result, arms []AblationArm, opts Options) (*AblationReport, error) {
	started := time.Now()
	if ds == nil || len(ds.Conversations) == 0 {
		return nil, fmt.Errorf("error ablating on LoCoMo: %w", ErrNoData)
	}
	if full == nil || full.Mode != PerConversation || len(full.PerQuestion) == 0 {
		return nil, errors.New("error ablating on LoCoMo: the full system's result must be per conversation with every question's figures")
	}
	if opts.Mode != "" && opts.Mode != PerConversation {
		return nil, fmt.Errorf("error ablating on LoCoMo: mode %s, want %s", opts.Mode, PerConversation)
	}
	if len(arms) == 0 {
		return nil, errors.New("error ablating on LoCoMo: no arms")
	}
	names := map[string]bool{full.System: true}
	for i, a := range arms {
		if a.System == nil {
			return nil, fmt.Errorf("error ablating on LoCoMo: arm %d (%s) has no system", i, a.ID)
		}
		if n := a.System.Name(); names[n] {
			return nil, fmt.Errorf("error ablating on LoCoMo: arm %d (%s) repeats the system name %q", i, a.ID, n)
		}
		names[a.System.Name()] = true
	}
	rep := &AblationReport{
		Source: ds.Source, Questions: len(full.PerQuestion), Mode: PerConversation, K: cmp.Or(opts.K, KDefault),
		Test: AblationTest, StartedAt: started.UTC(), Full: ablationFull(full),
	}
	for i := range ds.Conversations {
		rep.Conversations = append(rep.Conversations, ds.Conversations[i].SampleID)
	}
	for _, a := range arms {
		r, err := Run(ctx, ds, []System{a.System}, Options{
			Mode: PerConversation, K: opts.K, Progress: opts.Progress, PlainProgress: opts.PlainProgress, PerQuestion: true,
		})
		if err != nil {
			return nil, fmt.Errorf("error ablating %s on LoCoMo: %w", a.ID, err)
		}
		row, err := CompareArm(a.ID, full, &r.Results[0])
		if err != nil {
			return nil, err
		}
		rep.Arms = append(rep.Arms, row)
	}
	rep.Seconds = time.Since(started).Seconds()
	return rep, nil
}

// ablationFull returns the full system's figures at the compared budgets.
func ablationFull(full *Result) AblationFull {
	f := AblationFull{System: full.System, SearchMeanMillis: full.SearchMeanMillis}
	small, _ := budgetAt(full.Budgets, BudgetSmall)
	medium, _ := budgetAt(full.Budgets, BudgetMedium)
	f.Strict250, f.Strict1000, f.Context250 = small.Strict, medium.Strict, small.ContextStrict
	return f
}

// CompareArm compares arm with full question by question: both must hold the figures of the
// same questions in the same order ([Options.PerQuestion]). For the strict credit at
// [BudgetSmall] and [BudgetMedium] tokens, and for the context blocks' strict credit at
// [BudgetSmall] when every question of both carries one, it gives the mean difference (arm −
// full) with [AblationTest] on the differences. The arm is identical when every question's
// figures and top hits' sources equal the full system's.
func CompareArm(id string, full, arm *Result) (AblationRow, error) {
	fail := func(format string, args ...any) (AblationRow, error) {
		return AblationRow{}, fmt.Errorf("error comparing %s with the full system: "+format, append([]any{id}, args...)...)
	}
	if full == nil || arm == nil {
		return fail("no result")
	}
	fq, aq := full.PerQuestion, arm.PerQuestion
	if len(fq) == 0 || len(fq) != len(aq) {
		return fail("%d questions against %d", len(aq), len(fq))
	}
	row := AblationRow{ID: id, System: arm.System, Identical: true, SearchMeanMillis: arm.SearchMeanMillis}
	n := len(fq)
	d250, d1000 := make([]float64, n), make([]float64, n)
	dCtx := make([]float64, 0, n)
	for i := range fq {
		f, a := &fq[i], &aq[i]
		if f.Conversation != a.Conversation || f.Index != a.Index {
			return fail("question %d is %s qa[%d] against %s qa[%d]", i, a.Conversation, a.Index, f.Conversation, f.Index)
		}
		var fs, as [2]BudgetFigures
		for j, t := range []int{BudgetSmall, BudgetMedium} {
			var ok1, ok2 bool
			fs[j], ok1 = budgetAt(f.Score.Budgets, t)
			as[j], ok2 = budgetAt(a.Score.Budgets, t)
			if !ok1 || !ok2 {
				return fail("%s qa[%d] has no figures at %d tokens", f.Conversation, f.Index, t)
			}
		}
		d250[i] = as[0].Strict - fs[0].Strict
		d1000[i] = as[1].Strict - fs[1].Strict
		if fs[0].ContextStrict != nil && as[0].ContextStrict != nil {
			dCtx = append(dCtx, *as[0].ContextStrict-*fs[0].ContextStrict)
		}
		if !reflect.DeepEqual(f.Score, a.Score) || !slices.EqualFunc(f.Top, a.Top, slices.Equal) {
			row.Identical = false
		}
	}
	var err error
	if row.Strict250, err = pairedDelta(d250); err != nil {
		return fail("strict credit at %d tokens: %w", BudgetSmall, err)
	}
	if row.Strict1000, err = pairedDelta(d1000); err != nil {
		return fail("strict credit at %d tokens: %w", BudgetMedium, err)
	}
	if len(dCtx) == n {
		c, err := pairedDelta(dCtx)
		if err != nil {
			return fail("context credit at %d tokens: %w", BudgetSmall, err)
		}
		row.Context250 = &c
	}
	return row, nil
}

// pairedDelta returns the mean of the differences d with the Wilcoxon signed-rank test on them.
func pairedDelta(d []float64) (PairedDelta, error) {
	mean, err := simstat.Mean(d)
	if err != nil {
		return PairedDelta{}, err
	}
	w, err := simstat.WilcoxonSignedRankDiffs(d)
	if err != nil {
		return PairedDelta{}, err
	}
	return PairedDelta{Delta: mean, P: w.P, N: w.N}, nil
}

// errNilAblation is returned by the ablation writers for a nil report.
var errNilAblation = errors.New("error writing the LoCoMo ablation: nil report")

// WriteAblation creates dir if needed and writes the report there as [AblationJSON] and
// [AblationMarkdown].
func WriteAblation(dir string, r *AblationReport) error {
	if r == nil {
		return errNilAblation
	}
	return writeFiles(dir, r, []reportFile[*AblationReport]{
		{AblationJSON, WriteAblationJSON}, {AblationMarkdown, WriteAblationMarkdown},
	})
}

// WriteAblationJSON writes the report as indented JSON.
func WriteAblationJSON(w io.Writer, r *AblationReport) error {
	if r == nil {
		return errNilAblation
	}
	return encodeJSON(w, r, "LoCoMo ablation JSON")
}

// WriteAblationMarkdown writes the report as Markdown: the data and the full system's figures,
// a legend, and one table row per arm in the report's order.
func WriteAblationMarkdown(w io.Writer, r *AblationReport) error {
	if r == nil {
		return errNilAblation
	}
	var b strings.Builder
	f := r.Full
	b.WriteString("# LoCoMo mechanism ablation\n\n")
	fmt.Fprintf(&b, "- Data: `%s`: %s (%d questions with evidence), %s, k = %d.\n",
		r.Source, strings.Join(r.Conversations, ", "), r.Questions, r.Mode, r.K)
	fmt.Fprintf(&b, "- Full system `%s`: strict@%d %.3f, strict@%d %.3f, context@%d %s; %.1f ms per search.\n",
		f.System, BudgetSmall, f.Strict250, BudgetMedium, f.Strict1000, BudgetSmall, optFloat(f.Context250), f.SearchMeanMillis)
	b.WriteString("- Each arm is the full system with one mechanism of the ablation registry switched off for its tenants.\n")
	b.WriteString("- Δ: the arm's figure minus the full system's, averaged over the questions. Strict: the fraction of " +
		"a question's evidence turns whose own text lies whole inside the hits packed into the budget; context: the " +
		"same for the system's own context block. A negative Δ means less evidence is delivered without the " +
		"mechanism (the mechanism helps here), a positive Δ that more is (it costs evidence here).\n")
	fmt.Fprintf(&b, "- p: %s; n: the questions whose figure changed.\n", r.Test)
	b.WriteString("- Identical: every question's figures and top hits equal the full system's: the mechanism does " +
		"nothing on this path.\n")
	fmt.Fprintf(&b, "- Arms started %s, took %.1f s.\n\n", r.StartedAt.Format("2006-01-02 15:04:05 MST"), r.Seconds)
	fmt.Fprintf(&b, "| Mechanism | Δ strict@%d | p | n | Δ strict@%d | p | n | Δ context@%d | p | n | Identical | ms/search |\n",
		BudgetSmall, BudgetMedium, BudgetSmall)
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n")
	for _, a := range r.Arms {
		fmt.Fprintf(&b, "| %s | %s | %s |", a.ID, pairedCells(&a.Strict250), pairedCells(&a.Strict1000))
		if a.Context250 != nil {
			fmt.Fprintf(&b, " %s |", pairedCells(a.Context250))
		} else {
			b.WriteString(" – | – | – |")
		}
		fmt.Fprintf(&b, " %s | %.1f |\n", yesNo(a.Identical), a.SearchMeanMillis)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("error writing the LoCoMo ablation Markdown: %w", err)
	}
	return nil
}

// pairedCells formats a paired comparison as the table cells "Δ | p | n".
func pairedCells(d *PairedDelta) string {
	return fmt.Sprintf("%+.3f | %.4f | %d", d.Delta, d.P, d.N)
}

// optFloat formats an optional figure, "–" when absent.
func optFloat(v *float64) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprintf("%.3f", *v)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
