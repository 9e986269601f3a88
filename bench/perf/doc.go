// Package perf benchmarks zenbrain's recall, writes and mixed load at scale against baselines
// measured in the same run on the same table, as issue 10 asks. Every target is a ratio;
// absolute times are reported but never asserted (the machines are shared and noisy).
//
//   - Recall: p50 and p99 of coordinator.Recall (read-only, and with its side effects) over
//     N memories with 768-d hash embeddings, against a bare pgvector HNSW top-k query
//     (tenant filter, hnsw.iterative_scan = relaxed_order, ef_search 100: the settings of
//     zb.recall_candidates) on the same table, interleaved query by query. Two layouts per N:
//     100 tenants of N/100 memories, and one tenant of N. Targets: p50 ≤ [RecallP50Target]
//     (1.5×), p99 ≤ [RecallP99Target] (3×). Timed with them, recall's least vector work as one
//     plain statement ([Floor]: each layer's top 10 by an exact sort of a small tenant, or by
//     one HNSW scan at recall's ef_search above 1 000 memories), a lower bound of recall's time.
//   - Filtered search: top 10 by cosine within one tenant and one layer, ANN against exact
//     (a sequential distance sort), under several settings (iterative scan off, relaxed,
//     strict; optional partial HNSW indexes per layer) and through recall's own vector scan,
//     asked for the query's layer and for every layer (recall's default: each layer's top 10
//     taken from one scan), and derive's nearest-fact search (zb.similar_semantic: the K
//     semantic memories nearest to a stored one, [NearestFactsSetting]). Target recall@10 ≥
//     [FilteredRecallTarget] (0.95). The plan's scan node is reported. In tenants above 1 000
//     memories, the ef_search at which recall's one-scan shape reaches the bar per layer
//     ([LayerLadder]) and, with the partial indexes ([Config.PartialMax]), the ef_search at which
//     a scan of each layer's graph does, and up to [Config.HalfvecMax] the one scan's on a
//     half-precision (halfvec) graph, each then timed against the one scan at their bars
//     ([Interleaved]).
//   - Writes: coordinator.Store p50 with a precomputed embedding (so embedding is excluded)
//     against a plain single-row INSERT of the same row; coordinator.StoreBatch throughput
//     against a plain COPY of the same rows into a table with the same indexes (CREATE TABLE
//     ... (LIKE zb.memory INCLUDING ALL)). Target throughput ratio ≥ [ImportTarget] (0.5×).
//   - Load: C concurrent clients (default 32) mixing Recall (with side effects) and Store 9:1
//     for a duration, against the 100-tenant database of the largest size, with a worker
//     (package worker) running in-process on its own pool: errors, throughput, p50/p99, and
//     the top statements of pg_stat_statements when the server preloads it.
//
// Each database is created on the server of [Config.AdminURL] (a role that may CREATE
// DATABASE), migrated with [Config.Dim], loaded with coordinator.StoreBatch (the HNSW index is
// dropped during the load and rebuilt with its migration definition, as one would for a bulk
// import), and dropped afterwards. [Run] returns [Results]; [Results.Write] stores them as
// results.json and results.md.
package perf
