package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/bench/lifecycle"
	"github.com/zenbrain/zb/bench/perf"
)

func TestMaintenanceCurves(t *testing.T) {
	rs := []lifecycle.Results{
		{
			Decay: []lifecycle.DecayFigure{{N: 100000, Decay: 0.4, Archive: 0.2}, {N: 10000, Decay: 0.15, Archive: 0.05}},
			Sleep: []lifecycle.SleepFigure{{N: 1000, Sleep: 0.8}},
		},
		{
			Maint: []lifecycle.MaintFigure{{N: 1000, Review: 0.004, ReviewUpdate: 0.001, Propagate: 0.03, PropagateUpdate: 0.01}},
			Decay: []lifecycle.DecayFigure{{N: 10000, Decay: 0.2, Archive: 0.06}},
		}, // later: wins for 10k
	}
	curves := maintenanceCurves(rs)
	names := []string{}
	for _, c := range curves {
		names = append(names, c.Name)
	}
	require.Equal(t, []string{
		"decay, 1% faded", "plain UPDATE archiving them", "review, 1% due", "plain UPDATE rescheduling them",
		"propagation, 20 seeds / 260 nodes", "plain UPDATE of those 260", "sleep, whole tenant",
	}, names)
	require.Equal(t, []perf.Point{{N: 10000, V: 0.2}, {N: 100000, V: 0.4}}, curves[0].Points)
	require.True(t, curves[1].Dashed)
	require.False(t, curves[2].Dashed)
}

func TestRun(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 2, run(nil, &out, &errb))
	require.Contains(t, errb.String(), "nothing to draw")

	dir := t.TempDir()
	rec := perf.Results{Recall: []perf.RecallFigure{{
		N: 10000, Tenants: 100, Bare: perf.Latency{P50: 1}, ReadOnly: perf.Latency{P50: 3},
		Full: perf.Latency{P50: 7},
	}}}
	b, err := json.Marshal(rec)
	require.NoError(t, err)
	f := filepath.Join(dir, "results.json")
	require.NoError(t, os.WriteFile(f, b, 0o644))
	require.Equal(t, 0, run([]string{"-recall", f, "-out", dir}, &out, &errb), errb.String())
	st, err := os.Stat(filepath.Join(dir, "recall-scaling.png"))
	require.NoError(t, err)
	require.Positive(t, st.Size())

	errb.Reset()
	require.Equal(t, 1, run([]string{"-lifecycle", filepath.Join(dir, "missing.json"), "-out", dir}, &out, &errb))
	require.Contains(t, errb.String(), "missing.json")
}
