package forgetting

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func days(d float64) time.Duration { return time.Duration(d * float64(Day)) }

type testBundle struct {
	model *Model
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	m, err := NewModel(nil)
	require.NoError(t, err)
	return &testBundle{model: m}
}

func TestEmotionalMultiplier(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name               string
		sent, arousal, sig float64
		want               float64
		err                error
	}{
		{name: "neutral", want: 1},
		{name: "mild positive", sent: 0.5, want: 2},
		{name: "negative sentiment dominates", sent: -0.8, arousal: 0.2, sig: 0.1, want: 2.6},
		{name: "arousal dominates", sent: 0.1, arousal: 0.7, sig: 0.3, want: 2.4},
		{name: "capped at 3", sent: 1, arousal: 1, sig: 1, want: 3},
		{name: "significance alone", sig: 1, want: 3},
		{name: "nan", sent: math.NaN(), err: ErrNotFinite},
		{name: "inf arousal", arousal: math.Inf(1), err: ErrNotFinite},
		{name: "sentiment above 1", sent: 1.5, err: ErrOutOfRange},
		{name: "negative arousal", arousal: -0.1, err: ErrOutOfRange},
		{name: "significance above 1", sig: 1.01, err: ErrOutOfRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			got, err := EmotionalMultiplier(tt.sent, tt.arousal, tt.sig)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.InDelta(t, tt.want, got, 1e-12)
		})
	}
}

func TestInitialStability(t *testing.T) {
	t.Parallel()
	b := setup(t)

	tests := []struct {
		layer Layer
		want  time.Duration
	}{
		{LayerWorking, Day},
		{LayerShortTerm, Day},
		{LayerEpisodic, Day},
		{LayerSemantic, 7 * Day},
		{LayerProcedural, 7 * Day},
		{LayerCrossContext, 7 * Day},
		{LayerCore, Never},
	}
	for _, tt := range tests {
		got, err := b.model.InitialStability(tt.layer)
		require.NoError(t, err)
		require.Equal(t, tt.want, got, tt.layer)
		require.True(t, tt.layer.Valid())
	}
	_, err := b.model.InitialStability("sensory")
	require.ErrorIs(t, err, ErrUnknownLayer)
	require.False(t, Layer("").Valid())
}

func TestRetrievability(t *testing.T) {
	t.Parallel()
	b := setup(t)

	tests := []struct {
		name  string
		layer Layer
		mEmo  float64
		dt    time.Duration
		want  float64
	}{
		{name: "at access", layer: LayerEpisodic, mEmo: 1, dt: 0, want: 1},
		{name: "one S later", layer: LayerEpisodic, mEmo: 1, dt: Day, want: math.Exp(-1)},
		{name: "ln 10 S later", layer: LayerEpisodic, mEmo: 1, dt: days(math.Ln10), want: 0.1},
		{name: "emotional fades 3x slower", layer: LayerEpisodic, mEmo: 3, dt: Day, want: math.Exp(-1.0 / 3)},
		{name: "semantic one week", layer: LayerSemantic, mEmo: 1, dt: 7 * Day, want: math.Exp(-1)},
		{name: "semantic one day", layer: LayerSemantic, mEmo: 1.5, dt: Day, want: math.Exp(-1.0 / 10.5)},
		{name: "working 12h", layer: LayerWorking, mEmo: 1, dt: 12 * time.Hour, want: math.Exp(-0.5)},
		{name: "core never decays", layer: LayerCore, mEmo: 1, dt: 100 * 365 * Day, want: 1},
		{name: "clock skew", layer: LayerEpisodic, mEmo: 1, dt: -5 * time.Hour, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			tr, err := b.model.NewTrace(tt.layer, t0, tt.mEmo)
			require.NoError(t, err)
			r, err := tr.Retrievability(t0.Add(tt.dt))
			require.NoError(t, err)
			require.InDelta(t, tt.want, r, 1e-9)
		})
	}
}

func TestFadeAt(t *testing.T) {
	t.Parallel()
	b := setup(t)

	tests := []struct {
		name      string
		layer     Layer
		mEmo, thr float64
		want      time.Duration
		never     bool
		err       error
	}{
		{name: "episodic archive", layer: LayerEpisodic, mEmo: 1, thr: ArchiveThreshold, want: days(math.Ln10)},
		{name: "episodic emotional", layer: LayerEpisodic, mEmo: 3, thr: 0.1, want: days(3 * math.Ln10)},
		{name: "semantic review threshold", layer: LayerSemantic, mEmo: 1, thr: 0.3, want: days(-7 * math.Log(0.3))},
		{name: "core", layer: LayerCore, mEmo: 2, thr: 0.1, never: true},
		{name: "threshold 0", layer: LayerEpisodic, mEmo: 1, thr: 0, err: ErrOutOfRange},
		{name: "threshold 1", layer: LayerEpisodic, mEmo: 1, thr: 1, err: ErrOutOfRange},
		{name: "threshold nan", layer: LayerEpisodic, mEmo: 1, thr: math.NaN(), err: ErrNotFinite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			tr, err := b.model.NewTrace(tt.layer, t0, tt.mEmo)
			require.NoError(t, err)
			at, ok, err := tr.FadeAt(tt.thr)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			if tt.never {
				require.False(t, ok)
				require.True(t, at.IsZero())
				return
			}
			require.True(t, ok)
			require.InDelta(t, float64(tt.want), float64(at.Sub(t0)), float64(time.Millisecond))
			r, err := tr.Retrievability(at)
			require.NoError(t, err)
			require.InDelta(t, tt.thr, r, 1e-9, "R at the fade time equals the threshold")
		})
	}
}

func TestFadeAfterSaturates(t *testing.T) {
	t.Parallel()

	d, err := FadeAfter(100*365*Day, 1e-300)
	require.NoError(t, err)
	require.Equal(t, Never, d)
	d, err = FadeAfter(Never, 0.5)
	require.NoError(t, err)
	require.Equal(t, Never, d)
	_, err = FadeAfter(0, 0.5)
	require.ErrorIs(t, err, ErrOutOfRange)
}

func TestRetrievabilityAfterDocumentedValues(t *testing.T) {
	t.Parallel()

	require.Equal(t, 1.0, RetrievabilityAfter(-time.Hour, Day))
	require.Equal(t, 1.0, RetrievabilityAfter(0, 0))
	require.Equal(t, 1.0, RetrievabilityAfter(1000*Day, Never))
	require.Equal(t, 0.0, RetrievabilityAfter(time.Second, 0))
	require.Equal(t, 0.0, RetrievabilityAfter(time.Second, -Day))
	require.InDelta(t, math.Exp(-2), RetrievabilityAfter(2*Day, Day), 1e-15)
}

func TestGrowth(t *testing.T) {
	t.Parallel()
	b := setup(t)

	factors := []struct {
		name string
		fn   func(float64) (float64, error)
		in   float64
		want float64
	}{
		{"recall massed", b.model.RecallGrowth, 1, 1.05},
		{"recall R 0.9", b.model.RecallGrowth, 0.9, 1.2},
		{"recall R 0.5", b.model.RecallGrowth, 0.5, 1.8},
		{"recall R 0.1 capped", b.model.RecallGrowth, 0.1, 2},
		{"review R 0.9", b.model.ReviewGrowth, 0.9, 1.5},
		{"review R 0.5", b.model.ReviewGrowth, 0.5, 2.3},
		{"review R 0 capped", b.model.ReviewGrowth, 0, 3},
		{"sleep threshold TAG", b.model.SleepGrowth, 0.5, 1.25},
		{"sleep TAG above 1", b.model.SleepGrowth, 2.4, 1.5},
		{"sleep negative TAG", b.model.SleepGrowth, -0.3, 1},
	}
	for _, f := range factors {
		got, err := f.fn(f.in)
		require.NoError(t, err, f.name)
		require.InDelta(t, f.want, got, 1e-12, f.name)
	}
	for _, bad := range []float64{math.NaN(), 1.2, -0.1} {
		_, err := b.model.RecallGrowth(bad)
		require.Error(t, err)
		_, err = b.model.ReviewGrowth(bad)
		require.Error(t, err)
	}
	_, err := b.model.SleepGrowth(math.Inf(1))
	require.ErrorIs(t, err, ErrNotFinite)
}

func TestRecallReviewSleep(t *testing.T) {
	t.Parallel()
	b := setup(t)

	tr, err := b.model.NewTrace(LayerEpisodic, t0, 1)
	require.NoError(t, err)

	t.Run("spacing effect", func(t *testing.T) {
		t.Parallel()

		// Recall after 1 day: R = e⁻¹, g = 1.05 + 1.5·(1 − e⁻¹) = 1.9982.
		late, err := b.model.Recall(tr, t0.Add(Day))
		require.NoError(t, err)
		require.InDelta(t, 1.05+1.5*(1-math.Exp(-1)), late.Stability.Hours()/24, 1e-9)
		require.Equal(t, t0.Add(Day), late.LastAccess)

		// Recall after one minute: almost massed, g ≈ 1.05.
		early, err := b.model.Recall(tr, t0.Add(time.Minute))
		require.NoError(t, err)
		require.InDelta(t, 1.051, early.Stability.Hours()/24, 0.001)
		require.Greater(t, late.Stability, early.Stability)

		// After the late recall, the memory is stronger a day later than the
		// untouched trace was a day after creation.
		rLate, err := late.Retrievability(late.LastAccess.Add(Day))
		require.NoError(t, err)
		require.InDelta(t, math.Exp(-1/1.99818), rLate, 1e-4)
	})

	t.Run("review", func(t *testing.T) {
		t.Parallel()

		// Review at R = 0.9 (after ln(1/0.9) days): S ×1.5.
		at := t0.Add(days(-math.Log(0.9)))
		rev, err := b.model.Review(tr, at)
		require.NoError(t, err)
		require.InDelta(t, 1.5, rev.Stability.Hours()/24, 1e-9)
		require.Equal(t, at, rev.LastAccess)
	})

	t.Run("sleep is not an access", func(t *testing.T) {
		t.Parallel()

		s, err := b.model.Sleep(tr, 0.8)
		require.NoError(t, err)
		require.InDelta(t, 1.4, s.Stability.Hours()/24, 1e-9)
		require.Equal(t, t0, s.LastAccess)
		_, err = b.model.Sleep(tr, math.NaN())
		require.ErrorIs(t, err, ErrNotFinite)
	})

	t.Run("clock skew", func(t *testing.T) {
		t.Parallel()

		skew, err := b.model.Recall(tr, t0.Add(-time.Hour))
		require.NoError(t, err)
		require.Equal(t, t0, skew.LastAccess, "LastAccess never moves back")
		require.InDelta(t, 1.05, skew.Stability.Hours()/24, 1e-9, "R = 1: massed growth only")
	})

	t.Run("core unchanged", func(t *testing.T) {
		t.Parallel()

		core, err := b.model.NewTrace(LayerCore, t0, 1)
		require.NoError(t, err)
		got, err := b.model.Review(core, t0.Add(30*Day))
		require.NoError(t, err)
		require.Equal(t, Never, got.Stability)
		r, err := got.Retrievability(t0.Add(3650 * Day))
		require.NoError(t, err)
		require.Equal(t, 1.0, r)
	})

	t.Run("capped", func(t *testing.T) {
		t.Parallel()

		m, err := NewModel(&Params{MaxStability: 30 * Day})
		require.NoError(t, err)
		big := Trace{Layer: LayerSemantic, Stability: 20 * Day, EmotionalMultiplier: 1, LastAccess: t0}
		got, err := m.Review(big, t0.Add(60*Day))
		require.NoError(t, err)
		require.Equal(t, 30*Day, got.Stability)
	})
}

func TestValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)

	bad := []struct {
		name string
		tr   Trace
		err  error
	}{
		{"unknown layer", Trace{Layer: "limbo", Stability: Day, EmotionalMultiplier: 1}, ErrUnknownLayer},
		{"m_emo zero", Trace{Layer: LayerEpisodic, Stability: Day}, ErrOutOfRange},
		{"m_emo nan", Trace{Layer: LayerEpisodic, Stability: Day, EmotionalMultiplier: math.NaN()}, ErrNotFinite},
		{"m_emo 3.5", Trace{Layer: LayerEpisodic, Stability: Day, EmotionalMultiplier: 3.5}, ErrOutOfRange},
		{"zero stability", Trace{Layer: LayerEpisodic, EmotionalMultiplier: 1}, ErrOutOfRange},
		{"negative stability", Trace{Layer: LayerEpisodic, Stability: -Day, EmotionalMultiplier: 1}, ErrOutOfRange},
		{"overflowing stability", Trace{Layer: LayerEpisodic, Stability: Never / 2, EmotionalMultiplier: 3}, ErrOutOfRange},
	}
	for _, tt := range bad {
		require.ErrorIs(t, tt.tr.Validate(), tt.err, tt.name)
		_, err := tt.tr.Retrievability(t0)
		require.ErrorIs(t, err, tt.err, tt.name)
		_, _, err = tt.tr.FadeAt(0.1)
		require.ErrorIs(t, err, tt.err, tt.name)
		_, err = b.model.Recall(tt.tr, t0)
		require.ErrorIs(t, err, tt.err, tt.name)
		_, err = b.model.Sleep(tt.tr, 0.5)
		require.ErrorIs(t, err, tt.err, tt.name)
	}
	_, err := b.model.NewTrace(LayerEpisodic, t0, math.NaN())
	require.ErrorIs(t, err, ErrNotFinite)

	params := []struct {
		name  string
		p     Params
		field string
	}{
		{"negative stability", Params{ShortStability: -Day}, "ShortStability"},
		{"too large max", Params{MaxStability: Never}, "MaxStability"},
		{"max below initial", Params{MaxStability: 2 * Day}, "MaxStability"},
		{"nan gain", Params{RecallSpacingGain: math.NaN()}, "RecallSpacingGain"},
		{"shrinking cap", Params{ReviewMaxFactor: 0.5}, "ReviewMaxFactor"},
		{"negative sleep gain", Params{SleepGain: -1}, "SleepGain"},
	}
	for _, tt := range params {
		_, err := NewModel(&tt.p)
		require.ErrorContains(t, err, tt.field, tt.name)
	}
	require.Equal(t, DefaultParams(), b.model.Params())
}

func TestRecallMultiplier(t *testing.T) {
	t.Parallel()

	tests := []struct{ r, f, want float64 }{
		{1, 0.3, 1},
		{0, 0.3, 0.3},
		{0.5, 0.2, 0.6},
		{0.5, 0, 0.5},
		{math.NaN(), 0.4, 0.4},
		{2, 0.4, 1},
		{0.5, -1, 0.5},
	}
	for _, tt := range tests {
		require.InDelta(t, tt.want, RecallMultiplier(tt.r, tt.f), 1e-12, "r=%v f=%v", tt.r, tt.f)
	}
}

// TestGolden pins R and fade times on a grid; they feed recall ranking and
// the fade_at index, so any change must be deliberate (go test -update).
func TestGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)

	var sb strings.Builder
	fmt.Fprintln(&sb, "layer\tm_emo\tdt_days\tR\tfade_at_0.1_days")
	for _, layer := range []Layer{LayerWorking, LayerEpisodic, LayerSemantic, LayerProcedural, LayerCore} {
		for _, mEmo := range []float64{1, 1.6, 3} {
			tr, err := b.model.NewTrace(layer, t0, mEmo)
			require.NoError(t, err)
			at, ok, err := tr.FadeAt(ArchiveThreshold)
			require.NoError(t, err)
			fade := "never"
			if ok {
				fade = fmt.Sprintf("%.6f", at.Sub(t0).Hours()/24)
			}
			for _, dt := range []float64{-1, 0, 0.25, 1, 3, 7, 30, 365} {
				r, err := tr.Retrievability(t0.Add(days(dt)))
				require.NoError(t, err)
				fmt.Fprintf(&sb, "%s\t%.1f\t%g\t%.6f\t%s\n", layer, mEmo, dt, r, fade)
			}
		}
	}
	compareGolden(t, "retrievability.golden", sb.String())
}

func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create %s", path)
	require.Equal(t, string(want), got)
}
