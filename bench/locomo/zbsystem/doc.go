// Package zbsystem is the "zenbrain" system of the LoCoMo benchmark (bench/locomo): the real
// coordinator on a real PostgreSQL database, driven on a virtual clock.
//
// Ingest stores each session's turns with coordinator.StoreBatch at the session's time: one
// memory per turn, routed by the coordinator (turns of a session land in the short-term layer),
// with OccurredAt = the message time, a session id per LoCoMo session (a UUID derived from the
// tenant and the session key), the dia_id as the memory's external id and the speaker in
// metadata (coordinator.MetadataSpeaker), so recall can use neighbouring turns, whole sessions
// and speaker names. Hits map back to dia_ids through the external id of a turn and, for a
// derived memory, through its source ids (recursively), so derived memories carry the union of
// their sources' dia_ids.
//
// With a [Lifecycle] configured, the lifecycle runs between sessions (before the next session
// is stored, at its time) and once more in AfterIngest at the query time; without one the
// system is the same store and recall with the lifecycle off (DESIGN.md §9). Search calls
// coordinator.Recall with the clock at the query time, read-only (evaluation does not change
// what later questions see). The System is a locomo.ContextSystem: Context returns the block
// coordinator.ContextWith assembles at the query time within the harness's budget, read-only
// too, and the harness credits that block strictly beside the packed hits.
//
// Each System keeps its tenants apart from other systems' by prefixing the benchmark's tenant
// with its name ("zenbrain:conv-26"); ResetTenant deletes the prefixed tenant (cascading to all
// its rows) and its queued River jobs.
//
// Config.Disabled switches mechanisms of the ablation registry off for every tenant the system
// resets; [Arms] builds one such system per registry id, named "zenbrain-no-<id>" ([ArmName]),
// as the arms of locomo.Ablate.
package zbsystem
