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
// statement trigger on zb.memory notifies the channel zb_memory_inserted ([NotifyChannel]), the
// worker reads which tenants have underived memories (coordinator.UnderivedTenants) and enqueues
// a derive job per tenant (notifications within 100 ms coalesce into one look), and a periodic
// sweep, also run at start, catches anything a notification missed. The notification's payload
// is empty and the worker never reads one: any login may LISTEN on the channel, and NOTIFY it, so
// a payload would show every tenant's id to every login, and a forged one could direct the
// worker.
//
// After an erase the erased content still lives in dead row versions and in the planner
// statistics until the tables are vacuumed and analyzed: every erase that removed something
// queues a vacuum request, and the vacuum job (jobs.VacuumArgs, every Config.VacuumInterval and
// once at start, one run at a time) completes the pending ones with VACUUM (ANALYZE) over
// zenbrain's tables (coordinator.VacuumErased). Only the tables' owner or a superuser may vacuum
// them: a worker connected as another role (e.g. a member of zb_worker) logs a warning and
// leaves the requests pending for 'zbctl vacuum', run as the owner.
//
// [Worker.ServeHTTP] serves Prometheus /metrics, /healthz and River UI; cmd/zbworker wires it
// all up.
package worker
