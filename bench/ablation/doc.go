// Package ablation is zenbrain's real-algorithm ablation (issue 9): the reference harness's
// synthetic conditions (notes §7.3 and §7.4) run through the real coordinator on PostgreSQL,
// with one mechanism at a time switched off through the ablation registry.
//
// The reference harness multiplies a strength by hand-set constants; here nothing is
// simulated but time and the user. Every run is a tenant in a database of its own, driven on
// a virtual clock ([Clock]) through the coordinator's public entry points — StoreBatch, Store,
// Recall, Feedback, and the worker's jobs Derive, Propagate, DecayDue, ReviewDue and Sleep —
// so the code measured is the code the worker runs.
//
// # World
//
// [NewWorld] draws, with the harness's Mulberry32 generator and seeds, a world of facts
// ("Nils's clock is the umber meadow, found with Luca in Basel."), one in five with an
// emotional clause; fact queries asking for one to three attributes of a person (nRel = 1 +
// ⌊3u⌋, as in the harness); dated episodes (one per five facts) with a question each; and
// revisions (one per ten facts) that give a fact a new value mid-run. Every unit (fact,
// revision, episode) has a unique two-word value phrase.
//
// # A run
//
// Facts are stored on day 0 (or FactsPerDay a day). Each simulated day stores its episodes,
// recalls Workload.QueriesPerDay queries drawn from those askable (with side effects) and
// reports the results that answer them as used (Feedback), recalls a query about each fact to
// be revised two minutes before the revision arrives (so the old fact is labile), and runs the
// nightly lifecycle: derive (and the propagation jobs it enqueued), DecayDue, ReviewDue, one
// Sleep seeded by workload, seed and day (every arm of a seed sees the same draws), derive.
// Derive also runs after every store, as the worker would within seconds.
//
// # Measures
//
// Retention is the mean retrievability R, on the morning after a day, of the units current
// then, each through its best active carrier: its own memory, a memory whose content holds its
// value (a reconsolidated edit), or a memory carrying it through provenance (a schema). R is
// the forgetting model's R(now) from the stored stability, last access and emotional tag; 1
// when decay is switched off (the system then forgets nothing). P@5 is the harness's
// |top 5 ∩ relevant| / min(5, |relevant|) over a seeded sample of the queries, read-only; Q =
// retention × P@5. ΔQ, the Wilcoxon signed-rank p (simstat, exact for n ≤ 25) and Cohen's d
// compare each arm with the full system over the seeds.
//
// The workload's base decay r per day maps onto the forgetting model through [StabilityFor]:
// the initial semantic stability is 1/r days, so an unrehearsed neutral fact keeps e^(−r) of its
// retrievability per day, exactly the harness's daily factor; episodic memories start at 1/(7r)
// (DESIGN.md §6's ratio of one to seven days).
//
// # Arms
//
// [DefaultArms]: full, one removal per registry id (coordinator.AlgorithmIDs), no-pma (the six
// PMA components off) and bare (every id but decay off: the base decay is the substrate, as in
// the harness's "no algorithms"). The cascade uses [CascadeArms].
//
// # Store
//
// The runs use real PostgreSQL — one database per run, copied from a migrated template
// ([OpenDatabase], synchronous_commit off since the data is thrown away) and dropped after it,
// so that a run's figures depend only on its world and arm; [RunSuite] runs them in parallel. An
// in-process store would have to re-implement the SQL half of the algorithms (candidate
// generation and BM25 in zb.recall_candidates, the lifecycle queries), so it could not run the
// identical code; the report states the time this costs.
package ablation
