// Package locomo is the LoCoMo retrieval benchmark harness: it loads the
// LoCoMo conversations (Maharana et al., "Evaluating Very Long-Term
// Conversational Memory of LLM Agents", ACL 2024, arXiv:2402.17753), feeds
// their turns to memory systems, asks the questions and scores the retrieved
// memories against the annotated evidence turns. No LLM is involved: only
// retrieval is measured.
//
// The protocol is the one in ../shared/data/locomo/SOURCE.md. The data file is
// licensed CC BY-NC 4.0 and is never copied into this repository; tests read
// it from the path in the environment variable [EnvFile] (ZB_LOCOMO_FILE) or,
// when that is unset, from [DefaultFile] relative to the repository root.
//
// # Loading
//
// [Load] and [Parse] read the JSON array of conversations into a [Dataset]:
// sessions in order with their dates ("1:56 pm on 8 May, 2023", parsed as
// UTC by [ParseSessionDate]), turns with their dia_id, speaker, text and image
// caption, and questions with their category and cleaned evidence. Evidence
// is cleaned by [CleanEvidence] exactly as SOURCE.md prescribes: entries are
// split on ';' and white space, parentheses are stripped, "D:11:26" becomes
// "D11:26", "D30:05" becomes "D30:5", a bare "D" is dropped and so are ids
// naming no turn of the conversation. What was changed is counted in
// [Dataset.Cleaning]. Questions whose cleaned evidence is empty stay in the
// dataset but are excluded from the retrieval metrics and counted in the
// report. Malformed input yields [*ValidationError]s naming the file, the
// conversation and the JSON path.
//
// # Protocol
//
// [BuildPlan] turns a dataset into the work for one [Mode]: one [TenantPlan]
// per tenant with the [Message]s to ingest and the [Query]s to ask. Each turn
// becomes one message in session order, with the text
//
//	"<speaker>: <text>" + " [shares image: <blip_caption>]" (when captioned)
//
// and OccurredAt = the session's date + i seconds for the i-th turn (from 0).
// In [PerConversation] mode the tenant is the conversation's sample_id; in
// [SharedPool] mode every turn of every conversation goes into the tenant
// [PoolTenant], and dia_ids (message source ids and evidence alike) are
// namespaced by conversation ("conv-26/D1:3") because they repeat across
// conversations. Each query carries its evidence turns' own texts
// ([Query.EvidenceText]) for the budget credits.
//
// The query time of a tenant is the date of the last session of its
// conversation (SOURCE.md) plus one second per turn of that session, that is
// one second after the last turn, so that no memory lies in the future of the
// query (the protocol's date alone would put the last session's turns up to a
// minute after it, and a time filter would drop them). In [SharedPool] mode it
// is the latest of these over all conversations: a physically consistent
// pool, in which recency differs between conversations as part of what makes
// the pool harder.
// [System.AfterIngest] is called once per tenant with that time before the
// queries.
//
// # Systems
//
// A [System] ingests messages, runs a lifecycle hook and answers searches
// with [Hit]s that carry their text and the dia_ids of their sources. Derived
// memories (facts, summaries, episodes) carry the union of their sources'
// dia_ids. A system that assembles context blocks itself also implements
// [ContextSystem]. The in-process baselines are [BM25System] (lexical only,
// Okapi BM25 from algorithms/retrieval) and [FlatSystem] ("flat", vector
// only, cosine over embeddings from any [Embedder]). [Baselines] returns, with
// their defaults, the yardsticks "bm25" (BM25 over single turns), "bm25-w4"
// and "bm25-w8" (BM25 over non-overlapping windows of 4 and of 8 consecutive
// turns of one session; a window's text is its turns' lines, one per line, and
// its sources are its turns' dia_ids) and "flat" over the embed package's
// offline hash embedder (dimension 768). Systems that keep state across runs
// implement [TenantResetter]; systems that implement [Describer] get their
// setup recorded in the report.
//
// # Evidence at a context budget
//
// The headline measures what an agent receives within a context budget of
// [BudgetSmall], [BudgetMedium] and [BudgetLarge] (250, 1,000 and 2,000)
// tokens, counted with the project's estimator budget.Tokens (⌈words·1.3⌉).
// [Pack] delivers a system's hits in rank order, each hit's text on a line of
// its own, while the estimate stays within the budget; the first hit that does
// not fit is cut after its last word that fits, and delivery ends there. Hits
// are packed from the K hits of the search, so K (default 100) must be deep
// enough to fill the largest budget. For each evidence turn e of a question:
//
//	strict:  e counts iff the turn's own text (white space normalised) lies
//	         whole inside the delivered text (white space normalised)
//	lenient: e counts iff it counts strictly or is a source of a hit
//	         delivered whole
//	context: strict credit of the block a [ContextSystem] returns for the
//	         question at that budget (absent for other systems)
//
// and a question's figure is the covered fraction of its distinct evidence
// ids. Strict credit cannot be earned by a hit that names a turn among its
// sources without delivering its words; lenient credit shows how much a
// system's source ids claim beyond that. The mean characters delivered are
// reported beside each budget.
//
// # Rank metrics
//
// A hit is relevant iff its source ids intersect the question's evidence ids.
// For one question with evidence set E and ranked hits h1, h2, ...:
//
//	Recall@k = |E ∩ ⋃_{i≤k} sources(h_i)| / |E|            k = 5, 10
//	P@5      = #{i ≤ 5 : h_i relevant} / 5
//	MRR      = 1 / (rank of the first relevant hit), 0 if none within 50
//	NDCG@5   = min(1, DCG@5 / IDCG@5)
//	DCG@5    = Σ_{i≤5} rel_i / log2(i + 1)                  rel_i ∈ {0, 1}
//	IDCG@5   = Σ_{i≤min(|E|, 5)} 1 / log2(i + 1)
//
// The ideal count is the number of evidence ids capped at 5, because a turn
// retriever can at best place one relevant turn per evidence id in the top 5.
// A system returning several relevant memories per evidence id (say a turn and
// a fact derived from it) could exceed that ideal, so NDCG@5 is clamped to 1.
// Recall@k credits every source of a hit whatever its size, so a hit carrying
// many turns (an episode, a window) scores more at the same k without
// delivering more per token; the report therefore gives the mean number of
// source ids and characters of a top-5 hit beside each Recall@k row.
//
// All figures, those at the budgets included, are macro-averaged over the
// questions with non-empty evidence, for all categories, categories 1–4 and
// each category 1..5 (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
// 5 adversarial).
//
// # Running and reporting
//
// [Run] measures several systems on the same plan(s) in one run and returns a
// [Report] with all figures, counts, durations and settings, optionally with
// every question's figures (for paired tests) and a progress bar.
// [WriteResults] writes results.json, results.md (Markdown: the budget table
// first, then the Recall@k summary, the per-mode tables by group and the
// durations) and recall5.png ([ResultsChart]: per mode, each system's strict
// credit at the three budgets beside its Recall@5). [Dataset.Select] keeps a part of the
// conversations, with the cleaning report counted over them.
//
// # Mechanism ablation
//
// [Ablate] measures what each mechanism of the ablation registry adds at the budget metric: for
// every [AblationArm] (the full system with one mechanism switched off) it runs the arm in
// [PerConversation] mode and compares it question by question with the full system's
// per-conversation result ([CompareArm]). For the strict credit at [BudgetSmall] and
// [BudgetMedium] tokens, and for the context block's at [BudgetSmall], it reports
//
//	Δ = mean over questions of (arm − full)
//
// with the two-sided Wilcoxon signed-rank test of algorithms/simstat on the differences and the
// number n of questions that changed. A negative Δ means less evidence is delivered without the
// mechanism. An arm whose every question has the same figures and the same top hits as the
// full system is flagged identical: the mechanism does nothing on this path. [WriteAblation]
// writes ablation.json and ablation.md (one row per arm, in the arms' order).
package locomo
