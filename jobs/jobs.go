package jobs

import (
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// QueueDerive is the River queue of derivation jobs (embeddings, entities, edges,
// reconsolidation checks).
const QueueDerive = "derive"

// QueueLifecycle is the River queue of consolidation, decay, review and sleep jobs.
const QueueLifecycle = "lifecycle"

// Job kinds. They are stable identifiers stored with every queued job; never change them.
const (
	// KindDerive is the kind of DeriveArgs.
	KindDerive = "zb_derive"
	// KindConsolidate is the kind of ConsolidateArgs.
	KindConsolidate = "zb_consolidate"
	// KindDecay is the kind of DecayArgs.
	KindDecay = "zb_decay"
	// KindReview is the kind of ReviewArgs.
	KindReview = "zb_review"
	// KindSleep is the kind of SleepArgs.
	KindSleep = "zb_sleep"
)

// DeriveArgs asks the worker to derive what store did not compute inline for memories of one
// tenant: the embedding (when it was deferred), entities and mentions, edges, and the
// reconsolidation and supersession checks.
type DeriveArgs struct {
	// TenantID is the tenant of the memories.
	TenantID string `json:"tenant_id"`
	// MemoryIDs lists the memories to derive. Empty together with Pending means every memory of
	// the tenant whose derived_at is NULL (after a bulk load).
	MemoryIDs []int64 `json:"memory_ids,omitempty"`
	// Pending asks for a sweep of every underived memory of the tenant (derived_at IS NULL),
	// used after StoreBatch, whose COPY does not return ids.
	Pending bool `json:"pending,omitempty"`
	// NeedsEmbedding reports that store deferred the embedding to the worker.
	NeedsEmbedding bool `json:"needs_embedding,omitempty"`
	// RecheckSupersede reports that store could not check every older fact about the same
	// subject and attribute (some were locked by a sleep or decay run); the worker repeats the
	// bi-temporal supersession check.
	RecheckSupersede bool `json:"recheck_supersede,omitempty"`
}

// Kind returns KindDerive.
func (DeriveArgs) Kind() string { return KindDerive }

// ConsolidateArgs asks the worker to consolidate a session's short-term memories into
// episodic and semantic ones (at session end or after its idle timeout).
type ConsolidateArgs struct {
	// TenantID is the session's tenant.
	TenantID string `json:"tenant_id"`
	// SessionID is the session, as a UUID string.
	SessionID string `json:"session_id"`
}

// Kind returns KindConsolidate.
func (ConsolidateArgs) Kind() string { return KindConsolidate }

// DecayArgs asks the worker to process the memories of a tenant whose predicted fade time has
// passed (archive per DESIGN.md §6) and to prune faded edges.
type DecayArgs struct {
	// TenantID is the tenant.
	TenantID string `json:"tenant_id"`
	// Limit bounds the memories handled by one job; 0 means the coordinator's default.
	Limit int `json:"limit,omitempty"`
}

// Kind returns KindDecay.
func (DecayArgs) Kind() string { return KindDecay }

// ReviewArgs asks the worker to run the due FSRS reviews of a tenant.
type ReviewArgs struct {
	// TenantID is the tenant.
	TenantID string `json:"tenant_id"`
	// Limit bounds the reviews handled by one job; 0 means the coordinator's default.
	Limit int `json:"limit,omitempty"`
}

// Kind returns KindReview.
func (ReviewArgs) Kind() string { return KindReview }

// SleepArgs asks the worker to run one Simulation-Selection sleep for a tenant.
type SleepArgs struct {
	// TenantID is the tenant.
	TenantID string `json:"tenant_id"`
	// Trigger is "schedule", "manual" or "benchmark" (zb.sleep_run.trigger).
	Trigger string `json:"trigger,omitempty"`
	// Seed seeds the sleep's counterfactual generation; 0 derives it from the run's time.
	Seed int64 `json:"seed,omitempty"`
	// Round numbers the runs of one sleep window: 0 for a request, and a run that leaves
	// episodes of its window for later enqueues the next round (coordinator.SleepOpts.Round).
	Round int `json:"round,omitempty"`
}

// Kind returns KindSleep.
func (SleepArgs) Kind() string { return KindSleep }

// More job kinds. Stable identifiers, like the ones above.
const (
	// KindPropagate is the kind of PropagateArgs.
	KindPropagate = "zb_propagate"
	// KindSchedule is the kind of ScheduleArgs.
	KindSchedule = "zb_schedule"
)

// PropagateArgs asks the worker to propagate Bayesian confidence over the subgraph around
// memories that received new evidence.
type PropagateArgs struct {
	// TenantID is the tenant.
	TenantID string `json:"tenant_id"`
	// MemoryIDs are the memories whose evidence changed.
	MemoryIDs []int64 `json:"memory_ids"`
}

// Kind returns KindPropagate.
func (PropagateArgs) Kind() string { return KindPropagate }

// Scheduled tasks of ScheduleArgs.
const (
	// TaskDecay fans out one DecayArgs per tenant.
	TaskDecay = "decay"
	// TaskReview fans out one ReviewArgs per tenant.
	TaskReview = "review"
	// TaskSleep fans out one SleepArgs per tenant.
	TaskSleep = "sleep"
	// TaskIdleSessions enqueues ConsolidateArgs for sessions idle past the timeout.
	TaskIdleSessions = "idle_sessions"
	// TaskSweep enqueues DeriveArgs{Pending: true} for tenants with underived memories (rows
	// inserted with plain SQL that no notification reached).
	TaskSweep = "sweep"
)

// ScheduleArgs is the periodic job that fans a task out into per-tenant jobs. The worker's
// periodic schedules insert it; running it inserts the per-tenant jobs (unique by args, so a
// tenant never has two pending jobs of the same kind).
type ScheduleArgs struct {
	// Task is one of the Task constants.
	Task string `json:"task"`
}

// Kind returns KindSchedule.
func (ScheduleArgs) Kind() string { return KindSchedule }

// DeriveInsertOpts are the insert options of derive jobs: the derive queue and no uniqueness.
// Derive is idempotent (it skips what is already derived), and a derivation requested while
// another one of the same tenant runs must not be dropped.
func DeriveInsertOpts() *river.InsertOpts {
	return &river.InsertOpts{Queue: QueueDerive}
}

// LifecycleInsertOpts are the insert options of lifecycle jobs (consolidate, decay, review,
// sleep, propagate, schedule): unique by arguments while a job is waiting or running — one sleep
// per tenant at a time, duplicates coalesce — but not after it completed, so the next request
// runs.
func LifecycleInsertOpts() *river.InsertOpts {
	return &river.InsertOpts{Queue: QueueLifecycle, UniqueOpts: river.UniqueOpts{
		ByArgs: true,
		ByState: []rivertype.JobState{
			rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
			rivertype.JobStateScheduled, rivertype.JobStateRetryable,
		},
	}}
}

// KindReembed is the kind of ReembedArgs. A stable identifier, like the ones above.
const KindReembed = "zb_reembed"

// ReembedArgs asks the worker to embed memories of one tenant again with the worker's embedder:
// embedding-model versioning ('zbctl reembed'). Memories whose embedding is already of the target
// model are skipped, so the job is idempotent.
type ReembedArgs struct {
	// TenantID is the tenant of the memories.
	TenantID string `json:"tenant_id"`
	// MemoryIDs lists the memories (at most coordinator.ReembedMaxPerJob).
	MemoryIDs []int64 `json:"memory_ids"`
	// Model is the target model (the embedder's Model()). A worker whose embedder reports another
	// model leaves the job to a worker that has it (snoozes). Empty means the worker's model: the
	// embedding of memories that have none (e.g. after an import without embeddings).
	Model string `json:"model,omitempty"`
}

// Kind returns KindReembed.
func (ReembedArgs) Kind() string { return KindReembed }

// ReembedInsertOpts are the insert options of re-embedding jobs: the derive queue (embedding
// work), unique by arguments while waiting or running, so repeating 'zbctl reembed' before the
// jobs ran adds none.
func ReembedInsertOpts() *river.InsertOpts {
	return &river.InsertOpts{Queue: QueueDerive, UniqueOpts: river.UniqueOpts{
		ByArgs: true,
		ByState: []rivertype.JobState{
			rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
			rivertype.JobStateScheduled, rivertype.JobStateRetryable,
		},
	}}
}

// KindVacuum is the kind of VacuumArgs. A stable identifier, like the ones above.
const KindVacuum = "zb_vacuum"

// VacuumArgs is the periodic job that completes the vacuum requests erases queued: VACUUM
// (ANALYZE) over zenbrain's tables, so that erased content leaves the dead row versions and the
// planner statistics that still hold it (coordinator.VacuumErased). It is not per tenant; the
// worker's schedule inserts it with LifecycleInsertOpts.
type VacuumArgs struct{}

// Kind returns KindVacuum.
func (VacuumArgs) Kind() string { return KindVacuum }
