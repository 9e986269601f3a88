package locomo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/schollz/progressbar/v3"
)

// Run defaults.
const (
	// KDefault is the default search depth: enough for MRR's cut-off at 50 and for single
	// LoCoMo turns (27 words on average, so about 57 of them) to fill the largest budget,
	// [BudgetLarge].
	KDefault = 100
	// KMin is the smallest search depth Run accepts (Recall@10 needs 10).
	KMin = 10
)

// Options configures [Run].
type Options struct {
	// Mode selects the protocol(s). Defaults to Both (the empty string).
	Mode Mode
	// K is the number of hits requested per question. Defaults to KDefault
	// (100); must be in KMin..KMax. MRR is cut at min(K, 50); the budgets are
	// packed from these K hits.
	K int
	// Progress receives a progress bar; nil means silent.
	Progress io.Writer
	// PlainProgress writes a line at every 10 % of the work instead of redrawing a bar (for
	// logs and other non-terminals).
	PlainProgress bool
	// PerQuestion keeps every question's figures (and its top hits' source
	// ids) in the report. Defaults to false.
	PerQuestion bool
}

// Report is the outcome of one [Run].
type Report struct {
	// Source is the dataset's source (its path).
	Source string `json:"source"`
	// Stats counts the dataset.
	Stats Stats `json:"stats"`
	// Cleaning lists the evidence repairs and the questions excluded for
	// empty evidence.
	Cleaning CleaningReport `json:"cleaning"`
	// Settings are the run's settings.
	Settings Settings `json:"settings"`
	// StartedAt is when the run started (wall clock, UTC).
	StartedAt time.Time `json:"started_at"`
	// Seconds is the run's total duration.
	Seconds float64 `json:"seconds"`
	// Results holds one entry per mode and system, mode-major, systems in
	// the order given to Run.
	Results []Result `json:"results"`
}

// Settings records how a run was made.
type Settings struct {
	// Modes are the protocols run, in order.
	Modes []Mode `json:"modes"`
	// Systems are the systems' names, in order.
	Systems []string `json:"systems"`
	// K is the number of hits requested per question.
	K int `json:"k"`
	// MRRCutoff is the rank cut-off of MRR.
	MRRCutoff int `json:"mrr_cutoff"`
	// PoolTenant is the shared pool's tenant.
	PoolTenant string `json:"pool_tenant"`
	// QueryTime describes the query time used.
	QueryTime string `json:"query_time"`
	// IDCG describes the NDCG@5 normalization.
	IDCG string `json:"idcg"`
	// Budgets are the context budgets in estimated tokens ([Budgets]).
	Budgets []int `json:"budgets"`
	// Packing describes how hits are packed into a budget and credited.
	Packing string `json:"packing"`
	// Descriptions maps system names to their [Describer] descriptions.
	Descriptions map[string]string `json:"descriptions,omitempty"`
}

// Result holds one system's figures under one mode.
type Result struct {
	// Mode is the protocol.
	Mode Mode `json:"mode"`
	// System is the system's name.
	System string `json:"system"`
	// Tenants counts the tenants.
	Tenants int `json:"tenants"`
	// Messages counts the messages ingested.
	Messages int `json:"messages"`
	// Queries counts the questions asked (those with evidence).
	Queries int `json:"queries"`
	// Budgets are the figures at each context budget over all questions (the budgets of
	// the [GroupAll] group).
	Budgets []BudgetFigures `json:"budgets"`
	// Top5Sources is the mean number of source ids of a hit ranked 1 to 5 (over every such
	// hit of every question).
	Top5Sources float64 `json:"top5_sources"`
	// Top5Chars is the mean number of characters of a hit ranked 1 to 5.
	Top5Chars float64 `json:"top5_chars"`
	// Groups are the macro averages: all, 1-4, then each category.
	Groups []GroupMetrics `json:"groups"`
	// IngestSeconds is the time spent in Ingest.
	IngestSeconds float64 `json:"ingest_seconds"`
	// AfterIngestSeconds is the time spent in AfterIngest.
	AfterIngestSeconds float64 `json:"after_ingest_seconds"`
	// SearchSeconds is the time spent in Search.
	SearchSeconds float64 `json:"search_seconds"`
	// SearchMeanMillis is the mean time of one Search call.
	SearchMeanMillis float64 `json:"search_mean_millis"`
	// ContextSeconds is the time spent in Context (systems that are a [ContextSystem]).
	ContextSeconds float64 `json:"context_seconds,omitempty"`
	// PerQuestion holds each question's figures when [Options.PerQuestion]
	// was set.
	PerQuestion []QuestionResult `json:"per_question,omitempty"`
}

// QuestionResult is one question's outcome for one system and mode.
type QuestionResult struct {
	// Conversation is the question's sample_id.
	Conversation string `json:"conversation"`
	// Index is the question's position in the conversation's qa list.
	Index int `json:"index"`
	// Category is the question's category.
	Category int `json:"category"`
	// Score holds the question's figures, with those at each context budget.
	Score QuestionScore `json:"score"`
	// Top holds the source ids of the top 10 hits, one entry per hit.
	Top [][]string `json:"top"`
}

// Group returns the named group's figures ([GroupAll], [Group1to4] or
// "1".."5"), or false.
func (r *Result) Group(name string) (GroupMetrics, bool) {
	for _, g := range r.Groups {
		if g.Group == name {
			return g, true
		}
	}
	return GroupMetrics{}, false
}

// Result returns the figures of system under mode, or nil.
func (r *Report) Result(mode Mode, system string) *Result {
	for i := range r.Results {
		if r.Results[i].Mode == mode && r.Results[i].System == system {
			return &r.Results[i]
		}
	}
	return nil
}

// Run measures every system on ds under opts.Mode and returns the report.
// For each mode, each system works through the plan's tenants in order
// (see [System] for the call sequence). The first error of a system or of
// ctx stops the run and is returned with the mode, system, tenant and
// question it happened at.
func Run(ctx context.Context, ds *Dataset, systems []System, opts Options) (*Report, error) {
	started := time.Now()
	if ds == nil || len(ds.Conversations) == 0 {
		return nil, fmt.Errorf("error running LoCoMo: %w", ErrNoData)
	}
	modes, err := cmp.Or(opts.Mode, Both).Modes()
	if err != nil {
		return nil, fmt.Errorf("error running LoCoMo: %w", err)
	}
	k := cmp.Or(opts.K, KDefault)
	if k < KMin || k > KMax {
		return nil, fmt.Errorf("error running LoCoMo: K is %d, want %d..%d", k, KMin, KMax)
	}
	if len(systems) == 0 {
		return nil, errors.New("error running LoCoMo: no systems")
	}
	names := make([]string, len(systems))
	seen := map[string]bool{}
	var descs map[string]string
	for i, s := range systems {
		if s == nil {
			return nil, fmt.Errorf("error running LoCoMo: system %d is nil", i)
		}
		names[i] = s.Name()
		if names[i] == "" || seen[names[i]] {
			return nil, fmt.Errorf("error running LoCoMo: system %d has an empty or repeated name %q", i, names[i])
		}
		seen[names[i]] = true
		if d, ok := s.(Describer); ok {
			if descs == nil {
				descs = map[string]string{}
			}
			descs[names[i]] = d.Describe()
		}
	}
	plans := make(map[Mode][]TenantPlan, len(modes))
	total := 0
	for _, m := range modes {
		p, err := BuildPlan(ds, m)
		if err != nil {
			return nil, fmt.Errorf("error running LoCoMo: %w", err)
		}
		plans[m] = p
		for _, tp := range p {
			total += len(systems) * (len(tp.Messages) + len(tp.Queries) + 1)
		}
	}
	rep := &Report{
		Source:    ds.Source,
		Stats:     ds.Stats(),
		Cleaning:  ds.Cleaning,
		StartedAt: started.UTC(),
		Settings: Settings{
			Modes: modes, Systems: names, K: k, MRRCutoff: min(k, MRRCutoffDefault), PoolTenant: PoolTenant,
			QueryTime:    "one second after the tenant's last turn (per conversation: last session date + its turn count in s; pool: the latest over all conversations)",
			IDCG:         "ideal DCG with min(number of evidence ids, 5) relevant hits; NDCG@5 clamped to 1",
			Budgets:      Budgets(),
			Packing:      PackingDescription,
			Descriptions: descs,
		},
	}
	bar := newBar(opts.Progress, total, opts.PlainProgress)
	for _, m := range modes {
		for _, sys := range systems {
			bar.describe(fmt.Sprintf("%-16s %-10s", m, sys.Name()))
			res, err := runOne(ctx, sys, m, plans[m], k, opts.PerQuestion, bar)
			if err != nil {
				return nil, err
			}
			rep.Results = append(rep.Results, *res)
		}
	}
	bar.finish()
	rep.Seconds = time.Since(started).Seconds()
	return rep, nil
}

// runOne measures one system under one mode.
func runOne(ctx context.Context, sys System, mode Mode, plans []TenantPlan, k int, perQ bool, bar *bar) (*Result, error) {
	name := sys.Name()
	res := &Result{Mode: mode, System: name, Tenants: len(plans)}
	var ingest, after, search, contexts time.Duration
	var top5Hits, top5Sources, top5Chars int
	var cats []int
	var scores []QuestionScore
	wrap := func(tenant, what string, err error) error {
		return fmt.Errorf("error running LoCoMo %s on %s, tenant %s, %s: %w", mode, name, tenant, what, err)
	}
	for _, p := range plans {
		if err := ctx.Err(); err != nil {
			return nil, wrap(p.Tenant, "before ingest", err)
		}
		if r, ok := sys.(TenantResetter); ok {
			if err := r.ResetTenant(ctx, p.Tenant); err != nil {
				return nil, wrap(p.Tenant, "resetting", err)
			}
		}
		for start := 0; start < len(p.Messages); {
			end := start + 1
			for end < len(p.Messages) && p.Messages[end].SessionKey == p.Messages[start].SessionKey {
				end++
			}
			t0 := time.Now()
			err := sys.Ingest(ctx, p.Tenant, p.Messages[start:end])
			ingest += time.Since(t0)
			if err != nil {
				return nil, wrap(p.Tenant, "ingesting "+p.Messages[start].SessionKey, err)
			}
			bar.add(end - start)
			res.Messages += end - start
			start = end
		}
		t0 := time.Now()
		err := sys.AfterIngest(ctx, p.Tenant, p.Now)
		after += time.Since(t0)
		if err != nil {
			return nil, wrap(p.Tenant, "after ingest", err)
		}
		bar.add(1)
		for _, q := range p.Queries {
			t0 := time.Now()
			hits, err := sys.Search(ctx, p.Tenant, q.Text, p.Now, k)
			search += time.Since(t0)
			what := q.Conversation + " qa[" + strconv.Itoa(q.Index) + "]"
			if err != nil {
				return nil, wrap(p.Tenant, "searching "+what, err)
			}
			if len(hits) > k {
				hits = hits[:k]
			}
			s, err := ScoreHits(q.Evidence, hits, min(k, MRRCutoffDefault))
			if err != nil {
				return nil, wrap(p.Tenant, "scoring "+what, err)
			}
			var spent time.Duration
			s.Budgets, spent, err = scoreBudgets(ctx, sys, p.Tenant, p.Now, q, hits)
			contexts += spent
			if err != nil {
				return nil, wrap(p.Tenant, "scoring the budgets of "+what, err)
			}
			for _, h := range hits[:min(5, len(hits))] {
				top5Hits++
				top5Sources += len(h.SourceIDs)
				top5Chars += utf8.RuneCountInString(h.Text)
			}
			cats = append(cats, q.Category)
			scores = append(scores, s)
			if perQ {
				top := make([][]string, 0, 10)
				for _, h := range hits[:min(10, len(hits))] {
					top = append(top, h.SourceIDs)
				}
				res.PerQuestion = append(res.PerQuestion, QuestionResult{
					Conversation: q.Conversation, Index: q.Index, Category: q.Category, Score: s, Top: top,
				})
			}
			bar.add(1)
		}
	}
	groups, err := Summarize(cats, scores)
	if err != nil {
		return nil, err
	}
	res.Groups = groups
	res.Budgets = groups[0].Budgets
	if top5Hits > 0 {
		res.Top5Sources = float64(top5Sources) / float64(top5Hits)
		res.Top5Chars = float64(top5Chars) / float64(top5Hits)
	}
	res.Queries = len(scores)
	res.ContextSeconds = contexts.Seconds()
	res.IngestSeconds = ingest.Seconds()
	res.AfterIngestSeconds = after.Seconds()
	res.SearchSeconds = search.Seconds()
	if len(scores) > 0 {
		res.SearchMeanMillis = float64(search.Microseconds()) / 1000 / float64(len(scores))
	}
	return res, nil
}

// bar wraps an optional progress bar; a nil *bar does nothing. A plain bar writes one line per
// 10 % of the total instead.
type bar struct {
	pb    *progressbar.ProgressBar
	w     io.Writer
	total int
	done  int
	desc  string
	start time.Time
}

// newBar returns a progress bar of total steps writing to w (lines when plain), or nil for a
// nil w.
func newBar(w io.Writer, total int, plain bool) *bar {
	if w == nil {
		return nil
	}
	if plain {
		return &bar{w: w, total: max(total, 1), desc: "LoCoMo", start: time.Now()}
	}
	return &bar{pb: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetDescription("LoCoMo"),
		progressbar.OptionOnCompletion(func() { _, _ = io.WriteString(w, "\n") }),
	)}
}

func (b *bar) add(n int) {
	switch {
	case b == nil:
	case b.pb != nil:
		_ = b.pb.Add(n)
	default:
		before := b.done * 10 / b.total
		b.done += n
		if after := b.done * 10 / b.total; after > before {
			fmt.Fprintf(b.w, "%s: %d%% (%d/%d) in %s\n", b.desc, 10*after, b.done, b.total, time.Since(b.start).Round(time.Second))
		}
	}
}

func (b *bar) describe(s string) {
	switch {
	case b == nil:
	case b.pb != nil:
		b.pb.Describe(s)
	default:
		b.desc = strings.TrimSpace(strings.Join(strings.Fields(s), " "))
	}
}

func (b *bar) finish() {
	if b != nil && b.pb != nil {
		_ = b.pb.Finish()
	}
}
