// Package textproc holds zenbrain's text primitives: a Unicode-aware
// tokenizer, English and German stop-word lists, a stop-word-ratio language
// detector, light stemming, and set Jaccard similarity.
//
// # Tokens
//
// [Tokens] applies NFKC normalization and Unicode lower-casing and then cuts
// the text into maximal runs of letters, digits and combining marks. Every
// other rune separates tokens. An apostrophe (ASCII ' or the typographic
// U+2019, U+02BC) is kept inside a token, normalized to ASCII ', when it has a
// letter or digit on both sides ("don't", "geht's"); anywhere else it
// separates. Hyphens, dots and other punctuation always separate, so
// "e-mail" gives "e" and "mail". Runs of CJK ideographs form one token per
// run (there is no word segmentation). No stop words are removed and nothing
// is stemmed.
//
// # Terms
//
// [Terms] is the indexing form used by BM25 and keyword matching: [Tokens]
// minus the stop words of the language, each remaining token stemmed. English
// uses the Snowball English (Porter2) stemmer from
// github.com/kljensen/snowball. German uses this package's implementation of
// the published Snowball German algorithm (kljensen/snowball v0.10.0 has no
// German stemmer). Tokens made only of digits are kept unstemmed.
//
// # Similarity
//
// [Jaccard] is |A∩B| / |A∪B| over the distinct strings of a and b; two empty
// inputs give 1.0 and exactly one empty input gives 0.0. [TokenJaccard] is
// [Jaccard] over the [Tokens] of two strings.
//
// The package is pure: no I/O and no mutable globals.
package textproc
