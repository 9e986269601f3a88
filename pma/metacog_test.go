package pma

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/simstat"
)

func newMonitor(t *testing.T) *MetacognitiveMonitor {
	t.Helper()
	m, err := NewMetacognitiveMonitor(nil)
	require.NoError(t, err)
	return m
}

func hasAlert(a Assessment, kind string) bool {
	for _, al := range a.Alerts {
		if al.Kind == kind {
			return true
		}
	}
	return false
}

// TestConfirmationBiasDetection runs 50 scenarios per seed, half biased
// (confirming information accepted 80 % of the time, contradicting 30 %) and
// half unbiased (55 % for both), 40 feedback records each over 20 days.
func TestConfirmationBiasDetection(t *testing.T) {
	t.Parallel()
	m := newMonitor(t)
	now := t0.Add(30 * day)
	tpAll, fpAll, fnAll := 0, 0, 0
	for _, seed := range simstat.Seeds {
		r := simstat.NewMulberry32(seed)
		tp, fp, fn := 0, 0, 0
		for sc := range 50 {
			biased := sc%2 == 0
			var fb []Feedback
			for i := range 40 {
				kind := FeedbackConfirming
				p := 0.55
				if r.Float64() < 0.5 {
					kind = FeedbackContradicting
				}
				if biased {
					p = map[FeedbackKind]float64{FeedbackConfirming: 0.8, FeedbackContradicting: 0.3}[kind]
				}
				fb = append(fb, Feedback{At: now.Add(-time.Duration(i) * 12 * time.Hour), Kind: kind, Accepted: r.Float64() < p})
			}
			a, err := m.Assess(MetacogInput{Feedback: fb}, now)
			require.NoError(t, err)
			flagged := hasAlert(a, AlertConfirmationBias)
			switch {
			case flagged && biased:
				tp++
			case flagged:
				fp++
			case biased:
				fn++
			}
		}
		t.Logf("seed %d: precision %.3f recall %.3f", seed, float64(tp)/float64(tp+fp), float64(tp)/float64(tp+fn))
		tpAll, fpAll, fnAll = tpAll+tp, fpAll+fp, fnAll+fn
	}
	precision := float64(tpAll) / float64(tpAll+fpAll)
	recall := float64(tpAll) / float64(tpAll+fnAll)
	t.Logf("500 scenarios: precision %.3f recall %.3f", precision, recall)
	require.GreaterOrEqual(t, precision, 0.8)
	require.GreaterOrEqual(t, recall, 0.9)
}

func TestUrgencyPhrases(t *testing.T) {
	t.Parallel()
	urgent := []string{
		"This is urgent, please call me back.",
		"Need the slides ASAP!",
		"Can you send it as soon as possible?",
		"Please fix the login bug immediately.",
		"The deadline for the grant is tonight.",
		"Emergency: the server room is flooding.",
		"I need the contract signed by tomorrow.",
		"Please reply by end of day.",
		"Hurry, the store closes in ten minutes.",
		"Critical outage in production right now.",
		"Das ist dringend, bitte melde dich.",
		"Bitte sofort den Server neu starten!",
		"Ich brauche die Zahlen bis morgen.",
		"Eilig: Unterschrift fehlt noch.",
		"Bitte umgehend antworten.",
		"Die Abgabefrist endet heute um 18 Uhr.",
		"Notfall im Lager, komm bitte schnell.",
		"Das muss so schnell wie möglich raus.",
		"Kannst du das schnellstmöglich prüfen?",
		"Bitte unverzüglich die Polizei verständigen.",
	}
	neutral := []string{
		"Let's have lunch next week.",
		"The report looks good to me.",
		"I planted tomatoes in the garden.",
		"Anna's birthday is in March.",
		"We talked about the urgency of climate policy in class.",
		"Thanks for the book recommendation.",
		"The sofa arrived yesterday.",
		"My flight to Lisbon was comfortable.",
		"Can you recommend a good pizza place?",
		"I finished reading the novel.",
		"Wir gehen am Wochenende wandern.",
		"Das Sofa steht jetzt im Wohnzimmer.",
		"Der Kuchen war sehr lecker.",
		"Ich habe gestern mit Oma telefoniert.",
		"Die Katze schläft auf dem Fensterbrett.",
		"Morgen scheint die Sonne.",
		"Wir haben die Frist letztes Jahr locker eingehalten.",
		"Das Konzert war großartig.",
		"Ich lerne gerade Italienisch.",
		"Der Zug war pünktlich.",
	}
	for _, s := range urgent {
		require.True(t, IsUrgent(s), "urgent phrase missed: %q", s)
	}
	fp := 0
	for _, s := range neutral {
		if IsUrgent(s) {
			fp++
			t.Logf("neutral phrase flagged: %q %v", s, UrgencyCues(s))
		}
	}
	t.Logf("urgency: 0/%d false negatives, %d/%d false positives", len(urgent), fp, len(neutral))
	require.LessOrEqual(t, float64(fp)/float64(len(neutral)), 0.1)
	require.Equal(t, []string{"urgent", "asap", "sofort", "bis morgen"}, UrgencyCues("URGENT!!! asap – sofort, bis morgen."))
}

func TestUrgencyScore(t *testing.T) {
	t.Parallel()
	m := newMonitor(t)
	now := t0
	tests := []struct {
		name string
		msgs []Message
		want float64
	}{
		{"none", nil, 0},
		{
			"one short urgent message",
			[]Message{{At: now, Text: "Urgent: server down"}},
			0.4*(1.0/6) + 0.35*(1.0/3) + 0.25*(1-19.0/50),
		},
		{"six messages in a minute, long, calm", func() []Message {
			var ms []Message
			for i := range 6 {
				ms = append(ms, Message{At: now.Add(-time.Duration(i) * 12 * time.Second), Text: "This is a perfectly calm and rather long message, really."})
			}
			return ms
		}(), 0.4 * 1},
		{"old messages do not count", []Message{{At: now.Add(-time.Hour), Text: "urgent urgent asap"}}, 0},
		{"future messages do not count", []Message{{At: now.Add(time.Hour), Text: "urgent"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := m.Urgency(tt.msgs, now)
			require.NoError(t, err)
			require.InDelta(t, tt.want, got, 1e-12)
		})
	}
	_, err := m.Urgency([]Message{{Text: "no time"}}, now)
	require.ErrorIs(t, err, ErrInvalidInput)
}

func TestNoveltyWindow(t *testing.T) {
	t.Parallel()
	m := newMonitor(t)
	_, ok := m.OpenNoveltyWindow(0.7, t0)
	require.False(t, ok, "PE must exceed 0.7")
	w, ok := m.OpenNoveltyWindow(0.8, t0)
	require.True(t, ok)
	require.Equal(t, t0.Add(10*time.Minute), w.ClosesAt)
	for _, tt := range []struct {
		at   time.Duration
		want float64
	}{{-time.Minute, 0}, {0, 0.2}, {2 * time.Minute, 0.16}, {5 * time.Minute, 0.1}, {10 * time.Minute, 0}, {time.Hour, 0}} {
		require.InDelta(t, tt.want, m.Boost(w, t0.Add(tt.at)), 1e-12, "at %v", tt.at)
	}
	obs := []PEObservation{{At: t0, PE: 0.9}, {At: t0.Add(4 * time.Minute), PE: 0.75}, {At: t0.Add(6 * time.Minute), PE: 0.5}}
	b, err := m.NoveltyBoost(obs, t0.Add(9*time.Minute))
	require.NoError(t, err)
	require.InDelta(t, 0.2*(1-0.5), b, 1e-12, "the later window restarted at 4 min")
	b, err = m.NoveltyBoost(obs, t0.Add(15*time.Minute))
	require.NoError(t, err)
	require.Zero(t, b)
	_, err = m.NoveltyBoost([]PEObservation{{At: t0, PE: math.NaN()}}, t0)
	require.ErrorIs(t, err, ErrInvalidInput)
}

func TestRecallSignals(t *testing.T) {
	t.Parallel()
	m := newMonitor(t)
	now := t0.Add(60 * day)
	// Every recall returns 3 recent and 1 old memory; users use the old one
	// and one of the recent ones. 30 recalls spread over 29 days.
	var recalls []RecallEvent
	for i := range 30 {
		recalls = append(recalls, RecallEvent{
			At:    now.Add(-time.Duration(i) * 23 * time.Hour),
			Query: "what does Anna like",
			Results: []RecallResult{
				{MemoryID: "r1", AgeDays: 1, Confidence: 0.9, Used: true},
				{MemoryID: "r2", AgeDays: 2, Confidence: 0.8},
				{MemoryID: "r3", AgeDays: 3, Confidence: 0.7},
				{MemoryID: "o1", AgeDays: 200, Confidence: 0.6, Used: true},
			},
			Success: i%3 != 0,
		})
	}
	// Outside the window: ignored.
	recalls = append(recalls, RecallEvent{At: now.Add(-40 * day), Results: []RecallResult{{AgeDays: 100, Confidence: 1}}})
	a, err := m.Assess(MetacogInput{Recalls: recalls}, now)
	require.NoError(t, err)
	s := a.Signals
	require.InDelta(t, 0.5, s.RetrievalEfficiency, 1e-12)
	require.InDelta(t, 0.75-0.5, s.RecencyBias, 1e-12, "75 % of returned results are recent, 50 % of used ones")
	require.InDelta(t, 0.75-0.5, s.CalibrationError, 1e-12, "mean confidence 0.75 against precision 0.5")
	require.InDelta(t, 20.0/30, s.RecallSuccessRate, 1e-12)
	require.Zero(t, s.EfficiencyTrend)
	require.True(t, hasAlert(a, AlertRecencyBias))
	require.False(t, hasAlert(a, AlertConfirmationBias), "no feedback, no confirmation alert")

	// Balanced usage: no recency bias.
	for i := range recalls[:30] {
		recalls[i].Results[2].Used = true
		recalls[i].Results[1].Used = true
		recalls[i].Results[0].Used = true
	}
	a, err = m.Assess(MetacogInput{Recalls: recalls[:30]}, now)
	require.NoError(t, err)
	require.InDelta(t, 0, a.Signals.RecencyBias, 1e-12)
	require.False(t, hasAlert(a, AlertRecencyBias))
}

func TestAsymmetryAlert(t *testing.T) {
	t.Parallel()
	m := newMonitor(t)
	var fb []Feedback
	for i := range 40 {
		kind := FeedbackPositive
		if i%2 == 1 {
			kind = FeedbackNegative
		}
		accepted := (kind == FeedbackNegative && i%4 != 3) || (kind == FeedbackPositive && i%16 == 0)
		fb = append(fb, Feedback{At: t0.Add(-time.Duration(i) * time.Hour), Kind: kind, Accepted: accepted})
	}
	a, err := m.Assess(MetacogInput{Feedback: fb}, t0)
	require.NoError(t, err)
	require.InDelta(t, math.Abs(0.15-0.5), a.Signals.Asymmetry, 1e-12)
	require.True(t, hasAlert(a, AlertAsymmetry))
	require.Contains(t, a.Alerts[0].Message, "negative suggestions")
}

func TestMetacogBadInput(t *testing.T) {
	t.Parallel()
	m := newMonitor(t)
	_, err := m.Assess(MetacogInput{Feedback: []Feedback{{At: t0, Kind: "maybe"}}}, t0)
	require.ErrorIs(t, err, ErrInvalidInput)
	_, err = m.Assess(MetacogInput{Recalls: []RecallEvent{{At: t0, Results: []RecallResult{{AgeDays: -1}}}}}, t0)
	require.ErrorIs(t, err, ErrInvalidInput)
	_, err = m.Assess(MetacogInput{Recalls: []RecallEvent{{At: t0, Results: []RecallResult{{Confidence: math.NaN()}}}}}, t0)
	require.ErrorIs(t, err, ErrInvalidInput)
	empty, err := m.Assess(MetacogInput{}, t0)
	require.NoError(t, err)
	require.Equal(t, Signals{}, empty.Signals, "no data gives zero signals")
	require.Empty(t, empty.Alerts)
	for _, cfg := range []MetacogConfig{{Recent: 60 * day}, {BiasAlert: 2}, {MinSamples: -1}, {NoveltyPE: math.NaN()}} {
		_, err := NewMetacognitiveMonitor(&cfg)
		require.ErrorIs(t, err, ErrInvalidInput, "%+v", cfg)
	}
}
