-- Operator views and actions: due reviews and grading, the reconsolidation log, health
-- (coordinator/review_admin.go, reconsolidation_admin.go, health.go).

-- name: AdminReviewDueList :many
-- AdminReviewDueList returns up to k of a tenant's FSRS cards due at now, earliest first, with
-- their active memories (no locks).
SELECT rs.memory_id, m.layer, m.kind, m.content, rs.due, rs.stability, rs.difficulty, rs.reps, rs.lapses, rs.state,
       rs.last_review
FROM zb.review_state rs
JOIN zb.memory m ON m.tenant_id = rs.tenant_id AND m.id = rs.memory_id
WHERE rs.tenant_id = @tenant_id::text AND rs.due <= @now::timestamptz AND m.status = 'active'
ORDER BY rs.due, rs.memory_id
LIMIT @k::int;

-- name: AdminReviewDueCount :one
-- AdminReviewDueCount counts a tenant's FSRS cards due at now.
SELECT count(*)::bigint
FROM zb.review_state rs
JOIN zb.memory m ON m.tenant_id = rs.tenant_id AND m.id = rs.memory_id
WHERE rs.tenant_id = @tenant_id::text AND rs.due <= @now::timestamptz AND m.status = 'active';

-- name: AdminReviewCardLock :one
-- AdminReviewCardLock returns the FSRS card of one active memory with the memory's forgetting
-- state, both locked.
SELECT rs.memory_id, rs.stability AS card_stability, rs.difficulty AS card_difficulty, rs.due, rs.reps, rs.lapses,
       rs.state, rs.elapsed_days, rs.scheduled_days, rs.last_review, rs.context_embedding::real[] AS context_embedding,
       m.layer, m.stability, m.last_accessed_at, m.valence, m.arousal, m.significance, m.access_count
FROM zb.review_state rs
JOIN zb.memory m ON m.tenant_id = rs.tenant_id AND m.id = rs.memory_id
WHERE rs.tenant_id = @tenant_id::text AND rs.memory_id = @memory_id::bigint AND m.status = 'active'
FOR UPDATE OF rs, m;

-- name: AdminMemoryStatus :one
-- AdminMemoryStatus returns the layer, status and access count of one memory.
SELECT layer, status, access_count FROM zb.memory WHERE tenant_id = @tenant_id::text AND id = @id::bigint;

-- name: AdminReconEventList :many
-- AdminReconEventList returns up to k of a tenant's reconsolidation events, newest first, of one
-- memory when memory_id is given.
SELECT e.id, e.memory_id, e.trigger_id, e.result_id, e.mode, e.raw_pe, e.effective_pe, e.contradiction, e.blocked,
       e.applied_at, e.rolled_back_at, e.rollback_reason, coalesce(e.snapshot ->> 'action', '')::text AS action
FROM zb.reconsolidation_event e
WHERE e.tenant_id = @tenant_id::text AND (sqlc.narg('memory_id')::bigint IS NULL OR e.memory_id = sqlc.narg('memory_id')::bigint)
ORDER BY e.applied_at DESC, e.id DESC
LIMIT @k::int;

-- name: AdminReconEventGet :one
-- AdminReconEventGet returns one reconsolidation event of a tenant (no lock).
SELECT * FROM zb.reconsolidation_event WHERE tenant_id = @tenant_id::text AND id = @id::bigint;

-- name: AdminSleepRuns :many
-- AdminSleepRuns returns a tenant's last k finished sleep runs, newest first (spectral trend).
SELECT id, trigger, started_at, finished_at, fiedler_before, fiedler_after, edges_after, storage_after
FROM zb.sleep_run
WHERE tenant_id = @tenant_id::text AND finished_at IS NOT NULL
ORDER BY started_at DESC, id DESC
LIMIT @k::int;

-- name: AdminMetacogEvents :many
-- AdminMetacogEvents returns up to k metacognitive events of a tenant since a time, newest first.
SELECT id, kind, value, alert, detail, created_at
FROM zb.metacog_event
WHERE tenant_id = @tenant_id::text AND created_at >= @since::timestamptz
ORDER BY created_at DESC, id DESC
LIMIT @k::int;
