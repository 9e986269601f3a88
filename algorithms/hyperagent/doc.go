// Package hyperagent is zenbrain's metacognitive HyperAgent [hyperagent]
// (DESIGN.md §6): a meta-policy that reads the MetacognitiveMonitor's
// signals and proposes bounded, logged and reversible adjustments to the
// memory system's parameters.
//
// # Meta-policy
//
// [Propose] applies these rules (T = BiasThreshold 0.15, the monitor's
// alert level):
//
//	confirmation bias b > T   → retrieval_diversity += 0.5·(b − T), exploration += 0.2·(b − T)
//	recency bias b > T        → recency_weight −= 0.5·(b − T),      decay_floor += 0.25·(b − T)
//	retrieval efficiency e < 0.5 → retrieval_diversity −= 0.5·(0.5 − e)
//	review lapse rate l > 0.2 → review_aggressiveness += l − 0.2
//	review lapse rate l < 0.05 → review_aggressiveness −= 0.5·(0.05 − l)
//	forgetting regret r > 0.05 → decay_floor += r − 0.05
//
// The deltas of all firing rules are summed per parameter, limited to the
// parameter's MaxStep, and the result is clamped to the parameter's [Min,
// Max]. Every [Adjustment] carries the reasons that produced it. Nothing is
// proposed on fewer than MinSamples (20) observations, and at most
// MaxEntriesPerDay (3) adjusting entries are proposed in any 24 hours — the
// daily budget the reference declared but never enforced (reference notes
// §4.16). An entry is medium risk, and needs approval when governance asks
// for it, if any parameter moves by more than half its MaxStep.
//
// # Reversibility
//
// [Apply] carries out an [Entry] on [Params] after checking that every
// parameter still has the value the entry started from; [Inverse] gives the
// entry that undoes it and [Revert] applies that inverse after checking that
// nothing else changed the parameters since. Entries are plain values with
// JSON tags, for the metacog_event log.
//
// The package is pure: no I/O; now is a parameter.
package hyperagent
