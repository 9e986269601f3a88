// Package budget holds zenbrain's Information-Bottleneck budget [ib_budget]
// (DESIGN.md §6): the keep/compress decision for a memory, and the
// redundancy-aware token-budget selector used to assemble context.
//
// # Keep or compress
//
// A memory is retained at full fidelity iff gain·β_context > cost, with
//
//	gain = 0.4·min(1, retrievals/10) + 0.3·confidence + 0.3·max(0, 1 − days/90)
//	cost = 0.4·min(1, length/5000) + 0.3·min(1, entities/20) + 0.3·min(1, variance)
//
// where days is the time since the last access in days, length is in
// characters (runes), entities is the number of entities the memory mentions
// and variance is its embedding dispersion (see [EmbeddingVariance]). β is a
// per-context trade-off: how much a context's relevance is worth against
// storage complexity ([DefaultBetas]). These are the weights of the
// reference implementation (reference notes §4.13). Unlike the reference,
// recency here really is in days (the reference passed a 0–1 freshness) and
// entities and variance are measured instead of fixed at 1 and 0.5.
//
// # Token budget
//
// [Select] fills a token budget greedily by gain per token, where a piece's
// gain is its score discounted by its redundancy with what is already chosen:
//
//	gain(p) = score(p) · (1 − λ·max over chosen c of TokenJaccard(p, c))
//
// with λ = 1 by default, so an exact duplicate adds nothing. Pinned pieces
// (core memories) go first. The result never exceeds the budget and is
// deterministic.
//
// The package is pure: no I/O and no clock.
package budget
