-- name: MemoryInsert :one
-- MemoryInsert stores one memory and returns it.
INSERT INTO zb.memory (
    tenant_id, context, layer, kind, content, session_id, external_id, core_label, subject, attribute,
    occurred_at, created_at, updated_at, last_accessed_at, source_ids, metadata, valence, arousal,
    significance, importance, priority, stability, fade_at, ai_generated
) VALUES (
    @tenant_id::text, @context::text, @layer::zb.memory_layer, @kind::text, @content::text,
    sqlc.narg('session_id')::uuid, sqlc.narg('external_id')::text, sqlc.narg('core_label')::text,
    sqlc.narg('subject')::text, sqlc.narg('attribute')::text, sqlc.narg('occurred_at')::timestamptz,
    @now::timestamptz, @now::timestamptz, @now::timestamptz, @source_ids::bigint[], @metadata::jsonb,
    @valence::real, @arousal::real, @significance::real, @importance::real, @priority::real,
    sqlc.narg('stability')::double precision, sqlc.narg('fade_at')::timestamptz, @ai_generated::boolean
)
RETURNING *;

-- name: MemoryGetByID :one
-- MemoryGetByID returns one memory of a tenant.
SELECT * FROM zb.memory WHERE tenant_id = @tenant_id::text AND id = @id::bigint;

-- name: MemorySetEmbedding :execrows
-- MemorySetEmbedding stores a memory's embedding and the model that produced it.
UPDATE zb.memory
SET embedding = @embedding::vector, embedding_model = @embedding_model::text, updated_at = @now::timestamptz
WHERE tenant_id = @tenant_id::text AND id = @id::bigint;

-- name: MemorySearchNearest :many
-- MemorySearchNearest returns a tenant's active memories nearest to a query embedding (cosine
-- distance, HNSW index).
WITH q AS (SELECT @query::vector AS v)
SELECT m.id, m.layer, m.content, (m.embedding <=> q.v)::double precision AS distance
FROM zb.memory m, q
WHERE m.tenant_id = @tenant_id::text AND m.status = 'active' AND m.embedding IS NOT NULL
ORDER BY m.embedding <=> q.v
LIMIT @k::int;

-- name: MemoryCountByLayerStatus :many
-- MemoryCountByLayerStatus counts a tenant's memories per layer and status (erased tombstones
-- are not memories any more and are left out).
SELECT layer, status, count(*)::bigint AS n
FROM zb.memory
WHERE tenant_id = @tenant_id::text AND status <> 'erased'
GROUP BY layer, status
ORDER BY layer, status;
