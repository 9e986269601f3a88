package perf

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// chartWidth and chartHeight are the size of the charts.
const chartWidth, chartHeight = 18 * vg.Centimeter, 11 * vg.Centimeter

// Curve is one line of a log-log scaling chart: a name and points (N, value). Dashed draws a
// baseline.
type Curve struct {
	Name   string
	Points []Point
	Dashed bool
}

// Point is one point of a Curve.
type Point struct{ N, V float64 }

// RecallCurves returns the p50 latency (ms) by memory count of the bare HNSW query, read-only
// recall and full recall, per layout (100 tenants, one tenant), from recall figures of any
// number of runs (the last figure of a size and layout wins); and, for a layout where some
// figure's bare query needed a larger ef_search to reach the accuracy bar, the bare query at
// that bar (AccurateBare) at the sizes that measured it.
func RecallCurves(figs []RecallFigure) []Curve {
	type key struct{ n, tenants int }
	last := map[key]RecallFigure{}
	for _, f := range figs {
		last[key{f.N, f.Tenants}] = f
	}
	var curves []Curve
	for _, layout := range []struct {
		name  string
		multi bool
	}{{"100 tenants", true}, {"one tenant", false}} {
		var bare, ro, full, acc []Point
		timed := false
		for k, f := range last {
			if (k.tenants > 1) != layout.multi {
				continue
			}
			n := float64(k.n)
			bare = append(bare, Point{n, f.Bare.P50})
			ro = append(ro, Point{n, f.ReadOnly.P50})
			full = append(full, Point{n, f.Full.P50})
			if f.Accurate != nil {
				acc = append(acc, Point{n, f.Accurate.Latency.P50})
				timed = timed || f.Accurate.Timed
			}
		}
		if len(bare) == 0 {
			continue
		}
		curves = append(curves,
			Curve{Name: "bare HNSW top-10, " + layout.name, Points: sortPoints(bare), Dashed: true},
			Curve{Name: "recall read-only, " + layout.name, Points: sortPoints(ro)},
			Curve{Name: "recall full, " + layout.name, Points: sortPoints(full)})
		if timed {
			curves = append(curves, Curve{Name: "bare HNSW top-10 at recall@10 ≥ 0.95, " + layout.name, Points: sortPoints(acc), Dashed: true})
		}
	}
	return curves
}

func sortPoints(ps []Point) []Point {
	slices.SortFunc(ps, func(a, b Point) int { return cmp.Compare(a.N, b.N) })
	return ps
}

// WriteScalingChart writes a log-log PNG chart of curves (x: memories, y: yLabel), with a
// dotted line proportional to N through the first point of the first curve as a guide.
func WriteScalingChart(w io.Writer, title, yLabel string, curves []Curve) (err error) {
	var all []Point
	for _, c := range curves {
		for _, p := range c.Points {
			if !(p.N > 0) || !(p.V > 0) || math.IsInf(p.V, 0) {
				return fmt.Errorf("error charting %q: %s has a point (%g, %g) a log scale cannot show", title, c.Name, p.N, p.V)
			}
		}
		all = append(all, c.Points...)
	}
	if len(all) == 0 {
		return errors.New("error charting " + title + ": no points")
	}
	defer func() {
		if p := recover(); p != nil { // the plotting library panics on degenerate input
			err = fmt.Errorf("error charting %q: %v", title, p)
		}
	}()
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "memories (N)"
	p.Y.Label.Text = yLabel
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = false, false
	p.Add(plotter.NewGrid())
	for i, c := range curves {
		xys := make(plotter.XYs, len(c.Points))
		for j, pt := range c.Points {
			xys[j] = plotter.XY{X: pt.N, Y: pt.V}
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return fmt.Errorf("error charting %q: %w", title, err)
		}
		line.Color, points.Color = plotutil.Color(i), plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		if c.Dashed {
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(line, points)
		p.Legend.Add(c.Name, line, points)
	}
	// A guide proportional to N through the first curve's first point.
	first := curves[0].Points[0]
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pt := range all {
		lo, hi = min(lo, pt.N), max(hi, pt.N)
	}
	if hi > lo {
		guide, err := plotter.NewLine(plotter.XYs{{X: lo, Y: first.V * lo / first.N}, {X: hi, Y: first.V * hi / first.N}})
		if err != nil {
			return fmt.Errorf("error charting %q: %w", title, err)
		}
		guide.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
		guide.Color = plotutil.DarkColors[len(plotutil.DarkColors)-1]
		p.Add(guide)
		p.Legend.Add("proportional to N (guide)", guide)
	}
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Legend.Padding = vg.Points(1)
	p.Legend.ThumbnailWidth = vg.Points(20)
	wt, err := p.WriterTo(chartWidth, chartHeight, "png")
	if err != nil {
		return fmt.Errorf("error rendering %q: %w", title, err)
	}
	_, err = wt.WriteTo(w)
	return err
}
