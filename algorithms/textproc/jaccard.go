package textproc

import (
	"slices"
	"strings"
)

// Jaccard returns the set Jaccard similarity |A∩B| / |A∪B| of the distinct
// strings in a and b. Duplicates count once. Two empty inputs return 1.0
// (identical empty sets); exactly one empty input returns 0.0.
func Jaccard(a, b []string) float64 {
	return NewSet(a).Jaccard(NewSet(b))
}

// Set is a set of strings held sorted and without duplicates. Comparing one text with many
// (deduplication, redundancy against chosen pieces) builds each text's Set once and then
// compares by merging two sorted slices, without building hash sets per pair.
type Set []string

// NewSet returns the distinct strings of xs as a Set (xs is not modified).
func NewSet(xs []string) Set {
	s := slices.Clone(xs)
	slices.Sort(s)
	return slices.Compact(s)
}

// Jaccard returns [Jaccard] of the two sets' elements.
func (a Set) Jaccard(b Set) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1.0
	}
	if len(a) == 0 || len(b) == 0 {
		return 0.0
	}
	inter := 0
	a.eachCommon(b, func(string) { inter++ })
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// JaccardAbove reports whether a.Jaccard(b) > threshold. It skips the merge when the sizes
// alone rule it out: |A∩B| ≤ min(|A|, |B|) and |A∪B| ≥ max(|A|, |B|), so the similarity is at
// most min/max (floating-point division is monotone in both operands, so the bound holds for
// the computed value too). Near-duplicate thresholds (0.9) need sets of nearly equal size.
func (a Set) JaccardAbove(b Set, threshold float64) bool {
	lo, hi := min(len(a), len(b)), max(len(a), len(b))
	if hi > 0 && float64(lo)/float64(hi) <= threshold {
		return false
	}
	return a.Jaccard(b) > threshold
}

// Intersect returns the elements of both sets, in order.
func (a Set) Intersect(b Set) Set {
	var out Set
	a.eachCommon(b, func(x string) { out = append(out, x) })
	return out
}

// eachCommon calls fn for each element of both sets, in order (one merge of the sorted slices).
func (a Set) eachCommon(b Set, fn func(string)) {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch c := strings.Compare(a[i], b[j]); {
		case c == 0:
			fn(a[i])
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
}

// TokenJaccard returns [Jaccard] over the [Tokens] of a and b. Two texts
// without tokens (for example both empty) return 1.0.
func TokenJaccard(a, b string) float64 {
	return Jaccard(Tokens(a), Tokens(b))
}
