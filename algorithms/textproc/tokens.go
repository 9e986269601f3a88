package textproc

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Normalize returns s in NFKC form, lower-cased with Unicode case mapping.
// Invalid UTF-8 bytes become U+FFFD. The result is a fixed point: applying
// Normalize to it again returns it unchanged.
func Normalize(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	// Lower-casing can produce text that is not NFKC (and NFKC can produce
	// upper case, e.g. from compatibility characters), so iterate to a fixed
	// point; two rounds suffice in practice, four bound the work.
	for range 4 {
		next := strings.ToLower(norm.NFKC.String(s))
		if next == s {
			break
		}
		s = next
	}
	return s
}

// isWordRune reports whether r belongs inside a token: letters, digits and
// combining marks (so decomposed umlauts and Indic vowel signs stay inside).
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r) || unicode.Is(unicode.Nd, r)
}

// isApostrophe reports whether r is one of the apostrophes kept inside words.
func isApostrophe(r rune) bool {
	return r == '\'' || r == '\u2019' || r == '\u02BC'
}

// Tokens returns the word tokens of s: [Normalize] then maximal runs of
// letters, digits and combining marks, with inner apostrophes kept as ASCII
// ' (see the package documentation). Empty or token-free input returns nil.
func Tokens(s string) []string {
	s = Normalize(s)
	rs := []rune(s)
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for i, r := range rs {
		switch {
		case isWordRune(r):
			b.WriteRune(r)
		case isApostrophe(r) && b.Len() > 0 && i+1 < len(rs) && isWordRune(rs[i+1]) && !unicode.Is(unicode.M, rs[i+1]):
			b.WriteByte('\'')
		default:
			flush()
		}
	}
	flush()
	return out
}
