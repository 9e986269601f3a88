package experiments

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/zenbrain/zb/bench/ablation"
	"github.com/zenbrain/zb/bench/locomo"
	"github.com/zenbrain/zb/bench/locomo/zbsystem"
	"github.com/zenbrain/zb/coordinator"
)

// ---- 4. Long-horizon aging --------------------------------------------------------------

// AgingWorkload is the world of the aging comparison (the harness's competitive comparison:
// 100 facts, 50 fact queries, base decay 0.15/day), over 60 days.
var AgingWorkload = ablation.Workload{Name: "aging-60d", Facts: 100, Queries: 50, Days: 60, BaseDecay: 0.15}

// AgingDays are the checkpoints of the aging comparison.
var AgingDays = []int{1, 7, 14, 30, 60}

// Simple Memory's parameters (the harness's "Simple Memory": s = (0.4 + 0.6·importance)·e^(−0.15·days),
// retrievable only while s > 0.1, score = cos·(0.5 + 0.5·s)).
const (
	SimpleDecay      = 0.15
	SimpleThreshold  = 0.1
	SimpleImportance = 0.5
)

// AgingSystem is one system's P@5 at the checkpoints, averaged over the seeds.
type AgingSystem struct {
	Name        string    `json:"name"`
	Description string    `json:"description"`
	P5          []float64 `json:"p5"`
	// Retention is the full system's retention at the checkpoints (nil for the baselines).
	Retention []float64 `json:"retention,omitempty"`
}

// Aging compares Static RAG, Simple Memory and the full system as the memories age.
type Aging struct {
	Workload ablation.Workload `json:"workload"`
	Days     []int             `json:"days"`
	Systems  []AgingSystem     `json:"systems"`
	// P60FullVsSimple is the Wilcoxon p of full against Simple Memory at day 30 (per seed).
	PFullVsSimple30 float64 `json:"p_full_vs_simple_day30"`
	// PFullVsStatic60 is the Wilcoxon p of full against Static RAG at the last day.
	PFullVsStaticLast float64 `json:"p_full_vs_static_last"`
}

func aging(ctx context.Context, c *Config) (*Aging, error) {
	var specs []ablation.RunSpec
	var worlds []*ablation.World
	for _, seed := range c.Seeds {
		w, err := ablation.NewWorld(AgingWorkload, seed)
		if err != nil {
			return nil, err
		}
		worlds = append(worlds, w)
		specs = append(specs, ablation.RunSpec{World: w, Arm: "full", Checkpoints: AgingDays})
	}
	runs, err := c.runAll(ctx, specs, "aging")
	if err != nil {
		return nil, err
	}
	out := &Aging{Workload: AgingWorkload, Days: AgingDays}
	full := AgingSystem{
		Name: "full", Description: "zenbrain, every mechanism and lifecycle job, with the daily traffic",
		P5: make([]float64, len(AgingDays)), Retention: make([]float64, len(AgingDays)),
	}
	static := AgingSystem{
		Name: "Static RAG", Description: "cosine over every stored text (same embedder), no forgetting, no updates",
		P5: make([]float64, len(AgingDays)),
	}
	simple := AgingSystem{
		Name: "Simple Memory", Description: "s = 0.7·e^(−0.15·age), retrievable while s > 0.1, score = cos·(0.5 + 0.5·s)",
		P5: make([]float64, len(AgingDays)),
	}
	n := float64(len(c.Seeds))
	var full30, simple30, fullLast, staticLast []float64
	for s, w := range worlds {
		r := runs[s]
		b, err := newBaselines(ctx, c, w)
		if err != nil {
			return nil, err
		}
		for i, d := range AgingDays {
			var cp *ablation.Checkpoint
			for j := range r.Checkpoints {
				if r.Checkpoints[j].Day == d {
					cp = &r.Checkpoints[j]
				}
			}
			if cp == nil {
				return nil, fmt.Errorf("checkpoint day %d missing", d)
			}
			full.P5[i] += cp.P5 / n
			full.Retention[i] += cp.Retention / n
			sp, mp := b.p5(d, false), b.p5(d, true)
			static.P5[i] += sp / n
			simple.P5[i] += mp / n
			if d == 30 {
				full30, simple30 = append(full30, cp.P5), append(simple30, mp)
			}
			if i == len(AgingDays)-1 {
				fullLast, staticLast = append(fullLast, cp.P5), append(staticLast, sp)
			}
		}
	}
	out.Systems = []AgingSystem{static, simple, full}
	out.PFullVsSimple30 = wilcoxonP(full30, simple30)
	out.PFullVsStaticLast = wilcoxonP(fullLast, staticLast)
	return out, nil
}

// baselines scores the harness's Static RAG and Simple Memory over a world's texts.
type baselines struct {
	w    *ablation.World
	docs []baseDoc
	qv   map[int][]float32
}

type baseDoc struct {
	key  string
	at   time.Time
	vec  []float32
	text string
}

func newBaselines(ctx context.Context, c *Config, w *ablation.World) (*baselines, error) {
	b := &baselines{w: w, qv: map[int][]float32{}}
	day := func(d, h, m int) time.Time {
		return ablation.Start.Add(time.Duration(d)*24*time.Hour + time.Duration(h)*time.Hour + time.Duration(m)*time.Minute)
	}
	for _, f := range w.Facts {
		b.docs = append(b.docs, baseDoc{key: f.Key, at: day(f.Day, 8, 0), text: f.Text})
		if f.Revision != nil {
			b.docs = append(b.docs, baseDoc{key: f.Revision.Key, at: day(f.Revision.Day, 15, 0), text: f.Revision.Text})
		}
	}
	for _, e := range w.Episodes {
		b.docs = append(b.docs, baseDoc{key: e.Key, at: day(e.Day, 9, 0), text: e.Text})
	}
	texts := make([]string, len(b.docs))
	for i, d := range b.docs {
		texts[i] = d.text
	}
	vs, err := c.Env.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("error embedding the baseline documents: %w", err)
	}
	for i := range b.docs {
		b.docs[i].vec = vs[i]
	}
	var qs []string
	for _, qi := range w.Eval {
		qs = append(qs, w.Queries[qi].Text)
	}
	qvs, err := c.Env.Embedder.Embed(ctx, qs)
	if err != nil {
		return nil, fmt.Errorf("error embedding the baseline queries: %w", err)
	}
	for i, qi := range w.Eval {
		b.qv[qi] = qvs[i]
	}
	return b, nil
}

// p5 is the P@5 of Static RAG (simple false) or Simple Memory (true) on the morning after
// days days, over the world's evaluation queries askable by then.
func (b *baselines) p5(days int, simple bool) float64 {
	now := ablation.Start.Add(time.Duration(days)*24*time.Hour + 8*time.Hour)
	asOf := days - 1
	type scored struct {
		key   string
		score float64
	}
	var sum float64
	n := 0
	for _, qi := range b.w.Eval {
		q := b.w.Queries[qi]
		if q.FromDay > asOf {
			continue
		}
		var cands []scored
		for _, d := range b.docs {
			if d.at.After(now) {
				continue
			}
			cos := cosine(b.qv[qi], d.vec)
			if simple {
				age := now.Sub(d.at).Hours() / 24
				s := (0.4 + 0.6*SimpleImportance) * math.Exp(-SimpleDecay*age)
				if s <= SimpleThreshold {
					continue
				}
				cos *= 0.5 + 0.5*s
			}
			cands = append(cands, scored{d.key, cos})
		}
		slices.SortStableFunc(cands, func(a, b scored) int {
			switch {
			case a.score > b.score:
				return -1
			case a.score < b.score:
				return 1
			}
			return 0
		})
		rel := map[string]bool{}
		for _, t := range q.Targets {
			rel[b.w.Current(t, asOf)] = true
		}
		found := 0
		for i := 0; i < min(5, len(cands)); i++ {
			if rel[cands[i].key] {
				found++
			}
		}
		sum += float64(found) / float64(min(5, len(rel)))
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot, na, nb = dot+x*y, na+x*x, nb+y*y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// ---- 5. NoDecay counterfactual on LoCoMo ------------------------------------------------

// LoCoMoK is the search depth of the counterfactual (locomo.KMin: enough for Recall@10).
const LoCoMoK = locomo.KMin

// LoCoMoSystem is one system's figures over all categories.
type LoCoMoSystem struct {
	Name    string  `json:"name"`
	R5      float64 `json:"recall_5"`
	R10     float64 `json:"recall_10"`
	P5      float64 `json:"p_5"`
	MRR     float64 `json:"mrr"`
	NDCG5   float64 `json:"ndcg_5"`
	R5Cat14 float64 `json:"recall_5_cat_1_4"`
	Seconds float64 `json:"seconds"`
}

// LoCoMoNoDecay is the deployed system against the same system with decay switched off, on the
// LoCoMo dev split (per conversation, lifecycle between sessions in both).
type LoCoMoNoDecay struct {
	File      string         `json:"file"`
	Questions int            `json:"questions"`
	Systems   []LoCoMoSystem `json:"systems"`
	// DeltaR5 is R@5 with decay minus R@5 without; PR5 the Wilcoxon p over the questions.
	DeltaR5 float64 `json:"delta_recall_5"`
	DeltaP5 float64 `json:"delta_p_5"`
	PR5     float64 `json:"p_recall_5"`
}

// NameNoDecay is the counterfactual system's name.
const NameNoDecay = "zenbrain-nodecay"

func locomoNoDecay(ctx context.Context, c *Config) (*LoCoMoNoDecay, error) {
	ds, err := locomo.Load(c.LoCoMoFile)
	if err != nil {
		return nil, err
	}
	withDecay, err := zbsystem.New(&zbsystem.Config{
		Pool: c.Env.Pool, Embedder: c.Env.Embedder, Name: zbsystem.NameDefault,
		Lifecycle: zbsystem.CoordinatorLifecycle,
	})
	if err != nil {
		return nil, err
	}
	noDecay, err := zbsystem.New(&zbsystem.Config{
		Pool: c.Env.Pool, Embedder: c.Env.Embedder, Name: NameNoDecay,
		Lifecycle: func(ctx context.Context, co *coordinator.Coordinator, tenant string, now time.Time) error {
			// The switch is set before the first lifecycle run and before any question; store
			// does not read it.
			if err := co.SetAlgorithm(ctx, tenant, "decay", false); err != nil {
				return err
			}
			return zbsystem.CoordinatorLifecycle(ctx, co, tenant, now)
		},
	})
	if err != nil {
		return nil, err
	}
	rep, err := locomo.Run(ctx, ds, []locomo.System{withDecay, noDecay}, locomo.Options{
		Mode: locomo.PerConversation, K: LoCoMoK,
		Progress: c.Progress, PlainProgress: c.PlainProgress, PerQuestion: true,
	})
	if err != nil {
		return nil, err
	}
	out := &LoCoMoNoDecay{File: c.LoCoMoFile}
	per := map[string]map[string]float64{}
	p5s := map[string]float64{}
	for _, r := range rep.Results {
		g, _ := r.Group(locomo.GroupAll)
		g14, _ := r.Group(locomo.Group1to4)
		out.Systems = append(out.Systems, LoCoMoSystem{
			Name: r.System, R5: g.Recall5, R10: g.Recall10, P5: g.P5, MRR: g.MRR,
			NDCG5: g.NDCG5, R5Cat14: g14.Recall5, Seconds: r.IngestSeconds + r.AfterIngestSeconds + r.SearchSeconds,
		})
		out.Questions = r.Queries
		per[r.System] = map[string]float64{}
		for _, q := range r.PerQuestion {
			per[r.System][fmt.Sprintf("%s/%d", q.Conversation, q.Index)] = q.Score.Recall5
		}
		p5s[r.System] = g.P5
	}
	var a, b []float64
	for k, v := range per[zbsystem.NameDefault] {
		if w, ok := per[NameNoDecay][k]; ok {
			a, b = append(a, v), append(b, w)
		}
	}
	out.DeltaR5 = mean(a) - mean(b)
	out.DeltaP5 = p5s[zbsystem.NameDefault] - p5s[NameNoDecay]
	out.PR5 = wilcoxonP(a, b)
	return out, nil
}
