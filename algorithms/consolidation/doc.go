// Package consolidation implements zenbrain's dual-process consolidation
// [dual_process] (DESIGN.md §6).
//
// # System 1: clustering
//
// [ClusterEpisodes] groups similar episodes by average-linkage agglomerative
// clustering over the pairwise affinity
//
//	a(i, j) = 0.7·cos(e_i, e_j) + 0.3·J(E_i, E_j)    if cos(e_i, e_j) ≥ 0.5
//	a(i, j) = 0                                      otherwise
//
// where e are embeddings, E entity sets and J their Jaccard similarity (two
// empty entity sets give J = 0: no shared evidence). The two clusters with
// the highest average affinity merge while that average is ≥ 0.7. With these
// defaults two episodes merge when cos ≥ 0.786 at entity Jaccard 0.5, when
// cos ≥ 0.571 with identical entity sets, and only at cos = 1 with no shared
// entity: similar wording alone is not enough, the episodes must be about the
// same things. Episodes are processed in (OccurredAt, ID) order and ties break
// on that order, so the result is deterministic. Clusters smaller than 2 are
// not returned.
//
// # System 2: schema extraction
//
// A [SchemaWriter] turns a cluster into a [Schema]: the shared entities, a
// representative statement, the time span and the union of the members'
// source ids. [OfflineWriter] (the default) needs no model: shared entities
// are those mentioned by at least half of the members (and at least two),
// the statement is the medoid's text (the member with the highest total
// affinity to the others). An LLM writer can be plugged in through the
// interface; [Extract] overwrites whatever it returns for provenance
// (members, source ids, time span), so a model cannot lose or invent
// sources.
//
// The package is pure: no I/O; time comes from the episodes.
package consolidation
