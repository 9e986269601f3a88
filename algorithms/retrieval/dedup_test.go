package retrieval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// dedupCorpus returns n results whose texts come from a small vocabulary, a third of them
// near-copies of an earlier text (one word changed, added or dropped) or exact copies, with
// scores drawn from a few values so that ties (broken by ID) occur.
func dedupCorpus(r *rand.Rand, n, vocab int) []Result {
	rs := make([]Result, n)
	for i := range rs {
		var words []string
		if i > 0 && r.IntN(3) == 0 {
			words = strings.Fields(rs[r.IntN(i)].Text)
			switch r.IntN(4) {
			case 0: // exact copy
			case 1:
				words = append(words, fmt.Sprintf("w%d", r.IntN(vocab)))
			case 2:
				if len(words) > 0 {
					words = words[:len(words)-1]
				}
			default:
				if len(words) > 0 {
					words[r.IntN(len(words))] = fmt.Sprintf("w%d", r.IntN(vocab))
				}
			}
		} else {
			words = make([]string, r.IntN(16))
			for j := range words {
				words[j] = fmt.Sprintf("w%d", r.IntN(vocab))
			}
		}
		rs[i] = Result{ID: fmt.Sprintf("m%03d", i), Text: strings.Join(words, " "), Score: float64(r.IntN(8)) / 8}
	}
	return rs
}

// DedupTop(rs, t, k) is the first k of Dedup(rs, t) — for random corpora with near-duplicates,
// exact copies, empty texts and score ties, thresholds from 0 to 1 and k from -1 past the end —
// and leaves its input alone; Rank with a K returns the same as deduplicating everything and
// truncating.
func TestDedupTopIsPrefixOfDedup(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	thresholds := []float64{0, 0.25, 0.5, 0.75, DedupThresholdDefault, 0.95, 1}
	for trial := range 3000 {
		rs := dedupCorpus(r, r.IntN(40), 2+r.IntN(25))
		th := thresholds[trial%len(thresholds)]
		if trial%5 == 0 {
			th = r.Float64()
		}
		k := r.IntN(len(rs)+3) - 1
		before := slices.Clone(rs)
		all := Dedup(rs, th)
		want := all
		if k >= 0 && len(want) > k {
			want = want[:k]
		}
		got := DedupTop(rs, th, k)
		require.Equal(t, ids(want), ids(got), "trial %d, threshold %v, k %d", trial, th, k)
		require.Equal(t, ids(dedupAllPairs(rs, th)), ids(all), "Dedup equals the former all-pairs code")
		require.Equal(t, before, rs, "input not modified")
	}
	// Through Rank: candidates that are near-duplicates of each other, K below their count.
	var cands []Candidate
	for i, res := range dedupCorpus(r, 60, 12) {
		cands = append(cands, Candidate{
			ID: res.ID, Layer: Layers()[i%len(Layers())], Text: res.Text,
			Cosine: float64(i%7) / 7, BM25: float64(i % 5), Retrievability: 1,
		})
	}
	for _, k := range []int{1, 5, 10, 59, 60, 100} {
		got, err := Rank(ClassGeneral, cands, &Config{K: k})
		require.NoError(t, err)
		full, err := Rank(ClassGeneral, cands, &Config{K: -1})
		require.NoError(t, err)
		if len(full) > k {
			full = full[:k]
		}
		require.Equal(t, ids(full), ids(got), "K %d", k)
	}
}

// BenchmarkRankDedup measures recall's ranking step on 60 candidates (some near-duplicates)
// for the top 10: deduplicating only as far as the top 10 (DedupTop, with the size bound)
// against deduplicating every candidate and truncating (the former code), in the same run;
// reports the speed-up.
func BenchmarkRankDedup(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	rs := dedupCorpus(r, 60, 40)
	var fullNs, topNs int64
	n := 0
	for b.Loop() {
		t0 := time.Now()
		full := dedupAllPairs(rs, DedupThresholdDefault)
		if len(full) > 10 {
			full = full[:10]
		}
		t1 := time.Now()
		top := DedupTop(rs, DedupThresholdDefault, 10)
		t2 := time.Now()
		fullNs += t1.Sub(t0).Nanoseconds()
		topNs += t2.Sub(t1).Nanoseconds()
		n += len(full) + len(top)
	}
	b.ReportMetric(float64(fullNs)/float64(topNs), "speedup")
	_ = n
}

// dedupAllPairs is the former Dedup: every result tokenized and compared, no size bound.
func dedupAllPairs(results []Result, threshold float64) []Result {
	sorted := slices.Clone(results)
	sortResults(sorted)
	var kept []Result
	var toks []textproc.Set
	for _, res := range sorted {
		t := textproc.NewSet(textproc.Tokens(res.Text))
		dup := false
		for _, kt := range toks {
			if t.Jaccard(kt) > threshold {
				dup = true
				break
			}
		}
		if !dup {
			kept = append(kept, res)
			toks = append(toks, t)
		}
	}
	return kept
}
