// Package simstat holds the simulation support shared by zenbrain's experiments:
// the Mulberry32 generator that reproduces the paper's seeded streams, and the
// statistics the evaluation reports (mean, standard deviation, seeded bootstrap
// confidence intervals, the Wilcoxon signed-rank test and Cohen's d).
//
// The package is pure: no I/O, no globals, deterministic given its inputs.
//
// # Generator
//
// [Mulberry32] follows the reference notes §7.1 bit for bit, so the ten
// [Seeds] of the ZenBrain harnesses give the same streams in Go.
//
// # Statistics
//
//   - [Mean], [SD] (sample, n − 1) and [PopSD] (population, n);
//   - [BootstrapCI]: percentile bootstrap of the mean, seeded with Mulberry32
//     (the harnesses used an unseeded Math.random, so their bounds cannot be
//     reproduced; ours can);
//   - [WilcoxonSignedRank]: two-sided, zeros dropped, average ranks for ties,
//     exact null distribution for n ≤ [WilcoxonExactMaxN], otherwise the normal
//     approximation with continuity and tie correction; the result says which.
//     With ten seeds all favouring one side the exact p is 2/1024 ≈ 0.00195,
//     where the harnesses' uncorrected normal approximation reports 0.00506;
//   - [CohenD] = Δmean / √((s₁² + s₂²)/2) and [RelativeChange] ΔQ.
//
// Bad input (empty samples, NaN, ±Inf, mismatched lengths) returns an error,
// never a panic; the one exception is [Mulberry32.Intn], which panics for
// n ≤ 0 like math/rand.
package simstat
