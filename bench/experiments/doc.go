// Package experiments runs the paper's mechanism experiments on the real system (issue 9),
// through the ablation's simulator (bench/ablation: the coordinator on PostgreSQL on a virtual
// clock):
//
//   - retention curves over 30 days for no decay, FSRS review only, exponential decay only and
//     the full system, with the area under each curve (AURC);
//   - sleep impact: 50 facts a day for 7 days with and without sleep — stability, storage,
//     LTP/LTD counts and new associations per night, from the coordinator's sleep reports;
//   - the triple-copy strength table at 1 h … 30 d, from the zb.triple_copy rows those runs
//     wrote, against Ebbinghaus (S = 1 day) and our forgetting model;
//   - long-horizon aging of Static RAG, Simple Memory (the harness's baselines, computed here
//     over the same texts and embedder) and the full system at days 1, 7, 14, 30 and 60;
//   - a NoDecay counterfactual on the LoCoMo dev split (bench/locomo's zbsystem with the
//     lifecycle, against the same with decay switched off).
//
// [Run] returns [Results]; [Results.Write] stores experiments.json, experiments.md and one PNG
// chart per experiment.
package experiments
