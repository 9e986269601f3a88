package perf_test

import (
	"bytes"
	"image/png"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/bench/perf"
)

// RecallCurves groups the figures of several runs by layout, sorted by size, the last figure of
// a size and layout winning, and the chart is a PNG of the chart's size.
func TestRecallCurvesAndChart(t *testing.T) {
	lat := func(ms float64) perf.Latency { return perf.Latency{N: 10, P50: ms, P99: 2 * ms} }
	figs := []perf.RecallFigure{
		{N: 100000, Tenants: 100, Bare: lat(10), ReadOnly: lat(17), Full: lat(20)},
		{N: 10000, Tenants: 100, Bare: lat(1), ReadOnly: lat(3), Full: lat(7)},
		{N: 10000, Tenants: 1, Bare: lat(5), ReadOnly: lat(40), Full: lat(45)},
		{N: 10000, Tenants: 1, Bare: lat(5), ReadOnly: lat(17), Full: lat(20)}, // a later run
	}
	curves := perf.RecallCurves(figs)
	require.Len(t, curves, 6)
	require.Equal(t, "bare HNSW top-10, 100 tenants", curves[0].Name)
	require.True(t, curves[0].Dashed)
	require.Equal(t, []perf.Point{{N: 10000, V: 1}, {N: 100000, V: 10}}, curves[0].Points)
	require.Equal(t, []perf.Point{{N: 10000, V: 3}, {N: 100000, V: 17}}, curves[1].Points)
	require.Equal(t, "recall read-only, one tenant", curves[4].Name)
	require.Equal(t, []perf.Point{{N: 10000, V: 17}}, curves[4].Points, "the later figure wins")

	// The bare query at the accuracy bar is drawn for a layout where it needed more than the
	// bare query's ef_search somewhere, at the sizes that measured it.
	acc := func(ms float64, timed bool) *perf.AccurateBare {
		return &perf.AccurateBare{Latency: lat(ms), Timed: timed}
	}
	figs = append(figs,
		perf.RecallFigure{N: 100000, Tenants: 1, Bare: lat(6), ReadOnly: lat(20), Full: lat(22), Accurate: acc(6, false)},
		perf.RecallFigure{N: 1000000, Tenants: 1, Bare: lat(7), ReadOnly: lat(80), Full: lat(90), Accurate: acc(40, true)},
		perf.RecallFigure{N: 1000000, Tenants: 100, Bare: lat(80), ReadOnly: lat(110), Full: lat(90), Accurate: acc(80, false)})
	curves = perf.RecallCurves(figs)
	require.Len(t, curves, 7, "no accuracy curve for 100 tenants, where the bare query reached the bar")
	require.Equal(t, "bare HNSW top-10 at recall@10 ≥ 0.95, one tenant", curves[6].Name)
	require.True(t, curves[6].Dashed)
	require.Equal(t, []perf.Point{{N: 100000, V: 6}, {N: 1000000, V: 40}}, curves[6].Points)

	var buf bytes.Buffer
	require.NoError(t, perf.WriteScalingChart(&buf, "recall", "ms", curves))
	img, err := png.Decode(&buf)
	require.NoError(t, err)
	require.Greater(t, img.Bounds().Dx(), 500)

	require.ErrorContains(t, perf.WriteScalingChart(&buf, "empty", "ms", nil), "no points")
	bad := []perf.Curve{{Name: "zero", Points: []perf.Point{{N: 1000, V: 0}}}}
	require.ErrorContains(t, perf.WriteScalingChart(&buf, "bad", "ms", bad), "log scale")
}
