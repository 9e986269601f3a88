// Package simstat holds the simulation support shared by zenbrain's experiments:
// the Mulberry32 generator that reproduces the paper's seeded streams, and the
// statistics the evaluation reports (mean, standard deviation, seeded bootstrap
// confidence intervals, the Wilcoxon signed-rank test and Cohen's d).
//
// The package is pure: no I/O, no globals, deterministic given its inputs.
package simstat
