package pma

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// maxAlignCells bounds the dynamic-programming table of [alignWords]; longer
// texts fall back to a common-prefix/common-suffix alignment.
const maxAlignCells = 4_000_000

// word is one word of a text with its byte span in the original string and
// its normalised form (the form textproc.Tokens would give it).
type word struct {
	start, end int
	norm       string
}

// isWordRune mirrors the token rule of textproc.Tokens: letters, digits and
// combining marks.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r)
}

func isApostropheRune(r rune) bool { return r == '\'' || r == '\u2019' || r == '\u02BC' }

// splitWords cuts s into words with byte offsets, using the same boundaries as
// textproc.Tokens (inner apostrophes stay inside a word). textproc.Tokens
// returns no offsets, which an in-place edit needs.
func splitWords(s string) []word {
	var out []word
	start := -1
	prevWord := false
	for i, r := range s {
		switch {
		case isWordRune(r):
			if start < 0 {
				start = i
			}
			prevWord = true
			continue
		case isApostropheRune(r) && prevWord:
			next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
			if i+utf8.RuneLen(r) < len(s) && isWordRune(next) && !unicode.Is(unicode.M, next) {
				prevWord = false
				continue
			}
		}
		if start >= 0 {
			out = append(out, newWord(s, start, i))
			start = -1
		}
		prevWord = false
	}
	if start >= 0 {
		out = append(out, newWord(s, start, len(s)))
	}
	return out
}

func newWord(s string, start, end int) word {
	w := strings.Map(func(r rune) rune {
		if isApostropheRune(r) {
			return '\''
		}
		return r
	}, s[start:end])
	return word{start: start, end: end, norm: textproc.Normalize(w)}
}

// alignWords returns the index pairs of a longest common subsequence of the
// normalised words of a and b, in increasing order. Ties prefer the earliest
// match in a. Very long inputs use common prefix and suffix only.
func alignWords(a, b []word) [][2]int {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return nil
	}
	if n*m > maxAlignCells {
		var pairs [][2]int
		p := 0
		for p < n && p < m && a[p].norm == b[p].norm {
			pairs = append(pairs, [2]int{p, p})
			p++
		}
		var suf [][2]int
		for i, j := n-1, m-1; i >= p && j >= p && a[i].norm == b[j].norm; i, j = i-1, j-1 {
			suf = append(suf, [2]int{i, j})
		}
		for k := len(suf) - 1; k >= 0; k-- {
			pairs = append(pairs, suf[k])
		}
		return pairs
	}
	// dp[i][j] = LCS length of a[i:] and b[j:].
	dp := make([][]int32, n+1)
	for i := range dp {
		dp[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i].norm == b[j].norm {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	var pairs [][2]int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i].norm == b[j].norm:
			pairs = append(pairs, [2]int{i, j})
			i++
			j++
		case dp[i+1][j] >= dp[i][j+1]:
			i++
		default:
			j++
		}
	}
	return pairs
}

// HunkKind says where in the alignment a hunk lies.
type HunkKind string

// The hunk kinds.
const (
	// HunkLeading lies before the first shared word.
	HunkLeading HunkKind = "leading"
	// HunkInterior lies between two shared words.
	HunkInterior HunkKind = "interior"
	// HunkTrailing lies after the last shared word.
	HunkTrailing HunkKind = "trailing"
	// HunkWhole replaces a text that shares no word with the new one.
	HunkWhole HunkKind = "whole"
)

// EditHunk is one replacement made by [EditText], in byte offsets of the old
// text.
type EditHunk struct {
	// Kind says where the hunk lies.
	Kind HunkKind `json:"kind"`
	// Start is the byte offset in the old text where the replacement starts.
	Start int `json:"start"`
	// End is the byte offset where it ends (Start == End for an insertion).
	End int `json:"end"`
	// Old is the replaced text, old[Start:End].
	Old string `json:"old"`
	// New is the text put in its place.
	New string `json:"new"`
}

// hunk is an unapplied difference between two aligned word lists, in word
// indexes: old words [oi, oj) correspond to new words [ni, nj).
type hunk struct {
	kind           HunkKind
	oi, oj, ni, nj int
}

// diffHunks returns the differing regions of the alignment pairs, including
// regions where one side is empty.
func diffHunks(oldW, newW []word, pairs [][2]int) []hunk {
	if len(pairs) == 0 {
		return []hunk{{kind: HunkWhole, oi: 0, oj: len(oldW), ni: 0, nj: len(newW)}}
	}
	var hs []hunk
	first, last := pairs[0], pairs[len(pairs)-1]
	if first[0] > 0 || first[1] > 0 {
		hs = append(hs, hunk{kind: HunkLeading, oi: 0, oj: first[0], ni: 0, nj: first[1]})
	}
	for k := 1; k < len(pairs); k++ {
		p, q := pairs[k-1], pairs[k]
		if q[0] > p[0]+1 || q[1] > p[1]+1 {
			hs = append(hs, hunk{kind: HunkInterior, oi: p[0] + 1, oj: q[0], ni: p[1] + 1, nj: q[1]})
		}
	}
	if last[0] < len(oldW)-1 || last[1] < len(newW)-1 {
		hs = append(hs, hunk{kind: HunkTrailing, oi: last[0] + 1, oj: len(oldW), ni: last[1] + 1, nj: len(newW)})
	}
	return hs
}

// effective returns the part of h that an edit replaces: the new words always
// replace, but only as many old words as are adjacent to the shared words in
// a leading or trailing hunk (the new text is a statement about part of the
// old one, so old words it does not mention are kept).
func (h hunk) effective() hunk {
	if h.kind != HunkLeading && h.kind != HunkTrailing {
		return h
	}
	k := min(h.oj-h.oi, h.nj-h.ni)
	if h.kind == HunkLeading {
		h.oi = h.oj - k
	} else {
		h.oj = h.oi + k
	}
	return h
}

// EditText returns old with the parts that new changes replaced by new's
// wording, and the hunks applied. It aligns the words of both texts (a
// longest common subsequence over textproc-normalised words) and, for each
// differing region:
//
//   - old and new words both present: the old span is replaced by the new
//     span (in a leading or trailing region only as many old words as the
//     new region has, those next to the shared words);
//   - only new words: they are inserted next to the shared word;
//   - only old words: nothing happens, because information missing from a
//     partial restatement is not evidence against it.
//
// Paired delimiters — brackets and quotation marks — touching a span belong
// to it where the new text has some on that side: "[a1] Jon" with "[b2]
// (again) Jon" gives "[b2] (again) Jon", never a bracket of one text closed
// by the other's. Other text outside the replaced spans, including sentence
// punctuation and case, is kept
// byte for byte. When the texts share no word the result is new, trimmed.
// Examples: old "Anna's favourite color is blue." with new "Anna's favourite
// color is green" gives "Anna's favourite color is green."; old "Anna is 34,
// lives in Berlin and likes jazz." with new "Anna lives in Munich" gives
// "Anna is 34, lives in Munich and likes jazz.".
func EditText(old, new string) (string, []EditHunk) {
	oldW, newW := splitWords(old), splitWords(new)
	if len(newW) == 0 {
		return old, nil
	}
	pairs := alignWords(oldW, newW)
	if len(pairs) == 0 {
		h := EditHunk{Kind: HunkWhole, Start: 0, End: len(old), Old: old, New: strings.TrimSpace(new)}
		return h.New, []EditHunk{h}
	}
	var edits []EditHunk
	for _, h := range diffHunks(oldW, newW, pairs) {
		h = h.effective()
		if h.nj == h.ni {
			continue // deletion only: keep the old words
		}
		ns, ne := newW[h.ni].start, newW[h.nj-1].end
		nsd, ned := delimitedStart(new, newW, h.ni), delimitedEnd(new, newW, h.nj-1)
		repl := new[nsd:ned]
		var e EditHunk
		switch {
		case h.oj > h.oi:
			// The old span takes its touching delimiters along on each side where the new one
			// brings its own.
			// So does an old span that would otherwise cut a bracket pair of its own in two.
			os, oe := oldW[h.oi].start, oldW[h.oj-1].end
			opens, closes := unmatchedBrackets(old[os:oe])
			if nsd < ns || closes > 0 {
				os = delimitedStart(old, oldW, h.oi)
			}
			if ned > ne || opens > 0 {
				oe = delimitedEnd(old, oldW, h.oj-1)
			}
			e = EditHunk{Kind: h.kind, Start: os, End: oe, New: repl}
		case h.kind == HunkLeading:
			// Insert before the first shared word (and its opening delimiters).
			at := delimitedStart(old, oldW, h.oj)
			e = EditHunk{Kind: h.kind, Start: at, End: at, New: repl + " "}
		case h.kind == HunkInterior && strings.TrimSpace(new[newW[h.ni-1].end:nsd]) != "":
			// The new text puts punctuation between the preceding shared word and the inserted
			// words ("Jon: (really) Appreciate"): insert before the following shared word, so
			// that the old text's punctuation stays with the word it follows.
			at := delimitedStart(old, oldW, h.oj)
			e = EditHunk{Kind: h.kind, Start: at, End: at, New: repl + " "}
		default:
			// Insert after the shared word preceding the region (and its closing delimiters).
			at := delimitedEnd(old, oldW, h.oi-1)
			e = EditHunk{Kind: h.kind, Start: at, End: at, New: " " + repl}
		}
		e.Old = old[e.Start:e.End]
		e.New = keepApart(old, e.Start, e.End, keepPairs(e.Old, e.New))
		edits = append(edits, e)
	}
	return applyHunks(old, edits), edits
}

// isDelimiterRune reports whether r is a paired delimiter: a bracket or a
// quotation mark.
func isDelimiterRune(r rune) bool {
	return unicode.In(r, unicode.Ps, unicode.Pe, unicode.Pi, unicode.Pf) || r == '"' || r == '\''
}

// delimitedStart returns the start of word i of s (words as from splitWords)
// moved back over the paired delimiters that touch it, not past the end of
// word i-1.
func delimitedStart(s string, words []word, i int) int {
	lo := 0
	if i > 0 {
		lo = words[i-1].end
	}
	at := words[i].start
	for at > lo {
		r, n := utf8.DecodeLastRuneInString(s[lo:at])
		if !isDelimiterRune(r) {
			break
		}
		at -= n
	}
	return at
}

// delimitedEnd returns the end of word i of s moved forward over the paired
// delimiters that touch it, not past the start of word i+1.
func delimitedEnd(s string, words []word, i int) int {
	hi := len(s)
	if i+1 < len(words) {
		hi = words[i+1].start
	}
	at := words[i].end
	for at < hi {
		r, n := utf8.DecodeRuneInString(s[at:hi])
		if !isDelimiterRune(r) {
			break
		}
		at += n
	}
	return at
}

// unmatchedBrackets returns how many round, square and curly brackets of s
// open without closing in s, and how many close without opening in it.
func unmatchedBrackets(s string) (opens, closes int) {
	unmatched, _ := bracketPairs(s)
	for i := range unmatched {
		if strings.IndexByte("([{", s[i]) >= 0 {
			opens++
		} else {
			closes++
		}
	}
	return opens, closes
}

// keepPairs makes a hunk's replacement repl of old span oldSpan keep the text's
// bracket pairs whole: brackets of repl without their partner in repl are
// dropped (the new text's pair is cut by a shared word), and brackets of
// oldSpan without their partner in it stay (unmatched closers before the
// replacement, unmatched openers after it), since their partners lie outside
// the span. An edit thus never opens or closes a pair the texts do not.
func keepPairs(oldSpan, repl string) string {
	_, keep := bracketPairs(repl)
	var b strings.Builder
	unmatched, _ := bracketPairs(oldSpan)
	for i, r := range oldSpan {
		if unmatched[i] && (r == ')' || r == ']' || r == '}') {
			b.WriteRune(r)
		}
	}
	for i, r := range repl {
		if keep[i] || !isBracketRune(r) {
			b.WriteRune(r)
			continue
		}
		// A dropped bracket inside the replacement leaves what it separated apart.
		prev, _ := utf8.DecodeLastRuneInString(repl[:i])
		next, _ := utf8.DecodeRuneInString(repl[i+1:])
		if i > 0 && i+1 < len(repl) && !unicode.IsSpace(prev) && !unicode.IsSpace(next) {
			b.WriteByte(' ')
		}
	}
	for i, r := range oldSpan {
		if unmatched[i] && (r == '(' || r == '[' || r == '{') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// keepApart returns repl, the replacement of old[start:end], with a space
// added on a side where it would otherwise join a word of old into one of its
// own.
func keepApart(old string, start, end int, repl string) string {
	first, _ := utf8.DecodeRuneInString(repl)
	last, _ := utf8.DecodeLastRuneInString(repl)
	before, _ := utf8.DecodeLastRuneInString(old[:start])
	after, _ := utf8.DecodeRuneInString(old[end:])
	if repl != "" && start > 0 && joins(before, first) {
		repl = " " + repl
	}
	if repl != "" && end < len(old) && joins(last, after) {
		repl += " "
	}
	return repl
}

// joins reports whether runes a and b side by side belong to one word.
func joins(a, b rune) bool {
	return (isWordRune(a) || isApostropheRune(a)) && (isWordRune(b) || isApostropheRune(b))
}

func isBracketRune(r rune) bool { return strings.ContainsRune("()[]{}", r) }

// bracketPairs returns, by byte offset, the round, square and curly brackets
// of s without a partner in s (unmatched) and those with one (matched).
func bracketPairs(s string) (unmatched, matched map[int]bool) {
	unmatched, matched = map[int]bool{}, map[int]bool{}
	var stack []int
	partner := map[rune]rune{')': '(', ']': '[', '}': '{'}
	for i, r := range s {
		switch r {
		case '(', '[', '{':
			stack = append(stack, i)
		case ')', ']', '}':
			if n := len(stack); n > 0 && rune(s[stack[n-1]]) == partner[r] {
				matched[stack[n-1]], matched[i] = true, true
				stack = stack[:n-1]
			} else {
				unmatched[i] = true
			}
		}
	}
	for _, i := range stack {
		unmatched[i] = true
	}
	return unmatched, matched
}

// applyHunks splices the hunks into s; hunks must not overlap.
func applyHunks(s string, hs []EditHunk) string {
	sorted := append([]EditHunk(nil), hs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start > sorted[j].Start })
	for _, h := range sorted {
		s = s[:h.Start] + h.New + s[h.End:]
	}
	return s
}

// sentence is a sentence of a text with its byte span (terminator included).
type sentence struct {
	start, end int
}

// splitSentences cuts s at '.', '!', '?', ';' followed by space or the end,
// and at line breaks. Spans exclude surrounding whitespace; empty sentences
// are dropped.
func splitSentences(s string) []sentence {
	var out []sentence
	start := 0
	emit := func(end int) {
		a, b := start, end
		for a < b && unicode.IsSpace(rune(s[a])) {
			a++
		}
		for b > a && unicode.IsSpace(rune(s[b-1])) {
			b--
		}
		if b > a && len(splitWords(s[a:b])) > 0 {
			out = append(out, sentence{a, b})
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\n':
			emit(i)
			start = i + 1
		case '.', '!', '?', ';':
			if i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n' || s[i+1] == '\t' {
				emit(i + 1)
				start = i + 1
			}
		}
	}
	emit(len(s))
	return out
}

// MergeEditOverlap is the least overlap coefficient |A∩B|/min(|A|, |B|) of
// token sets from which [MergeText] edits the closest old sentence in place
// instead of appending the new sentence.
const MergeEditOverlap = 0.6

// tokenOverlap returns |A∩B|/min(|A|, |B|) over the distinct tokens of a and
// b (0 when either has none).
func tokenOverlap(a, b string) float64 {
	ta := make(map[string]bool)
	for _, t := range textproc.Tokens(a) {
		ta[t] = true
	}
	tb := make(map[string]bool)
	for _, t := range textproc.Tokens(b) {
		tb[t] = true
	}
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	inter := 0
	for t := range tb {
		if ta[t] {
			inter++
		}
	}
	return float64(inter) / float64(min(len(ta), len(tb)))
}

// MergeText integrates new into old sentence by sentence. Each sentence of
// new is matched with the old sentence that shares most of its tokens
// (overlap coefficient). At an overlap of at least [MergeEditOverlap] (0.6)
// the old sentence is updated in place with [EditText] ("Tom works at
// Siemens." + "Tom works at Siemens as an engineer." extends it, "Anna lives
// in Berlin." + "Anna lives in Munich." replaces the value, a sentence
// already known changes nothing); otherwise the new sentence is appended. Appended sentences
// follow old after a space, and old gets a full stop first if it ends without
// terminal punctuation. Both empty gives "".
func MergeText(old, new string) string {
	olds := splitSentences(old)
	edited := make(map[int]string)
	current := func(i int) string {
		if e, ok := edited[i]; ok {
			return e
		}
		return old[olds[i].start:olds[i].end]
	}
	var appended []string
	for _, ns := range splitSentences(new) {
		nt := new[ns.start:ns.end]
		best, bestOverlap := -1, 0.0
		for i := range olds {
			if ov := tokenOverlap(current(i), nt); ov > bestOverlap {
				best, bestOverlap = i, ov
			}
		}
		if best >= 0 && bestOverlap >= MergeEditOverlap {
			edited[best], _ = EditText(current(best), nt)
		} else {
			appended = append(appended, nt)
		}
	}
	var hs []EditHunk
	for i, os := range olds {
		if e, ok := edited[i]; ok {
			hs = append(hs, EditHunk{Start: os.start, End: os.end, New: e})
		}
	}
	out := applyHunks(old, hs)
	if len(appended) == 0 {
		return out
	}
	out = strings.TrimRightFunc(out, unicode.IsSpace)
	if out != "" {
		last, _ := utf8.DecodeLastRuneInString(out)
		if !strings.ContainsRune(".!?;", last) {
			out += "."
		}
		out += " "
	}
	return out + strings.Join(appended, " ")
}
