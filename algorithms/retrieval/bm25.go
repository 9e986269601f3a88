package retrieval

import (
	"cmp"
	"fmt"
	"math"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// BM25 defaults (DESIGN.md §5).
const (
	// BM25K1Default is the term-frequency saturation k1.
	BM25K1Default = 1.2
	// BM25BDefault is the length normalization b.
	BM25BDefault = 0.75
)

// BM25Config configures [NewBM25].
type BM25Config struct {
	// K1 is the term-frequency saturation. Defaults to BM25K1Default; a
	// negative value is an error.
	K1 float64
	// B is the length normalization in [0, 1]. Defaults to BM25BDefault; −1
	// means 0 (no length normalization).
	B float64
	// Lang is the language for [textproc.Terms]. Empty means each text
	// (every document and every query) is detected on its own.
	Lang textproc.Lang
}

// BM25 is the reference Okapi BM25 scorer over [textproc.Terms]. For a query
// with distinct terms t and a document d of length |d| terms,
//
//	score(q, d) = Σ_t IDF(t) · tf(t,d)·(k1 + 1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl))
//	IDF(t)      = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))
//
// with N documents, n(t) of them containing t, and avgdl the mean document
// length. This IDF (the Lucene form) is never negative. Each distinct query
// term counts once. A BM25 is immutable and safe for concurrent use.
type BM25 struct {
	k1, b float64
	lang  textproc.Lang
	tf    []map[string]int
	dl    []float64
	df    map[string]int
	avgdl float64
}

// NewBM25 indexes docs. It returns an error for K1 < 0 or B outside [0, 1]
// (after defaults), or non-finite parameters. No documents give a scorer
// whose scores are all empty.
func NewBM25(docs []string, cfg *BM25Config) (*BM25, error) {
	c := BM25Config{}
	if cfg != nil {
		c = *cfg
	}
	c.K1 = cmp.Or(c.K1, BM25K1Default)
	c.B = cmp.Or(c.B, BM25BDefault)
	if c.B == -1 {
		c.B = 0
	}
	if math.IsNaN(c.K1) || math.IsInf(c.K1, 0) || c.K1 < 0 {
		return nil, fmt.Errorf("error creating BM25: K1 is %v, want finite and ≥ 0", c.K1)
	}
	if math.IsNaN(c.B) || c.B < 0 || c.B > 1 {
		return nil, fmt.Errorf("error creating BM25: B is %v, want in [0, 1]", c.B)
	}
	m := &BM25{k1: c.K1, b: c.B, lang: c.Lang, df: map[string]int{}}
	total := 0.0
	for _, d := range docs {
		terms := textproc.Terms(d, c.Lang)
		tf := make(map[string]int, len(terms))
		for _, t := range terms {
			tf[t]++
		}
		for t := range tf {
			m.df[t]++
		}
		m.tf = append(m.tf, tf)
		m.dl = append(m.dl, float64(len(terms)))
		total += float64(len(terms))
	}
	if len(docs) > 0 {
		m.avgdl = total / float64(len(docs))
	}
	return m, nil
}

// Len returns the number of indexed documents.
func (m *BM25) Len() int { return len(m.tf) }

// IDF returns the inverse document frequency of the (already stemmed) term.
func (m *BM25) IDF(term string) float64 {
	n := float64(m.df[term])
	return math.Log(1 + (float64(len(m.tf))-n+0.5)/(n+0.5))
}

// Score returns the BM25 score of query against every document, in document
// order. A query without terms scores 0 everywhere.
func (m *BM25) Score(query string) []float64 {
	out := make([]float64, len(m.tf))
	seen := map[string]bool{}
	for _, t := range textproc.Terms(query, m.lang) {
		if seen[t] {
			continue
		}
		seen[t] = true
		idf := m.IDF(t)
		for i, tf := range m.tf {
			f := float64(tf[t])
			if f == 0 {
				continue
			}
			norm := 1 - m.b
			if m.avgdl > 0 {
				norm += m.b * m.dl[i] / m.avgdl
			}
			out[i] += idf * f * (m.k1 + 1) / (f + m.k1*norm)
		}
	}
	return out
}
