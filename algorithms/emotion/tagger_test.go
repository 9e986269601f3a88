package emotion

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

type testBundle struct {
	tagger *Tagger
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	tg, err := NewTagger(nil)
	require.NoError(t, err)
	return &testBundle{tagger: tg}
}

func (b *testBundle) tag(t *testing.T, text string) Tag {
	t.Helper()
	tag, err := b.tagger.Tag(text)
	require.NoError(t, err, text)
	return tag
}

func TestLexiconSize(t *testing.T) {
	t.Parallel()

	for _, lang := range []string{"en", "de"} {
		data, err := lexiconFS.ReadFile("lexicon/" + lang + ".txt")
		require.NoError(t, err)
		counts := map[string]int{}
		for _, line := range strings.Split(string(data), "\n") {
			if len(line) > 2 && line[1] == '|' {
				counts[line[:1]]++
			}
		}
		require.GreaterOrEqual(t, counts["+"], 100, "%s positive entries", lang)
		require.GreaterOrEqual(t, counts["-"], 100, "%s negative entries", lang)
		require.GreaterOrEqual(t, counts["s"], 50, "%s significance cues", lang)
		require.GreaterOrEqual(t, counts["i"], 20, "%s intensifiers", lang)
		require.GreaterOrEqual(t, counts["n"], 10, "%s negators", lang)
		t.Logf("%s: %d positive, %d negative, %d arousal, %d significance, %d intensifiers, %d negators",
			lang, counts["+"], counts["-"], counts["a"], counts["s"], counts["i"], counts["n"])
	}
}

func TestNeutral(t *testing.T) {
	t.Parallel()
	b := setup(t)

	for _, text := range []string{
		"The meeting is at 3pm in room 4.",
		"Das Meeting ist um 15 Uhr in Raum 4.",
		"Deploy version 2.3 to the staging cluster.",
		"The API returns JSON and XML.", // acronyms are not shouting
		"Guten Morgen, wie geht's?",     // a greeting, not a sentiment
	} {
		tag := b.tag(t, text)
		require.Zero(t, tag.Valence, text)
		require.Zero(t, tag.Arousal, text)
		require.Zero(t, tag.Significance, text)
		require.Equal(t, 1.0, tag.DecayMultiplier, "neutral text must not slow decay: %q", text)
		require.Zero(t, tag.ConsolidationWeight, text)
	}
}

// TestOrderings checks the behaviour the lexicon method promises, as strict
// orderings between minimal pairs.
func TestOrderings(t *testing.T) {
	t.Parallel()
	b := setup(t)
	v := func(s string) float64 { return b.tag(t, s).Valence }
	a := func(s string) float64 { return b.tag(t, s).Arousal }
	sig := func(s string) float64 { return b.tag(t, s).Significance }

	tests := []struct {
		name       string
		less, more float64
	}{
		{"intensifier", v("The talk was good."), v("The talk was very good.")},
		{"stronger intensifier", v("The talk was very good."), v("The talk was extremely good.")},
		{"diminisher", v("The talk was slightly good."), v("The talk was good.")},
		{"negation flips", v("The talk was not good."), 0},
		{"negated negative is mildly positive", 0, v("The talk was not bad.")},
		{"negation damps", v("The talk was not bad."), v("The talk was good.")},
		{"not good is milder than bad", v("The talk was bad."), v("The talk was not good.")},
		{"contrast: the part after but wins", v("The food was good but the service was terrible."), 0},
		{"contrast: reversed", 0, v("The service was terrible but the food was good.")},
		{"German intensifier", v("Das war gut."), v("Das war sehr gut.")},
		{"German negation", v("Das ist nicht gut."), 0},
		{"German post-negation", v("Ich mag das nicht."), 0},
		{"German kein", 0, v("Kein Problem.")},
		{"length dilutes", v("Today I walked to the office, had coffee with the team, reviewed two pull requests and the result was good."), v("The result was good.")},
		{"caps raise arousal", a("I hate this."), a("I HATE this.")},
		{"one exclamation", a("Great result."), a("Great result!")},
		{"two exclamations", a("Great result!"), a("Great result!!")},
		{"intensifier raises arousal", a("I am happy."), a("I am very happy.")},
		{"negated significance", sig("This is not important."), sig("This is important.")},
		{"German negated significance", sig("Das ist nicht wichtig."), sig("Das ist wichtig.")},
	}
	for _, tt := range tests {
		require.Less(t, tt.less, tt.more, tt.name)
	}
	require.Equal(t, a("Great result!!!"), a("Great result!!!!!!!"), "exclamation arousal is capped")
	// "great" has arousal 0.5; the exclamation marks add at most 0.45, by noisy-or.
	require.InDelta(t, 1-(1-0.5)*(1-0.45), a("Great result!!!!!!!"), 1e-12)
}

func TestTagTable(t *testing.T) {
	t.Parallel()
	b := setup(t)

	tests := []struct {
		text     string
		lang     Lang
		vLo, vHi float64
		aLo, sLo float64
		terms    []string // lexicon terms that must appear among the signals
	}{
		{text: "Never forget: Anna's birthday is on May 3rd.", lang: LangEnglish, vLo: 0, vHi: 0, sLo: 0.95, terms: []string{"never forget", "birthday"}},
		{text: "My mother was diagnosed with cancer yesterday.", lang: LangEnglish, vLo: -1, vHi: -0.4, aLo: 0.6, sLo: 0.95, terms: []string{"diagnosed", "cancer", "mother"}},
		{text: "We got married today, the happiest day of my life!", lang: LangEnglish, vLo: 0.4, vHi: 1, aLo: 0.5, sLo: 0.8, terms: []string{"married", "happy"}},
		{text: "Her grandfather passed away last night.", lang: LangEnglish, vLo: 0, vHi: 0, sLo: 0.9, terms: []string{"passed away"}},
		{text: "I can't stand this, it's so frustrating", lang: LangEnglish, vLo: -1, vHi: -0.6, aLo: 0.9, terms: []string{"can't stand", "frustrating"}},
		{text: "He was happily surprised by the kindness and the sadness left.", lang: LangEnglish, vLo: 0, vHi: 1, terms: []string{"happy", "kindness", "sad"}},
		{text: "worst day ever 😭", lang: LangEnglish, vLo: -1, vHi: -0.7, aLo: 0.8, terms: []string{"worst", "😭"}},
		{text: "URGENT: the server is down, fix it now", lang: LangEnglish, vLo: 0, vHi: 0, aLo: 0.8, terms: []string{"urgent"}},
		{text: "Ich war gestern im Kino.", lang: LangGerman, vLo: 0, vHi: 0},
		{text: "Ich bin sehr glücklich!", lang: LangGerman, vLo: 0.6, vHi: 1, aLo: 0.7, terms: []string{"glücklich"}},
		{text: "Wir hatten einen wunderschönen Abend mit den glücklichen Kindern.", lang: LangGerman, vLo: 0.5, vHi: 1, terms: []string{"wunderschön", "glücklich"}},
		{text: "Die Krebsdiagnose war ein Schock.", lang: LangGerman, vLo: -1, vHi: -0.5, aLo: 0.9, sLo: 0.8, terms: []string{"diagnose", "krebs", "schock"}},
		{text: "Morgen ist unser Hochzeitstag, nie vergessen!", lang: LangGerman, vLo: 0, vHi: 0, sLo: 0.95, terms: []string{"hochzeitstag", "nie vergessen"}},
		{text: "Lebensfreude pur :)", lang: LangGerman, vLo: 0.5, vHi: 1, terms: []string{"freude", ":)"}},
		{text: "Ich bin total genervt und wütend, das ist eine Katastrophe.", lang: LangGerman, vLo: -1, vHi: -0.8, aLo: 0.95, terms: []string{"genervt", "wütend", "katastrophe"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()

			tag := b.tag(t, tt.text)
			require.Equal(t, tt.lang, tag.Lang)
			require.GreaterOrEqual(t, tag.Valence, tt.vLo)
			require.LessOrEqual(t, tag.Valence, tt.vHi)
			require.GreaterOrEqual(t, tag.Arousal, tt.aLo)
			require.GreaterOrEqual(t, tag.Significance, tt.sLo)
			var terms []string
			for _, s := range tag.Signals {
				terms = append(terms, s.Term)
			}
			for _, want := range tt.terms {
				require.Contains(t, terms, want)
			}
			m := 1 + 2*max(math.Abs(tag.Valence), tag.Arousal, tag.Significance)
			require.InDelta(t, min(m, 3), tag.DecayMultiplier, 1e-12)
			require.InDelta(t, min(1, 0.3*tag.Arousal+0.5*tag.Significance+0.2*math.Abs(tag.Valence)), tag.ConsolidationWeight, 1e-12)
		})
	}
}

func TestLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)

	// "war" is German for "was": read as English it is a negative cue.
	de, err := b.tagger.TagLang("Ich war gestern im Kino.", LangGerman)
	require.NoError(t, err)
	require.Zero(t, de.Valence)
	en, err := b.tagger.TagLang("Ich war gestern im Kino.", LangEnglish)
	require.NoError(t, err)
	require.Less(t, en.Valence, 0.0)
	auto := b.tag(t, "Ich war gestern im Kino.")
	require.Equal(t, de, auto)

	// "Gift" is poison in German and a present in English: with neither in
	// the lexicons, it stays neutral either way; "super" is shared.
	require.Equal(t, LangEnglish, b.tag(t, "The weather is lovely today.").Lang)
	require.Equal(t, LangGerman, b.tag(t, "Das Wetter ist heute schön.").Lang)

	// No function words: the reading with more cues wins.
	require.Equal(t, LangGerman, b.tag(t, "Überglücklich!").Lang)
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t)

	for _, text := range []string{"", "   ", "\n\t"} {
		tag, err := b.tagger.Tag(text)
		require.ErrorIs(t, err, ErrEmptyText)
		require.Equal(t, neutralTag(LangAuto), tag)
		require.Equal(t, 1.0, tag.DecayMultiplier)
	}
	_, err := b.tagger.TagLang("hello", "fr")
	require.ErrorIs(t, err, ErrUnknownLang)

	// Invalid UTF-8 is read as spaces.
	tag, err := b.tagger.Tag("I am \xff\xfe happy")
	require.NoError(t, err)
	require.Greater(t, tag.Valence, 0.0)

	// Punctuation only: not empty, no words.
	tag, err = b.tagger.Tag("!!!")
	require.NoError(t, err)
	require.InDelta(t, 0.45, tag.Arousal, 1e-12)

	for _, tt := range []struct {
		cfg   Config
		field string
	}{
		{Config{Alpha: -1}, "Alpha"},
		{Config{NegationFactor: -2}, "NegationFactor"},
		{Config{CapsEmphasis: math.NaN()}, "CapsEmphasis"},
		{Config{NegationWindow: 50}, "NegationWindow"},
		{Config{WeightValence: 2}, "WeightValence"},
	} {
		_, err := NewTagger(&tt.cfg)
		require.ErrorContains(t, err, tt.field)
	}
	require.Equal(t, DefaultConfig(), b.tagger.Config())
}

func TestScore(t *testing.T) {
	t.Parallel()
	b := setup(t)

	tag, err := b.tagger.Score(-0.4, 0.7, 0.2)
	require.NoError(t, err)
	require.InDelta(t, 2.4, tag.DecayMultiplier, 1e-12)
	require.InDelta(t, 0.3*0.7+0.5*0.2+0.2*0.4, tag.ConsolidationWeight, 1e-12)
	for _, bad := range [][3]float64{{math.NaN(), 0, 0}, {0, 1.5, 0}, {-2, 0, 0}, {0, 0, math.Inf(1)}} {
		_, err := b.tagger.Score(bad[0], bad[1], bad[2])
		require.Error(t, err, "%v", bad)
	}
}

func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	b := setup(t)

	want := b.tag(t, "I am extremely happy!!!")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				got, err := b.tagger.Tag("I am extremely happy!!!")
				if err != nil || got.Valence != want.Valence {
					panic("tagger is not deterministic under concurrency")
				}
			}
		}()
	}
	wg.Wait()
}

// goldenCorpus pins the tags of a mixed corpus: m_emo feeds the forgetting
// multiplier of recall ranking, so any change must be deliberate
// (go test -update).
var goldenCorpus = []string{
	"The meeting is at 3pm in room 4.",
	"I am happy.",
	"I am very happy.",
	"I am extremely happy!!!",
	"I am not happy.",
	"This is not bad.",
	"The food was good but the service was terrible.",
	"I HATE this.",
	"I HATE THIS SO MUCH",
	"The API returns JSON and XML.",
	"Never forget: Anna's birthday is on May 3rd.",
	"This is important.",
	"This is not important.",
	"My mother was diagnosed with cancer yesterday.",
	"We got married today, the happiest day of my life!",
	"I'm a bit worried about the deadline.",
	"Thanks, that was really helpful :)",
	"The build failed again, this is so frustrating!",
	"Remember that I'm allergic to peanuts.",
	"She got promoted, congratulations!",
	"Ich war gestern im Kino.",
	"Ich bin sehr glücklich!",
	"Das ist nicht gut.",
	"Ich mag das nicht.",
	"Kein Problem.",
	"Die Krebsdiagnose war ein Schock.",
	"Morgen ist unser Hochzeitstag, wichtig!",
	"Guten Morgen, wie geht's?",
	"Lebensfreude pur :)",
	"Das Essen war gut, aber der Service war schrecklich.",
	"Merk dir: meine Blutgruppe ist A positiv.",
	"Ich bin ein bisschen enttäuscht.",
	"Wir haben gewonnen!!! Unglaublich!",
	"Er ist leider gestorben.",
	"worst day ever 😭",
}

func TestGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)

	var sb strings.Builder
	fmt.Fprintln(&sb, "lang\tvalence\tarousal\tsignificance\tm_emo\tweight\ttext\tsignals")
	for _, text := range goldenCorpus {
		tag := b.tag(t, text)
		var sig []string
		for _, s := range tag.Signals {
			neg := ""
			if s.Negated {
				neg = "¬"
			}
			sig = append(sig, fmt.Sprintf("%s%s:%s(%+.2f/%.2f/%.2f)", neg, s.Kind, s.Term, s.Valence, s.Arousal, s.Significance))
		}
		fmt.Fprintf(&sb, "%s\t%+.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%s\t%s\n", tag.Lang, tag.Valence, tag.Arousal,
			tag.Significance, tag.DecayMultiplier, tag.ConsolidationWeight, text, strings.Join(sig, " "))
	}
	path := filepath.Join("testdata", "tags.golden")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(sb.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create %s", path)
	require.Equal(t, string(want), sb.String())
}

func FuzzTag(f *testing.F) {
	for _, s := range goldenCorpus {
		f.Add(s)
	}
	for _, s := range []string{"", "!!!", ":):(", "NOT NOT NOT", "nicht nicht", "\xff\xfe", "a'b'c", "very very very very good", "😭😭", "kein", "gut, aber"} {
		f.Add(s)
	}
	tg, err := NewTagger(nil)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, text string) {
		tag, err := tg.Tag(text)
		if strings.TrimSpace(text) == "" {
			require.ErrorIs(t, err, ErrEmptyText)
		} else {
			require.NoError(t, err)
		}
		require.False(t, math.IsNaN(tag.Valence) || math.IsNaN(tag.Arousal) || math.IsNaN(tag.Significance))
		require.True(t, tag.Valence >= -1 && tag.Valence <= 1, "valence %v", tag.Valence)
		require.True(t, tag.Arousal >= 0 && tag.Arousal <= 1, "arousal %v", tag.Arousal)
		require.True(t, tag.Significance >= 0 && tag.Significance <= 1, "significance %v", tag.Significance)
		require.True(t, tag.DecayMultiplier >= 1 && tag.DecayMultiplier <= 3, "m_emo %v", tag.DecayMultiplier)
		require.True(t, tag.ConsolidationWeight >= 0 && tag.ConsolidationWeight <= 1)
		again, _ := tg.Tag(text)
		require.Equal(t, tag, again, "deterministic")
	})
}
