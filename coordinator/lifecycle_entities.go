package coordinator

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// Entity types of ExtractEntities.
const (
	// EntityPerson is a person.
	EntityPerson = "person"
	// EntityPlace is a place (organisations named after a place preposition count as places).
	EntityPlace = "place"
	// EntityThing is any other named entity.
	EntityThing = "thing"
)

// Limits of ExtractEntities.
const (
	// MaxEntitiesPerText is the most entities ExtractEntities returns for one text (first
	// mentions first); derivation links each pair of them with a co_occurs edge.
	MaxEntitiesPerText = 16
	// MaxEntityWords is the most words of one entity name.
	MaxEntityWords = 5
)

// EntityMention is a named entity found in a text.
type EntityMention struct {
	// Name is the entity as first written (titles and a possessive 's removed).
	Name string `json:"name"`
	// Normalized is the key entities are merged by: Name NFKC-normalized and lower-cased.
	Normalized string `json:"normalized"`
	// Type is EntityPerson, EntityPlace or EntityThing.
	Type string `json:"type"`
	// Start and End are the byte offsets of the first mention.
	Start int `json:"start"`
	End   int `json:"end"`
}

type entToken struct {
	text       string
	start, end int
	sentStart  bool // first word of a sentence or line
	lineStart  bool
	capital    bool // starts with an upper-case letter (and is not only one letter, except initials)
	hasDigit   bool
	possessive bool // followed by 's
}

var (
	entTitles = set("mr", "mrs", "ms", "miss", "dr", "prof", "sir", "herr", "frau", "fräulein")
	// Connectors may join capitalized words inside one name ("Bank of America", "Ludwig van Beethoven").
	entConnectors = set("of", "von", "van", "de", "der", "del", "da", "di", "la", "le", "du", "zu", "y")
	entDateWords  = set("january", "february", "march", "april", "may", "june", "july", "august", "september",
		"october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
		"nov", "dec", "januar", "februar", "märz", "mai", "juni", "juli", "oktober", "dezember", "monday", "tuesday",
		"wednesday", "thursday", "friday", "saturday", "sunday", "montag", "dienstag", "mittwoch", "donnerstag",
		"freitag", "samstag", "sonntag", "sonnabend", "today", "tomorrow", "yesterday", "heute", "morgen", "gestern",
		"christmas", "easter", "weihnachten", "ostern", "am", "pm")
	// Words that start sentences or are capitalized for other reasons and never name an entity.
	entCommon = set("i", "i'm", "i've", "i'll", "i'd", "im", "ok", "okay", "yes", "no", "hi", "hey", "hello", "thanks",
		"thank", "oh", "wow", "well", "so", "also", "but", "and", "or", "if", "when", "then", "just", "maybe",
		"please", "sure", "great", "good", "nice", "cool", "awesome", "really", "hallo", "danke", "ja", "nein",
		"bitte", "genau", "super", "aber", "und", "oder", "wenn", "dann", "vielleicht", "ich", "du", "sie", "er",
		"es", "wir", "ihr", "mein", "meine", "dein", "deine", "guten", "gute", "lol", "haha", "btw")
	// Verbs after a sentence-initial word that make it a person (and so an entity).
	entPersonVerbs = set("said", "says", "told", "asked", "replied", "went", "lives", "lived", "works", "worked",
		"loves", "loved", "likes", "liked", "met", "visited", "called", "wants", "wanted", "thinks", "thought",
		"sagte", "sagt", "meinte", "fragte", "wohnt", "arbeitet", "ging", "liebt", "mag", "besuchte")
	entRelations = set("friend", "sister", "brother", "mom", "mother", "dad", "father", "wife", "husband", "son",
		"daughter", "boss", "colleague", "partner", "girlfriend", "boyfriend", "cousin", "aunt", "uncle", "grandma",
		"grandpa", "named", "called", "freund", "freundin", "schwester", "bruder", "mutter", "vater", "frau",
		"mann", "sohn", "tochter", "chef", "chefin", "kollege", "kollegin", "with", "mit")
	entPlacePreps = set("in", "near", "from", "nach", "aus", "bei", "im")
	// Prepositions after which a single capitalized German word is taken as a name (German
	// capitalizes every noun; an article between them marks a common noun instead).
	entGermanNameCues = set("in", "nach", "aus", "von", "mit", "bei", "für", "an", "und", "herr", "frau", "dr", "prof")
	entPlaceSuffixes  = []string{
		"straße", "strasse", "platz", "stadt", "burg", "berg", "dorf", "hausen", "heim", "see",
		"ville", "town", "city", "land", "shire",
	}
	entPlaceHeads = set("city", "street", "st", "road", "avenue", "ave", "park", "lake", "river", "mountain", "mount",
		"island", "beach", "bay", "valley", "county", "state", "country", "airport", "station", "square")
)

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// ExtractEntities finds the named entities of text with offline rules (English and German); it
// needs no model. The rules:
//
//   - A speaker prefix at the start of a line ("Caroline: ...", "Anna Schmidt: ...") is a person.
//   - Otherwise a name is a run of capitalized words (up to MaxEntityWords), possibly joined by
//     connectors ("Bank of America", "Ludwig van Beethoven"); leading stop words, titles
//     ("Mr", "Dr", "Herr", "Frau") and common interjections are dropped, and month, weekday and
//     relative-day words ("May", "Monday", "Gestern") split runs and are never entities, nor is
//     any word with a digit: numbers and dates are excluded.
//   - A single capitalized word that starts a sentence counts only when the same word also
//     appears capitalized inside a sentence, is followed by a possessive 's or a person verb
//     ("said", "lives", "sagte", "wohnt", ...). In German text (textproc.DetectLang), where every
//     noun is capitalized, a single word inside a sentence counts only right after a name cue
//     ("in", "nach", "aus", "von", "mit", "bei", "für", "an", "und", a title); runs of two or
//     more capitalized words always count.
//   - Type: person for speakers, titles, person verbs, relation words before the name ("my
//     friend Anna", "with Anna", "meine Schwester Lea") and two- or three-word names without a
//     place cue; place after a place preposition ("in", "near", "from", "nach", "aus", "bei")
//     or with a place head or suffix ("Central Park", "Hauptstraße", "Hamburg"); thing
//     otherwise. A name seen with several types keeps the most specific (person, place, thing).
//
// Limits: no coreference ("she"), names written in lower case are missed, German common nouns
// after a name cue without an article ("mit Freude") are taken, organisations are places or
// things, and at most MaxEntitiesPerText entities are returned, in order of first mention.
func ExtractEntities(text string) []EntityMention {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, " ")
	}
	german := textproc.DetectLang(text) == textproc.German
	toks := entTokenize(text)
	capsInside := map[string]bool{}
	for _, t := range toks {
		if t.capital && !t.sentStart {
			capsInside[strings.ToLower(t.text)] = true
		}
	}
	var out []EntityMention
	index := map[string]int{}
	add := func(name string, start, end int, typ string) {
		name = strings.TrimSpace(name)
		norm := strings.Join(strings.Fields(textproc.Normalize(name)), " ")
		if utf8.RuneCountInString(norm) < 2 {
			return
		}
		if i, ok := index[norm]; ok {
			if typeRank(typ) > typeRank(out[i].Type) {
				out[i].Type = typ
			}
			return
		}
		if len(out) >= MaxEntitiesPerText {
			return
		}
		index[norm] = len(out)
		out = append(out, EntityMention{Name: name, Normalized: norm, Type: typ, Start: start, End: end})
	}

	for i := 0; i < len(toks); {
		t := toks[i]
		// Speaker prefix: capitalized words at the start of a line followed by ':'.
		if t.lineStart && t.capital {
			j := i
			for j < len(toks) && j-i < 3 && toks[j].capital && !toks[j].hasDigit && (j == i || !toks[j].lineStart) {
				j++
			}
			last := toks[j-1]
			if rest := text[last.end:]; strings.HasPrefix(strings.TrimLeft(rest, " \t"), ":") {
				if k := strings.IndexByte(rest, ':'); k >= 0 && strings.TrimSpace(rest[:k]) == "" {
					add(text[t.start:last.end], t.start, last.end, EntityPerson)
					i = j
					continue
				}
			}
		}
		if !t.capital || t.hasDigit || entDateWords[strings.ToLower(t.text)] {
			i++
			continue
		}
		// Collect a run of capitalized words and connectors.
		j := i
		var words []entToken
		for j < len(toks) && len(words) < MaxEntityWords {
			w := toks[j]
			lw := strings.ToLower(w.text)
			if j > i && (w.sentStart || w.lineStart) {
				break
			}
			if w.capital && !w.hasDigit && !entDateWords[lw] {
				words = append(words, w)
				j++
				if w.possessive {
					break
				}
				continue
			}
			if len(words) > 0 && entConnectors[lw] && j+1 < len(toks) && toks[j+1].capital && !toks[j+1].sentStart {
				words = append(words, w)
				j++
				continue
			}
			break
		}
		if j == i {
			j = i + 1
		}
		// Drop leading titles, stop words and common words; remember a title.
		titled := false
		for len(words) > 0 {
			lw := strings.ToLower(strings.TrimSuffix(words[0].text, "."))
			if entTitles[lw] {
				titled = true
			} else if !(entCommon[lw] || textproc.IsStopWord(lw, textproc.English) || textproc.IsStopWord(lw, textproc.German)) {
				break
			}
			words = words[1:]
		}
		for len(words) > 0 && entConnectors[strings.ToLower(words[len(words)-1].text)] {
			words = words[:len(words)-1]
		}
		if len(words) == 0 {
			i = j
			continue
		}
		first, last := words[0], words[len(words)-1]
		lw := strings.ToLower(first.text)
		prev := ""
		if k := tokIndex(toks, first.start); k > 0 && !first.sentStart {
			prev = strings.ToLower(toks[k-1].text)
		}
		next := ""
		if k := tokIndex(toks, last.start); k+1 < len(toks) {
			next = strings.ToLower(toks[k+1].text)
		}
		if len(words) == 1 {
			keep := true
			switch {
			case first.sentStart && !titled:
				keep = capsInside[lw] || first.possessive || entPersonVerbs[next]
			case german && !titled:
				keep = entGermanNameCues[prev] || first.possessive || entPersonVerbs[next]
			}
			if !keep {
				i = j
				continue
			}
		}
		name := text[first.start:last.end]
		if last.possessive {
			name = strings.TrimSuffix(strings.TrimSuffix(name, "'s"), "’s")
		}
		add(name, first.start, last.end, entType(words, titled, prev, next))
		i = j
	}
	return out
}

func typeRank(t string) int {
	switch t {
	case EntityPerson:
		return 2
	case EntityPlace:
		return 1
	}
	return 0
}

func entType(words []entToken, titled bool, prev, next string) string {
	lastLow := strings.ToLower(words[len(words)-1].text)
	switch {
	case titled || entPersonVerbs[next] || entRelations[prev]:
		return EntityPerson
	case entPlaceHeads[lastLow] || entPlacePreps[prev]:
		return EntityPlace
	}
	for _, suf := range entPlaceSuffixes {
		if len(words) == 1 && strings.HasSuffix(lastLow, suf) && len(lastLow) > len(suf)+2 {
			return EntityPlace
		}
	}
	if len(words) >= 2 && len(words) <= 3 {
		for _, w := range words {
			if entConnectors[strings.ToLower(w.text)] {
				return EntityThing
			}
		}
		return EntityPerson
	}
	return EntityThing
}

func tokIndex(toks []entToken, start int) int {
	lo, hi := 0, len(toks)
	for lo < hi {
		m := (lo + hi) / 2
		if toks[m].start < start {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// entTokenize splits text into word tokens (letters, digits, inner apostrophes, hyphens and a
// trailing period of an abbreviation such as "Dr.") with byte offsets and sentence starts.
func entTokenize(text string) []entToken {
	var toks []entToken
	sentStart, lineStart := true, true
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			switch r {
			case '\n':
				sentStart, lineStart = true, true
			case '.', '!', '?', ':', ';', '"', '“', '”', '(', ')', '…':
				sentStart = true
			}
			i += size
			continue
		}
		start := i
		hasDigit := false
		for i < len(text) {
			r, size := utf8.DecodeRuneInString(text[i:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
				hasDigit = hasDigit || unicode.IsDigit(r)
				i += size
				continue
			}
			if (r == '-' || r == '\'' || r == '’') && i+size < len(text) {
				n, _ := utf8.DecodeRuneInString(text[i+size:])
				if unicode.IsLetter(n) {
					i += size
					continue
				}
			}
			break
		}
		word := text[start:i]
		possessive := false
		for _, suf := range []string{"'s", "’s"} {
			if strings.HasSuffix(word, suf) && len(word) > len(suf)+1 {
				possessive = true
			}
		}
		first, _ := utf8.DecodeRuneInString(word)
		letters := 0
		for _, r := range word {
			if unicode.IsLetter(r) {
				letters++
			}
		}
		capital := unicode.IsUpper(first) && letters >= 2
		// An abbreviation's period ("Dr.", "St.") does not end the sentence.
		abbrev := i < len(text) && text[i] == '.' && entTitles[strings.ToLower(word)]
		toks = append(toks, entToken{
			text: word, start: start, end: i, sentStart: sentStart, lineStart: lineStart,
			capital: capital, hasDigit: hasDigit, possessive: possessive,
		})
		sentStart, lineStart = false, false
		if abbrev {
			i++
		}
	}
	return toks
}
