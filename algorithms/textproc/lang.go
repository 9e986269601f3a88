package textproc

// Lang names a text language that zenbrain's text processing distinguishes.
type Lang string

const (
	// English is the English language; it is also the fallback for text
	// whose language cannot be told.
	English Lang = "en"
	// German is the German language.
	German Lang = "de"
)

// DetectLang guesses whether s is English or German by the stop-word ratio
// heuristic: it counts the tokens of s found in the English list and in the
// German list (a token in both lists, such as "in", counts for neither) and
// returns the language with the larger count. Each token containing ä, ö, ü
// or ß adds one to the German count. Ties, including text with no tokens,
// return [English].
func DetectLang(s string) Lang {
	en, de := 0, 0
	for _, t := range Tokens(s) {
		_, inEN := stops.en[t]
		_, inDE := stops.de[t]
		switch {
		case inEN && !inDE:
			en++
		case inDE && !inEN:
			de++
		}
		if hasGermanLetter(t) {
			de++
		}
	}
	if de > en {
		return German
	}
	return English
}

func hasGermanLetter(t string) bool {
	for _, r := range t {
		switch r {
		case 'ä', 'ö', 'ü', 'ß':
			return true
		}
	}
	return false
}
