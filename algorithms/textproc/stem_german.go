package textproc

// This file implements the Snowball German stemming algorithm as published
// at snowballstem.org/algorithms/german/stemmer.html (the "standard" variant,
// without the ae/oe/ue transliteration), written for this package from the
// algorithm's description.

func isGermanVowel(r rune) bool {
	switch r {
	case 'a', 'e', 'i', 'o', 'u', 'y', 'ä', 'ö', 'ü':
		return true
	}
	return false
}

// isSEnding reports the letters after which a final "s" is removed.
func isSEnding(r rune) bool {
	switch r {
	case 'b', 'd', 'f', 'g', 'h', 'k', 'l', 'm', 'n', 'r', 't':
		return true
	}
	return false
}

// isStEnding reports the letters after which a final "st" is removed.
func isStEnding(r rune) bool {
	return r != 'r' && isSEnding(r)
}

func hasSuffix(w []rune, suf string) bool {
	rs := []rune(suf)
	if len(rs) > len(w) {
		return false
	}
	off := len(w) - len(rs)
	for i, r := range rs {
		if w[off+i] != r {
			return false
		}
	}
	return true
}

// longestSuffix returns the longest of sufs that w ends with, or "".
func longestSuffix(w []rune, sufs ...string) string {
	best := ""
	for _, s := range sufs {
		if len([]rune(s)) > len([]rune(best)) && hasSuffix(w, s) {
			best = s
		}
	}
	return best
}

// germanRegions returns the starts of R1 and R2 as rune indexes (len(w) when
// a region is empty). R1 begins after the first non-vowel that follows a
// vowel, moved right to index 3 if it would start earlier; R2 applies the
// same rule again from the unadjusted R1 start.
func germanRegions(w []rune) (r1, r2 int) {
	after := func(from int) int {
		for i := from + 1; i < len(w); i++ {
			if !isGermanVowel(w[i]) && isGermanVowel(w[i-1]) {
				return i + 1
			}
		}
		return len(w)
	}
	raw := after(0)
	r2 = after(raw)
	r1 = max(raw, min(3, len(w)))
	return r1, r2
}

// StemGerman returns the Snowball German stem of the lower-case word w.
// Words shorter than three runes are returned unchanged.
func StemGerman(word string) string {
	w := []rune(word)
	if len(w) < 3 {
		return word
	}
	// Prelude: ß → ss; u and y between vowels become U and Y (not vowels).
	pre := make([]rune, 0, len(w)+2)
	for _, r := range w {
		if r == 'ß' {
			pre = append(pre, 's', 's')
		} else {
			pre = append(pre, r)
		}
	}
	w = pre
	for i := 1; i+1 < len(w); i++ {
		if isGermanVowel(w[i-1]) && isGermanVowel(w[i+1]) {
			switch w[i] {
			case 'u':
				w[i] = 'U'
			case 'y':
				w[i] = 'Y'
			}
		}
	}
	r1, r2 := germanRegions(w)
	cut := func(n int) { w = w[:len(w)-n] }
	inR := func(start, n int) bool { return len(w)-n >= start }

	// Step 1.
	switch s := longestSuffix(w, "em", "ern", "er", "e", "en", "es", "s"); s {
	case "em", "ern", "er":
		if inR(r1, len(s)) {
			cut(len(s))
		}
	case "e", "en", "es":
		if inR(r1, len(s)) {
			cut(len(s))
			if hasSuffix(w, "niss") {
				cut(1)
			}
		}
	case "s":
		if inR(r1, 1) && len(w) >= 2 && isSEnding(w[len(w)-2]) {
			cut(1)
		}
	}
	// Step 2.
	switch s := longestSuffix(w, "en", "er", "est", "st"); s {
	case "en", "er", "est":
		if inR(r1, len(s)) {
			cut(len(s))
		}
	case "st":
		// The letter before "st" must be a valid st-ending and itself be
		// preceded by at least three letters.
		if inR(r1, 2) && len(w) >= 6 && isStEnding(w[len(w)-3]) {
			cut(2)
		}
	}
	// Step 3: derivational suffixes.
	switch s := longestSuffix(w, "end", "ung", "ig", "ik", "isch", "lich", "heit", "keit"); s {
	case "end", "ung":
		if inR(r2, len(s)) {
			cut(len(s))
			if hasSuffix(w, "ig") && inR(r2, 2) && !(len(w) >= 3 && w[len(w)-3] == 'e') {
				cut(2)
			}
		}
	case "ig", "ik", "isch":
		if inR(r2, len(s)) && !(len(w) > len([]rune(s)) && w[len(w)-len([]rune(s))-1] == 'e') {
			cut(len([]rune(s)))
		}
	case "lich", "heit":
		if inR(r2, len(s)) {
			cut(len(s))
			if (hasSuffix(w, "er") || hasSuffix(w, "en")) && inR(r1, 2) {
				cut(2)
			}
		}
	case "keit":
		if inR(r2, len(s)) {
			cut(len(s))
			if t := longestSuffix(w, "lich", "ig"); t != "" && inR(r2, len(t)) {
				cut(len(t))
			}
		}
	}
	// Postlude: undo the U/Y marking and drop umlaut accents.
	for i, r := range w {
		switch r {
		case 'U', 'ü':
			w[i] = 'u'
		case 'Y':
			w[i] = 'y'
		case 'ä':
			w[i] = 'a'
		case 'ö':
			w[i] = 'o'
		}
	}
	return string(w)
}
