// Package coordinator is zenbrain's MemoryCoordinator: it stores memories into the seven
// layers, recalls them as DESIGN.md §5 describes, assembles token-budgeted context and offers
// the entry points the worker schedules. It loads rows through package db, calls the pure
// packages in algorithms/ and pma/, and writes the results.
//
// # Usage
//
//	co, err := coordinator.New(&coordinator.Config{Pool: pool, Embedder: emb})
//	res, err := co.Store(ctx, coordinator.StoreInput{TenantID: "acme", Content: "Bob lives in Paris"})
//	rec, err := co.Recall(ctx, "acme", "Where does Bob live?", &coordinator.RecallOpts{K: 5})
//	blk, err := co.Context(ctx, "acme", &sessionID, "Where does Bob live?", 500)
//
// # Store
//
// Store validates (ErrEmptyContent, ErrContentTooLarge, ErrInvalidUTF8, ErrUnknownLayer,
// ErrInvalidTenant, ErrDimensionMismatch, ErrInvalidEmbedding; nothing is written on error),
// routes, tags and embeds outside the transaction, then in one transaction ensures the tenant,
// touches the session, writes the memory (index terms for BM25, emotional tag, stability by
// layer and fade_at, PriorityMap priority, resolved event span), its triple copies, the audit
// event "memory.store", and — through the memory table's triggers — its place in the derive
// queue zb.memory_underived and a notification to the worker (zb_memory_inserted, with an empty
// payload: any login may listen on the channel), which reads the tenants with underived memories
// (UnderivedTenants) and enqueues a pending-derive River job per tenant (a fact whose older
// versions were partly locked gets a River job of its own, jobs.DeriveArgs with
// RecheckSupersede, InsertTx). The transaction is pipelined: BEGIN goes with the INSERT, the
// rest with COMMIT.
//
// Routing: an explicit layer wins; a CoreLabel means core; a SessionID means a short-term
// interaction; then the first route of Config.Routes (DefaultRoutes: procedural and identity
// cues in English and German, strong emotion → episodic, temporal anchors → episodic); else a
// semantic fact. Layer rules: core is an upsert by label (a changed value is recorded with the
// old one in a "memory.update" audit event); working memory has 7 slots per session and evicts
// the lowest relevance×recency slot to short-term, never the newcomer; a semantic fact with a
// subject and attribute (DefaultFactPatterns) ends the validity of older facts about the same
// subject and attribute only; episodic dates ("yesterday", "letzte Woche") resolve against the
// memory's own time into event_from/event_to; skills count successes and failures
// (ReportOutcome). StoreBatch loads many memories through COPY.
//
// # Recall
//
// The candidate generation is one SQL statement (zb.recall_candidates, migration 0006): per
// layer the top K (8) by cosine through HNSW with iterative scan and the top K by BM25, each
// candidate with both signals, its strongest Two-Factor edge, the corpus statistics and the
// tenant's disabled algorithms. BM25 (k1 1.2, b 0.75) is computed in SQL over the same index
// terms as the Go reference (textproc.Terms, stored in memory.terms): N and avgdl come from
// per-tenant insert-only deltas kept by statement triggers, df from the postings (0018). In a
// tenant of Config.RecallSplitMinDocs active memories or more, when the pool has two
// connections to spare, the statement's lexical and vector halves run at the same time on two
// connections and a third statement joins them (migration 0026; RecallResult.Split).
// Fusion, boost, floored retrievability and dedup run in Go (retrieval.Rank). Results carry
// the score and its signals, confidence with its 95 % interval and provenance.
//
// Recall takes no row locks. Its side effects (access count, stability growth, fade_at,
// lability windows, Hebbian co-activation, recall event, audit "memory.recall" with the query's
// SHA-256) run in one short transaction with lock_timeout Config.SideEffectLockTimeout; rows
// locked by a sleep or decay run are skipped (FOR UPDATE SKIP LOCKED), and on a lock timeout
// the side effects are dropped and the results still returned (RecallResult.SideEffects).
//
// Context pins core memories first, then lets the memory modules (working, episodic, semantic,
// procedural, prospective, cross-context, metacognitive alerts) compete in a global workspace
// [gwt] for the rest of the token budget (EstimateTokens: ⌈words·1.3⌉): salience blended with
// the PriorityMap, ignition at 0.5 (0.3 for the previous winners, kept in zb.workspace_state), at
// most 4 broadcast, the budget split by salience. With gwt off: core, working slots, recalled
// memories, with budget.Select.
//
// # Beyond the fifteen
//
// Synaptic tagging and capture [stc_rescue] runs in derive, recall and sleep; prospective memory
// [prospective] (AddIntention, Intentions, DismissIntention, ProspectiveTick) fires intentions by
// time and by cue; KnowledgeGaps [curiosity] scores what the user asks about and memory knows
// little about. docs/mechanisms-beyond.md has the formulas and the measured effects.
package coordinator
