package textproc

import (
	"unicode"

	"github.com/kljensen/snowball/english"
)

// Terms returns the index terms of s for lang: the [Tokens] of s that are not
// stop words of lang, each stemmed (English: Snowball English/Porter2 from
// github.com/kljensen/snowball; German: [StemGerman]). Tokens consisting only
// of digits are kept as they are. An empty lang means [DetectLang](s); any
// other value than [German] is treated as [English]. The order of tokens is
// kept and duplicates are kept (BM25 needs term frequencies).
func Terms(s string, lang Lang) []string {
	if lang == "" {
		lang = DetectLang(s)
	}
	toks := Tokens(s)
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		if IsStopWord(t, lang) {
			continue
		}
		out = append(out, Stem(t, lang))
	}
	return out
}

// Stem returns the light stem of the lower-case token tok for lang (see
// [Terms]). Tokens made only of digits, and tokens containing no Latin
// letter (for example CJK runs), are returned unchanged.
func Stem(tok string, lang Lang) string {
	latin := false
	for _, r := range tok {
		if unicode.Is(unicode.Latin, r) {
			latin = true
			break
		}
	}
	if !latin {
		return tok
	}
	if lang == German {
		return StemGerman(tok)
	}
	st := english.Stem(tok, true)
	if st == "" {
		return tok
	}
	return st
}
