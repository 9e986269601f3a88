package textproc

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"only punctuation", " ,.;!? -- ", nil},
		{"lowercase and punctuation", "Hello, World!", []string{"hello", "world"}},
		{"inner apostrophe kept", "Don't stop", []string{"don't", "stop"}},
		{"typographic apostrophe normalized", "geht’s los", []string{"geht's", "los"}},
		{"outer apostrophes split", "'quoted' words'", []string{"quoted", "words"}},
		{"umlauts and eszett", "Größe ÄÖÜ Straße", []string{"größe", "äöü", "straße"}},
		{"decomposed umlaut composes", "Mu\u0308ller", []string{"müller"}},
		{"ligature via NFKC", "ﬁnal", []string{"final"}},
		{"fullwidth via NFKC", "ＡＢＣ１２", []string{"abc12"}},
		{"hyphen and dot split", "e-mail v2.5", []string{"e", "mail", "v2", "5"}},
		{"digits", "in 2023 at 10:30", []string{"in", "2023", "at", "10", "30"}},
		{"cjk run is one token", "東京タワー and 北京", []string{"東京タワー", "and", "北京"}},
		{"invalid utf8 separates", "ab\xffcd", []string{"ab", "cd"}},
		{"greek and cyrillic", "Σοφία Москва", []string{"σοφία", "москва"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, Tokens(tt.in))
		})
	}
}

func TestDetectLang(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Lang
	}{
		{"", English},
		{"12345", English},
		{"What did I do with the keys yesterday?", English},
		{"Was habe ich gestern mit dem Schlüssel gemacht?", German},
		{"Wie funktioniert die Einrichtung der Datenbank", German},
		{"How do I set up the database for this project", English},
		{"Grüße", German},
		{"Kaffee", English},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, DetectLang(tt.in))
		})
	}
}

func TestTerms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		lang Lang
		want []string
	}{
		{"english stems and drops stop words", "I was running to the houses", English, []string{"run", "hous"}},
		{"english possessive", "Alice's meetings", English, []string{"alic", "meet"}},
		{"duplicates kept", "cats and cats", English, []string{"cat", "cat"}},
		{"digits unchanged", "meeting 2023", English, []string{"meet", "2023"}},
		{"german stems and drops stop words", "Die Häuser der Kinder", German, []string{"haus", "kind"}},
		{"german eszett folded", "Die Straßen", German, []string{"strass"}},
		{"detect german", "Die Häuser der Kinder", "", []string{"haus", "kind"}},
		{"unknown lang is english", "the houses", Lang("fr"), []string{"hous"}},
		{"cjk unchanged", "東京", English, []string{"東京"}},
		{"empty", "", English, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, Terms(tt.in, tt.lang))
		})
	}
}

// TestStemGerman checks words against the published Snowball German
// vocabulary/output pairs.
func TestStemGerman(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"aufeinanderfolgenden": "aufeinanderfolg",
		"häuser":               "haus",
		"kategorischen":        "kategor",
		"möglichkeiten":        "moglich",
		"erinnerungen":         "erinner",
		"kenntnisse":           "kenntnis",
		"freundlichkeit":       "freundlich",
		"schönheit":            "schonheit",
		"ergebnissen":          "ergebnis",
		"katzen":               "katz",
		"bauen":                "bau",
		"ab":                   "ab",
		"":                     "",
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, want, StemGerman(in))
		})
	}
}

func TestJaccard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b []string
		want float64
	}{
		{"both empty", nil, []string{}, 1.0},
		{"one empty", []string{"a"}, nil, 0.0},
		{"identical", []string{"a", "b"}, []string{"b", "a"}, 1.0},
		{"disjoint", []string{"a"}, []string{"b"}, 0.0},
		{"half", []string{"a", "b"}, []string{"b", "c", "a", "d"}, 0.5},
		{"duplicates count once", []string{"a", "a", "b"}, []string{"a", "c"}, 1.0 / 3.0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.InDelta(t, tt.want, Jaccard(tt.a, tt.b), 1e-12)
			require.InDelta(t, tt.want, Jaccard(tt.b, tt.a), 1e-12, "symmetric")
		})
	}
}

func TestTokenJaccard(t *testing.T) {
	t.Parallel()
	require.InDelta(t, 1.0, TokenJaccard("The Cat sat.", "the cat SAT"), 1e-12)
	require.InDelta(t, 0.5, TokenJaccard("the cat sat down", "the cat"), 1e-12)
	require.InDelta(t, 1.0, TokenJaccard("", "!!"), 1e-12)
	require.InDelta(t, 0.0, TokenJaccard("", "cat"), 1e-12)
}

func TestStopWordsLists(t *testing.T) {
	t.Parallel()
	for _, lang := range []Lang{English, German} {
		words := StopWords(lang)
		require.Greater(t, len(words), 150, lang)
		for _, w := range words {
			require.Equal(t, []string{w}, Tokens(w), "stop word %q must be a single normalized token", w)
			require.True(t, IsStopWord(w, lang))
		}
	}
	require.False(t, IsStopWord("house", English))
	require.False(t, IsStopWord("haus", German))
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{"", "Hello, World!", "Don't", "Größe Straße", "東京タワー", "ﬁ\u0308", "ab\xffcd", "İSTANBUL", "'a'b'", "ǅ", "ẞ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := Tokens(s)
		for _, tok := range toks {
			require.NotEmpty(t, tok)
			require.True(t, utf8.ValidString(tok), "token %q", tok)
			require.Equal(t, Normalize(tok), tok, "token must be normalized")
			require.False(t, strings.ContainsAny(tok, " \t\n"), "token %q", tok)
		}
		// Idempotent: tokenizing the joined tokens gives the same tokens.
		require.Equal(t, toks, Tokens(strings.Join(toks, " ")))
		_ = Terms(s, English)
		_ = Terms(s, German)
		_ = DetectLang(s)
	})
}
