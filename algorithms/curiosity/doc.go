// Package curiosity scores knowledge gaps per topic or entity cluster
// [curiosity] (DESIGN.md §6 "Beyond the fifteen"; reference notes §6.4) and
// suggests what to do about each one.
//
// # Topics
//
// Topics come from the query log or from the caller's entity clusters:
//
//   - [GroupQueries] takes the most recent 200 queries and groups them in
//     time order: each query joins the topic most similar to it if the
//     similarity reaches 0.3, otherwise it opens a new topic; then the most
//     similar pair of topics is merged while its similarity reaches 0.3.
//     Similarity is the weighted Jaccard Σ min / Σ max between term weights,
//     a query's terms ([textproc.Terms]: stop words removed, stemmed) having
//     weight 1 and a topic's the share of its queries that contain the term.
//     For a single-query topic this is the plain term Jaccard of the
//     reference; comparing with the topic's term profile instead of the
//     union of its terms keeps a growing topic from drifting out of reach
//     of its own later queries. Ties go to the earlier topic, so the
//     grouping is deterministic. A topic's label is its three most frequent
//     terms.
//   - [AssignQueries] attaches each query to every given [Cluster] one of
//     whose entity names it mentions (all the name's words among the query's
//     words).
//
// The caller then looks up, per topic, the facts it holds (count and mean
// confidence) and, optionally, a measured recall success; [Score] does the
// rest. This split keeps the package pure: the look-up is I/O.
//
// # Gap score
//
// For a topic with q queries, f facts of mean confidence c and recall
// success r, against the largest q and f over all topics:
//
//	base = 0.4·q/qmax + 0.3·(1 − f/fmax) + 0.2·(1 − c) + 0.1·(1 − r)
//	gap  = clamp(base − 0.1·LP, 0, 1)
//
// f/fmax is 0 when no topic has facts, and c counts as 0 for a topic
// without facts. r is the caller's measured recall success or, when absent,
// the share of the topic's queries that succeeded (success flag set or top
// score ≥ 0.5). The learning progress LP in [−1, 1] is the success rate of
// the newer half of the topic's queries minus that of the older half (time
// order; at least 4 queries, else 0): a topic that the memory is learning by
// itself needs less help, one whose recall gets worse needs more.
//
// The reference adds +0.1·LP for positive LP, following the
// learning-progress theory of curiosity, where improving topics are the
// most interesting to explore. Here the gap ranks what needs an
// intervention, so improvement lowers it and decline raises it.
//
// # Actions
//
// Each gap gets a suggested [Action], checked in this order:
//
//   - monitor when gap < 0.3 (nothing urgent);
//   - ask_user when f ≤ 2 and q ≥ 3: the user keeps asking about something
//     we barely know, and only the user can tell (zenbrain runs offline, so
//     the reference's web_research is not offered);
//   - consolidate when f ≥ 10 and r < 0.5: the knowledge is there but recall
//     fails, a sign of fragmentation that consolidation into schemas fixes;
//   - review when f > 0 and c < 0.5 or r < 0.5: some facts exist but are
//     uncertain or not recalled, so review (confirm) them;
//   - monitor otherwise.
//
// [Top] returns the N highest gaps (default 5), ties broken by more queries,
// then topic ID. The package is pure: no I/O, no clock, no mutable globals.
package curiosity
