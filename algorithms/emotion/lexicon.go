package emotion

import (
	"bufio"
	"embed"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

//go:embed lexicon/*.txt
var lexiconFS embed.FS

// Lang is the language a text is tagged in.
type Lang string

const (
	// LangAuto asks the tagger to detect the language from function words.
	LangAuto Lang = ""
	// LangEnglish selects the English lexicon.
	LangEnglish Lang = "en"
	// LangGerman selects the German lexicon.
	LangGerman Lang = "de"
)

// entry is everything a lexicon knows about one term; a term may be a cue of
// several kinds (e.g. "died" is negative and significant).
type entry struct {
	term        string
	valence     float64 // signed valence strength; 0 if not a polarity cue
	arousal     float64 // arousal of the cue (polarity words carry one too)
	sig         float64 // significance weight; 0 if not a significance cue
	intensifier float64 // factor for the next cue; 0 if not an intensifier
	negator     bool
	contrast    bool
	neutral     bool // a set phrase that carries no cue ("good morning")
}

// isCue reports whether the entry contributes valence, arousal or significance.
func (e *entry) isCue() bool { return e.valence != 0 || e.arousal != 0 || e.sig != 0 }

// lexicon is one language's cue table, compiled from the embedded files.
type lexicon struct {
	lang      Lang
	words     map[string]*entry // single tokens
	phrases   map[string]*entry // token sequences joined by one space
	maxPhrase int
}

// emoticons are the ASCII cues the tokenizer must keep whole, longest first.
func emoticonsOf(lexs ...*lexicon) []string {
	var out []string
	for _, l := range lexs {
		for term := range l.words {
			r, _ := utf8.DecodeRuneInString(term)
			if r < utf8.RuneSelf && !isWordRune(r) {
				out = append(out, term)
			}
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// loadLexicon parses the embedded files for lang (plus the common file).
func loadLexicon(lang Lang) (*lexicon, error) {
	l := &lexicon{lang: lang, words: map[string]*entry{}, phrases: map[string]*entry{}}
	for _, name := range []string{"lexicon/common.txt", "lexicon/" + string(lang) + ".txt"} {
		data, err := lexiconFS.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("error reading lexicon %s: %w", name, err)
		}
		if err := l.parse(name, string(data)); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (l *lexicon) parse(name, data string) error {
	sc := bufio.NewScanner(strings.NewReader(data))
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, "|")
		if len(fields) < 3 || len(fields) > 4 || len(fields[0]) != 1 {
			return fmt.Errorf("error parsing lexicon %s line %d: want kind|term|weight[|arousal]", name, line)
		}
		kind := fields[0][0]
		term := fields[1]
		weight, err := strconv.ParseFloat(fields[2], 64)
		if err != nil || math.IsNaN(weight) || weight <= 0 {
			return fmt.Errorf("error parsing lexicon %s line %d: bad weight %q", name, line, fields[2])
		}
		arousal := 0.0
		if len(fields) == 4 {
			arousal, err = strconv.ParseFloat(fields[3], 64)
			if err != nil || arousal < 0 || arousal > 1 {
				return fmt.Errorf("error parsing lexicon %s line %d: bad arousal %q", name, line, fields[3])
			}
		}
		// The term is its own emoticon candidate, so ":)" stays one token.
		toks := tokenize(term, []string{term}).tokens
		if len(toks) == 0 {
			return fmt.Errorf("error parsing lexicon %s line %d: term %q has no tokens", name, line, term)
		}
		key := toks[0].low
		table := l.words
		if len(toks) > 1 {
			lows := make([]string, len(toks))
			for i, t := range toks {
				lows[i] = t.low
			}
			key = strings.Join(lows, " ")
			table = l.phrases
			l.maxPhrase = max(l.maxPhrase, len(toks))
		}
		e := table[key]
		if e == nil {
			e = &entry{term: key}
			table[key] = e
		}
		switch kind {
		case '+', '-':
			if weight > 1 {
				return fmt.Errorf("error parsing lexicon %s line %d: valence weight %v above 1", name, line, weight)
			}
			e.valence = weight
			if kind == '-' {
				e.valence = -weight
			}
			e.arousal = max(e.arousal, arousal)
		case 'a':
			if weight > 1 {
				return fmt.Errorf("error parsing lexicon %s line %d: arousal weight %v above 1", name, line, weight)
			}
			e.arousal = max(e.arousal, weight)
		case 's':
			if weight > 1 {
				return fmt.Errorf("error parsing lexicon %s line %d: significance weight %v above 1", name, line, weight)
			}
			e.sig = weight
		case 'i':
			e.intensifier = weight
		case 'n':
			e.negator = true
		case 'c':
			e.contrast = true
		case 'x':
			e.neutral = true
		default:
			return fmt.Errorf("error parsing lexicon %s line %d: unknown kind %q", name, line, string(kind))
		}
	}
	return sc.Err()
}

// match is the result of looking a token up.
type match struct {
	e      *entry
	via    string  // "exact", "inflection", "compound head", "compound modifier", "phrase"
	factor float64 // weight factor of the way it matched
}

// Compound factors: a German compound's head (last part) carries its meaning,
// its modifier (first part) only colours it.
const (
	compoundHeadFactor     = 0.8
	compoundModifierFactor = 0.5
	minStemRunes           = 3
	minHeadRunes           = 4
	minModifierRunes       = 5
	minCompoundRunes       = 7
	// maxCompoundRunes bounds the words split as compounds: splitting costs O(n²) in the
	// word's length n, and a "word" of thousands of letters (a base64 blob, a hash) is no
	// compound (64 KiB of one letter took 35 s to tag before this bound).
	maxCompoundRunes = 64
)

// lookupCue finds a cue entry for a single lower-case word: exactly, through
// an inflection, or (German) through the parts of a compound. It returns up
// to two matches (compound head and modifier).
func (l *lexicon) lookupCue(w string) []match {
	if e := l.words[w]; e != nil && e.isCue() {
		return []match{{e: e, via: "exact", factor: 1}}
	}
	if e := l.inflected(w); e != nil {
		return []match{{e: e, via: "inflection", factor: 1}}
	}
	if l.lang != LangGerman {
		return nil
	}
	runes := []rune(w)
	if len(runes) < minCompoundRunes || len(runes) > maxCompoundRunes {
		return nil
	}
	var out []match
	headStart := len(runes)
	for k := 1; k <= len(runes)-minHeadRunes; k++ {
		if e := l.cueOrInflected(string(runes[k:])); e != nil {
			out = append(out, match{e: e, via: "compound head", factor: compoundHeadFactor})
			headStart = k
			break
		}
	}
	for j := min(headStart, len(runes)-1); j >= minModifierRunes; j-- {
		if e := l.cueOrInflected(string(runes[:j])); e != nil {
			out = append(out, match{e: e, via: "compound modifier", factor: compoundModifierFactor})
			break
		}
	}
	return out
}

func (l *lexicon) cueOrInflected(w string) *entry {
	if e := l.words[w]; e != nil && e.isCue() {
		return e
	}
	return l.inflected(w)
}

// inflected strips inflectional suffixes and returns the first cue entry of a
// base form, or nil.
func (l *lexicon) inflected(w string) *entry {
	for _, cand := range baseForms(w, l.lang) {
		if utf8.RuneCountInString(cand) < minStemRunes {
			continue
		}
		if e := l.words[cand]; e != nil && e.isCue() {
			return e
		}
	}
	return nil
}

// englishRules are suffix rewrites tried in order: happiness → happy,
// happily → happy, worries → worry, loved → love, sadder → sad, ...
var englishRules = []struct{ suffix, repl string }{
	{"'s", ""},
	{"iness", "y"},
	{"ness", ""},
	{"ily", "y"},
	{"ibly", "ible"},
	{"ably", "able"},
	{"ly", ""},
	{"ied", "y"},
	{"ies", "y"},
	{"iest", "y"},
	{"ier", "y"},
	{"ing", ""},
	{"ing", "e"},
	{"ed", ""},
	{"ed", "e"},
	{"est", ""},
	{"est", "e"},
	{"er", ""},
	{"er", "e"},
	{"es", ""},
	{"s", ""},
}

// germanSuffixes are adjective, noun and verb endings; two may be stripped
// (schönere → schöner → schön, schönsten → schönst → schön).
var germanSuffixes = []string{"em", "en", "er", "es", "st", "e", "n", "s", "t"}

// baseForms returns candidate base forms of w in lookup order.
func baseForms(w string, lang Lang) []string {
	var out []string
	switch lang {
	case LangGerman:
		for _, s1 := range germanSuffixes {
			if !strings.HasSuffix(w, s1) {
				continue
			}
			b1 := strings.TrimSuffix(w, s1)
			out = append(out, b1)
			for _, s2 := range germanSuffixes {
				if strings.HasSuffix(b1, s2) {
					out = append(out, strings.TrimSuffix(b1, s2))
				}
			}
		}
	default:
		for _, r := range englishRules {
			if !strings.HasSuffix(w, r.suffix) {
				continue
			}
			b := strings.TrimSuffix(w, r.suffix) + r.repl
			out = append(out, b)
			// Undo a doubled final consonant: stopped → stopp → stop, sadder → sad.
			if r.repl == "" && len(b) >= 2 && b[len(b)-1] == b[len(b)-2] && !strings.ContainsRune("aeiou", rune(b[len(b)-1])) {
				out = append(out, b[:len(b)-1])
			}
		}
	}
	return out
}
