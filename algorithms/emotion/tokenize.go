package emotion

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// token is one word, emoticon or emoji of a text.
type token struct {
	raw      string // as written (NFC)
	low      string // lower case, apostrophes normalised to '
	caps     bool   // at least two letters, all upper case
	letters  int
	clause   int // index of the clause (split at , ; : ( ) dashes and sentence ends)
	sentence int // index of the sentence (split at . ! ? …)
}

// tokenized is a text split into tokens plus the punctuation counts the
// tagger uses.
type tokenized struct {
	tokens       []token
	exclamations int
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' || r == 'ʼ' }

// tokenize splits text into word tokens (letters, digits and inner
// apostrophes), emoticons from the given list (at the start or after
// whitespace), and emoji (one token per symbol rune). Sentence and clause
// boundaries are recorded on the tokens; exclamation marks are counted.
func tokenize(text string, emoticons []string) tokenized {
	text = norm.NFC.String(strings.ToValidUTF8(text, " "))
	var out tokenized
	clause, sentence := 0, 0
	prevSpace := true
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if prevSpace && !isWordRune(r) {
			if e := matchEmoticon(text[i:], emoticons); e != "" && !startsWithWordRune(text[i+len(e):]) {
				out.tokens = append(out.tokens, token{raw: text[i : i+len(e)], low: e, clause: clause, sentence: sentence})
				i += len(e)
				prevSpace = false
				continue
			}
		}
		switch {
		case isWordRune(r):
			start := i
			var b strings.Builder
			upper, lower := 0, 0
			for i < len(text) {
				r, size = utf8.DecodeRuneInString(text[i:])
				if isApostrophe(r) && b.Len() > 0 {
					next, _ := utf8.DecodeRuneInString(text[i+size:])
					if i+size < len(text) && unicode.IsLetter(next) {
						b.WriteByte('\'')
						i += size
						continue
					}
					break
				}
				if !isWordRune(r) {
					break
				}
				if unicode.IsUpper(r) {
					upper++
				} else if unicode.IsLower(r) {
					lower++
				}
				b.WriteString(strings.ToLower(string(r)))
				i += size
			}
			out.tokens = append(out.tokens, token{
				raw: text[start:i], low: b.String(), caps: upper >= 2 && lower == 0,
				letters: upper + lower, clause: clause, sentence: sentence,
			})
			prevSpace = false
			continue
		case r == '!' || r == '！':
			out.exclamations++
			clause, sentence = clause+1, sentence+1
		case r == '.' || r == '?' || r == '…' || r == '？' || r == '。':
			clause, sentence = clause+1, sentence+1
		case r == ',' || r == ';' || r == ':' || r == '(' || r == ')' || r == '[' || r == ']' ||
			r == '–' || r == '—' || r == '\n' || r == '"' || r == '“' || r == '”' || r == '„':
			clause++
		case unicode.Is(unicode.So, r):
			out.tokens = append(out.tokens, token{raw: string(r), low: string(r), clause: clause, sentence: sentence})
		}
		prevSpace = unicode.IsSpace(r)
		i += size
	}
	return out
}

// matchEmoticon returns the longest emoticon that s starts with
// (case-insensitive), or "".
func matchEmoticon(s string, emoticons []string) string {
	for _, e := range emoticons {
		if len(s) >= len(e) && strings.EqualFold(s[:len(e)], e) {
			return e
		}
	}
	return ""
}

func startsWithWordRune(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s != "" && isWordRune(r)
}
