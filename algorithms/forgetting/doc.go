// Package forgetting is zenbrain's forgetting model: how retrievable a memory
// is now, when it will have faded, and how its stability grows when it is used.
//
// # Retrievability
//
// A memory trace has a base stability S, an emotional multiplier m_emo and the
// time of its last access. Its retrievability after Δt is
//
//	R(Δt) = exp(−Δt / S_eff),   S_eff = S · m_emo,
//	m_emo = clamp(1 + 2·max(|sentiment|, arousal, significance), 1, 3)
//
// (DESIGN.md §6, [decay]). Emotional memories fade up to three times slower.
// R is 1 at the moment of access, 1/e ≈ 0.37 after one S_eff and 0.1 after
// ln 10 ≈ 2.30 S_eff. A negative Δt (the clock of the caller is behind the
// recorded access, i.e. clock skew) is treated as no time elapsed: R = 1.
//
// # Initial stability
//
// New traces get S by layer ([Params]): working, short-term and episodic
// memories 1 day, semantic, procedural and cross-context memories 7 days.
// Core memories never decay: their R is always 1 and they have no fade time.
//
// # Fade time
//
// The time at which R crosses a threshold θ is Δt = −S_eff·ln θ after the last
// access ([Trace.FadeAt]); with θ = [ArchiveThreshold] (0.1) it feeds the
// indexed fade_at column, so the decay job finds exactly the memories that
// crossed it.
//
// # Stability growth
//
// A used recall and a successful review multiply S by a spacing-effect factor
//
//	g = min(g_max, 1 + b + k·(1 − R))
//
// where R is the retrievability at the moment of use: retrieving a memory that
// was almost forgotten strengthens it most (the spacing effect, as in FSRS's
// stability increase, which grows with e^{w(1−R)} − 1), while massed repetition
// right after a use adds only the base b. Defaults: recall b = 0.05, k = 1.5,
// g_max = 2; review b = 0.3, k = 2, g_max = 3. Selection in sleep multiplies S
// by 1 + 0.5·clamp(TAG, 0, 1), independent of R, and does not count as an
// access. S never shrinks here and is capped at [Params].MaxStability.
//
// The package is pure: no I/O, no clock, no globals. Every function takes
// `now` as a parameter. Invalid input (NaN, ±Inf, out-of-range values, unknown
// layers) returns an error, never a panic.
package forgetting
