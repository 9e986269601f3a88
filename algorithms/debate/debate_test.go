package debate

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func daysAgo(d float64) time.Time { return now.Add(-time.Duration(d * 24 * float64(time.Hour))) }

func TestShouldDebate(t *testing.T) {
	t.Parallel()

	tests := []struct {
		n    int
		cfg  *Config
		want bool
	}{
		{n: 0, want: false},
		{n: 1, want: false},
		{n: 2, want: true},
		{n: 5, want: true},
		{n: 1, cfg: &Config{MinContradictions: 1}, want: true},
		{n: 2, cfg: &Config{MinContradictions: 3}, want: false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, ShouldDebate(tt.n, tt.cfg), "n=%d", tt.n)
	}
}

func TestScore(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		f    Fact
		want Scores
	}{
		{
			// One half-life old, 3 supports: 0.25·0.5 + 0.30·0.8 + 0.25·0.6 + 0.20·0.5.
			name: "worked example",
			f:    Fact{ID: "a", RecordedAt: daysAgo(90), Confidence: 0.8, SourceReliability: 0.6, Supports: 3},
			want: Scores{Recency: 0.5, Confidence: 0.8, Reliability: 0.6, Support: 0.5, Total: 0.125 + 0.24 + 0.15 + 0.1},
		},
		{
			name: "recorded now, perfect",
			f:    Fact{ID: "b", RecordedAt: now, Confidence: 1, SourceReliability: 1, Supports: 1 << 30},
			want: Scores{Recency: 1, Confidence: 1, Reliability: 1, Support: float64(1<<30) / (float64(1<<30) + 3), Total: 0.8 + 0.2*float64(1<<30)/(float64(1<<30)+3)},
		},
		{
			name: "future time counts as now",
			f:    Fact{ID: "c", RecordedAt: now.Add(48 * time.Hour)},
			want: Scores{Recency: 1, Total: 0.25},
		},
		{
			name: "unknown time scores 0",
			f:    Fact{ID: "d", Confidence: 1},
			want: Scores{Confidence: 1, Total: 0.3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Score(tt.f, now, nil)
			require.InDelta(t, tt.want.Recency, got.Recency, 1e-12)
			require.InDelta(t, tt.want.Support, got.Support, 1e-12)
			require.InDelta(t, tt.want.Total, got.Total, 1e-12)
		})
	}
}

func TestOfflineJudge(t *testing.T) {
	t.Parallel()

	strongOld := Fact{ID: "old-strong", RecordedAt: daysAgo(5), Confidence: 0.9, SourceReliability: 0.9, Supports: 6}
	weakOld := Fact{ID: "old-weak", RecordedAt: daysAgo(400), Confidence: 0.4, SourceReliability: 0.5, Supports: 0}
	weakOld2 := Fact{ID: "old-weak-2", RecordedAt: daysAgo(200), Confidence: 0.5, SourceReliability: 0.4, Supports: 1}

	tests := []struct {
		name         string
		challenger   Fact
		incumbents   []Fact
		want         Outcome
		wantReason   string
		wantSuperset []string
	}{
		{
			name:       "recent reliable fact supersedes stale weak ones",
			challenger: Fact{ID: "new", RecordedAt: now, Confidence: 0.85, SourceReliability: 0.9, Supports: 2},
			incumbents: []Fact{weakOld, weakOld2},
			want:       Supersede, wantReason: "recency favours the new fact", wantSuperset: []string{"old-weak", "old-weak-2"},
		},
		{
			name:       "unreliable rumour against a well-supported fact is rejected",
			challenger: Fact{ID: "new", RecordedAt: now, Confidence: 0.3, SourceReliability: 0.2},
			incumbents: []Fact{strongOld, weakOld},
			want:       Reject, wantReason: "support favours stored fact old-strong",
		},
		{
			name:       "beating one incumbent but not the other keeps both",
			challenger: Fact{ID: "new", RecordedAt: now, Confidence: 0.85, SourceReliability: 0.9, Supports: 2},
			incumbents: []Fact{strongOld, weakOld},
			want:       KeepBothAsHypotheses, wantReason: "competing hypotheses",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := Run(context.Background(), tt.challenger, tt.incumbents, now, nil, nil)
			require.NoError(t, err)
			require.True(t, res.Triggered)
			require.False(t, res.Fallback)
			v := res.Verdict
			require.Equal(t, tt.want, v.Outcome, "reasons: %v", v.Reasons)
			require.Equal(t, OfflineJudgeName, v.Judge)
			require.Equal(t, tt.wantSuperset, v.Superseded)
			require.Contains(t, strings.Join(v.Reasons, "; "), tt.wantReason)

			// The margin is the challenger's lead over the strongest incumbent.
			min := math.Inf(1)
			for _, m := range v.Margins {
				min = math.Min(min, m.Margin)
			}
			require.Equal(t, min, v.Margin)
			switch tt.want {
			case Supersede:
				require.GreaterOrEqual(t, v.Margin, SupersedeMarginDefault)
			case Reject:
				require.LessOrEqual(t, v.Margin, -RejectMarginDefault)
			default:
				require.Greater(t, v.Margin, -RejectMarginDefault)
				require.Less(t, v.Margin, SupersedeMarginDefault)
			}
		})
	}
}

func TestMarginsByHand(t *testing.T) {
	t.Parallel()

	// Scores: new = 0.25·1 + 0.30·0.9 + 0.25·0.8 + 0 = 0.72;
	// a = 0.25·0.5 + 0.30·0.6 + 0.25·0.6 + 0.20·0.25 = 0.505 (90 days, 1 support);
	// b = 0.25·0.25 + 0.30·0.5 + 0.25·0.5 + 0.20·0.5 = 0.4375 (180 days, 3 supports).
	res, err := Run(context.Background(),
		Fact{ID: "new", RecordedAt: now, Confidence: 0.9, SourceReliability: 0.8},
		[]Fact{
			{ID: "b", RecordedAt: daysAgo(180), Confidence: 0.5, SourceReliability: 0.5, Supports: 3},
			{ID: "a", RecordedAt: daysAgo(90), Confidence: 0.6, SourceReliability: 0.6, Supports: 1},
		}, now, nil, nil)
	require.NoError(t, err)
	require.Equal(t, Supersede, res.Verdict.Outcome)
	require.Len(t, res.Verdict.Margins, 2)
	require.Equal(t, "a", res.Verdict.Margins[0].ID)
	require.InDelta(t, 0.72-0.505, res.Verdict.Margins[0].Margin, 1e-12)
	require.InDelta(t, 0.72-0.4375, res.Verdict.Margins[1].Margin, 1e-12)
	require.InDelta(t, 0.215, res.Verdict.Margin, 1e-12)
	require.Equal(t, []string{"a", "b"}, []string{res.Debate.Incumbents[0].Fact.ID, res.Debate.Incumbents[1].Fact.ID})
}

func TestNotTriggered(t *testing.T) {
	t.Parallel()

	res, err := Run(context.Background(), Fact{ID: "new", Confidence: 1}, []Fact{{ID: "old"}}, now, nil, nil)
	require.NoError(t, err)
	require.False(t, res.Triggered)
	require.Empty(t, res.Verdict.Outcome)
}

type judgeFunc func(context.Context, Debate) (Verdict, error)

func (f judgeFunc) Judge(ctx context.Context, d Debate) (Verdict, error) { return f(ctx, d) }

func TestPluggableJudge(t *testing.T) {
	t.Parallel()

	ch := Fact{ID: "new", RecordedAt: now, Confidence: 0.85, SourceReliability: 0.9, Supports: 2}
	inc := []Fact{
		{ID: "x", RecordedAt: daysAgo(400), Confidence: 0.4, SourceReliability: 0.5},
		{ID: "y", RecordedAt: daysAgo(200), Confidence: 0.5, SourceReliability: 0.4, Supports: 1},
	}
	llmVerdict := Verdict{Outcome: KeepBothAsHypotheses, Reasons: []string{"the statements concern different years"}, Judge: "llm"}

	tests := []struct {
		name         string
		judge        Judge
		wantJudge    string
		wantOutcome  Outcome
		wantFallback string
	}{
		{
			name:      "a valid LLM verdict is used",
			judge:     judgeFunc(func(context.Context, Debate) (Verdict, error) { return llmVerdict, nil }),
			wantJudge: "llm", wantOutcome: KeepBothAsHypotheses,
		},
		{
			name:      "a failing judge falls back to the offline judge",
			judge:     judgeFunc(func(context.Context, Debate) (Verdict, error) { return Verdict{}, errors.New("rate limited") }),
			wantJudge: OfflineJudgeName, wantOutcome: Supersede, wantFallback: "rate limited",
		},
		{
			name:      "an unknown outcome falls back",
			judge:     judgeFunc(func(context.Context, Debate) (Verdict, error) { return Verdict{Outcome: "merge"}, nil }),
			wantJudge: OfflineJudgeName, wantOutcome: Supersede, wantFallback: "unknown outcome",
		},
		{
			name: "superseding a fact outside the debate falls back",
			judge: judgeFunc(func(context.Context, Debate) (Verdict, error) {
				return Verdict{Outcome: Supersede, Superseded: []string{"z"}}, nil
			}),
			wantJudge: OfflineJudgeName, wantOutcome: Supersede, wantFallback: "not a contradicted fact",
		},
		{
			name: "supersede without a superseded fact falls back",
			judge: judgeFunc(func(context.Context, Debate) (Verdict, error) {
				return Verdict{Outcome: Supersede}, nil
			}),
			wantJudge: OfflineJudgeName, wantOutcome: Supersede, wantFallback: "without naming",
		},
		{
			name: "a NaN margin falls back",
			judge: judgeFunc(func(context.Context, Debate) (Verdict, error) {
				return Verdict{Outcome: Reject, Margin: math.NaN()}, nil
			}),
			wantJudge: OfflineJudgeName, wantOutcome: Supersede, wantFallback: "non-finite",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := Run(context.Background(), ch, inc, now, tt.judge, nil)
			require.NoError(t, err)
			require.Equal(t, tt.wantJudge, res.Verdict.Judge)
			require.Equal(t, tt.wantOutcome, res.Verdict.Outcome)
			require.Equal(t, tt.wantFallback != "", res.Fallback)
			require.Contains(t, res.FallbackReason, tt.wantFallback)
		})
	}

	// A judge sees the scored debate.
	var seen Debate
	_, err := Run(context.Background(), ch, inc, now, judgeFunc(func(_ context.Context, d Debate) (Verdict, error) {
		seen = d
		return llmVerdict, nil
	}), nil)
	require.NoError(t, err)
	require.Equal(t, "new", seen.Challenger.Fact.ID)
	require.Len(t, seen.Incumbents, 2)
	require.Positive(t, seen.Challenger.Scores.Total)

	// Cancellation is an error, not a fallback.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Run(ctx, ch, inc, now, judgeFunc(func(ctx context.Context, _ Debate) (Verdict, error) {
		return Verdict{}, ctx.Err()
	}), nil)
	require.ErrorIs(t, err, context.Canceled)
}

func TestBadInput(t *testing.T) {
	t.Parallel()

	ok := Fact{ID: "ok", Confidence: 0.5, SourceReliability: 0.5}
	tests := []struct {
		name       string
		challenger Fact
		incumbents []Fact
		cfg        *Config
		want       string
	}{
		{name: "empty id", challenger: Fact{}, incumbents: []Fact{ok, {ID: "b"}}, want: "empty fact id"},
		{name: "duplicate id", challenger: ok, incumbents: []Fact{ok, {ID: "b"}}, want: "duplicate"},
		{name: "NaN confidence", challenger: Fact{ID: "n", Confidence: math.NaN()}, incumbents: []Fact{ok, {ID: "b"}}, want: "confidence"},
		{name: "reliability above 1", challenger: ok, incumbents: []Fact{{ID: "a", SourceReliability: 1.5}, {ID: "b"}}, want: "reliability"},
		{name: "Inf confidence", challenger: ok, incumbents: []Fact{{ID: "a", Confidence: math.Inf(1)}, {ID: "b"}}, want: "confidence"},
		{name: "negative supports", challenger: ok, incumbents: []Fact{{ID: "a", Supports: -1}, {ID: "b"}}, want: "supports"},
		{name: "negative half-life", challenger: ok, incumbents: []Fact{{ID: "a"}, {ID: "b"}}, cfg: &Config{RecencyHalfLife: -time.Hour}, want: "RecencyHalfLife"},
		{name: "NaN weight", challenger: ok, incumbents: []Fact{{ID: "a"}, {ID: "b"}}, cfg: &Config{WeightSupport: math.NaN()}, want: "WeightSupport"},
		{name: "zero trigger", challenger: ok, incumbents: []Fact{{ID: "a"}, {ID: "b"}}, cfg: &Config{MinContradictions: -1}, want: "MinContradictions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Run(context.Background(), tt.challenger, tt.incumbents, now, nil, tt.cfg)
			require.ErrorIs(t, err, ErrInvalidInput)
			require.ErrorContains(t, err, tt.want)
		})
	}

	_, err := NewDebate(ok, nil, now, nil)
	require.ErrorIs(t, err, ErrInvalidInput)
	_, err = OfflineJudge{}.Judge(context.Background(), Debate{})
	require.ErrorIs(t, err, ErrInvalidInput)
}
