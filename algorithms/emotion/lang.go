package emotion

// Function words that identify a language. Only words frequent in one
// language and rare or absent in the other are listed ("war" is German for
// "was" and English for "war": that is why the tagger must know the language).
var (
	englishFunctionWords = set("the", "and", "is", "are", "was", "were", "i", "you", "my", "it", "to", "of",
		"that", "this", "have", "has", "with", "for", "not", "on", "be", "at", "we", "they", "me", "he", "she",
		"very", "what", "will", "would", "there", "been", "from", "your", "our", "just", "about", "today", "got",
		"but", "or", "if", "because", "can", "can't", "don't", "it's", "i'm", "am", "do", "no", "so", "an")
	germanFunctionWords = set("der", "die", "das", "und", "ist", "sind", "war", "waren", "ich", "du", "mein",
		"meine", "nicht", "ein", "eine", "einen", "zu", "mit", "für", "auf", "es", "wir", "sie", "den", "dem",
		"habe", "hat", "sehr", "auch", "aber", "heute", "wie", "bin", "bist", "wird", "noch", "schon", "nach",
		"von", "uns", "mich", "mir", "dich", "dir", "ganz", "gestern", "morgen", "hatte", "wurde", "kein",
		"keine", "nichts", "doch", "ja", "nein", "oder", "wenn", "weil", "dass", "kann", "gibt", "im", "ist's")
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// detectLang counts function words of each language (letters ä, ö, ü and ß
// count for German too) and returns the language with more evidence, or
// LangAuto when there is none or a tie.
func detectLang(toks []token) Lang {
	en, de := 0, 0
	for _, t := range toks {
		if englishFunctionWords[t.low] {
			en++
		}
		if germanFunctionWords[t.low] {
			de++
		}
		for _, r := range t.low {
			if r == 'ä' || r == 'ö' || r == 'ü' || r == 'ß' {
				de++
				break
			}
		}
	}
	switch {
	case en > de:
		return LangEnglish
	case de > en:
		return LangGerman
	}
	return LangAuto
}
