package perf

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/zenbrain/zb/algorithms/textproc"
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

// Markdown writes r as Markdown tables, ratios first and absolute times (ms) after them.
func (r *Results) Markdown(w io.Writer) {
	fmt.Fprintf(w, "# Performance benchmarks\n\n")
	fmt.Fprintf(w, "Run %s (%.0f s) on %s/%s, %d CPUs (load average at start: %s), PostgreSQL %s, pgvector %s. "+
		"Ratios are measured in the same run; absolute times are for context only.\n\n",
		r.Started.Format("2006-01-02 15:04 MST"), r.Duration, r.Machine.GoOS, r.Machine.GoArch, r.Machine.CPUs,
		strings.TrimSpace(r.Machine.LoadAvg), r.Machine.ServerVersion, r.Machine.Pgvector)
	if r.Machine.ServerMalloc != "" {
		fmt.Fprintf(w, "Server: shared_buffers %s, huge_pages %s (this machine: %s); allocator: %s.\n\n",
			cmp.Or(r.Machine.Settings["shared_buffers"], "?"), cmp.Or(r.Machine.Settings["huge_pages"], "?"),
			cmp.Or(r.Machine.HugePages, "unknown"), r.Machine.ServerMalloc)
	}
	if len(r.Recall) > 0 {
		fmt.Fprintf(w, "## Recall latency vs a bare HNSW top-%d query (same table, interleaved)\n\n", K)
		fmt.Fprintf(w, "| N | tenants | full p50 ratio | full p99 ratio | met | read-only p50 ratio | read-only p99 ratio | met | bare p50 / p99 (ms) | read-only p50 / p99 | full p50 / p99 | embed p50 | bare rows | split | load (s) | HNSW build (s) |\n")
		fmt.Fprintf(w, "|---:|---:|---:|---:|:---:|---:|---:|:---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, f := range r.Recall {
			fmt.Fprintf(w, "| %d | %d | %.2f× | %.2f× | %s | %.2f× | %.2f× | %s | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.3f | %.1f | %.0f %% | %.1f | %.1f |\n",
				f.N, f.Tenants, f.P50Ratio, f.P99Ratio, yes(f.Met), f.ReadOnlyP50Ratio, f.ReadOnlyP99Ratio, yes(f.ReadOnlyMet),
				f.Bare.P50, f.Bare.P99, f.ReadOnly.P50, f.ReadOnly.P99, f.Full.P50, f.Full.P99, f.Embed.P50, f.BareResults, 100*f.Split, f.Load, f.IndexBuild)
		}
		fmt.Fprintf(w, "\nTargets: p50 ≤ %.1f×, p99 ≤ %.0f×. Full = coordinator.Recall with side effects; read-only = RecallOpts.ReadOnly.\n\n", RecallP50Target, RecallP99Target)
		vis := make([]string, 0, len(r.Recall))
		for _, f := range r.Recall {
			vis = append(vis, fmt.Sprintf("%d in %d: %.1f %% (%d VACUUM)", f.N, f.Tenants, 100*f.Visible, f.VacuumRounds))
		}
		fmt.Fprintf(w, "All-visible pages of zb.memory and zb.memory_posting before the timed recalls: %s.\n\n", strings.Join(vis, "; "))
		scorers := make([]string, 0, len(r.Recall))
		for _, f := range r.Recall {
			scorers = append(scorers, fmt.Sprintf("%d in %d: %s", f.N, f.Tenants, cmp.Or(f.LexicalScorer, "sql (before 0032)")))
		}
		fmt.Fprintf(w, "Lexical scorer (zb.lexical_scorer(), migration 0032): %s.\n\n", strings.Join(scorers, "; "))
		indexes := make([]string, 0, len(r.Recall))
		for _, f := range r.Recall {
			if f.HNSW != "" {
				indexes = append(indexes, fmt.Sprintf("%d in %d: %s, %.0f MiB", f.N, f.Tenants, f.HNSW, f.IndexMiB))
			}
		}
		if len(indexes) > 0 {
			fmt.Fprintf(w, "HNSW index (`zb.memory_embedding_hnsw_idx`): %s.\n\n", strings.Join(indexes, "; "))
		}
		partsMarkdown(w, r.Recall)
		floorMarkdown(w, r.Recall)
		accurateMarkdown(w, r.Recall)
		layerLadderMarkdown(w, r.Recall)
	}
	if len(r.Filtered) > 0 {
		fmt.Fprintf(w, "## Filtered search (one tenant, one layer): ANN recall@%d vs exact\n\n", K)
		fmt.Fprintf(w, "| N | tenants | setting | recall@10 | min | met | ANN p50 / p99 (ms) | exact p50 / p99 (ms) | rows per filter | plan |\n")
		fmt.Fprintf(w, "|---:|---:|---|---:|---:|:---:|---:|---:|---:|---|\n")
		for _, f := range r.Filtered {
			fmt.Fprintf(w, "| %d | %d | %s | %.3f | %.2f | %s | %.2f / %.2f | %.2f / %.2f | %.0f | %s |\n", f.N, f.Tenants, f.Setting,
				f.RecallAt10, f.MinRecall, yes(f.Met), f.Latency.P50, f.Latency.P99, f.Exact.P50, f.Exact.P99, f.MeanMatches, f.Scan)
		}
		fmt.Fprintf(w, "\nTarget: recall@10 ≥ %.2f.\n\n", FilteredRecallTarget)
	}
	if f := r.Writes; f != nil {
		fmt.Fprintf(w, "## Writes\n\n")
		fmt.Fprintf(w, "| import rows | batch | StoreBatch/COPY throughput | target | met | StoreBatch (s) | rows/s | COPY (s) | rows/s | embed per text (ms, excluded) |\n")
		fmt.Fprintf(w, "|---:|---:|---:|---:|:---:|---:|---:|---:|---:|---:|\n")
		fmt.Fprintf(w, "| %d | %d | %.2f× | ≥ %.1f× | %s | %.2f | %.0f | %.2f | %.0f | %.3f |\n\n", f.Rows, f.BatchSize, f.ImportRatio,
			f.ImportTarget, yes(f.ImportMet), f.StoreBatch, f.StoreBatchPerSecond, f.Copy, f.CopyPerSecond, f.EmbedPerText)
		fmt.Fprintf(w, "| single writes | n | p50 (ms) | p99 (ms) | max (ms) |\n|---|---:|---:|---:|---:|\n")
		fmt.Fprintf(w, "| Store (precomputed embedding) | %d | %.2f | %.2f | %.2f |\n", f.Store.N, f.Store.P50, f.Store.P99, f.Store.Max)
		fmt.Fprintf(w, "| plain INSERT (same indexes) | %d | %.2f | %.2f | %.2f |\n", f.Insert.N, f.Insert.P50, f.Insert.P99, f.Insert.Max)
		fmt.Fprintf(w, "| Store, embedding deferred to derive | %d | %.2f | %.2f | %.2f |\n", f.Deferred.N, f.Deferred.P50, f.Deferred.P99, f.Deferred.Max)
		fmt.Fprintf(w, "| plain INSERT without vector (same indexes) | %d | %.2f | %.2f | %.2f |\n\n", f.InsertNoVector.N,
			f.InsertNoVector.P50, f.InsertNoVector.P99, f.InsertNoVector.Max)
		fmt.Fprintf(w, "Store p50 / INSERT p50: %.2f×; deferred Store p50 / INSERT without vector p50: %.2f×.\n\n", f.StoreRatio, f.DeferredRatio)
	}
	if f := r.Load; f != nil {
		worker := "worker running in-process"
		switch {
		case !f.Worker:
			worker = "no worker"
		case f.WorkerBinary != "":
			worker = "zbworker running as a separate process"
		}
		fmt.Fprintf(w, "## Load test: %d clients, recall:store 9:1, %.0f s, %d memories over %d tenants, %s, pool %d\n\n",
			f.Clients, f.Duration, f.N, f.Tenants, worker, f.PoolSize)
		fmt.Fprintf(w, "| ops | errors | throughput (ops/s) | recall p50 / p99 (ms) | store p50 / p99 (ms) | side effects skipped | stored | derived by the end |\n")
		fmt.Fprintf(w, "|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		fmt.Fprintf(w, "| %d | %d | %.1f | %.1f / %.1f | %.1f / %.1f | %d | %d | %d |\n\n", f.Ops, f.Errors, f.Throughput,
			f.Recall.P50, f.Recall.P99, f.Store.P50, f.Store.P99, f.SideEffectsSkipped, f.Stored, f.DerivedDuring)
		for _, e := range f.FirstErrors {
			fmt.Fprintf(w, "- error: %s\n", textproc.OneLine(e, 200))
		}
		f.memoryMarkdown(w)
		if len(f.TopStatements) > 0 {
			stmtstats.Markdown(w, "Top statements (pg_stat_statements, by total time):", f.TopStatements)
		} else if f.StatementsUnavailable != "" {
			fmt.Fprintf(w, "pg_stat_statements unavailable: %s\n\n", f.StatementsUnavailable)
		}
	}
}

// partsMarkdown reports where the read-only recalls' time went (RecallResult.Timing, p50s).
func partsMarkdown(w io.Writer, figs []RecallFigure) {
	fmt.Fprintf(w, "### Where a read-only recall's time goes (p50, ms, in this process: a part includes its round trips)\n\n")
	fmt.Fprintf(w, "| N | tenants | bare | recall | candidates | vector half | lexical half | join | slower half / bare | rank | embed | side effects (full) |\n")
	fmt.Fprintf(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, f := range figs {
		p := f.Parts
		half := func(l Latency) string {
			if p.Slower.N == 0 {
				return "—"
			}
			return fmt.Sprintf("%.2f", l.P50)
		}
		slower := "— (one statement)"
		if p.Slower.N > 0 {
			slower = fmt.Sprintf("%.2f× (%d split)", p.SlowerRatio, p.Slower.N)
		}
		fmt.Fprintf(w, "| %d | %d | %.2f | %.2f | %.2f | %s | %s | %s | %s | %.3f | %.3f | %.2f |\n", f.N, f.Tenants, f.Bare.P50,
			f.ReadOnly.P50, p.Candidates.P50, half(p.VectorHalf), half(p.LexicalHalf), half(p.Join), slower, p.Rank.P50, p.Embed.P50,
			p.SideEffects.P50)
	}
	fmt.Fprintf(w, "\nA split recall waits for its slower half, then the join: its read-only ratio cannot fall below the slower half's.\n\n")
}

// floorMarkdown reports the least vector work of recall's candidate generation (Floor)
// against the bare query and recall, for the figures that measured it.
func floorMarkdown(w io.Writer, figs []RecallFigure) {
	header := false
	for _, f := range figs {
		fl := f.Floor
		if fl == nil {
			continue
		}
		if !header {
			fmt.Fprintf(w, "### Recall's least vector work as one plain statement (each layer's top %d by cosine)\n\n", K)
			fmt.Fprintf(w, "| N | tenants | statement | its p50 / p99 (ms) | over the bare query, p50 / p99 | read-only recall over it, p50 | candidates | checked against recall's vector half | at the ef_search of the accuracy bar, alternated with the bare query: p50 (ms) |\n")
			fmt.Fprintf(w, "|---:|---:|---|---:|---:|---:|---:|---:|---:|\n")
			header = true
		}
		what := fl.Kind
		if fl.Kind == FloorScan {
			what += fmt.Sprintf(" at ef_search %d", fl.EfSearch)
		}
		bar := "—"
		if x := fl.AtBar; x != nil {
			bar = fmt.Sprintf("ef %d: %.2f / %.2f = **%.2f×** (%d each)", fl.BarEf, x.P50, x.OtherP50, x.Ratio, x.N)
		}
		fmt.Fprintf(w, "| %d | %d | %s | %.2f / %.2f | **%.2f×** / %.2f× | %.2f× | %.1f | %d | %s |\n", f.N, f.Tenants, what,
			fl.Latency.P50, fl.Latency.P99, fl.P50Ratio, fl.P99Ratio, fl.RecallP50Ratio, fl.Rows, fl.Checked, bar)
	}
	if header {
		fmt.Fprintf(w, "\nA lower bound of recall's time, timed interleaved with the bare query and recall: in tenants of up to %d "+
			"memories (recall's vector half sorts them exactly) the tenant's rows sorted by distance within each layer; above, the "+
			"tenant's %d nearest from one HNSW scan at recall's ef_search, each layer's top %d among them. Left out: the lexical "+
			"half, the corpus statistics, the session neighbours and edges, the rows' columns, the fusion and the client's work. "+
			"Its candidates were checked to be among recall's vector half's on the warm-up questions. Where it is near or above "+
			"the target ratio (%.1f×), recall at its ef_search cannot meet the target. The last column is the same scan at the "+
			"ef_search the one scan's per-layer ladder (below) found at the accuracy bar on this graph, timed against the bare "+
			"query question by question over %d passes of fresh questions: the least vector work of a recall whose ef_search "+
			"fitted this graph exactly.\n\n", FloorExactMax, 10*K, K, RecallP50Target, InterleaveRounds)
	}
}

// accurateMarkdown reports recall against the bare query held to the accuracy bar
// (AccurateBare), for the figures that measured it.
func accurateMarkdown(w io.Writer, figs []RecallFigure) {
	var with []RecallFigure
	for _, f := range figs {
		if f.Accurate != nil {
			with = append(with, f)
		}
	}
	if len(with) == 0 {
		return
	}
	fmt.Fprintf(w, "### Recall against the bare query at the accuracy bar (recall@%d ≥ %.2f against exact)\n\n", K, FilteredRecallTarget)
	fmt.Fprintf(w, "| N | tenants | bare query's recall@%d (ef 100) | ef_search at the bar | its recall@%d | its p50 / p99 (ms) | read-only p50 / p99 ratio | full p50 / p99 ratio | ladder (ef: recall@%d) |\n", K, K, K)
	fmt.Fprintf(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, f := range with {
		a := f.Accurate
		ladder := make([]string, 0, len(a.Ladder))
		for _, s := range a.Ladder {
			ladder = append(ladder, fmt.Sprintf("%d: %.3f", s.EfSearch, s.RecallAt10))
		}
		ef := fmt.Sprint(a.EfSearch)
		if !a.Reached {
			ef += " (bar not reached)"
		} else if !a.Timed {
			ef += " (the bare query itself)"
		}
		fmt.Fprintf(w, "| %d | %d | %.3f | %s | %.3f | %.2f / %.2f | %.2f× / %.2f× | %.2f× / %.2f× | %s |\n", f.N, f.Tenants, a.BareRecall(), ef,
			a.Ladder[len(a.Ladder)-1].RecallAt10, a.Latency.P50, a.Latency.P99, a.ReadOnlyP50Ratio, a.ReadOnlyP99Ratio,
			a.P50Ratio, a.P99Ratio, strings.Join(ladder, ", "))
	}
	fmt.Fprintf(w, "\nIssue 10's ratios are against the bare query at ef_search 100 (first table), whatever its accuracy; recall's vector "+
		"half keeps each layer's top %d at recall@%d ≥ %.2f. Here the bare query is held to that bar too: the smallest ef_search of "+
		"the ladder at which its top %d reaches it over %d calibration questions, timed interleaved with the others.\n\n",
		K, K, FilteredRecallTarget, K, with[0].Accurate.Queries)
}

// layerLadderMarkdown reports the per-layer accuracy of recall's one-scan shape by ef_search
// (LayerLadder), for the figures that measured it.
func layerLadderMarkdown(w io.Writer, figs []RecallFigure) {
	header := false
	for _, f := range figs {
		l := f.LayerLadder
		if l == nil {
			continue
		}
		if !header {
			fmt.Fprintf(w, "### Per-layer accuracy of recall's one HNSW scan by ef_search (the %d nearest, each layer's top %d)\n\n", 10*K, K)
			fmt.Fprintf(w, "| N | tenants | HNSW | ef_search at the bar | recall's ef_search (zb.recall_ef_search) | ladder (ef: recall@%d, p50 ms) |\n", K)
			fmt.Fprintf(w, "|---:|---:|---|---:|---:|---|\n")
			header = true
		}
		fmt.Fprintf(w, "| %d | %d | %s | %s | %d | %s |\n", f.N, f.Tenants, f.HNSW, l.barText(), l.RuleEf, l.stepsText())
	}
	if header {
		fmt.Fprintf(w, "\nThe filtered-search questions (one tenant, one layer): the tenant's %d nearest rows by one relaxed HNSW scan at each "+
			"ef_search, the question layer's top %d among them against its exact top %d. The ef_search at the bar is what per-layer "+
			"recall@%d ≥ %.2f needs on this graph; recall's own scan (filtered table, \"every layer\") runs at the rule's.\n\n",
			10*K, K, K, K, FilteredRecallTarget)
	}
	partialLadderMarkdown(w, figs)
	halfvecLadderMarkdown(w, figs)
}

// barText is the ladder's chosen ef_search, marked when it did not reach the bar.
func (l *LayerLadder) barText() string {
	if !l.Reached {
		return fmt.Sprintf("%d (bar not reached)", l.EfSearch)
	}
	return fmt.Sprint(l.EfSearch)
}

// stepsText lists the ladder's steps as "ef: recall@10, p50".
func (l *LayerLadder) stepsText() string {
	steps := make([]string, 0, len(l.Steps))
	for _, s := range l.Steps {
		steps = append(steps, fmt.Sprintf("%d: %.3f, %.2f", s.EfSearch, s.RecallAt10, s.P50))
	}
	return strings.Join(steps, "; ")
}

// partialLadderMarkdown reports the per-layer accuracy of partial per-layer HNSW graphs
// (PartialLadder) against the one scan's, for the figures that measured it.
func partialLadderMarkdown(w io.Writer, figs []RecallFigure) {
	altLadderMarkdown(w, figs, func(f RecallFigure) *LayerLadder { return f.PartialLadder },
		fmt.Sprintf("Per-layer accuracy of partial per-layer HNSW graphs by ef_search (a scan of each layer's graph, its top %d)", K),
		"partial graphs", "", nil,
		fmt.Sprintf("The same questions, with one partial HNSW index per layer (`WHERE layer = … AND status = 'active'`, built for the "+
			"filtered figures and dropped after them): the %d layers' top %d by a scan of each graph in one statement, as recall "+
			"would run them, the question layer's rows against its exact top %d.", len(searchLayers), K, K))
}

// halfvecLadderMarkdown reports the per-layer accuracy of recall's one-scan shape on a
// half-precision graph (HalfvecLadder) against the one scan's on the vector graph.
func halfvecLadderMarkdown(w io.Writer, figs []RecallFigure) {
	altLadderMarkdown(w, figs, func(f RecallFigure) *LayerLadder { return f.HalfvecLadder },
		fmt.Sprintf("Per-layer accuracy of recall's one scan on a half-precision graph by ef_search (the %d nearest, each layer's top %d)", 10*K, K),
		"halfvec graph", "graph / vector graph", func(f RecallFigure, l *LayerLadder) string {
			return fmt.Sprintf("%.0f / %.0f MiB", l.IndexMiB, f.IndexMiB)
		},
		fmt.Sprintf("The same questions and statement as the one scan's ladder, on an HNSW graph of half-precision copies of the "+
			"vectors (`(embedding::halfvec(N)) halfvec_cosine_ops`, the recall graph's m and ef_construction; built after the "+
			"filtered figures and dropped after this ladder), both sides of the distance cast to halfvec; its size against the "+
			"vector graph's. The bare query would use the same graph."))
}

// altLadderMarkdown reports another graph's per-layer ladder (of) against the one scan's, for
// the figures that measured it: title, the statement's label, an extra column (its header and
// cells; nil for none) and the note under the table.
func altLadderMarkdown(w io.Writer, figs []RecallFigure, of func(RecallFigure) *LayerLadder, title, label string,
	extraHead string, extra func(RecallFigure, *LayerLadder) string, note string,
) {
	header := false
	for _, f := range figs {
		p := of(f)
		if p == nil {
			continue
		}
		if !header {
			fmt.Fprintf(w, "### %s\n\n", title)
			fmt.Fprintf(w, "| N | tenants | ef_search at the bar | ladder (ef: recall@%d, p50 ms) | p50 at the bars, alternated (ms): %s / one scan | plan |", K, label)
			sep := "|---:|---:|---:|---|---:|---|"
			if extra != nil {
				fmt.Fprintf(w, " %s |", extraHead)
				sep += "---:|"
			}
			fmt.Fprintf(w, "\n%s\n", sep)
			header = true
		}
		x := ""
		if extra != nil {
			x = " | " + extra(f, p)
		}
		cmp := "—"
		if x := p.Interleaved; x != nil && f.LayerLadder != nil {
			cmp = fmt.Sprintf("%.2f / %.2f = **%.2f×** (ef %d / %d, %d each)", x.P50, x.OtherP50, x.Ratio, p.EfSearch, f.LayerLadder.EfSearch, x.N)
		}
		fmt.Fprintf(w, "| %d | %d | %s | %s | %s | %s%s |\n", f.N, f.Tenants, p.barText(), p.stepsText(), cmp, p.Scan, x)
	}
	if header {
		fmt.Fprintf(w, "\n%s Then each statement at its own bar (the ladder's chosen step; the one scan's from the table above), "+
			"alternated question by question over %d passes: the ladders' p50s are minutes apart.\n\n", note, InterleaveRounds)
	}
}

// memoryMarkdown reports the resident set watched during the load test, and the zbworker
// process's goroutines, connections and exit when it ran apart.
func (f *LoadFigure) memoryMarkdown(w io.Writer) {
	whose := "the benchmark process (clients, coordinator and the in-process worker)"
	if f.WorkerBinary != "" {
		whose = fmt.Sprintf("the zbworker process (`%s`)", filepath.Base(f.WorkerBinary))
	}
	if f.RSSUnavailable != "" {
		fmt.Fprintf(w, "Resident set of %s: unavailable (%s).\n\n", whose, textproc.OneLine(f.RSSUnavailable, 200))
		return
	}
	fmt.Fprintf(w, "Resident set of %s during the test: **%.1f MiB** at most (%d samples every %s; VmHWM %.1f MiB); target ≤ %d MiB: %s.",
		whose, f.RSSMiB, f.RSSSamples, RSSInterval, f.RSSHWMMiB, RSSTargetMiB, yes(f.RSSMet))
	if f.WorkerBinary != "" {
		fmt.Fprintf(w, " Its goroutines %d before the clients, %d after them; at most %d connections (pool %d); on SIGTERM: %s.",
			f.WorkerGoroutinesStart, f.WorkerGoroutinesEnd, f.WorkerConns, f.WorkerConnsLimit, textproc.OneLine(f.WorkerExit, 200))
	}
	fmt.Fprintf(w, "\n\n")
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}
