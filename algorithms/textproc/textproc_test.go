package textproc

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
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

// mapJaccard is the hash-set computation Set.Jaccard replaced, kept as the reference.
func mapJaccard(a, b []string) float64 {
	sa, sb := map[string]bool{}, map[string]bool{}
	for _, x := range a {
		sa[x] = true
	}
	for _, x := range b {
		sb[x] = true
	}
	if len(sa) == 0 && len(sb) == 0 {
		return 1.0
	}
	inter := 0
	for x := range sa {
		if sb[x] {
			inter++
		}
	}
	if inter == 0 {
		return 0.0
	}
	return float64(inter) / float64(len(sa)+len(sb)-inter)
}

// BenchmarkDedupComparisons compares one text with 40 others, as recall's deduplication and
// the context budget's redundancy do: Sets built once against hash sets built per pair (the
// former code), both measured in the same run; reports the speed-up.
func BenchmarkDedupComparisons(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	texts := make([][]string, 41)
	for i := range texts {
		texts[i] = make([]string, 14)
		for j := range texts[i] {
			texts[i][j] = fmt.Sprintf("word%d", r.IntN(60))
		}
	}
	var hashNs, setNs int64
	sink := 0.0
	for b.Loop() {
		t0 := time.Now()
		for _, o := range texts[1:] {
			sink += mapJaccard(texts[0], o)
		}
		t1 := time.Now()
		sets := make([]Set, len(texts))
		for i, x := range texts {
			sets[i] = NewSet(x)
		}
		for _, o := range sets[1:] {
			sink += sets[0].Jaccard(o)
		}
		t2 := time.Now()
		hashNs += t1.Sub(t0).Nanoseconds()
		setNs += t2.Sub(t1).Nanoseconds()
	}
	b.ReportMetric(float64(hashNs)/float64(setNs), "speedup")
	_ = sink
}

// Set.Jaccard (sorted merge) equals the hash-set computation exactly on random token lists with
// duplicates, small and large alphabets, empty lists included, and Set.Intersect holds the
// common elements in order; NewSet does not modify its input.
func TestSetJaccardMatchesHashSets(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		alpha := 1 + r.IntN(30)
		gen := func() []string {
			xs := make([]string, r.IntN(12))
			for i := range xs {
				xs[i] = fmt.Sprintf("w%d", r.IntN(alpha))
			}
			return xs
		}
		a, b := gen(), gen()
		orig := slices.Clone(a)
		s := NewSet(a)
		require.Equal(t, orig, a, "NewSet leaves its input alone")
		require.True(t, slices.IsSorted(s))
		require.Equal(t, mapJaccard(a, b), s.Jaccard(NewSet(b)), "%v %v", a, b)
		require.Equal(t, mapJaccard(a, b), Jaccard(a, b))
		var both []string
		for _, x := range NewSet(b) {
			if slices.Contains(a, x) {
				both = append(both, x)
			}
		}
		require.Equal(t, both, []string(s.Intersect(NewSet(b))), "Intersect: the common elements in order")
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

// JaccardAbove(b, t) is exactly Jaccard(b) > t on random sets (empty ones included) for
// thresholds from 0 to 1, among them the size-bound's edge cases (min/max equal to t).
func TestJaccardAboveMatchesJaccard(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	for trial := range 20000 {
		alpha := 1 + r.IntN(20)
		gen := func() Set {
			xs := make([]string, r.IntN(14))
			for i := range xs {
				xs[i] = fmt.Sprintf("w%d", r.IntN(alpha))
			}
			return NewSet(xs)
		}
		a, b := gen(), gen()
		th := r.Float64()
		switch trial % 4 {
		case 0:
			th = 0.9
		case 1:
			if len(a) > 0 && len(b) > 0 {
				th = float64(min(len(a), len(b))) / float64(max(len(a), len(b)))
			}
		}
		require.Equal(t, a.Jaccard(b) > th, a.JaccardAbove(b, th), "%v %v at %v", a, b, th)
	}
}

func TestOneLine(t *testing.T) {
	t.Parallel()
	require.Equal(t, "a b c", OneLine("  a\n\tb   c \n", 10))
	require.Equal(t, "abcd", OneLine("abcd", 4), "a text of exactly n runes stays whole")
	require.Equal(t, "abc…", OneLine("abcde", 4))
	require.Equal(t, "äöü…", OneLine("äöüßx", 4), "cut by runes, not bytes")
	require.Equal(t, "…", OneLine("abc", 1))
	require.Equal(t, "…", OneLine("abc", 0), "no room: the ellipsis alone")
	require.Empty(t, OneLine(" \n ", 5))
}
