package hebbian

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func TestConfig(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		cfg     *Config
		wantErr string
	}{
		{name: "nil is defaults", cfg: nil},
		{name: "zero is defaults", cfg: &Config{}},
		{name: "decay disabled", cfg: &Config{DecayRate: -1}},
		{name: "negative learning rate", cfg: &Config{LearningRate: -0.1}, wantErr: "LearningRate"},
		{name: "NaN lambda", cfg: &Config{EWCLambda: math.NaN()}, wantErr: "EWCLambda"},
		{name: "Inf max weight", cfg: &Config{MaxWeight: math.Inf(1)}, wantErr: "MaxWeight"},
		{name: "maturation rate 1", cfg: &Config{MaturationRate: 1}, wantErr: "MaturationRate"},
		{name: "min variance above initial", cfg: &Config{MinVariance: 2}, wantErr: "MinVariance"},
		{name: "min weight above max", cfg: &Config{MinWeight: 11}, wantErr: "MinWeight"},
		{name: "decay rate -2", cfg: &Config{DecayRate: -2}, wantErr: "DecayRate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := New(tt.cfg)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, ErrInvalidConfig)
				require.ErrorContains(t, err, tt.wantErr)
				require.Nil(t, m)
				return
			}
			require.NoError(t, err)
			require.Equal(t, LearningRateDefault, m.Config().LearningRate)
			require.Equal(t, EWCLambdaDefault, m.Config().EWCLambda)
		})
	}
}

func TestActivate(t *testing.T) {
	t.Parallel()

	m, err := New(&Config{EWCDisabled: true})
	require.NoError(t, err)

	tests := []struct {
		name         string
		edge         Edge
		tag, act     float64
		wantWeight   float64
		wantVariance float64
		wantCount    int
	}{
		{
			// w = 1 + 0.1·1·1; σ² = 1·(1 − 0.15/(1 + 0.1·1)).
			name: "fresh edge at weight 1", edge: Edge{Weight: 1, Variance: 1, LastActivated: t0},
			tag: 1, act: 1, wantWeight: 1.1, wantVariance: 1 - 0.15/1.1, wantCount: 1,
		},
		{
			// The zero edge takes the initial variance; 0 + 0.1·0.8·0.5 = 0.04 is clipped up to 0.05.
			name: "zero edge is born at the floor", edge: Edge{},
			tag: 0.8, act: 0.5, wantWeight: 0.05, wantVariance: 1 - 0.15/1.1, wantCount: 1,
		},
		{
			name: "clipped at max weight", edge: Edge{Weight: 9.95, Variance: 0.5, ActivationCount: 4, LastActivated: t0},
			tag: 1, act: 1, wantWeight: 10, wantVariance: 0.5 * (1 - 0.15/1.5), wantCount: 5,
		},
		{
			name: "variance floor", edge: Edge{Weight: 2, Variance: 0.0101, ActivationCount: 90, LastActivated: t0},
			tag: 1, act: 0.5, wantWeight: 2.05, wantVariance: 0.01, wantCount: 91,
		},
		{
			name: "negative tag weakens down to the floor", edge: Edge{Weight: 0.1, Variance: 1, LastActivated: t0},
			tag: -1, act: 1, wantWeight: 0.05, wantVariance: 1 - 0.15/1.1, wantCount: 1,
		},
		{
			name: "zero activation only matures", edge: Edge{Weight: 3, Variance: 1, LastActivated: t0},
			tag: 1, act: 0, wantWeight: 3, wantVariance: 1 - 0.15/1.1, wantCount: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := m.Activate(tt.edge, tt.tag, tt.act, t0)
			require.NoError(t, err)
			require.InDelta(t, tt.wantWeight, got.Weight, 1e-12)
			require.InDelta(t, tt.wantVariance, got.Variance, 1e-12)
			require.Equal(t, tt.wantCount, got.ActivationCount)
			require.Equal(t, t0, got.LastActivated)
		})
	}
}

func TestMaturationSlowsAndImportanceGrows(t *testing.T) {
	t.Parallel()

	m, err := New(nil)
	require.NoError(t, err)
	var e Edge
	prevDrop := math.Inf(1)
	prevVar := 1.0
	for k := 1; k <= 300; k++ {
		e, err = m.Activate(e, 1, 1, t0)
		require.NoError(t, err)
		drop := prevVar - e.Variance
		if e.Variance > MinVarianceDefault {
			require.Less(t, drop, prevDrop, "k=%d: each activation must mature the edge less than the one before", k)
		}
		prevDrop, prevVar = drop, e.Variance
		require.GreaterOrEqual(t, e.Variance, MinVarianceDefault)
		require.LessOrEqual(t, e.Weight, MaxWeightDefault)
	}
	require.Equal(t, MinVarianceDefault, e.Variance)
	require.InDelta(t, 100, e.Importance(), 1e-9)
	require.Equal(t, 1.0, Edge{}.Importance())
	require.Equal(t, 1.0, Edge{Variance: math.NaN()}.Importance())
	require.Equal(t, 4.0, Edge{Variance: 0.25}.Importance())
}

// TestEWCDampsMatureEdges shows that the same proposal moves a mature edge much
// less than a fresh one, and that the switch turns the damping off.
func TestEWCDampsMatureEdges(t *testing.T) {
	t.Parallel()

	fresh := Edge{Weight: 2, Variance: 1, ActivationCount: 1, LastActivated: t0}
	mature := Edge{Weight: 2, Variance: 0.01, ActivationCount: 200, LastActivated: t0}

	tests := []struct {
		name               string
		cfg                *Config
		delta              float64
		wantFresh, wantMat float64
	}{
		// Δ/(1 + 0.5·1) and Δ/(1 + 0.5·100).
		{name: "LTP damped", cfg: nil, delta: 0.1, wantFresh: 0.1 / 1.5, wantMat: 0.1 / 51},
		{name: "LTD damped", cfg: nil, delta: -0.05, wantFresh: -0.05 / 1.5, wantMat: -0.05 / 51},
		{name: "EWC off", cfg: &Config{EWCDisabled: true}, delta: 0.1, wantFresh: 0.1, wantMat: 0.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := New(tt.cfg)
			require.NoError(t, err)
			f, err := m.ApplyDelta(fresh, tt.delta, t0)
			require.NoError(t, err)
			g, err := m.ApplyDelta(mature, tt.delta, t0)
			require.NoError(t, err)
			require.InDelta(t, tt.wantFresh, f.Weight-fresh.Weight, 1e-12)
			require.InDelta(t, tt.wantMat, g.Weight-mature.Weight, 1e-12)
			if !tt.cfg.isOff() {
				require.Less(t, math.Abs(g.Weight-mature.Weight), math.Abs(f.Weight-fresh.Weight)/10)
			}
			// ApplyDelta is not an activation.
			require.Equal(t, fresh.Variance, f.Variance)
			require.Equal(t, mature.ActivationCount, g.ActivationCount)
		})
	}

	m, err := New(nil)
	require.NoError(t, err)
	// Penalty (λ/2)·I·Δw²: 0.25·1·1 and 0.25·100·1; zero for no change.
	require.InDelta(t, 0.25, m.Penalty(fresh, 1), 1e-12)
	require.InDelta(t, 25, m.Penalty(mature, 1), 1e-12)
	require.Zero(t, m.Penalty(mature, 0))
}

func (c *Config) isOff() bool { return c != nil && c.EWCDisabled }

func TestDecayAndPrune(t *testing.T) {
	t.Parallel()

	m, err := New(nil)
	require.NoError(t, err)
	day := 24 * time.Hour

	tests := []struct {
		name   string
		edge   Edge
		after  time.Duration
		want   float64
		prunes bool
	}{
		// r_eff = 0.02/(1 + 0.1·1) for a fresh edge.
		{name: "fresh edge 10 days", edge: Edge{Weight: 1, Variance: 1, LastActivated: t0}, after: 10 * day, want: math.Exp(-0.02 / 1.1 * 10)},
		// r_eff = 0.02/(1 + 0.1·100) = 0.02/11 for a mature edge.
		{name: "mature edge 10 days", edge: Edge{Weight: 1, Variance: 0.01, LastActivated: t0}, after: 10 * day, want: math.Exp(-0.02 / 11 * 10)},
		{name: "no time passed", edge: Edge{Weight: 0.05, Variance: 1, LastActivated: t0}, after: 0, want: 0.05},
		{name: "clock before last activation", edge: Edge{Weight: 0.7, Variance: 1, LastActivated: t0}, after: -5 * day, want: 0.7},
		{name: "floor edge decays below epsilon", edge: Edge{Weight: 0.05, Variance: 1, LastActivated: t0}, after: time.Hour, want: 0.05 * math.Exp(-0.02/1.1/24), prunes: true},
		{name: "NaN weight reads as 0", edge: Edge{Weight: math.NaN(), Variance: 1, LastActivated: t0}, after: day, want: 0, prunes: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			now := t0.Add(tt.after)
			require.InDelta(t, tt.want, m.WeightAt(tt.edge, now), 1e-12)
			require.Equal(t, tt.prunes, m.Prunable(tt.edge, now))
		})
	}

	// A mature edge outlives a fresh edge of the same weight.
	fresh := Edge{Weight: 1, Variance: 1, LastActivated: t0}
	mature := Edge{Weight: 1, Variance: 0.01, LastActivated: t0}
	pf, ok := m.PruneAt(fresh)
	require.True(t, ok)
	pm, ok := m.PruneAt(mature)
	require.True(t, ok)
	// ln(1/0.05)/(0.02/1.1) ≈ 164.8 days and ln(20)/(0.02/11) ≈ 1647.6 days.
	require.InDelta(t, math.Log(20)/(0.02/1.1), pf.Sub(t0).Hours()/24, 1e-6)
	require.InDelta(t, math.Log(20)/(0.02/11), pm.Sub(t0).Hours()/24, 1e-6)
	require.False(t, m.Prunable(fresh, pf.Add(-time.Minute)))
	require.True(t, m.Prunable(fresh, pf))

	below, ok := m.PruneAt(Edge{Weight: 0.01, LastActivated: t0})
	require.True(t, ok)
	require.Equal(t, t0, below)

	noDecay, err := New(&Config{DecayRate: -1})
	require.NoError(t, err)
	_, ok = noDecay.PruneAt(fresh)
	require.False(t, ok)
	require.Equal(t, 1.0, noDecay.WeightAt(fresh, t0.Add(1000*day)))
}

func TestActivateDecaysFirst(t *testing.T) {
	t.Parallel()

	m, err := New(&Config{EWCDisabled: true})
	require.NoError(t, err)
	e := Edge{Weight: 2, Variance: 1, ActivationCount: 1, LastActivated: t0}
	later := t0.Add(30 * 24 * time.Hour)
	got, err := m.Activate(e, 1, 1, later)
	require.NoError(t, err)
	require.InDelta(t, 2*math.Exp(-0.02/1.1*30)+0.1, got.Weight, 1e-12)
	require.Equal(t, later, got.LastActivated)

	// Out of order: no decay, LastActivated kept.
	got, err = m.Activate(e, 1, 1, t0.Add(-time.Hour))
	require.NoError(t, err)
	require.InDelta(t, 2.1, got.Weight, 1e-12)
	require.Equal(t, t0, got.LastActivated)
}

func TestBadInput(t *testing.T) {
	t.Parallel()

	m, err := New(nil)
	require.NoError(t, err)
	good := Edge{Weight: 1, Variance: 1, LastActivated: t0}

	tests := []struct {
		name    string
		edge    Edge
		tag     float64
		act     float64
		delta   float64
		wantErr error
	}{
		{name: "NaN tag", edge: good, tag: math.NaN(), act: 1, delta: math.NaN(), wantErr: ErrInvalidSignal},
		{name: "tag above 1", edge: good, tag: 1.5, act: 1, delta: math.Inf(1), wantErr: ErrInvalidSignal},
		{name: "Inf activation", edge: good, tag: 1, act: math.Inf(1), delta: math.NaN(), wantErr: ErrInvalidSignal},
		{name: "negative activation", edge: good, tag: 1, act: -0.1, delta: math.Inf(-1), wantErr: ErrInvalidSignal},
		{name: "NaN weight", edge: Edge{Weight: math.NaN(), Variance: 1}, tag: 1, act: 1, wantErr: ErrInvalidEdge},
		{name: "negative weight", edge: Edge{Weight: -1, Variance: 1}, tag: 1, act: 1, wantErr: ErrInvalidEdge},
		{name: "Inf variance", edge: Edge{Weight: 1, Variance: math.Inf(1)}, tag: 1, act: 1, wantErr: ErrInvalidEdge},
		{name: "negative count", edge: Edge{Weight: 1, Variance: 1, ActivationCount: -1}, tag: 1, act: 1, wantErr: ErrInvalidEdge},
		{name: "zero variance on activated edge", edge: Edge{Weight: 1, ActivationCount: 3}, tag: 1, act: 1, wantErr: ErrInvalidEdge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := m.Activate(tt.edge, tt.tag, tt.act, t0)
			require.ErrorIs(t, err, tt.wantErr)
			require.Equal(t, fmt.Sprint(tt.edge), fmt.Sprint(got), "the edge is returned unchanged")
			_, err = m.ApplyDelta(tt.edge, tt.delta, t0)
			require.Error(t, err)
		})
	}
}

// TestGoldenTrajectory records weight, importance and recall strength of an
// edge over a schedule of activations, EWC on and off, since they feed ranking.
func TestGoldenTrajectory(t *testing.T) {
	t.Parallel()

	var buf bytes.Buffer
	for _, cfg := range []struct {
		name string
		cfg  *Config
	}{{"ewc_on", nil}, {"ewc_off", &Config{EWCDisabled: true}}} {
		m, err := New(cfg.cfg)
		require.NoError(t, err)
		var e Edge
		now := t0
		fmt.Fprintf(&buf, "# %s: step day weight variance importance strength prune_at_days\n", cfg.name)
		for step := 1; step <= 40; step++ {
			now = now.Add(time.Duration(step%5) * 12 * time.Hour)
			e, err = m.Activate(e, 1, 0.8, now)
			require.NoError(t, err)
			pa, ok := m.PruneAt(e)
			require.True(t, ok)
			fmt.Fprintf(&buf, "%2d %6.2f %.6f %.6f %8.4f %8.4f %9.2f\n", step, now.Sub(t0).Hours()/24,
				e.Weight, e.Variance, e.Importance(), m.Strength(e, now), pa.Sub(now).Hours()/24)
		}
	}
	golden := filepath.Join("testdata", "trajectory.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Equal(t, string(want), buf.String())
}
