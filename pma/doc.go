// Package pma implements zenbrain's Predictive Memory Architecture: the six
// components of the ZenBrain paper's PMA layer, plus synaptic tagging and
// capture, as pure functions over value types.
//
// The package does no I/O. Every component keeps its state in plain exported
// structs that the worker loads from and writes to the `zb` schema; every
// time-dependent function takes `now` explicitly; nothing here keeps mutable
// global state. Bad input (NaN, ±Inf, out-of-range values, times that run
// backwards, empty text) returns an error wrapping [ErrInvalidInput] or a
// documented value, never a panic.
//
// # Components
//
//   - [NeuromodulatorEngine] keeps dopamine (DA), noradrenaline (NE),
//     serotonin (5HT) and acetylcholine (ACh) per tenant: a tonic level pulled
//     back to a 0.5 baseline every tick, phasic bursts from typed [Event]s that
//     halve every 5 minutes, and the DA–5HT opposition. Its [NeuromodulatorOutputs]
//     (learning rate, exploration bias, consolidation patience, attention
//     ratio) are consumed by the other mechanisms. State: [NeuromodulatorState].
//   - [ReconsolidationEngine] turns new information about a recalled
//     (labile) memory into an [EditPlan]: confirm, selectively edit, integrate
//     or add a linked new episode, gated by the layer's resistance and the
//     [StabilityProtector]. [DetectContradiction], [EditText] and [MergeText]
//     do the text work. Every plan carries a [Snapshot], and [Rollback]
//     restores the exact prior state. State: [LabilityWindow].
//   - [TripleCopyMemory] creates and promotes the fast, medium and deep copies
//     of one stored event and computes their strengths and the "sudden
//     recall" case. State: [TripleCopy].
//   - [PriorityMap] scores items by salience, valence, relevance and goal with
//     an amygdala fast path and neuromodulator-dependent weights.
//   - [StabilityProtector] computes the lock score and rigidity that gate
//     overwrites of established memories (a NogoA/HDAC3 analogue). State: [Lock].
//   - [MetacognitiveMonitor] turns feedback, recall, message and
//     prediction-error logs into [Signals] (biases, efficiency, urgency,
//     novelty) and [Alert]s for the HyperAgent.
//   - [CaptureRescue] implements synaptic tagging and capture: a weak memory
//     tagged at encoding is rescued by a strong related memory formed within
//     30 minutes. State: [STCTag].
//
// # Sources
//
// Formulas follow the zenbrain design (DESIGN.md §6), which takes them from the
// ZenBrain paper and its reference implementation; where that implementation
// was a stub (reconsolidation never edited a memory, the deep copy was never
// created, the neuromodulator had no event source) this package implements the
// behaviour the paper describes. Parameters are exported constants named
// XxxDefault and gathered in one Config struct per component.
package pma
