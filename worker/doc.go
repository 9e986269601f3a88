// Package worker runs zenbrain's River jobs: derive (embeddings, entities, edges, emotional
// tags, triple copies, contradiction checks, reconsolidation), decay, review, sleep, confidence
// propagation and session consolidation, plus the periodic schedules that fan them out per
// tenant.
//
// Each job calls a coordinator entry point and passes river.JobCompleteTx as its
// [coordinator.TxHook], so a job's effects and its completion commit in one transaction: a
// crash leaves all of a job's effects or none, and a retried job finds its work already done
// or not started. Per-tenant lifecycle jobs are unique while pending or running (one sleep per
// tenant at a time); permanent failures (bad arguments, a vanished tenant) cancel the job with
// the reason; everything else retries with River's backoff.
//
// Memories inserted with plain SQL or stored with coordinator.Store are derived within seconds: a
// statement trigger on zb.memory notifies the channel zb_memory_inserted with the tenant, the
// worker enqueues a derive job per tenant (notifications within 100 ms coalesce), and a periodic
// sweep, also run at start, catches anything a notification missed.
//
// [Worker.ServeHTTP] serves Prometheus /metrics, /healthz and River UI; cmd/zbworker wires it
// all up.
package worker
