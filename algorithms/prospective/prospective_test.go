package prospective

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// wed is Wednesday 11 June 2025, 14:30 UTC.
var wed = time.Date(2025, 6, 11, 14, 30, 0, 0, time.UTC)

func at(day, hour, minute int) time.Time {
	return time.Date(2025, 6, day, hour, minute, 0, 0, time.UTC)
}

type parseCase struct {
	text     string
	content  string
	due      time.Time // zero for cue intentions
	cue      string
	entities []string
	prio     Priority
}

func runParseCases(t *testing.T, lang textproc.Lang, cases []parseCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			in, err := Parse(tt.text, wed)
			require.NoError(t, err)
			require.NoError(t, in.Validate())
			require.Equal(t, tt.content, in.Content)
			require.Equal(t, StatusPending, in.Status)
			require.Equal(t, lang, in.Lang)
			require.Equal(t, cmpOr(tt.prio, PriorityMedium), in.Priority)
			require.Equal(t, wed, in.CreatedAt)
			if tt.due.IsZero() {
				require.Equal(t, TriggerCue, in.Trigger)
				require.Equal(t, tt.cue, in.Cue)
				require.Equal(t, tt.entities, in.CueEntities)
				require.Equal(t, wed.Add(CueTTLDefault), in.ExpiresAt)
				return
			}
			require.Equal(t, TriggerTime, in.Trigger)
			require.Equal(t, tt.due, in.DueAt, "due %s", in.DueAt.Format(time.RFC3339))
			require.Equal(t, tt.due.Add(TimeGraceDefault), in.ExpiresAt)
		})
	}
}

func cmpOr(p, def Priority) Priority {
	if p == 0 {
		return def
	}
	return p
}

func TestParseEnglish(t *testing.T) {
	t.Parallel()
	runParseCases(t, textproc.English, []parseCase{
		{text: "remind me to call mom tomorrow at 9", content: "call mom", due: at(12, 9, 0)},
		{text: "Remind me tomorrow at 9 to call mom.", content: "call mom", due: at(12, 9, 0)},
		{text: "remind me in 2 hours to check the oven", content: "check the oven", due: at(11, 16, 30)},
		{text: "remind me in half an hour to stretch", content: "stretch", due: at(11, 15, 0)},
		{text: "remind me in 3 days to follow up", content: "follow up", due: at(14, 14, 30)},
		{text: "remind me in 3 days at 8am to follow up", content: "follow up", due: at(14, 8, 0)},
		{text: "remind me the day after tomorrow to follow up", content: "follow up", due: at(13, 9, 0)},
		{text: "remind me on Friday evening to water the plants", content: "water the plants", due: at(13, 19, 0)},
		{text: "remind me on Wednesday to water the plants", content: "water the plants", due: at(18, 9, 0)},
		{text: "remind me to pay rent on 1 July", content: "pay rent", due: time.Date(2025, 7, 1, 9, 0, 0, 0, time.UTC)},
		{text: "remind me to renew the visa on March 3", content: "renew the visa", due: time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC)},
		{text: "remind me to file taxes on 2025-12-01 at 10:15", content: "file taxes", due: time.Date(2025, 12, 1, 10, 15, 0, 0, time.UTC)},
		{text: "remind me next week to renew the passport", content: "renew the passport", due: at(16, 9, 0)},
		{text: "remind me next month to cancel the trial", content: "cancel the trial", due: time.Date(2025, 7, 1, 9, 0, 0, 0, time.UTC)},
		{text: "remind me at 5pm to leave", content: "leave", due: at(11, 17, 0)},
		{text: "remind me at 10 to stretch", content: "stretch", due: at(12, 10, 0)}, // 10:00 has passed today
		{text: "remind me at 12 a.m. to sleep", content: "sleep", due: at(12, 0, 0)},
		{text: "remind me urgently to call the bank today at 4 pm", content: "call the bank", due: at(11, 16, 0), prio: PriorityHigh},
		{text: "remind me to water the garden in the evening, no rush", content: "water the garden", due: at(11, 19, 0), prio: PriorityLow},
		{text: "don't forget to buy milk tonight", content: "buy milk", due: at(11, 19, 0)},
		{text: "Please remind me that the vet opens tomorrow morning", content: "the vet opens", due: at(12, 9, 0)},
		{text: "Reminder: dentist tomorrow at 3pm", content: "dentist", due: at(12, 15, 0)},
		{text: "when I talk to Anna, ask about the trip", content: "ask about the trip", cue: "Anna", entities: []string{"Anna"}},
		{text: "Next time I see Dr. Weber, then ask for the lab results", content: "ask for the lab results", cue: "Dr. Weber", entities: []string{"Dr. Weber"}},
		{text: "remind me to ask about the trip when I see Anna", content: "ask about the trip", cue: "Anna", entities: []string{"Anna"}},
		{text: "When I talk to Anna, remind me to ask about the trip", content: "ask about the trip", cue: "Anna", entities: []string{"Anna"}},
		{text: "when the budget comes up, mention the new numbers", content: "mention the new numbers", cue: "the budget"},
		{text: "mention the new numbers if the budget is discussed", content: "mention the new numbers", cue: "the budget"},
	})
}

func TestParseGerman(t *testing.T) {
	t.Parallel()
	runParseCases(t, textproc.German, []parseCase{
		{text: "erinnere mich morgen an den Zahnarzt", content: "den Zahnarzt", due: at(12, 9, 0)},
		{text: "Erinnere mich morgen um 9 daran, Anna anzurufen", content: "Anna anzurufen", due: at(12, 9, 0)},
		{text: "erinnere mich daran, morgen die Miete zu zahlen", content: "die Miete zu zahlen", due: at(12, 9, 0)},
		{text: "erinnere mich in zwei Stunden an den Ofen", content: "den Ofen", due: at(11, 16, 30)},
		{text: "erinnere mich in einer halben Stunde an den Tee", content: "den Tee", due: at(11, 15, 0)},
		{text: "erinnere mich am Montagabend an das Training", content: "das Training", due: at(16, 19, 0)},
		{text: "erinnere mich am 1.7. an die Miete", content: "die Miete", due: time.Date(2025, 7, 1, 9, 0, 0, 0, time.UTC)},
		{text: "erinnere mich am 3. März an die Steuer", content: "die Steuer", due: time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC)},
		{text: "erinnere mich heute abend an den Müll", content: "den Müll", due: at(11, 19, 0)},
		{text: "erinnere mich heute um 16:45 Uhr an den Anruf", content: "den Anruf", due: at(11, 16, 45)},
		{text: "erinnere mich morgen früh an die Tabletten", content: "die Tabletten", due: at(12, 9, 0)},
		{text: "erinnere mich nächste Woche an den Pass", content: "den Pass", due: at(16, 9, 0)},
		{text: "Erinnere mich am Freitag um 14 Uhr an das Meeting", content: "das Meeting", due: at(13, 14, 0)},
		{text: "erinnere mich abends an die Pflanzen", content: "die Pflanzen", due: at(11, 19, 0)},
		{text: "erinnere mich dringend morgen an die Bank", content: "die Bank", due: at(12, 9, 0), prio: PriorityHigh},
		{text: "vergiss nicht, übermorgen die Blumen zu gießen", content: "die Blumen zu gießen", due: at(13, 9, 0)},
		{text: "Denk daran, morgen um 8 den Müll rauszustellen, nicht dringend", content: "den Müll rauszustellen", due: at(12, 8, 0), prio: PriorityLow},
		{text: "wenn ich mit Anna spreche, frag nach der Reise", content: "frag nach der Reise", cue: "Anna", entities: []string{"Anna"}},
		{text: "Wenn ich Anna das nächste Mal sehe, frag nach den Fotos", content: "frag nach den Fotos", cue: "Anna", entities: []string{"Anna"}},
		{text: "erinnere mich daran, nach der Reise zu fragen, wenn ich Anna sehe", content: "nach der Reise zu fragen", cue: "Anna", entities: []string{"Anna"}},
		{text: "wenn das Budget zur Sprache kommt, die neuen Zahlen erwähnen", content: "die neuen Zahlen erwähnen", cue: "das Budget"},
	})
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want error
	}{
		{"empty", "", ErrInvalidInput},
		{"blank", "  \t\n ", ErrInvalidInput},
		{"punctuation only", "...!", ErrInvalidInput},
		{"too long", "remind me to " + strings.Repeat("x", MaxParseBytes) + " tomorrow", ErrInvalidInput},
		{"not an intention", "the weather is nice in Vienna", ErrNotIntention},
		{"no time", "remind me to buy milk", ErrNotIntention},
		{"kein Zeitpunkt", "erinnere mich an die Milch", ErrNotIntention},
		{"past only", "remind me to call mom yesterday", ErrNotIntention},
		{"past explicit date", "remind me to pay rent on 2025-01-01", ErrNotIntention},
		{"today passed", "remind me today at 8 to run", ErrNotIntention},
		{"no content", "remind me tomorrow at 9", ErrNotIntention},
		{"cue without content", "when I talk to Anna,", ErrNotIntention},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(tt.text, wed)
			require.ErrorIs(t, err, tt.want)
		})
	}
}

func TestNewParserBadConfig(t *testing.T) {
	t.Parallel()
	bad := []*ParseConfig{
		{DefaultHour: 24},
		{DefaultHour: -3},
		{TimeGrace: -2},
		{CueForms: []CueForm{{Name: "nogroups", Pattern: `when (.+)`}}},
		{CueForms: []CueForm{{Name: "broken", Pattern: `(?P<cue>`}}},
		{ReminderForms: []ReminderForm{{Name: "broken", Pattern: `(`}}},
		{TimeRules: []TimeRule{{Name: "broken", Pattern: `[`, Kind: TimeDay}}},
		{TimeRules: []TimeRule{{Name: "kind", Pattern: `soon`, Kind: "whenever"}}},
	}
	for i, c := range bad {
		_, err := NewParser(c)
		require.ErrorIs(t, err, ErrInvalidInput, "config %d", i)
	}
	p, err := NewParser(&ParseConfig{TimeGrace: -1, CueTTL: -1, DefaultHour: 7})
	require.NoError(t, err)
	in, err := p.Parse("remind me tomorrow to run", wed)
	require.NoError(t, err)
	require.Equal(t, at(12, 7, 0), in.DueAt)
	require.True(t, in.ExpiresAt.IsZero())
}

func cueIntention() Intention {
	return Intention{
		ID: "i1", Content: "ask about the trip", Trigger: TriggerCue, Cue: "Anna Schmidt",
		CueEntities: []string{"Anna Schmidt"}, CueEmbedding: []float32{1, 0, 0},
		Lang: textproc.English, Status: StatusPending, Priority: PriorityMedium, CreatedAt: wed,
	}
}

func TestMatchCue(t *testing.T) {
	t.Parallel()
	topic := cueIntention()
	topic.Cue, topic.CueEntities, topic.CueEmbedding = "trip planning budget", nil, nil
	tests := []struct {
		name     string
		in       Intention
		text     string
		entities []string
		emb      []float32
		cfg      *MatchConfig
		matched  bool
		reason   Reason
		score    float64
	}{
		{name: "entity first name", in: cueIntention(), text: "lunch", entities: []string{"Anna"}, matched: true, reason: ReasonEntity, score: 1},
		{name: "entity case and punctuation", in: cueIntention(), text: "lunch", entities: []string{"ANNA-SCHMIDT"}, matched: true, reason: ReasonEntity, score: 1},
		{name: "entity other person", in: cueIntention(), text: "lunch", entities: []string{"Bob Schmidt Jr"}, matched: false},
		{name: "keyword all terms", in: cueIntention(), text: "Had coffee with anna schmidt today", matched: true, reason: ReasonKeyword, score: 1},
		{name: "keyword stemmed", in: topic, text: "We are planning the trips and the budgets", matched: true, reason: ReasonKeyword, score: 1},
		{name: "keyword jaccard", in: topic, text: "trip budget", matched: true, reason: ReasonKeyword, score: 2.0 / 3},
		{name: "keyword too weak", in: topic, text: "the budget for the office party", matched: false},
		{name: "embedding close", in: cueIntention(), text: "lunch", emb: []float32{0.9, 0.3, 0}, matched: true, reason: ReasonEmbedding, score: 0.9 / math.Sqrt(0.9)},
		{name: "embedding far", in: cueIntention(), text: "lunch", emb: []float32{0.5, 0.8660254, 0}, matched: false},
		{name: "embedding zero vector", in: cueIntention(), text: "lunch", emb: []float32{0, 0, 0}, matched: false},
		{name: "embedding threshold lowered", in: cueIntention(), text: "lunch", emb: []float32{0.5, 0.8660254, 0}, cfg: &MatchConfig{EmbeddingThreshold: 0.5}, matched: true, reason: ReasonEmbedding, score: 0.5},
		{name: "entity disabled", in: cueIntention(), text: "lunch", entities: []string{"Anna"}, cfg: &MatchConfig{DisableEntity: true}, matched: false},
		{name: "tie prefers entity", in: cueIntention(), text: "anna schmidt", entities: []string{"Anna Schmidt"}, matched: true, reason: ReasonEntity, score: 1},
		{name: "fired never matches", in: func() Intention { i := cueIntention(); i.Status = StatusFired; return i }(), text: "anna schmidt", entities: []string{"Anna"}, matched: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := MatchCue(tt.in, tt.text, tt.entities, tt.emb, tt.cfg)
			require.NoError(t, err)
			require.Equal(t, tt.matched, m.Matched)
			require.Equal(t, tt.reason, m.Reason)
			if tt.matched {
				require.InDelta(t, tt.score, m.Score, 1e-6)
			}
		})
	}
}

func TestMatchCueGerman(t *testing.T) {
	t.Parallel()
	in, err := Parse("wenn die Reiseplanung zur Sprache kommt, frag nach den Flügen", wed)
	require.NoError(t, err)
	m, err := MatchCue(in, "Heute ging es um Reiseplanungen für den Sommer", nil, nil, nil)
	require.NoError(t, err)
	require.True(t, m.Matched)
	require.Equal(t, ReasonKeyword, m.Reason)
}

func TestMatchCueBadInput(t *testing.T) {
	t.Parallel()
	timeIn := Intention{Content: "x", Trigger: TriggerTime, DueAt: wed, Status: StatusPending, Priority: PriorityLow}
	nanCue := cueIntention()
	nanCue.CueEmbedding = []float32{float32(math.NaN()), 0, 0}
	tests := []struct {
		name string
		in   Intention
		emb  []float32
		cfg  *MatchConfig
	}{
		{"mismatched dims", cueIntention(), []float32{1, 0}, nil},
		{"nan text embedding", cueIntention(), []float32{float32(math.NaN()), 0, 0}, nil},
		{"inf text embedding", cueIntention(), []float32{float32(math.Inf(1)), 0, 0}, nil},
		{"nan cue embedding", nanCue, []float32{1, 0, 0}, nil},
		{"time intention", timeIn, nil, nil},
		{"invalid intention", Intention{Trigger: TriggerCue, Cue: "x"}, nil, nil},
		{"bad threshold", cueIntention(), nil, &MatchConfig{KeywordJaccard: 1.5}},
		{"nan threshold", cueIntention(), nil, &MatchConfig{EmbeddingThreshold: math.NaN()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := MatchCue(tt.in, "text", nil, tt.emb, tt.cfg)
			require.ErrorIs(t, err, ErrInvalidInput)
		})
	}
	// A disabled embedding path does not check dimensions.
	_, err := MatchCue(cueIntention(), "text", nil, []float32{1, 0}, &MatchConfig{DisableEmbedding: true})
	require.NoError(t, err)
}

func timeIntention(id string, due time.Time, p Priority) Intention {
	return Intention{
		ID: id, Content: "do " + id, Trigger: TriggerTime, DueAt: due, Status: StatusPending,
		Priority: p, CreatedAt: wed.Add(-48 * time.Hour), ExpiresAt: due.Add(24 * time.Hour),
	}
}

func TestTransitions(t *testing.T) {
	t.Parallel()
	due := timeIntention("a", wed, PriorityMedium)
	withStatus := func(in Intention, s Status) Intention { in.Status = s; return in }
	tests := []struct {
		name string
		op   func(Intention, time.Time) (Intention, error)
		in   Intention
		now  time.Time
		want Status
		err  error
	}{
		{"fire due", Fire, due, wed, StatusFired, nil},
		{"fire not yet due", Fire, due, wed.Add(-time.Minute), "", ErrTransition},
		{"fire after expiry", Fire, due, wed.Add(24 * time.Hour), "", ErrTransition},
		{"fire cue any time", Fire, cueIntention(), wed, StatusFired, nil},
		{"fire fired", Fire, withStatus(due, StatusFired), wed, "", ErrTransition},
		{"fire dismissed", Fire, withStatus(due, StatusDismissed), wed, "", ErrTransition},
		{"fire expired", Fire, withStatus(due, StatusExpired), wed.Add(48 * time.Hour), "", ErrTransition},
		{"dismiss pending", Dismiss, due, wed, StatusDismissed, nil},
		{"dismiss expired", Dismiss, withStatus(due, StatusExpired), wed, StatusDismissed, nil},
		{"dismiss fired", Dismiss, withStatus(due, StatusFired), wed, "", ErrTransition},
		{"dismiss dismissed", Dismiss, withStatus(due, StatusDismissed), wed, "", ErrTransition},
		{"expire at ExpiresAt", Expire, due, wed.Add(24 * time.Hour), StatusExpired, nil},
		{"expire too early", Expire, due, wed, "", ErrTransition},
		{"expire without ExpiresAt", Expire, cueIntention(), wed.Add(1000 * time.Hour), "", ErrTransition},
		{"expire fired", Expire, withStatus(due, StatusFired), wed.Add(48 * time.Hour), "", ErrTransition},
		{"now before creation", Dismiss, due, wed.Add(-72 * time.Hour), "", ErrInvalidInput},
		{"invalid intention", Dismiss, Intention{Trigger: TriggerTime, Status: StatusPending}, wed, "", ErrInvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.op(tt.in, tt.now)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got.Status)
			require.Equal(t, tt.now, got.ResolvedAt)
		})
	}
	all := []Status{StatusPending, StatusFired, StatusDismissed, StatusExpired}
	allowed := 0
	for _, from := range all {
		for _, to := range all {
			if CanTransition(from, to) {
				allowed++
			}
		}
	}
	require.Equal(t, 4, allowed)
	require.False(t, CanTransition("bogus", StatusFired))
}

func TestDueByTimeAndExpiredBy(t *testing.T) {
	t.Parallel()
	list := []Intention{
		timeIntention("late-low", wed.Add(-time.Hour), PriorityLow),
		timeIntention("b-high", wed.Add(-2*time.Hour), PriorityHigh),
		timeIntention("a-high", wed.Add(-2*time.Hour), PriorityHigh),
		timeIntention("medium", wed.Add(-3*time.Hour), PriorityMedium),
		timeIntention("future", wed.Add(time.Hour), PriorityHigh),
		timeIntention("expired", wed.Add(-30*time.Hour), PriorityHigh),
		func() Intention {
			i := timeIntention("fired", wed.Add(-time.Hour), PriorityHigh)
			i.Status = StatusFired
			return i
		}(),
		cueIntention(),
		{ID: "invalid", Trigger: TriggerTime, DueAt: wed, Status: StatusPending, Priority: PriorityHigh},
	}
	var ids []string
	for _, in := range DueByTime(list, wed) {
		ids = append(ids, in.ID)
	}
	require.Equal(t, []string{"a-high", "b-high", "medium", "late-low"}, ids)
	exp := ExpiredBy(list, wed)
	require.Len(t, exp, 1)
	require.Equal(t, "expired", exp[0].ID)
	require.Empty(t, DueByTime(nil, wed))
}

func TestValidate(t *testing.T) {
	t.Parallel()
	ok := timeIntention("ok", wed, PriorityMedium)
	mod := func(f func(*Intention)) Intention { i := ok; f(&i); return i }
	tests := []struct {
		name string
		in   Intention
	}{
		{"no content", mod(func(i *Intention) { i.Content = " " })},
		{"bad trigger", mod(func(i *Intention) { i.Trigger = "event" })},
		{"bad status", mod(func(i *Intention) { i.Status = "" })},
		{"bad priority", mod(func(i *Intention) { i.Priority = 0 })},
		{"no due", mod(func(i *Intention) { i.DueAt = time.Time{} })},
		{"expires before due", mod(func(i *Intention) { i.ExpiresAt = wed.Add(-time.Minute) })},
		{"expires before creation", mod(func(i *Intention) { i.Trigger, i.Cue, i.ExpiresAt = TriggerCue, "x", wed.Add(-72*time.Hour) })},
		{"cue without cue", mod(func(i *Intention) { i.Trigger = TriggerCue })},
		{"empty cue entity", mod(func(i *Intention) { i.Trigger, i.CueEntities = TriggerCue, []string{""} })},
		{"inf embedding", mod(func(i *Intention) {
			i.Trigger, i.CueEmbedding = TriggerCue, []float32{float32(math.Inf(-1))}
		})},
	}
	require.NoError(t, ok.Validate())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.in.Validate()
			require.ErrorIs(t, err, ErrInvalidInput)
			require.False(t, errors.Is(err, ErrTransition))
		})
	}
	require.Equal(t, "high", PriorityHigh.String())
	require.Equal(t, "priority(7)", Priority(7).String())
}

func FuzzParseIntention(f *testing.F) {
	for _, s := range []string{
		"remind me to call mom tomorrow at 9", "erinnere mich morgen an X",
		"when I talk to Anna, ask about the trip", "remind me at 99:99 to x", "remind me in 99999 days",
		"erinnere mich am 31.2. an nichts", "remind me 12 pm pm pm", "wenn ich , ,", "\xff\xfe remind me",
		"remind me ı İ tomorrow to ǅ", "reminder: " + strings.Repeat("in 2 hours ", 40),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in, err := Parse(s, wed)
		if err != nil {
			require.True(t, errors.Is(err, ErrInvalidInput) || errors.Is(err, ErrNotIntention), "error %v", err)
			return
		}
		require.NoError(t, in.Validate())
		if in.Trigger == TriggerTime {
			require.True(t, in.DueAt.After(wed))
		}
	})
}
