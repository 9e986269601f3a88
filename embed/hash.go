package embed

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// HashVersion is the version of the [Hash] feature recipe. It is part of
// [Hash.Model] ("hash-v1-768"), so vectors written by an older recipe are never
// compared with newer ones by mistake. Any change to the features, weights or
// hash function must increase it (the golden test in testdata/ catches changes).
const HashVersion = 1

// Hash feature weights and n-gram sizes. Before normalization a content
// word contributes a squared norm of about (L·HashUnigramWeight)² from its
// unigram and (L·HashCharWeight)² from its character n-grams (each n-gram's
// weight is divided by the square root of their number), where L is its
// length weight (see [HashLengthExponent]).
const (
	// HashUnigramWeight is the weight of a word unigram feature.
	HashUnigramWeight = 1.0
	// HashBigramWeight is the weight of a word bigram feature (two adjacent
	// tokens).
	HashBigramWeight = 0.4
	// HashCharWeight is the total weight of the character n-grams of one word:
	// each of its k n-grams gets L·HashCharWeight/√k.
	HashCharWeight = 1.5
	// HashStopWeight multiplies the weight of a unigram that is an English or
	// German stop word, and of a bigram made of two stop words. Stop words get
	// no character n-grams.
	HashStopWeight = 0.15
	// HashLengthExponent sets the length weight L = (runes/5)^HashLengthExponent
	// of a word, capped at [HashLengthWeightMax]. Longer words are rarer
	// (Zipf's law of abbreviation), so L is a corpus-free stand-in for inverse
	// document frequency.
	HashLengthExponent = 0.5
	// HashLengthWeightMax caps the length weight L.
	HashLengthWeightMax = 2.0
	// HashMinGram is the shortest character n-gram, counted in runes of the
	// word wrapped in the boundary markers '<' and '>'.
	HashMinGram = 3
	// HashMaxGram is the longest character n-gram.
	HashMaxGram = 5
)

// Feature kinds, hashed as the first byte so that a unigram, a bigram and a
// character n-gram with the same bytes land on unrelated buckets.
const (
	kindUnigram byte = 'u'
	kindBigram  byte = 'b'
	kindChar    byte = 'c'
)

// FNV-1a 64-bit parameters (Fowler, Noll, Vo; IETF draft-eastlake-fnv).
const (
	fnvOffset64 uint64 = 14695981039346656037
	fnvPrime64  uint64 = 1099511628211
)

// Hash is the default embedder: deterministic, offline and model-free. It is
// safe for concurrent use.
//
// # Features
//
// A text is cut into tokens by [textproc.Tokens] (NFKC, Unicode lower case,
// runs of letters and digits). A text without any token (only punctuation or
// emoji, say) uses its whitespace-separated fields instead. The language is
// told from the tokens by the stop-word rule of [textproc.DetectLang] (more
// German-only than English-only stop words, counting words with ä, ö, ü or ß
// as German, means German). A token is a stop word if either language lists
// it. Words are reduced with [textproc.Stem] in that language; the features
// are:
//
//   - the unigram of each stemmed word, weight L·[HashUnigramWeight] (stop
//     words: [HashUnigramWeight]·[HashStopWeight]);
//   - the bigram of each two adjacent stemmed words, weight
//     [HashBigramWeight] (× [HashStopWeight] when both are stop words);
//   - the character n-grams of [HashMinGram]..[HashMaxGram] runes of each
//     non-stop word (unstemmed) wrapped as "<word>", each weighted
//     L·[HashCharWeight]/√k for the word's k n-grams,
//
// where L = min([HashLengthWeightMax], (runes/5)^[HashLengthExponent]) is the
// word's length weight. A feature occurring tf times gets its mean weight
// times 1 + ln tf (sublinear term frequency). Features are hashed with 64-bit
// FNV-1a over their bytes (after a byte naming the feature kind), mixed by the
// MurmurHash3 finalizer; the low 32 bits choose the dimension by
// multiply-shift reduction, so any dimension works, and the top bit chooses
// the sign (signed feature hashing, Weinberger et al. 2009, which keeps inner
// products unbiased under collisions). The vector is L2-normalized, so a dot
// product is the cosine.
//
// # Empty text
//
// An empty or whitespace-only text has no features, and an all-zero vector
// would have no defined cosine with anything, so [Hash.Embed] returns
// [ErrEmptyText] for it instead of a vector; the caller decides (the
// coordinator rejects empty content before it gets here).
type Hash struct {
	dim     int
	model   string
	scratch sync.Pool
}

// hashFeature is one occurrence of a hashed feature and its weight.
type hashFeature struct {
	h uint64
	w float32
}

// hashScratch holds the buffers reused across texts so the feature loop does
// not allocate.
type hashScratch struct {
	feats []hashFeature
	buf   []byte
	offs  []int
	stop  []bool
	stems []string
}

// NewHash returns a [Hash] embedder producing vectors of dimension dim, which
// must be between 1 and [DimMax].
func NewHash(dim int) (*Hash, error) {
	if dim < 1 || dim > DimMax {
		return nil, fmt.Errorf("embed: Dim must be between 1 and %d, got %d", DimMax, dim)
	}
	h := &Hash{
		dim:   dim,
		model: fmt.Sprintf("hash-v%d-%d", HashVersion, dim),
	}
	h.scratch.New = func() any {
		return &hashScratch{
			feats: make([]hashFeature, 0, 512),
			buf:   make([]byte, 0, 64),
			offs:  make([]int, 0, 32),
			stop:  make([]bool, 0, 64),
			stems: make([]string, 0, 64),
		}
	}
	return h, nil
}

// Dim returns the dimension of the vectors.
func (h *Hash) Dim() int { return h.dim }

// Model returns "hash-v<HashVersion>-<dim>", for example "hash-v1-768".
func (h *Hash) Model() string { return h.model }

// Embed returns one L2-normalized vector of length [Hash.Dim] per text, in
// order. An empty or whitespace-only text fails the call with an error
// wrapping [ErrEmptyText] that names its index. An empty texts slice returns an
// empty result. Invalid UTF-8 is read as U+FFFD. ctx is checked every 64 texts.
func (h *Hash) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("error embedding texts: %w", err)
	}
	if err := checkTexts(texts); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	// One backing array for the whole call: fewer allocations, and the caller
	// may still keep or modify each vector independently.
	backing := make([]float32, len(texts)*h.dim)
	s := h.scratch.Get().(*hashScratch)
	defer h.scratch.Put(s)
	for i, text := range texts {
		if i%64 == 63 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("error embedding texts: %w", err)
			}
		}
		v := backing[i*h.dim : (i+1)*h.dim : (i+1)*h.dim]
		if !h.embedInto(s, v, text) {
			// Not reachable for text that checkTexts accepts; kept so that a
			// zero vector can never be returned.
			return nil, fmt.Errorf("error embedding text %d: %w", i, ErrEmptyText)
		}
		out[i] = v
	}
	return out, nil
}

// checkTexts returns an error wrapping [ErrEmptyText] for the first empty or
// whitespace-only text.
func checkTexts(texts []string) error {
	for i, t := range texts {
		if strings.TrimFunc(t, unicode.IsSpace) == "" {
			return fmt.Errorf("error embedding text %d: %w", i, ErrEmptyText)
		}
	}
	return nil
}

// embedInto writes the normalized embedding of the non-blank text into v
// (zeroed, of length h.dim). It reports false, leaving v zero, when the text
// yields no feature at all.
func (h *Hash) embedInto(s *hashScratch, v []float32, text string) bool {
	toks := textproc.Tokens(text)
	if len(toks) == 0 {
		toks = strings.Fields(textproc.Normalize(text))
	}
	// Stop words and language, with the rule of textproc.DetectLang.
	s.stop = s.stop[:0]
	en, de := 0, 0
	for _, t := range toks {
		inEN := textproc.IsStopWord(t, textproc.English)
		inDE := textproc.IsStopWord(t, textproc.German)
		switch {
		case inEN && !inDE:
			en++
		case inDE && !inEN:
			de++
		}
		if strings.ContainsAny(t, "äöüß") {
			de++
		}
		s.stop = append(s.stop, inEN || inDE)
	}
	lang := textproc.English
	if de > en {
		lang = textproc.German
	}
	s.stems = s.stems[:0]
	for i, t := range toks {
		if s.stop[i] {
			s.stems = append(s.stems, t)
		} else {
			s.stems = append(s.stems, textproc.Stem(t, lang))
		}
	}

	s.feats = s.feats[:0]
	for i, t := range toks {
		stop := s.stop[i]
		w := float32(HashUnigramWeight)
		lw := float32(1)
		if stop {
			w *= HashStopWeight
		} else {
			lw = lengthWeight(t)
			w *= lw
		}
		s.feats = append(s.feats, hashFeature{h: mix64(fnvString(fnvByte(fnvOffset64, kindUnigram), s.stems[i])), w: w})
		if i > 0 {
			w := float32(HashBigramWeight)
			if stop && s.stop[i-1] {
				w *= HashStopWeight
			}
			bh := fnvString(fnvByte(fnvOffset64, kindBigram), s.stems[i-1])
			bh = fnvString(fnvByte(bh, 0), s.stems[i])
			s.feats = append(s.feats, hashFeature{h: mix64(bh), w: w})
		}
		if !stop {
			s.addCharGrams(t, lw*HashCharWeight)
		}
	}
	clear(s.stems) // do not keep the text's strings alive in the pool
	if len(s.feats) == 0 {
		return false
	}
	h.scatter(s.feats, v)
	return true
}

// lengthWeight returns min(HashLengthWeightMax, (runes/5)^HashLengthExponent).
func lengthWeight(t string) float32 {
	n := utf8.RuneCountInString(t)
	return float32(min(HashLengthWeightMax, math.Pow(float64(n)/5, HashLengthExponent)))
}

// addCharGrams appends the character n-grams of "<tok>", which share the
// total weight total as total/√k each.
func (s *hashScratch) addCharGrams(tok string, total float32) {
	s.buf = append(s.buf[:0], '<')
	s.buf = append(s.buf, tok...)
	s.buf = append(s.buf, '>')
	// Rune start offsets, plus the end offset.
	s.offs = s.offs[:0]
	for i := 0; i < len(s.buf); {
		s.offs = append(s.offs, i)
		_, size := utf8.DecodeRune(s.buf[i:])
		i += size
	}
	s.offs = append(s.offs, len(s.buf))
	runes := len(s.offs) - 1
	k := 0
	for n := HashMinGram; n <= HashMaxGram; n++ {
		if runes >= n {
			k += runes - n + 1
		}
	}
	if k == 0 {
		return
	}
	w := total / float32(math.Sqrt(float64(k)))
	for n := HashMinGram; n <= HashMaxGram; n++ {
		for i := 0; i+n <= runes; i++ {
			gh := fnvBytes(fnvByte(fnvOffset64, kindChar), s.buf[s.offs[i]:s.offs[i+n]])
			s.feats = append(s.feats, hashFeature{h: mix64(gh), w: w})
		}
	}
}

// scatter merges equal features with sublinear tf, hashes them into v and
// L2-normalizes v.
func (h *Hash) scatter(feats []hashFeature, v []float32) {
	slices.SortFunc(feats, func(a, b hashFeature) int {
		switch {
		case a.h < b.h:
			return -1
		case a.h > b.h:
			return 1
		}
		return 0
	})
	dim := uint64(h.dim)
	signed := true
	for pass := 0; pass < 2; pass++ {
		for i := 0; i < len(feats); {
			j := i
			var sum float32
			for j < len(feats) && feats[j].h == feats[i].h {
				sum += feats[j].w
				j++
			}
			tf := j - i
			w := sum / float32(tf)
			if tf > 1 {
				w *= 1 + float32(math.Log(float64(tf)))
			}
			x := feats[i].h
			idx := ((x & 0xffffffff) * dim) >> 32
			if signed && x>>63 == 1 {
				w = -w
			}
			v[idx] += w
			i = j
		}
		var ss float64
		for _, x := range v {
			ss += float64(x) * float64(x)
		}
		if ss > 0 {
			inv := float32(1 / math.Sqrt(ss))
			for k := range v {
				v[k] *= inv
			}
			return
		}
		// Signed hashing cancelled everything out, which can only happen in
		// very small dimensions: fall back to the unsigned sum, which cannot
		// cancel because every weight is positive.
		clear(v)
		signed = false
	}
}

// fnvByte folds one byte into an FNV-1a 64-bit state.
func fnvByte(h uint64, b byte) uint64 {
	return (h ^ uint64(b)) * fnvPrime64
}

// fnvString folds the bytes of s into an FNV-1a 64-bit state.
func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime64
	}
	return h
}

// fnvBytes folds b into an FNV-1a 64-bit state.
func fnvBytes(h uint64, b []byte) uint64 {
	for _, c := range b {
		h = (h ^ uint64(c)) * fnvPrime64
	}
	return h
}

// mix64 is the MurmurHash3 fmix64 finalizer (Appleby), which spreads FNV's
// weak low and high bits over the whole word.
func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}
