// Package spectral measures the health of a knowledge graph through the
// spectrum of its normalized Laplacian (DESIGN.md §6 [spectral_health],
// reference notes §4.11).
//
// For an undirected weighted graph with adjacency W and weighted degrees d_i,
// the normalized Laplacian is
//
//	L = I − D^{−1/2}·W·D^{−1/2},  L_ii = 1 and L_ij = −w_ij/√(d_i·d_j) for d_i > 0,
//
// with L_ii = 0 for an isolated node (Chung's convention). Its eigenvalues lie
// in [0, 2]; the multiplicity of 0 is the number of connected components, and
// the second-smallest eigenvalue λ₂ (the Fiedler value, or algebraic
// connectivity) measures how well the graph holds together: λ₂ = 0 exactly when
// the graph is disconnected, and a small λ₂ means a bottleneck. The reference
// implementation used the unnormalized L = D − W; the normalized form makes λ₂
// independent of the weight scale, so sleep runs that rescale weights compare
// fairly. Known values: K_n has eigenvalues 0 and n/(n − 1) (so K3 gives 1.5);
// the path on n nodes has 1 − cos(πk/(n − 1)), k = 0 … n − 1.
//
// [Analyze] computes λ₂ with gonum's mat.EigenSym, counts connected components,
// and flags fragmentation when λ₂ < 0.01. Graphs larger than Config.MaxNodes
// (500 by default) are sampled deterministically: a breadth-first search from
// the node of highest weighted degree in the largest component (ties to the
// smaller id), visiting neighbours in id order, until MaxNodes nodes are
// reached; λ₂ is that of the induced subgraph.
//
// The package is pure: no I/O, no globals, deterministic given its inputs.
package spectral
