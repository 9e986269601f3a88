// Package jobs holds the River job arguments that zenbrain's coordinator enqueues and its
// worker executes. It holds only argument types: no workers, no database access.
//
// # Stability
//
// Each XxxArgs type has a Kind() string that never changes and snake_case JSON tags. Jobs
// already queued are decoded by the worker with these types, so fields are only ever added
// (with a zero value that keeps the old meaning), never renamed or removed.
//
// # Queues
//
// Derivation runs on [QueueDerive]; the lifecycle jobs (consolidation, decay, review, sleep)
// and the vacuum after erases ([VacuumArgs]) on [QueueLifecycle]. The coordinator enqueues with
// UniqueOpts{ByArgs: true}, so a repeated request for the same work while a job is pending is a
// no-op.
package jobs
