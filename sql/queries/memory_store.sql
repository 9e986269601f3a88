-- name: MemoryStore :one
-- MemoryStore inserts one memory with everything the coordinator computes at store time (index
-- terms, event span, embedding, forgetting state, validity) and returns its id.
INSERT INTO zb.memory (
    tenant_id, context, layer, kind, content, session_id, external_id, core_label, subject, attribute,
    occurred_at, created_at, updated_at, last_accessed_at, source_ids, metadata, valence, arousal,
    significance, importance, priority, stability, fade_at, ai_generated, terms, term_count, event_from,
    event_to, valid_from, valid_to, superseded_by, embedding, embedding_model
) VALUES (
    @tenant_id::text, @context::text, (@layer::text)::zb.memory_layer, @kind::text, @content::text,
    sqlc.narg('session_id')::uuid, sqlc.narg('external_id')::text,
    sqlc.narg('core_label')::text, sqlc.narg('subject')::text, sqlc.narg('attribute')::text,
    sqlc.narg('occurred_at')::timestamptz, @now::timestamptz, @now::timestamptz, @now::timestamptz,
    @source_ids::bigint[], @metadata::jsonb, @valence::real, @arousal::real, @significance::real,
    @importance::real, @priority::real, sqlc.narg('stability')::double precision,
    sqlc.narg('fade_at')::timestamptz, @ai_generated::boolean, @terms::text[], @term_count::int,
    sqlc.narg('event_from')::timestamptz, sqlc.narg('event_to')::timestamptz,
    sqlc.narg('valid_from')::timestamptz, sqlc.narg('valid_to')::timestamptz, sqlc.narg('superseded_by')::bigint,
    sqlc.narg('embedding')::vector, sqlc.narg('embedding_model')::text
)
RETURNING id;

-- name: MemoryInsertMany :copyfrom
-- MemoryInsertMany bulk-loads memories through COPY (imports and benchmarks).
INSERT INTO zb.memory (
    tenant_id, context, layer, kind, content, session_id, external_id, subject, attribute,
    occurred_at, created_at, updated_at, last_accessed_at, source_ids, metadata, valence, arousal,
    significance, importance, priority, stability, fade_at, ai_generated, terms, term_count, event_from,
    event_to, valid_from, embedding, embedding_model
) VALUES (
    $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
    $23, $24, $25, $26, $27, $28, $29, $30
);

-- name: MemoryCoreGetByLabel :one
-- MemoryCoreGetByLabel returns the live core memory with a label, locked for the upsert.
SELECT id, content, metadata FROM zb.memory
WHERE tenant_id = @tenant_id::text AND core_label = @core_label::text AND status <> 'erased'
FOR UPDATE;

-- name: MemoryCoreUpdate :execrows
-- MemoryCoreUpdate replaces the value of a core memory (an upsert by label).
UPDATE zb.memory
SET content = @content::text, terms = @terms::text[],
    term_count = @term_count::int, metadata = @metadata::jsonb, valence = @valence::real,
    arousal = @arousal::real, significance = @significance::real, importance = @importance::real,
    priority = @priority::real, embedding = sqlc.narg('embedding')::vector,
    embedding_model = sqlc.narg('embedding_model')::text, updated_at = @now::timestamptz, status = 'active',
    derived_at = NULL
WHERE tenant_id = @tenant_id::text AND id = @id::bigint;

-- name: MemorySupersedable :many
-- MemorySupersedable returns the live semantic facts about a subject and attribute that a new
-- fact may supersede, locking those not locked by another transaction (a sleep or decay run);
-- locked ones are skipped and reported by MemorySupersedableCount.
SELECT id, content, valid_from, created_at FROM zb.memory
WHERE tenant_id = @tenant_id::text AND layer = 'semantic' AND status = 'active'
  AND subject = @subject::text AND attribute = @attribute::text AND valid_to IS NULL
ORDER BY id
FOR UPDATE SKIP LOCKED;

-- name: MemorySupersedableCount :one
-- MemorySupersedableCount counts the live semantic facts about a subject and attribute, locked or not.
SELECT count(*)::bigint FROM zb.memory
WHERE tenant_id = @tenant_id::text AND layer = 'semantic' AND status = 'active'
  AND subject = @subject::text AND attribute = @attribute::text AND valid_to IS NULL;

-- name: MemorySupersede :execrows
-- MemorySupersede ends the validity of one fact and points it at the fact that replaces it.
UPDATE zb.memory
SET valid_to = @valid_to::timestamptz, superseded_by = @superseded_by::bigint, updated_at = @now::timestamptz
WHERE tenant_id = @tenant_id::text AND id = @id::bigint;

-- name: MemoryMoveLayer :execrows
-- MemoryMoveLayer moves a memory to another layer (working-memory eviction to short-term).
UPDATE zb.memory
SET layer = (@layer::text)::zb.memory_layer, kind = @kind::text, updated_at = @now::timestamptz
WHERE tenant_id = @tenant_id::text AND id = @id::bigint;

-- name: MemoryRecallApply :many
-- MemoryRecallApply records a used recall on memories not locked by another transaction:
-- access count, last access and the grown stability. It returns the ids it updated; locked rows
-- are skipped (recall never waits on a sleep or decay run). Recall computes the growth from the
-- stability it read without a lock (read_stabilities); when another transaction changed the
-- stability since (a sleep, a review), the growth factor applies to the current value, capped
-- at max(current, max_stability), so neither write is lost.
-- It writes no indexed column, so the update is HOT (0014): the row is not inserted again into
-- the HNSW, GIN and btree indexes. fade_at (memory_fade_idx) is therefore left alone: a recall
-- only grows stability, so the stored fade time stays at or before the true one, and DecayDue,
-- finding R still ≥ 0.1 when it comes due, moves it to the next predicted crossing (one
-- non-HOT update per fade period instead of one per recall).
WITH upd AS (
    SELECT unnest(@ids::bigint[]) AS id, unnest(@stabilities::double precision[]) AS stability,
           unnest(@read_stabilities::double precision[]) AS read_stability
), locked AS (
    SELECT m.id FROM zb.memory m
    WHERE m.tenant_id = @tenant_id::text AND m.id IN (SELECT upd.id FROM upd)
    FOR UPDATE SKIP LOCKED
)
UPDATE zb.memory m
SET access_count = m.access_count + 1, last_accessed_at = greatest(m.last_accessed_at, @now::timestamptz),
    stability = CASE WHEN m.stability IS NULL THEN NULL
                     WHEN m.stability = upd.read_stability OR NOT (upd.read_stability > 0) THEN upd.stability
                     ELSE least(m.stability * (upd.stability / upd.read_stability),
                                greatest(m.stability, @max_stability::double precision)) END
FROM upd
WHERE m.tenant_id = @tenant_id::text AND m.id = upd.id AND m.id IN (SELECT locked.id FROM locked)
RETURNING m.id;

-- name: MemoryListCore :many
-- MemoryListCore returns a tenant's live core memories in label order.
SELECT id, core_label, content, confidence FROM zb.memory
WHERE tenant_id = @tenant_id::text AND layer = 'core' AND status = 'active'
ORDER BY core_label;

-- name: MemoryGetState :one
-- MemoryGetState returns the state of one memory that the coordinator's entry points update.
SELECT id, layer, kind, content, status, stability, last_accessed_at, valence, arousal, significance,
       conf_alpha, conf_beta, access_count, subject, attribute, valid_from, valid_to, superseded_by,
       occurred_at, event_from, event_to, fade_at, metadata, source_ids, session_id, priority, importance
FROM zb.memory WHERE tenant_id = @tenant_id::text AND id = @id::bigint;

-- name: MemoryShortTermBySession :many
-- MemoryShortTermBySession returns a session's active short-term memories in order.
SELECT id, content, occurred_at, created_at FROM zb.memory
WHERE tenant_id = @tenant_id::text AND session_id = @session_id::uuid AND layer = 'short_term' AND status = 'active'
ORDER BY coalesce(occurred_at, created_at), id;
