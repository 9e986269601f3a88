// Package workspace assembles the context block of a recall through a global
// workspace [gwt] (DESIGN.md §6 "Beyond the fifteen"; reference notes §6.2):
// memory modules compete for a limited broadcast by salience, the winners
// share a token budget, and the winner set carries over to the next turn so
// that attention does not flicker.
//
// # Modules and salience
//
// Each module ([Core], [Working], [Episodic], [Semantic], [Procedural],
// [Prospective], [CrossContext], [MetacogAlerts], or any other non-empty
// name) is offered as a [Candidate] with a salience in [0, 1] and its content
// items. The caller computes the salience, or derives it from the items'
// scores with [SalienceFromScores]:
//
//	sal = 0.7·max(scores) + 0.3·mean(top 3 scores)
//
// Unless the PriorityMap blend is switched off, the salience of every module
// that is not always included is blended with the [pma.PriorityMap]
// composite:
//
//	eff = 0.7·sal + 0.3·P(s = sal, v = 0, r = 0.5, g = sal)
//
// (the reference's signals; a candidate may supply its own
// [pma.PriorityInput]). With baseline neuromodulator levels this is
// eff = 0.85·sal + 0.0375. Always-include modules (by default only [Core])
// bypass the blend and the competition.
//
// # Ignition with hysteresis
//
// A module ignites when eff ≥ 0.5, or eff ≥ 0.3 when it was among the
// previous winners. Ignited modules are broadcast in order of eff
// (ties: module name), at most 4 of them; always-include modules are
// broadcast besides these 4. The ignited modules that were broadcast are the
// new winner set ([Result.Winners]); the caller persists it and passes it
// back as [Input.Previous] on the next assembly.
//
// When nothing ignites, the reference broadcasts the top 4 modules whatever
// their salience. That fills the context with material the workspace itself
// judged irrelevant (four modules at eff 0.05 would share the whole budget),
// and recording them as winners would make them sticky through hysteresis.
// Here the fallback takes at most 2 modules whose eff is at least the floor
// 0.2: weakly relevant context is still better than none, noise below the
// floor is not. Fallback modules are marked [DecisionFallback] and do not
// enter the winner set.
//
// # Token budget
//
// Of the budget B (default 12000 tokens), always-include modules share a
// reserve R = min(600, B/2) evenly; what they leave unused goes to the
// competing winners, which split the rest in proportion to max(eff, 0.01)
// (integer shares by largest remainder, ties by module name). Each module
// spends its share on a header line and on items chosen by [budget.Select]
// (redundancy-aware, items of always-include modules pinned), so no module
// exceeds its share and [Result.Used] never exceeds B. Tokens a module leaves
// unused are handed, in one more round and by the same weights, to the
// modules that had to skip items. Items are rendered in the module's own
// order.
//
// Everything is deterministic: equal inputs give byte-identical output.
// The package is pure: no I/O, no clock, no mutable globals.
package workspace
