// Package hebbian implements Two-Factor synaptic edges for zenbrain's knowledge
// graph: every edge carries a weight (how strongly two nodes are associated) and
// a variance (how uncertain that weight still is). Co-activation raises the
// weight and shrinks the variance, so edges that keep being confirmed become
// both strong and important, and important edges decay more slowly and resist
// being overwritten.
//
// # Formulas
//
// With the defaults in [DefaultConfig] (DESIGN.md §6, reference notes §4.7):
//
//   - Update on co-activation with tag t and activation a:
//     w ← clip(w + Δw_eff, 0.05, 10) where the proposed change is Δw = η·t·a, η = 0.1.
//   - Maturation: σ² ← max(0.01, σ²·(1 − β·n(k))), β = 0.15, n(k) = 1/(1 + 0.1·k),
//     where k is the activation count including the current activation.
//   - Importance: I = 1/σ² (1 for a fresh edge, at most 100).
//   - Importance-gated decay, computed at read time: w(t) = w·exp(−r_eff·Δt),
//     r_eff = r/(1 + 0.1·I), r = 0.02 per day, Δt = days since the edge was last written.
//   - Pruning: an edge whose decayed weight is below ε = 0.05 is prunable.
//   - Elastic weight consolidation (EWC, λ = 0.5): the penalty of a proposed change is
//     (λ/2)·I·Δw². It acts on every change through damping, see below.
//
// # EWC damping
//
// The reference implementation computes the EWC penalty but never uses it. Here
// it acts: a proposed change Δw is replaced by the change that minimises
// ½(Δ − Δw)² + (λ/2)·I·Δ², the proximal step of the penalty, which is
//
//	Δw_eff = Δw / (1 + λ·I).
//
// A fresh edge (I = 1) keeps 2/3 of a proposal; a mature edge at the variance
// floor (I = 100) keeps 1/51 of it. The damping is linear in Δw, so it is
// symmetric for strengthening and weakening and never flips a change's sign.
// Setting [Config.EWCDisabled] switches it off for ablation (Δw_eff = Δw); the
// penalty is still reported by [Model.Penalty].
//
// # Time
//
// Decay is computed, not written: [Edge.Weight] is the weight at
// [Edge.LastActivated], and [Model.WeightAt] evaluates it at any later time.
// [Model.PruneAt] predicts when an edge will cross the prune threshold, for an
// index on that time. Every time-dependent function takes now explicitly.
//
// The package is pure: no I/O, no globals, deterministic given its inputs.
package hebbian
