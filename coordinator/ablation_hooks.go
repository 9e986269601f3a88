package coordinator

// AlgorithmIDs returns the ids of the ablation registry in DESIGN.md §6 order, without
// touching the database (Algorithms gives a tenant's settings). Benchmarks use it to build one
// configuration per mechanism.
func AlgorithmIDs() []string {
	ids := make([]string, len(algorithms))
	for i, a := range algorithms {
		ids[i] = a.ID
	}
	return ids
}
