package retrieval

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// testNow is Wednesday 15 May 2024, 14:30 UTC.
var testNow = time.Date(2024, 5, 15, 14, 30, 0, 0, time.UTC)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query string
		want  QueryClass
		lang  textproc.Lang
	}{
		{"What did I do yesterday?", ClassTemporal, textproc.English},
		{"When did we last meet Alice?", ClassTemporal, textproc.English},
		{"What happened two months ago", ClassTemporal, textproc.English},
		{"Recently I talked to Bob about what?", ClassTemporal, textproc.English},
		{"How do I reset the router?", ClassProcedural, textproc.English},
		{"What are the steps to deploy the app", ClassProcedural, textproc.English},
		{"how to bake sourdough bread", ClassProcedural, textproc.English},
		{"What is my sister's name?", ClassFactual, textproc.English},
		{"Who is Anna's manager", ClassFactual, textproc.English},
		{"How many cats do I have?", ClassFactual, textproc.English},
		{"Where does Bob live?", ClassFactual, textproc.English},
		{"tell me about cats", ClassGeneral, textproc.English},
		{"", ClassGeneral, textproc.English},
		{"sourdough", ClassGeneral, textproc.English},
		{"Was habe ich gestern gemacht?", ClassTemporal, textproc.German},
		{"Wann war ich zuletzt beim Arzt?", ClassTemporal, textproc.German},
		{"Was ist vor zwei Monaten passiert?", ClassTemporal, textproc.German},
		{"Wie richte ich die Datenbank ein?", ClassProcedural, textproc.German},
		{"Gibt es eine Anleitung für den Drucker", ClassProcedural, textproc.German},
		{"Wer ist Anna?", ClassFactual, textproc.German},
		{"Wie heißt mein Hund?", ClassFactual, textproc.German},
		{"Was ist mein Lieblingsessen?", ClassFactual, textproc.German},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			t.Parallel()
			got := Classify(tt.query, testNow)
			require.Equal(t, tt.want, got.Class, "scores %v matched %v", got.Scores, got.Matched)
			require.Equal(t, tt.lang, got.Lang)
		})
	}
}

func TestClassifyScoresAndTies(t *testing.T) {
	t.Parallel()
	got := Classify("What did I do yesterday?", testNow)
	// en_past_event 0.5 + date 2.0 for temporal; en_wh_start 0.75 for factual.
	require.InDelta(t, 2.5, got.Scores[ClassTemporal], 1e-12)
	require.InDelta(t, 0.75, got.Scores[ClassFactual], 1e-12)
	require.Equal(t, []string{"en_past_event", "en_wh_start", "date"}, got.Matched)

	// A tie between temporal and factual goes to temporal.
	c, err := NewClassifier(&ClassifierConfig{Rules: []Rule{
		{Name: "t", Class: ClassTemporal, Pattern: `foo`, Weight: 1},
		{Name: "f", Class: ClassFactual, Pattern: `foo`, Weight: 1},
	}})
	require.NoError(t, err)
	require.Equal(t, ClassTemporal, c.Classify("foo", testNow).Class)
	// A weak cue alone stays general (0.5 < MinScore 0.75).
	require.Equal(t, ClassGeneral, Classify("install", testNow).Class)
	// Word boundaries: "whenever" does not contain the cue "when".
	require.NotContains(t, Classify("whenever", testNow).Matched, "en_when")
}

func TestNewClassifierErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  ClassifierConfig
		msg  string
	}{
		{"bad regexp", ClassifierConfig{Rules: []Rule{{Name: "x", Class: ClassFactual, Pattern: `(`, Weight: 1}}}, `rule "x"`},
		{"general class", ClassifierConfig{Rules: []Rule{{Name: "g", Class: ClassGeneral, Pattern: `a`, Weight: 1}}}, `rule "g" has class`},
		{"zero weight", ClassifierConfig{Rules: []Rule{{Name: "z", Class: ClassFactual, Pattern: `a`}}}, `rule "z" has weight`},
		{"bad date kind", ClassifierConfig{DateRules: []DateRule{{Name: "d", Pattern: `a`, Kind: "nope"}}}, `date rule "d"`},
		{"bad date regexp", ClassifierConfig{DateRules: []DateRule{{Name: "d", Pattern: `[`, Kind: DateDay}}}, `date rule "d"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewClassifier(&tt.cfg)
			require.ErrorContains(t, err, tt.msg)
		})
	}
}

func TestDates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query    string
		rule     string
		from, to time.Time
	}{
		{"what did I do yesterday", "en_yesterday", day(2024, 5, 14), day(2024, 5, 15)},
		{"last night", "en_yesterday", day(2024, 5, 14), day(2024, 5, 15)},
		{"the day before yesterday", "en_day_before_yesterday", day(2024, 5, 13), day(2024, 5, 14)},
		{"today", "en_today", day(2024, 5, 15), day(2024, 5, 16)},
		{"tomorrow", "en_tomorrow", day(2024, 5, 16), day(2024, 5, 17)},
		{"gestern", "de_gestern", day(2024, 5, 14), day(2024, 5, 15)},
		{"gestern Abend", "de_gestern", day(2024, 5, 14), day(2024, 5, 15)},
		{"heute morgen", "de_heute", day(2024, 5, 15), day(2024, 5, 16)},
		{"vorgestern", "de_vorgestern", day(2024, 5, 13), day(2024, 5, 14)},
		// ISO weeks start on Monday; 15 May 2024 is a Wednesday.
		{"last week", "en_previous", day(2024, 5, 6), day(2024, 5, 13)},
		{"letzte Woche", "de_previous", day(2024, 5, 6), day(2024, 5, 13)},
		{"this week", "en_current", day(2024, 5, 13), day(2024, 5, 20)},
		{"diese Woche", "de_current", day(2024, 5, 13), day(2024, 5, 20)},
		{"last month", "en_previous", day(2024, 4, 1), day(2024, 5, 1)},
		{"letzten Monat", "de_previous", day(2024, 4, 1), day(2024, 5, 1)},
		{"last year", "en_previous", day(2023, 1, 1), day(2024, 1, 1)},
		{"letztes Jahr", "de_previous", day(2023, 1, 1), day(2024, 1, 1)},
		{"two months ago", "en_ago", day(2024, 3, 1), day(2024, 4, 1)},
		{"vor zwei Monaten", "de_ago", day(2024, 3, 1), day(2024, 4, 1)},
		{"vor einem Jahr", "de_ago", day(2023, 1, 1), day(2024, 1, 1)},
		{"3 days ago", "en_ago", day(2024, 5, 12), day(2024, 5, 13)},
		{"vor drei Tagen", "de_ago", day(2024, 5, 12), day(2024, 5, 13)},
		{"a week ago", "en_ago", day(2024, 5, 6), day(2024, 5, 13)},
		{"a couple of weeks ago", "en_ago", day(2024, 4, 29), day(2024, 5, 6)},
		{"vor ein paar Tagen", "de_ago", day(2024, 5, 12), day(2024, 5, 13)},
		{"2 hours ago", "en_ago", testNow.Add(-3 * time.Hour), testNow.Add(-time.Hour)},
		{"in the last 3 days", "en_rolling_n", testNow.AddDate(0, 0, -3), testNow},
		{"in den letzten zwei Wochen", "de_rolling_n", testNow.AddDate(0, 0, -14), testNow},
		{"in the past week", "en_rolling_past", testNow.AddDate(0, 0, -7), testNow},
		{"last Monday", "en_weekday", day(2024, 5, 13), day(2024, 5, 14)},
		{"on Wednesday", "en_weekday", day(2024, 5, 8), day(2024, 5, 9)},
		{"am Freitag", "de_weekday", day(2024, 5, 10), day(2024, 5, 11)},
		{"in March 2023", "month_year", day(2023, 3, 1), day(2023, 4, 1)},
		{"im März 2023", "month_year", day(2023, 3, 1), day(2023, 4, 1)},
		{"in March", "month", day(2024, 3, 1), day(2024, 4, 1)},
		{"in June", "month", day(2023, 6, 1), day(2023, 7, 1)},
		{"im Mai", "month", day(2024, 5, 1), day(2024, 6, 1)},
		{"since March", "month", day(2024, 3, 1), testNow},
		{"in 2022", "year", day(2022, 1, 1), day(2023, 1, 1)},
		{"im Jahr 2021", "year", day(2021, 1, 1), day(2022, 1, 1)},
		{"seit 2020", "year", day(2020, 1, 1), testNow},
		{"2023-03-15", "iso_date", day(2023, 3, 15), day(2023, 3, 16)},
		{"15.03.2023", "de_dot_date", day(2023, 3, 15), day(2023, 3, 16)},
		{"am 1.5.", "de_dot_date", day(2024, 5, 1), day(2024, 5, 2)},
		{"on 3/15/23", "en_slash_date", day(2023, 3, 15), day(2023, 3, 16)},
		{"March 15th, 2023", "en_month_day", day(2023, 3, 15), day(2023, 3, 16)},
		{"on June 2", "en_month_day", day(2023, 6, 2), day(2023, 6, 3)},
		{"the 4th of July", "en_day_month", day(2023, 7, 4), day(2023, 7, 5)},
		{"am 15. März 2023", "de_day_month", day(2023, 3, 15), day(2023, 3, 16)},
		{"am 3. Mai", "de_day_month", day(2024, 5, 3), day(2024, 5, 4)},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			t.Parallel()
			got := Classify(tt.query, testNow)
			require.Len(t, got.Dates, 1, "dates %+v", got.Dates)
			require.Equal(t, tt.rule, got.Dates[0].Rule)
			require.Equal(t, tt.from, got.Dates[0].Range.From, "from")
			require.Equal(t, tt.to, got.Dates[0].Range.To, "to")
			require.Equal(t, ClassTemporal, got.Class)
			require.NotNil(t, got.Range)
			require.Equal(t, got.Dates[0].Range, *got.Range)
		})
	}
}

func TestDatesRejected(t *testing.T) {
	t.Parallel()
	for _, q := range []string{
		"May I ask something",  // modal "may" is not a month
		"30.02.2023",           // no 30 February
		"2023-13-01",           // no month 13
		"99999999999 days ago", // count beyond MaxDateCount
		"0 days ago",
		"version 2.5.1", // "2.5.1" parses as a date only at word boundaries with a 2- or 4-digit year
		"guten Morgen",  // German "morgen" alone is not tomorrow
		"yesterdays",
	} {
		t.Run(q, func(t *testing.T) {
			t.Parallel()
			got := Classify(q, testNow)
			require.Empty(t, got.Dates)
			require.Nil(t, got.Range)
		})
	}
}

func TestDatesMultipleAndLocation(t *testing.T) {
	t.Parallel()
	got := Classify("between 2023-03-15 and yesterday", testNow)
	require.Len(t, got.Dates, 2)
	require.Equal(t, "2023-03-15", got.Dates[0].Text)
	require.Equal(t, "yesterday", got.Dates[1].Text)
	require.Equal(t, TimeRange{From: day(2023, 3, 15), To: day(2024, 5, 15)}, *got.Range)

	// Days are calendar days in now's location, also across a DST change
	// (Europe/Berlin switched to summer time on 31 March 2024).
	berlin := time.FixedZone("CET-like", 3600)
	if loc, err := time.LoadLocation("Europe/Berlin"); err == nil {
		berlin = loc
	}
	now := time.Date(2024, 4, 1, 9, 0, 0, 0, berlin)
	y := Classify("gestern", now).Dates[0].Range
	require.Equal(t, time.Date(2024, 3, 31, 0, 0, 0, 0, berlin), y.From)
	require.Equal(t, time.Date(2024, 4, 1, 0, 0, 0, 0, berlin), y.To)
	require.True(t, y.Contains(time.Date(2024, 3, 31, 23, 59, 0, 0, berlin)))
	require.False(t, y.Contains(y.To))
}

func FuzzClassify(f *testing.F) {
	for _, s := range []string{
		"", "What did I do yesterday?", "vor zwei Monaten", "in March 2023", "15.03.2023", "2023-02-31",
		"letzte Woche", "9999 years ago", "last 9999 hours", "\xff\xfe", "ＷＨＥＮ", "am 31.12.", "since Dec",
	} {
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, q string, offset int64) {
		now := testNow.Add(time.Duration(offset % int64(200*365*24*time.Hour)))
		got := Classify(q, now)
		require.True(t, got.Class.Valid())
		require.True(t, got.Lang == textproc.English || got.Lang == textproc.German)
		for _, d := range got.Dates {
			require.True(t, d.Range.From.Before(d.Range.To), "empty range %v for %q", d.Range, d.Text)
			require.True(t, utf8.ValidString(d.Text))
			require.NotEmpty(t, strings.TrimSpace(d.Text))
		}
		if len(got.Dates) > 0 {
			require.NotNil(t, got.Range)
			require.GreaterOrEqual(t, got.Scores[ClassTemporal], DateWeightDefault)
		} else {
			require.Nil(t, got.Range)
		}
	})
}

// The literal prefilter (requiredLiterals) only skips regular expressions that cannot match:
// on 20 000 generated texts dense in the rules' words, dates, numbers and punctuation, the
// classifier with it returns what the classifier without it returns, and both find dates
// and rules on many of them.
func TestLiteralPrefilterKeepsResults(t *testing.T) {
	t.Parallel()
	with, err := NewClassifier(nil)
	require.NoError(t, err)
	without := withoutPrefilter(t)
	// Words: every string the prefilter looks for, and their neighbours in real text.
	words := strings.Fields(`the a in on at of since seit im during last past this previous next ago vor letzten
		vergangenen diese am um wie was wer wo when what how why who which did was were have had i we you she he
		they ich wir du sie er is are there how to step steps install fix cook bake recipe name birthday live work
		yesterday today tonight tomorrow gestern heute morgen vorgestern übermorgen week weeks month months year
		years day days hour hours 3 12 31 2019 2024 1999 05 3rd 21st 2nd of , . / - ( )`)
	for _, r := range with.rules {
		for _, g := range r.lits {
			words = append(words, g...)
		}
	}
	for _, d := range with.dates {
		for _, g := range d.lits {
			words = append(words, g...)
		}
	}
	rng := rand.New(rand.NewPCG(7, 11))
	var dated, ruled int
	for range 20000 {
		n := 2 + rng.IntN(9)
		var b strings.Builder
		for j := range n {
			if j > 0 && rng.IntN(4) > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		s := b.String()
		got, want := with.Classify(s, testNow), without.Classify(s, testNow)
		require.Equal(t, want, got, "%q", s)
		if len(want.Dates) > 0 {
			dated++
		}
		if len(want.Matched) > 0 {
			ruled++
		}
	}
	t.Logf("texts with dates %d, with a rule or date %d of 20000", dated, ruled)
	require.Greater(t, dated, 2000)
	require.Greater(t, ruled, 10000)
}

// withoutPrefilter is the default classifier with the literal prefilter off: every regular
// expression runs.
func withoutPrefilter(tb testing.TB) *Classifier {
	c, err := NewClassifier(nil)
	require.NoError(tb, err)
	for i := range c.rules {
		c.rules[i].lits = nil
	}
	for i := range c.dates {
		c.dates[i].lits = nil
	}
	return c
}

func BenchmarkClassify(b *testing.B) {
	c, err := NewClassifier(nil)
	require.NoError(b, err)
	off := withoutPrefilter(b)
	s := "Alice met Bob in Paris about apple river stone cloud maple copper violin garden (#123)"
	b.Run("prefilter", func(b *testing.B) {
		for b.Loop() {
			c.Classify(s, testNow)
		}
	})
	b.Run("regexp-only", func(b *testing.B) {
		for b.Loop() {
			off.Classify(s, testNow)
		}
	})
}
