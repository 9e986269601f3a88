// Package debate implements iMAD-style selective debate for contradicting
// facts (DESIGN.md §6 [imad_debate], reference notes §4.12).
//
// Debate is selective: it is triggered only when a new fact contradicts at
// least two stored facts ([ShouldDebate]); a single contradiction is left to
// ordinary supersession by subject and attribute. A triggered debate builds a
// [Position] for the new fact (the challenger) and for every contradicted
// stored fact (the incumbents), and a [Judge] decides one of three outcomes:
// keep both as a hypothesis group, supersede the incumbents, or reject the new
// fact. The reference implementation only concatenated the agents' answers;
// here the outcome is decided, explained and auditable.
//
// # Position score
//
// Each position is scored from four components in [0, 1]:
//
//   - recency r = 2^(−age/h), with h = 90 days (facts go stale over seasons, not days) and age = now − RecordedAt
//     (a time after now counts as age 0; an unknown, zero time scores 0);
//   - confidence c, the fact's confidence (for example its Bayesian mean);
//   - source reliability q;
//   - support s = n/(n + 3) for n supporting facts or confirmations (3 supports give 0.5).
//
// The score is the weighted mean S = 0.25·r + 0.30·c + 0.25·q + 0.20·s
// (weights normalised by their sum when configured otherwise).
//
// # Offline judge
//
// [OfflineJudge] is the default, deterministic judge. With m_i = S_new − S_i
// the margin over incumbent i and m = min_i m_i the margin over the strongest
// incumbent:
//
//   - every m_i ≥ 0.10 → supersede (the new fact supersedes every incumbent);
//   - m ≤ −0.10 → reject (the strongest incumbent clearly outweighs the new fact);
//   - otherwise → keep both as hypotheses.
//
// Its reasons name the decision rule, the margins and the components that
// separate the challenger from the strongest incumbent, largest first.
//
// # Pluggable judges
//
// An LLM judge implements [Judge]. [Run] validates its verdict; if the judge
// fails or returns an invalid verdict, the offline judge decides and the
// result records the fallback and why. Cancellation of the context is
// returned as an error, never hidden by a fallback.
//
// The package is pure apart from the Judge interface it calls: no I/O, no
// globals, deterministic given its inputs.
package debate
