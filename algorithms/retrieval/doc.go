// Package retrieval holds the pure pieces of zenbrain's recall
// (DESIGN.md §5): the query classifier with date extraction, per-query signal
// normalization and the hybrid score, class-weighted magnitude fusion across
// layers, the Two-Factor boost, the forgetting multiplier, token-Jaccard
// deduplication and a reference BM25 scorer.
//
// # Classification
//
// [Classify] (or a [Classifier] built from custom tables) assigns one of
// [ClassTemporal], [ClassProcedural], [ClassFactual] and [ClassGeneral] from
// English and German pattern tables kept as data ([DefaultRules]), and
// extracts date expressions ([DefaultDateRules]) — "yesterday", "last week",
// "two months ago", "in March 2023", "gestern", "letzte Woche", "vor zwei
// Monaten", "15.03.2023", "2023-03-15" — resolved to half-open [TimeRange]s
// against a given now. A found date adds [DateWeightDefault] to the temporal
// score.
//
// # Ranking
//
// [Rank] turns the candidates of one query into the final list:
//
//	v(d), b(d)  = min-max normalized cosine and BM25 over the query's candidates
//	hybrid(d)   = α·v(d) + (1 − α)·b(d)                          α = 0.7
//	fused(d)    = max over d's layers of w_layer(class)·hybrid(d)
//	               temporal→episodic 2.0, factual→semantic 1.8,
//	               procedural→procedural 1.8, otherwise 1.0
//	score(d)    = fused(d) · (1 + 0.2·w·I^0.1) · (f + (1 − f)·R)
//
// then deduplicates (token Jaccard > 0.9 keeps the higher score) and returns
// the top K (5). w and I are the weight and importance of the memory's
// strongest Two-Factor edge, R its retrievability at now and f the forgetting
// floor ([ForgettingFloorDefault]). Each step can be switched off for
// ablation through [Config].
//
// # BM25
//
// [BM25] is the reference Okapi BM25 (k1 1.2, b 0.75) over
// [textproc.Terms]; the SQL path uses PostgreSQL full-text search, and this
// scorer is what tests and benchmarks compare it against.
//
// The package is pure: no I/O, no clock (now is a parameter) and no mutable
// globals.
package retrieval
