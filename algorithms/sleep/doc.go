// Package sleep plans one Simulation-Selection sleep run for a tenant
// (DESIGN.md §6 [sim_selection_sleep], reference notes §4.9 and §6.6).
//
// [NewPlan] takes the tenant's recent episodes and the edges among their
// memories and entities, and returns a [Plan]: a list of concrete deltas that
// the worker applies in one transaction. The package computes; it writes
// nothing.
//
// # The run
//
//  1. TD(0): every real episode's value estimate V is updated from its
//     usefulness signal r: δ = r + γ·V(next) − V, V ← V + α·δ (α = 0.2,
//     γ = 0.5; V(next) = 0 for an episode without a successor). All δ are
//     computed from the values before the run, so the order of episodes does
//     not matter.
//  2. CA3 pool: the real episodes plus counterfactual candidates (see below).
//  3. Tagging: TAG = 0.4·|δ| + 0.35·R + 0.25·N, with |δ| clipped to 1, R the
//     retrievability and N = min(1, 0.2·related). With neuromodulation on,
//     TAG = 0.34·|δ| + 0.30·R + 0.21·N + 0.15·|valence|·arousal.
//  4. Selection: a candidate with TAG ≥ 0.5 is selected. A selected real
//     episode gets stability growth S ← max(S, min(365, S·(1 + TAG))) and a deep-copy
//     promotion; an unselected episode flagged as faded is archived.
//  5. Plasticity: an edge touched by the pool gets LTP (+0.10) when the
//     highest TAG among the candidates touching it is ≥ 0.5, and LTD (−0.05)
//     otherwise. A real episode touches the edges incident to its own id and
//     the edges between two of its entities; a counterfactual touches the
//     association edge between its two episodes. Edges touched by no
//     candidate are left alone (they were not replayed).
//  6. A selected counterfactual whose association edge does not exist yet
//     becomes a new association edge of weight 0.10.
//  7. Every edge whose weight after the run is below 0.05 is pruned.
//
// # Counterfactual candidates
//
// For every low-reward episode L (r < 0.3) and every successful episode S
// (r ≥ 0.7) that shares at least one entity with it, the pool gets the
// candidate "cf:L->S": the association "what if L's situation were handled
// the way S was". It is scored like a real episode with
//
//   - δ = r_S − V_L (the outcome S achieved against what L's state expected),
//   - R = min(R_L, R_S) (an association is only as reachable as its weaker end),
//   - related = the number of entities the association relates, |E_L ∪ E_S|,
//   - valence and arousal of whichever of L and S has the larger |valence|·arousal.
//
// Caps: each L keeps at most 3 partners, ranked by shared-entity count, then
// by r_S, with remaining ties broken by a shuffle seeded by the run's seed;
// L episodes are visited from the lowest reward up (then by id), and
// generation stops at 50 candidates per run. The seed is the only source of
// randomness: identical input and seed give an identical plan.
//
// # Identifiers
//
// Memory ids and entity ids share one namespace (prefix them, for example
// "m:42" and "e:7"). Edges are undirected.
//
// The package is pure: no I/O, no globals, deterministic given its inputs.
package sleep
