package pma

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// editSeeds are conversational texts of the kinds memories hold: speaker prefixes in brackets,
// quotes of several scripts, ellipses and dashes, emoji, repeated phrases.
var editSeeds = []string{
	"[a1] Jon: Appreciate your advice… it means a lot!",
	"[D2:8] Caroline: Researching adoption agencies — it's been a dream (for years).",
	`Melanie said "we painted a sunrise" and then "we painted it again".`,
	"Er sagte „ja“ und dann »nein« — typisch!",
	"Tim (my brother) moved to Zürich; he loves it there :)",
	"Going to the LGBTQ support group yesterday was 🌈 amazing [photo: a rainbow flag]",
	"The meeting is at 10:00 {room B} — bring the slides, the slides, the slides.",
	"I’m not sure… maybe? Let's see 'how it goes' tomorrow.",
	"「東京」に行きました。とても楽しかった！",
	"Nate: Thanks! [laughs] Thanks again, really.",
}

// FuzzEditText checks EditText on pairs of texts: the result holds every word of the new text
// (new wording always replaces), a text edited with itself is unchanged, each hunk's Old is the
// old text's bytes at its span and the hunks applied to the old text give the result, and paired
// brackets balanced in both texts are balanced in the result.
func FuzzEditText(f *testing.F) {
	for i, s := range editSeeds {
		f.Add(s, "[b2] (again) "+s)
		f.Add(s, editSeeds[(i+1)%len(editSeeds)])
		f.Add(s, strings.ReplaceAll(s, "a", "o"))
	}
	f.Fuzz(func(t *testing.T, old, new string) {
		if !utf8.ValidString(old) || !utf8.ValidString(new) {
			return // stored texts are valid UTF-8 (PostgreSQL text)
		}
		got, hunks := EditText(old, new)
		if same, _ := EditText(old, old); same != old {
			t.Fatalf("EditText(old, old) = %q, want %q", same, old)
		}
		if len(splitWords(new)) == 0 {
			require.Equal(t, old, got)
			return
		}
		gotWords := map[string]int{}
		for _, w := range splitWords(got) {
			gotWords[w.norm]++
		}
		for _, w := range splitWords(new) {
			require.Positive(t, gotWords[w.norm], "word %q of the new text is missing from %q", w.norm, got)
		}
		if len(hunks) == 1 && hunks[0].Kind == HunkWhole {
			require.Equal(t, strings.TrimSpace(new), got)
			return
		}
		for _, h := range hunks {
			require.Equal(t, old[h.Start:h.End], h.Old)
		}
		require.Equal(t, got, applyHunks(old, hunks))
		if bracketsBalanced(old) && bracketsBalanced(new) {
			require.True(t, bracketsBalanced(got), "EditText(%q, %q) = %q unbalances brackets", old, new, got)
		}
	})
}

// bracketsBalanced reports whether the round, square and curly brackets of s nest properly.
func bracketsBalanced(s string) bool {
	var stack []rune
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{'}
	for _, r := range s {
		switch r {
		case '(', '[', '{':
			stack = append(stack, r)
		case ')', ']', '}':
			if len(stack) == 0 || stack[len(stack)-1] != pairs[r] {
				return false
			}
			stack = stack[:len(stack)-1]
		}
	}
	return len(stack) == 0
}
