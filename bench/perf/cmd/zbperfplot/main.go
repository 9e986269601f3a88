// Command zbperfplot draws the scaling charts of docs/performance.md from benchmark results:
// recall p50 latency by memory count (bare HNSW query, read-only and full recall, per layout)
// from zbperfbench's results.json files, and the time of the maintenance jobs (decay, review,
// propagation, sleep) by tenant size, with their plain-SQL baselines, from zblifecyclebench's.
//
// Usage:
//
//	go run ./bench/perf/cmd/zbperfplot -recall a/results.json,b/results.json \
//	    -lifecycle x/results.json,y/results.json -out docs
//
// Figures of the same size and layout in several files: the file listed last wins.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zenbrain/zb/bench/lifecycle"
	"github.com/zenbrain/zb/bench/perf"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("zbperfplot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	recall := fs.String("recall", "", "zbperfbench results.json files, comma-separated")
	life := fs.String("lifecycle", "", "zblifecyclebench results.json files, comma-separated")
	out := fs.String("out", "docs", "directory of recall-scaling.png and maintenance-scaling.png")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *recall == "" && *life == "" {
		fmt.Fprintln(stderr, "zbperfplot: nothing to draw: give -recall and/or -lifecycle files")
		return 2
	}
	if *recall != "" {
		var figs []perf.RecallFigure
		for _, f := range split(*recall) {
			var r perf.Results
			if err := readJSON(f, &r); err != nil {
				fmt.Fprintln(stderr, "zbperfplot:", err)
				return 1
			}
			figs = append(figs, r.Recall...)
		}
		path := filepath.Join(*out, "recall-scaling.png")
		if err := write(path, "Recall p50 vs a bare HNSW top-10 query", "p50 latency (ms)", perf.RecallCurves(figs)); err != nil {
			fmt.Fprintln(stderr, "zbperfplot:", err)
			return 1
		}
		fmt.Fprintln(stdout, "wrote", path)
	}
	if *life != "" {
		var rs []lifecycle.Results
		for _, f := range split(*life) {
			var r lifecycle.Results
			if err := readJSON(f, &r); err != nil {
				fmt.Fprintln(stderr, "zbperfplot:", err)
				return 1
			}
			rs = append(rs, r)
		}
		path := filepath.Join(*out, "maintenance-scaling.png")
		if err := write(path, "Maintenance jobs by tenant size (medians)", "time (s)", maintenanceCurves(rs)); err != nil {
			fmt.Fprintln(stderr, "zbperfplot:", err)
			return 1
		}
		fmt.Fprintln(stdout, "wrote", path)
	}
	return 0
}

// maintenanceCurves returns, by tenant size, the times of decay (1 % faded) and of the plain
// archiving UPDATE, review (1 % due) and the plain rescheduling UPDATE, propagation over a fixed
// subgraph and its plain UPDATE, and a whole tenant's sleep. A later result wins for a size.
func maintenanceCurves(rs []lifecycle.Results) []perf.Curve {
	decay, archive := map[int]float64{}, map[int]float64{}
	review, reviewUp := map[int]float64{}, map[int]float64{}
	prop, propUp := map[int]float64{}, map[int]float64{}
	sleep := map[int]float64{}
	for _, r := range rs {
		for _, f := range r.Decay {
			decay[f.N], archive[f.N] = float64(f.Decay), float64(f.Archive)
		}
		for _, f := range r.Maint {
			review[f.N], reviewUp[f.N] = float64(f.Review), float64(f.ReviewUpdate)
			prop[f.N], propUp[f.N] = float64(f.Propagate), float64(f.PropagateUpdate)
		}
		for _, f := range r.Sleep {
			sleep[f.N] = float64(f.Sleep)
		}
	}
	var curves []perf.Curve
	add := func(name string, m map[int]float64, dashed bool) {
		if len(m) == 0 {
			return
		}
		ns := make([]int, 0, len(m))
		for n := range m {
			ns = append(ns, n)
		}
		slices.Sort(ns)
		c := perf.Curve{Name: name, Dashed: dashed}
		for _, n := range ns {
			c.Points = append(c.Points, perf.Point{N: float64(n), V: m[n]})
		}
		curves = append(curves, c)
	}
	add("decay, 1% faded", decay, false)
	add("plain UPDATE archiving them", archive, true)
	add("review, 1% due", review, false)
	add("plain UPDATE rescheduling them", reviewUp, true)
	add("propagation, 20 seeds / 260 nodes", prop, false)
	add("plain UPDATE of those 260", propUp, true)
	add("sleep, whole tenant", sleep, false)
	return curves
}

func write(path, title, yLabel string, curves []perf.Curve) error {
	var buf bytes.Buffer
	if err := perf.WriteScalingChart(&buf, title, yLabel, curves); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
