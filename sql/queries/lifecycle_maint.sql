-- name: LcDecayCandidates :many
-- LcDecayCandidates locks up to k active memories of a tenant whose predicted fade time has
-- passed, in fade order, through the partial (tenant_id, fade_at) index memory_fade_idx; rows
-- another transaction holds are skipped.
SELECT id, context, layer, kind, content, stability, last_accessed_at, valence, arousal, significance,
       access_count, confidence, embedding, fade_at, cardinality(source_ids)::int AS carries
FROM zb.memory
WHERE tenant_id = @tenant_id::text AND status = 'active' AND fade_at IS NOT NULL AND fade_at <= @now::timestamptz
ORDER BY fade_at
LIMIT @k::int
FOR UPDATE SKIP LOCKED;

-- name: LcCarried :many
-- LcCarried returns which of ids are sources of another active consolidated memory (an
-- AI-generated or schema memory whose source_ids contain them; memory_source_ids_idx).
SELECT DISTINCT s.id::bigint AS id
FROM zb.memory c, unnest(c.source_ids) AS s(id)
WHERE c.tenant_id = @tenant_id::text AND c.status = 'active' AND (c.ai_generated OR c.kind = 'schema')
  AND c.source_ids && @ids::bigint[] AND s.id = ANY (@ids::bigint[]) AND s.id <> c.id
ORDER BY 1;

-- name: LcMentionCounts :many
-- LcMentionCounts returns the number of entities each of the memories mentions.
SELECT memory_id, count(*)::int AS n FROM zb.mention
WHERE tenant_id = @tenant_id::text AND memory_id = ANY (@memory_ids::bigint[])
GROUP BY memory_id;

-- name: LcRecentContext :one
-- LcRecentContext returns the mean embedding of the memories returned by a tenant's last k
-- recalls (its recent recall context), or NULL when there is none.
SELECT avg(m.embedding)::real[] AS mean
FROM (SELECT DISTINCT unnest(r.result_ids) AS id
      FROM (SELECT result_ids FROM zb.recall_event WHERE tenant_id = @tenant_id::text
            ORDER BY created_at DESC, id DESC LIMIT @k::int) r) ids
JOIN zb.memory m ON m.tenant_id = @tenant_id::text AND m.id = ids.id
WHERE m.embedding IS NOT NULL;

-- name: LcSetFadeAt :exec
-- LcSetFadeAt moves the predicted fade time of memories.
UPDATE zb.memory m SET fade_at = u.f
FROM (SELECT unnest(@ids::bigint[]) AS id, unnest(@fade_ats::timestamptz[]) AS f) u
WHERE m.tenant_id = @tenant_id::text AND m.id = u.id;

-- name: LcEdgesTouchingLock :many
-- LcEdgesTouchingLock locks the edges with an end among the entities, skipping locked ones.
SELECT id, source_id, target_id, relation, weight, variance, activation_count, last_activated_at
FROM zb.edge
WHERE tenant_id = @tenant_id::text AND (source_id = ANY (@entity_ids::bigint[]) OR target_id = ANY (@entity_ids::bigint[]))
ORDER BY id
FOR UPDATE SKIP LOCKED;

-- name: LcEdgeSetWeights :exec
-- LcEdgeSetWeights writes edges' weights as of `at` (materialized decay or a sleep delta).
UPDATE zb.edge e SET weight = u.w, last_activated_at = u.at
FROM (SELECT unnest(@ids::bigint[]) AS id, unnest(@weights::double precision[]) AS w,
             unnest(@activated_at::timestamptz[]) AS at) u
WHERE e.tenant_id = @tenant_id::text AND e.id = u.id;

-- name: LcEdgeDelete :execrows
-- LcEdgeDelete prunes edges.
DELETE FROM zb.edge WHERE tenant_id = @tenant_id::text AND id = ANY (@ids::bigint[]);

-- name: LcReviewDue :many
-- LcReviewDue locks up to k review states of a tenant due at now (review_state_due_idx) with
-- their active memories; rows another transaction holds are skipped.
SELECT rs.memory_id, rs.stability AS card_stability, rs.difficulty AS card_difficulty, rs.due, rs.reps, rs.lapses,
       rs.state, rs.elapsed_days, rs.scheduled_days, rs.last_review, rs.context_embedding::real[] AS context_embedding,
       rs.accesses_at_review, m.layer, m.stability, m.last_accessed_at, m.created_at, m.valence, m.arousal,
       m.significance, m.access_count
FROM zb.review_state rs
JOIN zb.memory m ON m.tenant_id = rs.tenant_id AND m.id = rs.memory_id
WHERE rs.tenant_id = @tenant_id::text AND rs.due <= @now::timestamptz AND m.status = 'active'
ORDER BY rs.due, rs.memory_id
LIMIT @k::int
FOR UPDATE OF rs, m SKIP LOCKED;

-- name: LcReviewWrite :exec
-- LcReviewWrite writes a memory's FSRS card after a review.
UPDATE zb.review_state
SET stability = @stability::double precision, difficulty = @difficulty::double precision, due = @due::timestamptz,
    reps = @reps::int, lapses = @lapses::int, state = @state::smallint, elapsed_days = @elapsed_days::int,
    scheduled_days = @scheduled_days::int, last_review = @now::timestamptz,
    context_embedding = sqlc.narg('context_embedding')::vector, accesses_at_review = @accesses::int
WHERE tenant_id = @tenant_id::text AND memory_id = @memory_id::bigint;

-- name: LcReviewLogInsert :exec
-- LcReviewLogInsert appends one review to the log.
INSERT INTO zb.review_log (tenant_id, memory_id, grade, reviewed_at, state_before, interval_days, vmpfc_pe, multiplier)
VALUES (@tenant_id::text, @memory_id::bigint, @grade::smallint, @now::timestamptz, @state_before::smallint,
        @interval_days::double precision, sqlc.narg('vmpfc_pe')::double precision, sqlc.narg('multiplier')::double precision);

-- name: LcMemoryForgetting :exec
-- LcMemoryForgetting writes a memory's forgetting state (stability, last access, fade time).
UPDATE zb.memory SET stability = sqlc.narg('stability')::double precision, last_accessed_at = @last_accessed_at::timestamptz,
    fade_at = sqlc.narg('fade_at')::timestamptz
WHERE tenant_id = @tenant_id::text AND id = @id::bigint;

-- name: LcSessionLock :one
-- LcSessionLock returns one session, locked.
SELECT * FROM zb.session WHERE tenant_id = @tenant_id::text AND id = @id::uuid FOR UPDATE;

-- name: LcSessionTurns :many
-- LcSessionTurns locks a session's active short-term memories in time order.
SELECT id, context, content, occurred_at, created_at, embedding::real[] AS embedding, embedding_model, source_ids,
       valence, arousal, significance, importance
FROM zb.memory
WHERE tenant_id = @tenant_id::text AND session_id = @session_id::uuid AND layer = 'short_term' AND status = 'active'
ORDER BY coalesce(occurred_at, created_at), id
FOR UPDATE;

-- name: LcSetStatus :execrows
-- LcSetStatus moves active memories to another status (consolidated).
UPDATE zb.memory SET status = (@status::text)::zb.memory_status, updated_at = @now::timestamptz
WHERE tenant_id = @tenant_id::text AND id = ANY (@ids::bigint[]) AND status = 'active';

-- name: LcTenants :many
-- LcTenants returns every tenant id in order.
SELECT id FROM zb.tenant ORDER BY id;

-- name: LcUnderivedTenants :many
-- LcUnderivedTenants returns up to k tenants having memories never derived, by a loose index
-- scan of memory_underived_idx (one probe per tenant, not a scan of the rows).
WITH RECURSIVE t AS (
    (SELECT m.tenant_id FROM zb.memory m WHERE m.derived_at IS NULL ORDER BY m.tenant_id LIMIT 1)
    UNION ALL
    SELECT (SELECT m.tenant_id FROM zb.memory m WHERE m.derived_at IS NULL AND m.tenant_id > t.tenant_id
            ORDER BY m.tenant_id LIMIT 1)
    FROM t WHERE t.tenant_id IS NOT NULL
)
SELECT t.tenant_id::text AS tenant_id FROM t WHERE t.tenant_id IS NOT NULL LIMIT @k::int;

-- name: LcMemoryClearFade :exec
-- LcMemoryClearFade clears a memory's fade time (core memories never fade).
UPDATE zb.memory SET fade_at = NULL WHERE tenant_id = @tenant_id::text AND id = @id::bigint;

-- name: LcTenantLock :exec
-- LcTenantLock takes the transaction-level advisory lock that serializes a tenant's lifecycle
-- writes (derive, propagate, decay, review, consolidate, sleep, rollback).
SELECT pg_advisory_xact_lock(hashtext('zb.lifecycle'), hashtext(@tenant_id::text));
