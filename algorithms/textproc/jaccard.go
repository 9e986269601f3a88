package textproc

// Jaccard returns the set Jaccard similarity |A∩B| / |A∪B| of the distinct
// strings in a and b. Duplicates count once. Two empty inputs return 1.0
// (identical empty sets); exactly one empty input returns 0.0.
func Jaccard(a, b []string) float64 {
	sa := make(map[string]struct{}, len(a))
	for _, x := range a {
		sa[x] = struct{}{}
	}
	sb := make(map[string]struct{}, len(b))
	for _, x := range b {
		sb[x] = struct{}{}
	}
	if len(sa) == 0 && len(sb) == 0 {
		return 1.0
	}
	if len(sa) == 0 || len(sb) == 0 {
		return 0.0
	}
	inter := 0
	for x := range sa {
		if _, ok := sb[x]; ok {
			inter++
		}
	}
	union := len(sa) + len(sb) - inter
	return float64(inter) / float64(union)
}

// TokenJaccard returns [Jaccard] over the [Tokens] of a and b. Two texts
// without tokens (for example both empty) return 1.0.
func TokenJaccard(a, b string) float64 {
	return Jaccard(Tokens(a), Tokens(b))
}
