// Package lifecycle benchmarks zenbrain's lifecycle jobs against baselines measured in the same
// run on the same server, as issue 6 asks. Every figure is a ratio; absolute times are reported
// but never asserted.
//
//   - Decay: DecayDue over a tenant of N memories of which 1% have faded (fade_at passed,
//     R < 0.1), against a plain UPDATE that archives exactly those rows by id. Target ratio ≤
//     [DecayTargetRatio] (3×). Default N = 10k and 100k; 1M with the command's -decay-1m flag.
//     An extra, untimed run counts the zb.memory rows the decay transaction read
//     (pg_stat_xact_user_tables) and its sequential scans of the table.
//   - Sleep: the sleep of one tenant of 1k, 2k, 5k and 10k derived memories — every round of
//     its sleep window (coordinator.SleepMaxEpisodes episodes per round) —; the figure is the
//     time at each size over the time at 1k. Target: each tenfold size ≤ [SleepTargetRatio]
//     (12×) the time — 10k ≤ 12× the 1k time, 100k ≤ 144× ([SleepTarget]). A tenant above
//     [Config.SleepDerived] (100k) is that many stored and derived memories plus server-side
//     copies of them with their derived rows ([SleepFigure.Copied]). Each size also reports its
//     round p50 and maximum and the top statements of its setup and of its rounds
//     (pg_stat_statements, when the server preloads it).
//   - Derive: the throughput (memories per second) of the worker's derive jobs with the hash
//     embedder on two single-slot worker replicas, against a plain multi-row INSERT of the same
//     rows with embeddings computed beforehand. Target ratio ≥ [DeriveTargetRatio] (0.5×).
//
// Each experiment runs in a database of its own, created on the server of [Config.AdminURL]
// (a role that may CREATE DATABASE) and migrated with [Config.Dim]; it is dropped afterwards.
// Data is loaded with coordinator.StoreBatch (COPY); the decay benchmark loads
// [DecaySeedRows] memories so and copies them on the server (INSERT … SELECT) up to its size.
// [Run] returns [Results]; [Results.Write] stores them as results.json and results.md in a
// directory.
package lifecycle
