package locomo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// File names written by [WriteResults].
const (
	// ResultsJSON is the JSON report.
	ResultsJSON = "results.json"
	// ResultsMarkdown is the Markdown report.
	ResultsMarkdown = "results.md"
	// ResultsChart is the bar chart: strict credit at each context budget and Recall@5, per
	// system and mode.
	ResultsChart = "recall5.png"
)

// errNilReport is returned by the writers for a nil report.
var errNilReport = errors.New("error writing LoCoMo results: nil report")

// WriteResults creates dir if needed and writes the report there as
// [ResultsJSON], [ResultsMarkdown] and [ResultsChart].
func WriteResults(dir string, r *Report) error {
	if r == nil {
		return errNilReport
	}
	return writeFiles(dir, r, []reportFile[*Report]{
		{ResultsJSON, WriteJSON}, {ResultsMarkdown, WriteMarkdown}, {ResultsChart, WriteChart},
	})
}

// reportFile is one file of a report: its name and its writer.
type reportFile[T any] struct {
	name  string
	write func(io.Writer, T) error
}

// writeFiles creates dir if needed and writes r there once per file, each whole or not at all
// (a writer's error leaves its file unwritten).
func writeFiles[T any](dir string, r T, files []reportFile[T]) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("error creating results directory: %w", err)
	}
	for _, f := range files {
		var buf bytes.Buffer
		if err := f.write(&buf, r); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("error writing %s: %w", f.name, err)
		}
	}
	return nil
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	if r == nil {
		return errNilReport
	}
	return encodeJSON(w, r, "LoCoMo JSON")
}

// encodeJSON writes v as indented JSON; what names it in the error.
func encodeJSON(w io.Writer, v any, what string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("error writing %s: %w", what, err)
	}
	return nil
}

// WriteMarkdown writes the report as Markdown: the dataset and settings; the
// headline table of evidence delivered within each context budget (strict,
// lenient, the system's own context block and characters, all categories); the
// Recall@k summary (all categories and categories 1–4) with the mean size of a
// top-5 hit; a table per mode with every group; and the durations.
func WriteMarkdown(w io.Writer, r *Report) error {
	if r == nil {
		return errNilReport
	}
	var b strings.Builder
	st := r.Stats
	fmt.Fprintf(&b, "# LoCoMo retrieval benchmark\n\n")
	fmt.Fprintf(&b, "- Data: `%s`: %d conversations, %d sessions, %d turns, %d questions.\n",
		r.Source, st.Conversations, st.Sessions, st.Turns, st.Questions)
	fmt.Fprintf(&b, "- Scored questions: %d (by category %s); excluded for empty evidence: %d.\n",
		st.Scored, categoryCounts(st.PerCategory), st.ExcludedEmptyEvidence)
	fmt.Fprintf(&b, "- Evidence repairs: %s.\n", fixCounts(r.Cleaning.Fixes))
	fmt.Fprintf(&b, "- Settings: k = %d, MRR cut at %d, NDCG@5 %s; query time: %s.\n",
		r.Settings.K, r.Settings.MRRCutoff, r.Settings.IDCG, r.Settings.QueryTime)
	fmt.Fprintf(&b, "- Budgets (estimated tokens): %s; packing: %s.\n", budgetList(r.Settings.Budgets), r.Settings.Packing)
	for _, name := range r.Settings.Systems {
		if d, ok := r.Settings.Descriptions[name]; ok {
			fmt.Fprintf(&b, "- `%s`: %s.\n", name, d)
		}
	}
	fmt.Fprintf(&b, "- Run started %s, took %.1f s.\n\n", r.StartedAt.Format("2006-01-02 15:04:05 MST"), r.Seconds)

	b.WriteString("## Evidence at a context budget\n\n")
	b.WriteString("All categories. Strict: evidence turns whose own text lies whole inside the packed hits; lenient: " +
		"also the sources of every hit delivered whole; context: strict credit of the system's own context block " +
		"(– for systems without one); chars: mean characters of the packed hits.\n\n")
	b.WriteString("| Mode | System |")
	for _, t := range r.Settings.Budgets {
		fmt.Fprintf(&b, " Strict@%d | Lenient | Context | Chars |", t)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---:|---:|---:|---:|", len(r.Settings.Budgets)) + "\n")
	for i := range r.Results {
		res := &r.Results[i]
		fmt.Fprintf(&b, "| %s | %s |", res.Mode, res.System)
		for _, t := range r.Settings.Budgets {
			f, ok := budgetAt(res.Budgets, t)
			if !ok {
				b.WriteString(" – | – | – | – |")
				continue
			}
			fmt.Fprintf(&b, " %.3f | %.3f | %s | %.0f |", f.Strict, f.Lenient, optFloat(f.ContextStrict), f.Chars)
		}
		b.WriteString("\n")
	}

	b.WriteString("\n## Recall@k\n\n")
	b.WriteString("Recall@k credits every evidence id among a hit's sources, whatever the hit's size: the last two " +
		"columns give the mean number of source turns and characters of a top-5 hit.\n\n")
	b.WriteString("| Mode | System | R@5 | R@10 | P@5 | MRR | NDCG@5 | R@5 (1–4) | R@10 (1–4) | MRR (1–4) | Top-5 sources | Top-5 chars |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for i := range r.Results {
		res := &r.Results[i]
		a, _ := res.Group(GroupAll)
		f, _ := res.Group(Group1to4)
		fmt.Fprintf(&b, "| %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f | %.0f |\n",
			res.Mode, res.System, a.Recall5, a.Recall10, a.P5, a.MRR, a.NDCG5, f.Recall5, f.Recall10, f.MRR,
			res.Top5Sources, res.Top5Chars)
	}
	for _, m := range r.Settings.Modes {
		fmt.Fprintf(&b, "\n## %s\n\n", m)
		b.WriteString("| System | Group | Questions | R@5 | R@10 | P@5 | MRR | NDCG@5 |")
		for _, t := range r.Settings.Budgets {
			fmt.Fprintf(&b, " Strict@%d |", t)
		}
		b.WriteString("\n|---|---|---:|---:|---:|---:|---:|---:|" + strings.Repeat("---:|", len(r.Settings.Budgets)) + "\n")
		for i := range r.Results {
			res := &r.Results[i]
			if res.Mode != m {
				continue
			}
			for _, g := range res.Groups {
				fmt.Fprintf(&b, "| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f |",
					res.System, groupLabel(g.Group), g.Questions, g.Recall5, g.Recall10, g.P5, g.MRR, g.NDCG5)
				for _, t := range r.Settings.Budgets {
					if f, ok := budgetAt(g.Budgets, t); ok {
						fmt.Fprintf(&b, " %.3f |", f.Strict)
					} else {
						b.WriteString(" – |")
					}
				}
				b.WriteString("\n")
			}
		}
	}
	b.WriteString("\n## Durations\n\n")
	b.WriteString("| Mode | System | Tenants | Messages | Queries | Ingest s | After-ingest s | Search s | ms/query | Context s |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for i := range r.Results {
		res := &r.Results[i]
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f |\n",
			res.Mode, res.System, res.Tenants, res.Messages, res.Queries,
			res.IngestSeconds, res.AfterIngestSeconds, res.SearchSeconds, res.SearchMeanMillis, res.ContextSeconds)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("error writing LoCoMo Markdown: %w", err)
	}
	return nil
}

// budgetAt returns the figures at budget tokens, or false.
func budgetAt(figs []BudgetFigures, tokens int) (BudgetFigures, bool) {
	for _, f := range figs {
		if f.Tokens == tokens {
			return f, true
		}
	}
	return BudgetFigures{}, false
}

// budgetList formats budgets as "250, 1000 and 2000".
func budgetList(budgets []int) string {
	parts := make([]string, len(budgets))
	for i, t := range budgets {
		parts[i] = strconv.Itoa(t)
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// groupLabel names a group for tables.
func groupLabel(g string) string {
	switch g {
	case GroupAll:
		return "all"
	case Group1to4:
		return "1–4"
	}
	names := map[string]string{"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop", "5": "adversarial"}
	if n, ok := names[g]; ok {
		return g + " " + n
	}
	return g
}

// categoryCounts formats per-category counts as "1: n, 2: n, ...".
func categoryCounts(m map[string]int) string {
	parts := make([]string, 0, NumCategories)
	for c := 1; c <= NumCategories; c++ {
		parts = append(parts, fmt.Sprintf("%d: %d", c, m[fmt.Sprint(c)]))
	}
	return strings.Join(parts, ", ")
}

// fixCounts formats evidence repair counts in a fixed order.
func fixCounts(m map[FixKind]int) string {
	var parts []string
	for _, k := range []FixKind{FixSplit, FixNormalized, FixParentheses, FixBareD, FixUnknown, FixMalformed, FixDuplicate} {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Chart size of [WriteChart]: one panel of chartWidth × chartPanelHeight per mode.
const (
	chartWidth       = 20 * vg.Centimeter
	chartPanelHeight = 9 * vg.Centimeter
	chartBarWidth    = 9 // points
)

// WriteChart writes a PNG bar chart with one panel per mode: for each system,
// one bar per context budget with its strict credit (all categories), then a
// grey bar with its Recall@5, each labelled with its value. A report without
// systems or modes gives an error.
func WriteChart(w io.Writer, r *Report) (err error) {
	if r == nil {
		return errNilReport
	}
	if len(r.Settings.Systems) == 0 || len(r.Settings.Modes) == 0 {
		return errors.New("error charting LoCoMo results: no systems or no modes")
	}
	defer func() {
		// The plotting library panics on some degenerate inputs; report
		// those as errors instead.
		if p := recover(); p != nil {
			err = fmt.Errorf("error charting LoCoMo results: %v", p)
		}
	}()
	plots := make([][]*plot.Plot, len(r.Settings.Modes))
	for mi, m := range r.Settings.Modes {
		p, err := chartPanel(r, m)
		if err != nil {
			return fmt.Errorf("error charting LoCoMo results: %w", err)
		}
		plots[mi] = []*plot.Plot{p}
	}
	img := vgimg.New(chartWidth, chartPanelHeight*vg.Length(len(plots)))
	dc := draw.New(img)
	tiles := draw.Tiles{
		Rows: len(plots), Cols: 1, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: vg.Millimeter,
	}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w); err != nil {
		return fmt.Errorf("error writing LoCoMo chart: %w", err)
	}
	return nil
}

// chartPanel returns the panel of mode m: per system, the strict credit at each budget and
// Recall@5.
func chartPanel(r *Report, m Mode) (*plot.Plot, error) {
	systems := r.Settings.Systems
	p := plot.New()
	p.Title.Text = fmt.Sprintf("LoCoMo %s: evidence within a context budget (strict) and R@5, all categories", m)
	p.Y.Label.Text = "covered evidence"
	// Room above the bars for the legend.
	p.Y.Min, p.Y.Max = 0, 1.4
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 0.5, Label: "0.5"}, {Value: 1, Label: "1"}})
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.NominalX(systems...)
	p.X.Min, p.X.Max = -0.6, float64(len(systems))-0.4
	p.X.Tick.Label.Font.Size = vg.Points(8)
	p.Add(plotter.NewGrid())
	type series struct {
		label string
		value func(*Result) float64
	}
	var ss []series
	for _, t := range r.Settings.Budgets {
		ss = append(ss, series{fmt.Sprintf("strict @ %d tokens", t), func(res *Result) float64 {
			f, _ := budgetAt(res.Budgets, t)
			return f.Strict
		}})
	}
	ss = append(ss, series{"R@5 (hits of any size)", func(res *Result) float64 {
		g, _ := res.Group(GroupAll)
		return g.Recall5
	}})
	barWidth := vg.Points(chartBarWidth)
	for si, se := range ss {
		vals := make(plotter.Values, len(systems))
		labels := make([]string, len(vals))
		xys := make(plotter.XYs, len(vals))
		for i, sys := range systems {
			if res := r.Result(m, sys); res != nil {
				vals[i] = se.value(res)
			}
			labels[i] = fmt.Sprintf("%.2f", vals[i])
			xys[i] = plotter.XY{X: float64(i), Y: vals[i]}
		}
		bars, err := plotter.NewBarChart(vals, barWidth)
		if err != nil {
			return nil, err
		}
		bars.Color = plotutil.Color(si)
		if si == len(ss)-1 {
			bars.Color = color.Gray{Y: 160}
		}
		bars.LineStyle.Width = 0
		offset := barWidth * vg.Length(2*si-len(ss)+1) / 2
		bars.Offset = offset
		p.Add(bars)
		p.Legend.Add(se.label, bars)
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err != nil {
			return nil, err
		}
		for i := range lab.TextStyle {
			lab.TextStyle[i].Rotation = math.Pi / 2
			lab.TextStyle[i].XAlign = text.XLeft
			lab.TextStyle[i].YAlign = text.YCenter
			lab.TextStyle[i].Font.Size = vg.Points(7)
		}
		lab.Offset = vg.Point{X: offset, Y: vg.Points(2)}
		p.Add(lab)
	}
	return p, nil
}
