package locomo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// File names written by [WriteResults].
const (
	// ResultsJSON is the JSON report.
	ResultsJSON = "results.json"
	// ResultsMarkdown is the Markdown report.
	ResultsMarkdown = "results.md"
	// ResultsChart is the Recall@5 bar chart.
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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("error creating results directory: %w", err)
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer, *Report) error
	}{{ResultsJSON, WriteJSON}, {ResultsMarkdown, WriteMarkdown}, {ResultsChart, WriteChart}} {
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
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("error writing LoCoMo JSON: %w", err)
	}
	return nil
}

// WriteMarkdown writes the report as Markdown: the dataset and settings, a
// summary table (all categories and categories 1–4 per mode and system), a
// table per mode with every group, and the durations.
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
	for _, name := range r.Settings.Systems {
		if d, ok := r.Settings.Descriptions[name]; ok {
			fmt.Fprintf(&b, "- `%s`: %s.\n", name, d)
		}
	}
	fmt.Fprintf(&b, "- Run started %s, took %.1f s.\n\n", r.StartedAt.Format("2006-01-02 15:04:05 MST"), r.Seconds)

	b.WriteString("## Summary\n\n")
	b.WriteString("| Mode | System | R@5 | R@10 | P@5 | MRR | NDCG@5 | R@5 (1–4) | R@10 (1–4) | MRR (1–4) |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for i := range r.Results {
		res := &r.Results[i]
		a, _ := res.Group(GroupAll)
		f, _ := res.Group(Group1to4)
		fmt.Fprintf(&b, "| %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
			res.Mode, res.System, a.Recall5, a.Recall10, a.P5, a.MRR, a.NDCG5, f.Recall5, f.Recall10, f.MRR)
	}
	for _, m := range r.Settings.Modes {
		fmt.Fprintf(&b, "\n## %s\n\n", m)
		b.WriteString("| System | Group | Questions | R@5 | R@10 | P@5 | MRR | NDCG@5 |\n")
		b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|\n")
		for i := range r.Results {
			res := &r.Results[i]
			if res.Mode != m {
				continue
			}
			for _, g := range res.Groups {
				fmt.Fprintf(&b, "| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
					res.System, groupLabel(g.Group), g.Questions, g.Recall5, g.Recall10, g.P5, g.MRR, g.NDCG5)
			}
		}
	}
	b.WriteString("\n## Durations\n\n")
	b.WriteString("| Mode | System | Tenants | Messages | Queries | Ingest s | After-ingest s | Search s | ms/query |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for i := range r.Results {
		res := &r.Results[i]
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %.2f | %.2f | %.2f | %.2f |\n",
			res.Mode, res.System, res.Tenants, res.Messages, res.Queries,
			res.IngestSeconds, res.AfterIngestSeconds, res.SearchSeconds, res.SearchMeanMillis)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("error writing LoCoMo Markdown: %w", err)
	}
	return nil
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

// Chart size of [WriteChart].
const (
	chartWidth  = 16 * vg.Centimeter
	chartHeight = 10 * vg.Centimeter
)

// WriteChart writes a PNG bar chart of Recall@5 (all categories): one group
// of bars per system, one bar per mode, each labelled with its value. A
// report without systems or modes gives an error.
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
	p := plot.New()
	p.Title.Text = "LoCoMo retrieval: Recall@5 (all categories)"
	p.Y.Label.Text = "Recall@5"
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.Top = true
	p.NominalX(r.Settings.Systems...)
	p.X.Min, p.X.Max = -0.6, float64(len(r.Settings.Systems))-0.4
	p.Add(plotter.NewGrid())
	modes := r.Settings.Modes
	barWidth := vg.Points(28)
	for mi, m := range modes {
		vals := make(plotter.Values, len(r.Settings.Systems))
		labels := make([]string, len(vals))
		xys := make(plotter.XYs, len(vals))
		for si, sys := range r.Settings.Systems {
			if res := r.Result(m, sys); res != nil {
				g, _ := res.Group(GroupAll)
				vals[si] = g.Recall5
			}
			labels[si] = fmt.Sprintf("%.3f", vals[si])
			xys[si] = plotter.XY{X: float64(si), Y: vals[si]}
		}
		bars, err := plotter.NewBarChart(vals, barWidth)
		if err != nil {
			return fmt.Errorf("error charting LoCoMo results: %w", err)
		}
		bars.Color = plotutil.Color(mi)
		bars.LineStyle.Width = 0
		offset := barWidth * vg.Length(2*mi-len(modes)+1) / 2
		bars.Offset = offset
		p.Add(bars)
		p.Legend.Add(string(m), bars)
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err != nil {
			return fmt.Errorf("error charting LoCoMo results: %w", err)
		}
		for i := range lab.TextStyle {
			lab.TextStyle[i].XAlign = text.XCenter
			lab.TextStyle[i].Font.Size = vg.Points(8)
		}
		lab.Offset = vg.Point{X: offset, Y: vg.Points(2)}
		p.Add(lab)
	}
	wt, err := p.WriterTo(chartWidth, chartHeight, "png")
	if err != nil {
		return fmt.Errorf("error rendering LoCoMo chart: %w", err)
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("error writing LoCoMo chart: %w", err)
	}
	return nil
}
