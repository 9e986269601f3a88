package pma

import (
	"strings"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// ContradictionKind names the rule that found a contradiction.
type ContradictionKind string

// The contradiction kinds.
const (
	// ContradictionNone means no contradiction was found.
	ContradictionNone ContradictionKind = ""
	// ContradictionNegation is a statement and its negation ("Anna eats
	// meat" / "Anna does not eat meat", "nicht", "kein", "never").
	ContradictionNegation ContradictionKind = "negation"
	// ContradictionAntonym is a statement with one word of an antonym pair
	// against the same statement with the other ("likes" / "dislikes",
	// "immer" / "nie").
	ContradictionAntonym ContradictionKind = "antonym"
	// ContradictionValue is the same subject and attribute with another value
	// ("favourite color is blue" / "... is green", "lives in Berlin" / "lives
	// in Munich", "5000 euros" / "7000 euros").
	ContradictionValue ContradictionKind = "value"
)

// Contradiction describes a contradiction found by [DetectContradiction].
type Contradiction struct {
	// Kind is the rule that fired, or ContradictionNone.
	Kind ContradictionKind `json:"kind,omitempty"`
	// Old is the contradicted word or value in the old text.
	Old string `json:"old,omitempty"`
	// New is the contradicting word or value in the new text.
	New string `json:"new,omitempty"`
}

// Detected reports whether a contradiction was found.
func (c Contradiction) Detected() bool { return c.Kind != ContradictionNone }

// Thresholds of [DetectContradiction].
const (
	// ContradictionTopicOverlap is the least overlap coefficient
	// |A∩B|/min(|A|, |B|) of two sentences' content terms (stop words,
	// negations and the antonym pair removed, stems compared) for a negation
	// or antonym to count as contradicting rather than about something else.
	ContradictionTopicOverlap = 0.75
	// ContradictionValueCoverage is the least share of the new sentence's
	// words aligned with the old sentence for a value contradiction.
	ContradictionValueCoverage = 0.5
	// ContradictionMaxValueWords is the most words a changed value may have on
	// either side.
	ContradictionMaxValueWords = 4
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// negationWords are the English and German negation tokens; any token ending
// in "n't" also negates.
var negationWords = set(
	"not", "no", "never", "none", "nothing", "nobody", "nowhere", "neither", "nor", "cannot",
	"nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals", "nichts",
	"niemand", "nirgends", "weder",
)

func isNegation(tok string) bool { return negationWords[tok] || strings.HasSuffix(tok, "n't") }

// antonymPair is two sets of word forms with opposite meaning.
type antonymPair struct{ a, b map[string]bool }

// antonyms is the English and German antonym table; each side lists the word
// forms that Tokens produces.
var antonyms = func() []antonymPair {
	raw := [][2]string{
		{"always", "never"},
		{"true", "false"},
		{"yes", "no"},
		{"increase increases increased increasing", "decrease decreases decreased decreasing"},
		{"positive", "negative"},
		{"like likes liked", "dislike dislikes disliked"},
		{"love loves loved", "hate hates hated"},
		{"good", "bad"},
		{"better", "worse"},
		{"open opened", "closed"},
		{"enabled", "disabled"},
		{"allowed permitted", "forbidden prohibited"},
		{"accept accepts accepted", "reject rejects rejected"},
		{"success successful succeeded", "failure failed unsuccessful"},
		{"hot", "cold"},
		{"win wins won", "lose loses lost"},
		{"alive", "dead"},
		{"married", "divorced"},
		{"agree agrees agreed", "disagree disagrees disagreed"},
		{"correct right", "incorrect wrong"},
		{"possible", "impossible"},
		{"available", "unavailable"},
		{"happy", "sad unhappy"},
		{"safe", "unsafe dangerous"},
		{"early", "late"},
		{"include includes included", "exclude excludes excluded"},
		{"online", "offline"},
		{"immer", "nie niemals"},
		{"wahr", "falsch"},
		{"ja", "nein"},
		{"mag mögen liebt lieben", "hasst hassen"},
		{"gut", "schlecht"},
		{"besser", "schlechter"},
		{"offen geöffnet", "geschlossen"},
		{"aktiviert", "deaktiviert"},
		{"erlaubt", "verboten"},
		{"steigt gestiegen erhöht", "sinkt gesunken gesenkt"},
		{"mehr", "weniger"},
		{"richtig", "falsch"},
		{"früh", "spät"},
		{"heiß", "kalt"},
		{"erfolgreich", "gescheitert erfolglos"},
		{"verheiratet", "geschieden"},
		{"möglich", "unmöglich"},
		{"glücklich", "traurig unglücklich"},
		{"akzeptiert", "abgelehnt"},
	}
	out := make([]antonymPair, len(raw))
	for i, r := range raw {
		out[i] = antonymPair{a: set(strings.Fields(r[0])...), b: set(strings.Fields(r[1])...)}
	}
	return out
}()

// valueAnchors are the words after which a differing word is a value of the
// attribute named before: copulas (which need three aligned words before the
// value, "favourite color is") and prepositions and attribute verbs (two,
// "lives in").
var (
	copulaAnchors = set("is", "are", "was", "were", "am", "equals", "ist", "sind", "war", "waren", "bin", "bist", "beträgt")
	otherAnchors  = set(
		"in", "at", "on", "from", "for", "to", "by", "named", "called", "prefers", "prefer", "costs",
		"im", "bei", "am", "um", "aus", "nach", "von", "für", "zu", "heißt", "heisst", "kostet", "bevorzugt",
	)
	determiners = set("the", "a", "an", "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer")
)

// DetectContradiction reports whether new contradicts old. Both texts are cut
// into sentences and every pair (old sentence, new sentence) is checked, in
// this order:
//
//  1. negation: one sentence is negated (an odd number of negation words:
//     not, no, never, n't, nicht, kein…, nie, niemals…) and the other is not,
//     and their content terms overlap by at least [ContradictionTopicOverlap];
//  2. antonym: the old sentence has one side of an antonym pair (English and
//     German table: always/never, likes/dislikes, immer/nie, gut/schlecht…),
//     the new sentence the other side, neither has both, and the remaining
//     content terms overlap by at least [ContradictionTopicOverlap];
//  3. value: aligned word by word, the sentences differ in one value of at
//     most [ContradictionMaxValueWords] words on each side that follows an
//     anchor — a copula with three aligned words before it ("favourite color
//     is blue"/"green") or a preposition or attribute verb with two ("lives
//     in Berlin"/"Munich"), determiners skipped — or that is a number on both
//     sides (digits, or one number word up to twelve: "two"/"three",
//     "zwei"/"drei"); at least [ContradictionValueCoverage] of
//     the new sentence's words must be aligned, and the value must be the
//     only substituted span (a second one, such as another subject, makes the
//     pair about something else). Additions ("lives in central Berlin") and
//     qualified values at the end ("opens at 9" / "opens at 10 on weekends")
//     are not contradictions.
//
// The first contradiction found is returned; empty texts never contradict.
func DetectContradiction(old, new string) Contradiction {
	lang := textproc.DetectLang(old + " " + new)
	for _, ns := range splitSentences(new) {
		nt := new[ns.start:ns.end]
		for _, os := range splitSentences(old) {
			ot := old[os.start:os.end]
			if c := contradictSentences(ot, nt, lang); c.Detected() {
				return c
			}
		}
	}
	return Contradiction{}
}

func contradictSentences(old, new string, lang textproc.Lang) Contradiction {
	ot, nt := textproc.Tokens(old), textproc.Tokens(new)
	if len(ot) == 0 || len(nt) == 0 {
		return Contradiction{}
	}
	// 1. Negation.
	on, nn := negations(ot), negations(nt)
	if on%2 != nn%2 && topicOverlap(ot, nt, lang, isNegation) >= ContradictionTopicOverlap {
		c := Contradiction{Kind: ContradictionNegation}
		if on%2 == 1 {
			c.Old = firstMatch(ot, isNegation)
		} else {
			c.New = firstMatch(nt, isNegation)
		}
		return c
	}
	// 2. Antonyms.
	for _, p := range antonyms {
		for _, dir := range [2][2]map[string]bool{{p.a, p.b}, {p.b, p.a}} {
			x, y := dir[0], dir[1]
			ox, oy := firstMatch(ot, inSet(x)), firstMatch(ot, inSet(y))
			nx, ny := firstMatch(nt, inSet(x)), firstMatch(nt, inSet(y))
			if ox == "" || oy != "" || ny == "" || nx != "" {
				continue
			}
			skip := func(t string) bool { return p.a[t] || p.b[t] || isNegation(t) }
			if topicOverlap(ot, nt, lang, skip) >= ContradictionTopicOverlap {
				return Contradiction{Kind: ContradictionAntonym, Old: ox, New: ny}
			}
		}
	}
	// 3. Value.
	return valueContradiction(old, new)
}

func negations(toks []string) int {
	n := 0
	for _, t := range toks {
		if isNegation(t) {
			n++
		}
	}
	return n
}

func inSet(m map[string]bool) func(string) bool { return func(t string) bool { return m[t] } }

func firstMatch(toks []string, f func(string) bool) string {
	for _, t := range toks {
		if f(t) {
			return t
		}
	}
	return ""
}

// topicOverlap returns |A∩B| / min(|A|, |B|) over the stemmed, stop-word-free
// terms of a and b with skipped tokens removed; 0 when either is empty.
func topicOverlap(a, b []string, lang textproc.Lang, skip func(string) bool) float64 {
	terms := func(toks []string) map[string]bool {
		m := make(map[string]bool)
		for _, t := range toks {
			if skip(t) || textproc.IsStopWord(t, lang) {
				continue
			}
			m[textproc.Stem(t, lang)] = true
		}
		return m
	}
	ta, tb := terms(a), terms(b)
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	inter := 0
	for t := range ta {
		if tb[t] {
			inter++
		}
	}
	return float64(inter) / float64(min(len(ta), len(tb)))
}

// numberWords are English and German number words from zero to twelve.
var numberWords = set(
	"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
	"null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn", "elf", "zwölf",
)

// isNumber reports whether the value s contains a digit or is a single
// number word.
func isNumber(s string) bool {
	if strings.ContainsAny(s, "0123456789") {
		return true
	}
	toks := textproc.Tokens(s)
	return len(toks) == 1 && numberWords[toks[0]]
}

// valueContradiction implements rule 3 of [DetectContradiction].
func valueContradiction(old, new string) Contradiction {
	ow, nw := splitWords(old), splitWords(new)
	pairs := alignWords(ow, nw)
	if len(pairs) == 0 || float64(len(pairs)) < ContradictionValueCoverage*float64(len(nw)) {
		return Contradiction{}
	}
	matchedNew := make(map[int]int, len(pairs)) // old index → new index
	for _, p := range pairs {
		matchedNew[p[0]] = p[1]
	}
	// alignedRun counts the aligned word pairs immediately before old index oi
	// / new index ni, after skipping aligned determiners, and returns the
	// anchor word (the last non-determiner aligned word).
	alignedRun := func(oi, ni int) (int, string) {
		i, j := oi-1, ni-1
		for i >= 0 && j >= 0 {
			if nj, ok := matchedNew[i]; !ok || nj != j || !determiners[ow[i].norm] {
				break
			}
			i, j = i-1, j-1
		}
		anchor := ""
		run := 0
		for i >= 0 && j >= 0 {
			if nj, ok := matchedNew[i]; !ok || nj != j {
				break
			}
			if anchor == "" {
				anchor = ow[i].norm
			}
			run++
			i, j = i-1, j-1
		}
		return run, anchor
	}
	// Exactly one substitution: a second one (another subject, another
	// verb) makes the pair about something else.
	var sub *hunk
	for _, h := range diffHunks(ow, nw, pairs) {
		if h.kind == HunkWhole {
			return Contradiction{}
		}
		full := h
		h = h.effective()
		if h.oj == h.oi || h.nj == h.ni {
			continue // pure insertion or omission
		}
		if sub != nil {
			return Contradiction{}
		}
		// At the edges the new value must not carry more words than the old
		// text has there ("opens at 9" / "opens at 10 on weekends" qualifies
		// rather than contradicts).
		if h.kind != HunkInterior && h.nj-h.ni > full.oj-full.oi {
			return Contradiction{}
		}
		sub = &h
	}
	if sub == nil {
		return Contradiction{}
	}
	h := *sub
	no, nn := h.oj-h.oi, h.nj-h.ni
	if no > ContradictionMaxValueWords || nn > ContradictionMaxValueWords {
		return Contradiction{}
	}
	oldVal := old[ow[h.oi].start:ow[h.oj-1].end]
	newVal := new[nw[h.ni].start:nw[h.nj-1].end]
	c := Contradiction{Kind: ContradictionValue, Old: oldVal, New: newVal}
	if isNumber(oldVal) && isNumber(newVal) {
		return c
	}
	run, anchor := alignedRun(h.oi, h.ni)
	switch {
	case copulaAnchors[anchor] && run >= 3:
		return c
	case otherAnchors[anchor] && run >= 2:
		return c
	}
	return Contradiction{}
}
