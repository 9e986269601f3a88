// Package review schedules reviews of memories with FSRS, coupled to the
// context of the agent through a vmPFC-like prediction error.
//
// # FSRS
//
// Scheduling is done by github.com/open-spaced-repetition/go-fsrs/v3 (FSRS-5
// with its 19 default weights); this package does not re-implement it. [Card]
// is a plain value struct holding what the database stores per reviewable
// memory (stability, difficulty, due, reps, lapses, state, last review,
// elapsed and scheduled days) and converts to and from fsrs.Card
// ([Card.FSRS], [CardFromFSRS]). [Scheduler.Review] applies one graded review.
//
// # vmPFC coupling
//
// When a memory is reviewed in a context that differs from the one of its last
// review, it is partly re-encoded and should come back sooner; in a familiar
// context the schedule can stretch (DESIGN.md §6, [vmpfc_fsrs]). With the
// context embeddings a (last review) and b (now):
//
//	PE = clamp(1 − cos(a, b), 0, 1)
//	ρ  = σ(6·(PE − 0.5))                      re-encoding probability
//	m  = clamp(1 + 0.6·(1 − 2ρ), 0.3, 2.0)     interval multiplier
//	due = now + FSRS interval · m
//
// so PE 0.05 gives m ≈ 1.52 and PE 0.95 gives m ≈ 0.48, a ratio above 3. The
// original implementation used 1 + 0.6·(0.5 − ρ), whose multiplier only spans
// (0.7, 1.3); ours uses the formula of the design. The multiplier applies only
// to reviews that end in the Review state (day-scale intervals); the
// minute-scale learning and relearning steps of FSRS are left alone. The
// multiplied interval is capped at the FSRS maximum interval. Disabling vmPFC
// ([VMPFCConfig].Disabled) or calling [Scheduler.Review] without contexts
// yields exactly the FSRS schedule.
//
// Zero or empty context vectors carry no information: their PE is the neutral
// 0.5 (ρ = 0.5, m = 1 exactly). Mismatched dimensions, NaN or ±Inf components,
// invalid grades and invalid cards return errors, never a panic.
package review
