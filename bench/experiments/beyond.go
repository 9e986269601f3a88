package experiments

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/zenbrain/zb/algorithms/simstat"
	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/bench/ablation"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

// NameBeyond is the scenario-level experiment of the mechanisms that act on assembled context,
// intentions and the query log rather than on the ablation's retention (gwt, prospective,
// curiosity), and of tagging and capture, which needs weakly held facts the ablation's world
// never has (stc_rescue).
const NameBeyond = "beyond"

// Files written by [Beyond.Write].
const (
	BeyondJSON     = "beyond.json"
	BeyondMarkdown = "beyond.md"
)

// BeyondWorkload is the world of the context-level experiment: 40 facts, their episodes and 24
// queries, stored on one day (no lifecycle: these mechanisms act at read time).
var BeyondWorkload = ablation.Workload{Name: "beyond", Facts: 40, Queries: 24, Days: 1, BaseDecay: 0.15}

// Context-level experiment parameters.
const (
	// BeyondBudget is the token budget of every Context call: tight, so that assembly matters.
	BeyondBudget = 60
	// BeyondIntentions is the number of cue intentions added per run (cue: a person's name).
	BeyondIntentions = 6
	// BeyondGapTopics is the number of absent topics asked about; each is asked
	// BeyondGapAsks times.
	BeyondGapTopics = 5
	BeyondGapAsks   = 3
)

// beyondAbsent are made-up subjects that no world contains (world names are common first names).
var beyondAbsent = []string{
	"Quorvath", "Zelmirax", "Brontavel", "Kyssandor", "Thelmrik", "Vorquenne", "Xandruil",
	"Myrtagon", "Pellucor", "Drovanix",
}

// BeyondMeasure is one measure of one mechanism: its per-seed values with the mechanism on (the
// full system) and off, and the paired test.
type BeyondMeasure struct {
	Mechanism string `json:"mechanism"`
	// Measure names what is counted; Description says how.
	Measure     string    `json:"measure"`
	Description string    `json:"description"`
	On          []float64 `json:"on"`
	Off         []float64 `json:"off"`
	MeanOn      float64   `json:"mean_on"`
	MeanOff     float64   `json:"mean_off"`
	// Delta is MeanOff − MeanOn (absolute: several measures are 0 with the mechanism off).
	Delta  float64 `json:"delta"`
	P      float64 `json:"p"`
	CohenD float64 `json:"cohen_d"`
	// Differs reports that at least one seed's value differs between on and off.
	Differs bool `json:"differs"`
}

// Beyond holds the context-level measures.
type Beyond struct {
	Started  time.Time         `json:"started"`
	Seconds  float64           `json:"seconds"`
	Seeds    []uint32          `json:"seeds"`
	Workload ablation.Workload `json:"workload"`
	Budget   int               `json:"budget_tokens"`
	Measures []BeyondMeasure   `json:"measures"`
}

// beyondRun is what one tenant measured.
type beyondRun struct {
	hit, relShare, surfaced, falseSurfaced, gapPrecision, gapRecall float64
	stc                                                             stcRun
}

// RunBeyond measures, per seed, four tenants — the full system and the system without gwt,
// prospective or curiosity — on the same world: the facts and episodes are stored and derived,
// BeyondIntentions cue intentions ("ask <person> about the <value>", cue the person's name)
// are added and a working-memory slot is opened in a session; then every query of the world is
// answered by Context (BeyondBudget tokens) in that session, and BeyondGapTopics absent subjects
// are recalled BeyondGapAsks times each. Measures: the fraction of the queries' answer phrases
// in the context text, the share of the context's items that carry one, and the intentions that
// surfaced (gwt); the fraction of the intentions whose cue was mentioned that surfaced in a
// context (prospective); the precision
// and recall of the absent subjects among KnowledgeGaps' top BeyondGapTopics (curiosity).
func RunBeyond(ctx context.Context, env *ablation.Env, seeds []uint32, parallel int) (*Beyond, error) {
	if env == nil || env.Pool == nil || env.Embedder == nil {
		return nil, fmt.Errorf("%w: Env with a pool and an embedder is required", ablation.ErrBadSpec)
	}
	if seeds == nil {
		seeds = simstat.Seeds[:SeedsDefault]
	}
	parallel = cmp.Or(parallel, ablation.ParallelDefault)
	started := time.Now()
	arms := []string{"full", "gwt", "prospective", "curiosity", "stc_rescue"}
	type job struct {
		si  int
		arm string
	}
	var todo []job
	for si := range seeds {
		for _, a := range arms {
			todo = append(todo, job{si, a})
		}
	}
	out := make(map[job]beyondRun, len(todo))
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
		next     int
	)
	for range parallel {
		wg.Go(func() {
			for {
				mu.Lock()
				if next >= len(todo) || firstErr != nil {
					mu.Unlock()
					return
				}
				j := todo[next]
				next++
				mu.Unlock()
				var off []string
				if j.arm != "full" {
					off = []string{j.arm}
				}
				var r beyondRun
				var err error
				if j.arm != "stc_rescue" {
					r, err = beyondOne(ctx, env, seeds[j.si], j.arm, off)
				}
				if err == nil && (j.arm == "full" || j.arm == "stc_rescue") {
					r.stc, err = stcOne(ctx, env, seeds[j.si], j.arm == "full")
				}
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				out[j] = r
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	res := &Beyond{Started: started.UTC(), Seeds: seeds, Workload: BeyondWorkload, Budget: BeyondBudget}
	add := func(mech, measure, desc string, f func(beyondRun) float64) {
		m := BeyondMeasure{Mechanism: mech, Measure: measure, Description: desc}
		for si := range seeds {
			m.On = append(m.On, f(out[job{si, "full"}]))
			m.Off = append(m.Off, f(out[job{si, mech}]))
		}
		m.MeanOn, m.MeanOff = mean(m.On), mean(m.Off)
		m.Delta = m.MeanOff - m.MeanOn
		m.Differs = !slices.Equal(m.On, m.Off)
		m.P = wilcoxonP(m.Off, m.On)
		if d, err := simstat.CohenD(m.Off, m.On); err == nil && !math.IsNaN(d) && !math.IsInf(d, 0) {
			m.CohenD = d
		}
		res.Measures = append(res.Measures, m)
	}
	add("gwt", "context answer hit", "fraction of each query's answer phrases found in its 60-token context, mean over queries",
		func(r beyondRun) float64 { return r.hit })
	add("gwt", "relevant item share", "fraction of the context's non-core items that carry an answer phrase of the query",
		func(r beyondRun) float64 { return r.relShare })
	add("gwt", "intentions surfaced", "fraction of cue intentions whose cue was mentioned that appeared in a context "+
		"(the workspace's prospective module; the plain assembly has none)",
		func(r beyondRun) float64 { return r.surfaced })
	add("prospective", "intentions surfaced", "fraction of cue intentions whose cue was mentioned that appeared in a context",
		func(r beyondRun) float64 { return r.surfaced })
	add("prospective", "false surfacing", "fraction of cue intentions whose cue was never mentioned that appeared in a context",
		func(r beyondRun) float64 { return r.falseSurfaced })
	add("curiosity", "gap precision", fmt.Sprintf("fraction of KnowledgeGaps' top %d that name an absent subject", BeyondGapTopics),
		func(r beyondRun) float64 { return r.gapPrecision })
	add("curiosity", "gap recall", "fraction of the absent subjects among KnowledgeGaps' top 5",
		func(r beyondRun) float64 { return r.gapRecall })
	add("stc_rescue", "weak-fact retrievability at 14 days", fmt.Sprintf("mean retrievability, 14 days after storage, of the "+
		"%d facts held weakly (confidence %.1f) whose person has a strongly held fact (%.1f) formed in the same window", STCPairs, STCWeakConf, STCStrongConf),
		func(r beyondRun) float64 { return r.stc.r14 })
	add("stc_rescue", "weak facts rescued", "fraction of the weakly held facts captured by a strong related one",
		func(r beyondRun) float64 { return r.stc.rescued })
	res.Seconds = time.Since(started).Seconds()
	return res, nil
}

// beyondOne runs one tenant of the context-level experiment.
func beyondOne(ctx context.Context, env *ablation.Env, seed uint32, arm string, off []string) (beyondRun, error) {
	var r beyondRun
	w, err := ablation.NewWorld(BeyondWorkload, seed)
	if err != nil {
		return r, err
	}
	tenant := fmt.Sprintf("beyond:%d:%s", seed, arm)
	reset := func(ctx context.Context) error {
		if _, err := env.Pool.Exec(ctx, "DELETE FROM river.river_job WHERE args ->> 'tenant_id' = $1", tenant); err != nil {
			return err
		}
		_, err := env.Pool.Exec(ctx, "DELETE FROM zb.tenant WHERE id = $1", tenant)
		return err
	}
	if err := reset(ctx); err != nil {
		return r, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		_ = reset(cctx)
	}()
	clk := &ablation.Clock{}
	clk.Set(ablation.Start.Add(8 * time.Hour))
	co, err := coordinator.New(&coordinator.Config{
		Pool: env.Pool, Embedder: env.Embedder, Clock: clk,
		Forgetting: ablation.StabilityFor(BeyondWorkload.BaseDecay), Actor: "bench-beyond",
	})
	if err != nil {
		return r, err
	}
	for _, id := range off {
		if err := co.SetAlgorithm(ctx, tenant, id, false); err != nil {
			return r, err
		}
	}
	var items []coordinator.StoreInput
	for _, f := range w.Facts {
		items = append(items, coordinator.StoreInput{
			TenantID: tenant, Content: f.Text, Layer: coordinator.LayerSemantic,
			Kind: "fact", ExternalID: f.Key,
		})
	}
	for _, e := range w.Episodes {
		occ := ablation.Start.Add(9 * time.Hour)
		items = append(items, coordinator.StoreInput{
			TenantID: tenant, Content: e.Text, Layer: coordinator.LayerEpisodic,
			Kind: "episode", ExternalID: e.Key, OccurredAt: &occ,
		})
	}
	if _, err := co.StoreBatch(ctx, items); err != nil {
		return r, fmt.Errorf("beyond: storing: %w", err)
	}
	for range 100 {
		d, err := co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, Pending: true}, nil)
		if err != nil {
			return r, fmt.Errorf("beyond: deriving: %w", err)
		}
		if !d.More || len(d.Derived) == 0 {
			break
		}
	}
	sess := uuid.New()
	if _, err := co.Store(ctx, coordinator.StoreInput{
		TenantID: tenant, Content: "drafting the weekly summary of the team's news",
		Layer: coordinator.LayerWorking, SessionID: &sess,
	}); err != nil {
		return r, err
	}
	// Cue intentions on the subjects of the first facts: half of them are asked about below
	// (the queries mention them), the rest are controls whose cue never comes up.
	asked := map[string]bool{}
	for _, q := range w.Queries {
		for _, f := range w.Facts {
			if strings.Contains(q.Text, f.Person) {
				asked[f.Person] = true
			}
		}
	}
	type intent struct {
		content string
		cued    bool
	}
	var intents []intent
	seen := map[string]bool{}
	var cued, uncued int
	for _, f := range w.Facts {
		if seen[f.Person] || len(intents) >= BeyondIntentions {
			continue
		}
		seen[f.Person] = true
		isAsked := asked[f.Person]
		if (isAsked && cued >= BeyondIntentions/2) || (!isAsked && uncued >= BeyondIntentions/2) {
			continue
		}
		if isAsked {
			cued++
		} else {
			uncued++
		}
		content := fmt.Sprintf("ask %s about the %s", f.Person, f.Value)
		if _, err := co.AddIntention(ctx, tenant, coordinator.IntentionInput{
			Content: content, Cue: f.Person,
			Priority: "high",
		}); err != nil {
			return r, fmt.Errorf("beyond: adding an intention: %w", err)
		}
		intents = append(intents, intent{content, isAsked})
	}
	surfaced := map[string]bool{}
	var hits, shares []float64
	for i, q := range w.Queries {
		clk.Set(ablation.Start.Add(12*time.Hour + time.Duration(i)*5*time.Minute))
		blk, err := co.Context(ctx, tenant, &sess, q.Text, BeyondBudget)
		if err != nil {
			return r, fmt.Errorf("beyond: context: %w", err)
		}
		text := strings.ToLower(blk.Text)
		var vals []string
		for _, t := range q.Targets {
			vals = append(vals, strings.ToLower(w.Value(t)))
		}
		n := 0
		for _, v := range vals {
			if v != "" && strings.Contains(text, v) {
				n++
			}
		}
		hits = append(hits, ratioOf(n, len(vals)))
		rel, all := 0, 0
		for _, it := range blk.Items {
			if it.Section == "core" {
				continue
			}
			all++
			c := strings.ToLower(it.Content)
			for _, v := range vals {
				if v != "" && strings.Contains(c, v) {
					rel++
					break
				}
			}
		}
		shares = append(shares, ratioOf(rel, all))
		for _, in := range intents {
			if strings.Contains(text, strings.ToLower(in.content)) {
				surfaced[in.content] = true
			}
		}
	}
	r.hit, r.relShare = mean(hits), mean(shares)
	var sc, sf int
	for _, in := range intents {
		switch {
		case in.cued && surfaced[in.content]:
			sc++
		case !in.cued && surfaced[in.content]:
			sf++
		}
	}
	r.surfaced, r.falseSurfaced = ratioOf(sc, cued), ratioOf(sf, uncued)
	// Absent subjects: asked about, answered by nothing in the store.
	rng := simstat.NewMulberry32(seed)
	absent := slices.Clone(beyondAbsent)
	for i := len(absent) - 1; i > 0; i-- {
		j := rng.Intn(i + 1)
		absent[i], absent[j] = absent[j], absent[i]
	}
	absent = absent[:BeyondGapTopics]
	k := 0
	for a := range BeyondGapAsks {
		for _, name := range absent {
			f := w.Facts[rng.Intn(len(w.Facts))]
			clk.Set(ablation.Start.Add(16*time.Hour + time.Duration(k)*5*time.Minute))
			k++
			q := fmt.Sprintf("What is %s's %s?", name, f.Attr)
			if a == 1 {
				q = fmt.Sprintf("Where did %s keep the %s?", name, f.Attr)
			}
			if _, err := co.Recall(ctx, tenant, q, &coordinator.RecallOpts{K: 5}); err != nil {
				return r, fmt.Errorf("beyond: recall: %w", err)
			}
		}
	}
	gaps, err := co.KnowledgeGaps(ctx, tenant, BeyondGapTopics)
	if err != nil {
		return r, fmt.Errorf("beyond: knowledge gaps: %w", err)
	}
	found := map[string]bool{}
	good := 0
	for _, g := range gaps {
		label := strings.ToLower(g.Label)
		hit := false
		for _, name := range absent {
			for _, t := range textproc.Terms(name, textproc.DetectLang(name)) {
				if strings.Contains(label, t) {
					found[name], hit = true, true
				}
			}
		}
		if hit {
			good++
		}
	}
	r.gapPrecision = ratioOf(good, BeyondGapTopics)
	r.gapRecall = ratioOf(len(found), len(absent))
	return r, nil
}

func ratioOf(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Write stores the measures as BeyondJSON and BeyondMarkdown in dir.
func (b *Beyond) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("error creating %s: %w", dir, err)
	}
	js, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, BeyondJSON), append(js, '\n'), 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, BeyondMarkdown))
	if err != nil {
		return err
	}
	b.Markdown(f)
	return f.Close()
}

// Markdown writes the measures as a table.
func (b *Beyond) Markdown(w io.Writer) {
	fmt.Fprintf(w, "# Context-level effects: gwt, prospective, curiosity, stc_rescue\n\n")
	fmt.Fprintf(w, "%d seeds; world of %d facts and %d queries stored on one day; Context budget %d tokens; %.0f s.\n"+
		"Each mechanism switched off in a tenant of its own, compared with the full system on the same world "+
		"(Wilcoxon signed-rank over the seeds, Cohen's d of off against on).\n\n",
		len(b.Seeds), b.Workload.Facts, b.Workload.Queries, b.Budget, b.Seconds)
	fmt.Fprintf(w, "| mechanism | measure | on (full) | off | Δ (off − on) | p | d | how |\n|---|---|---:|---:|---:|---:|---:|---|\n")
	for _, m := range b.Measures {
		d := fmt.Sprintf("%.2f", m.CohenD)
		if m.CohenD == 0 && m.Delta != 0 {
			d = "—" // no variance within either arm: d is undefined
		}
		fmt.Fprintf(w, "| %s | %s | %.3f | %.3f | %+.3f | %s | %s | %s |\n", m.Mechanism, m.Measure, m.MeanOn, m.MeanOff,
			m.Delta, pv(m.P), d, m.Description)
	}
}
