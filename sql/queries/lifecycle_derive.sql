-- name: LcUnderivedIDs :many
-- LcUnderivedIDs returns up to k ids of a tenant's memories that were never derived, oldest first
-- (memory_underived_idx).
SELECT id FROM zb.memory
WHERE tenant_id = @tenant_id::text AND derived_at IS NULL
ORDER BY id
LIMIT @k::int;

-- name: LcDeriveRead :many
-- LcDeriveRead reads, without locks, the underived memories among ids that Derive will embed
-- outside its transaction.
SELECT id, content, updated_at, (embedding IS NULL)::boolean AS needs_embedding, status
FROM zb.memory
WHERE tenant_id = @tenant_id::text AND id = ANY (@ids::bigint[]) AND derived_at IS NULL
ORDER BY id;

-- name: LcDeriveLock :many
-- LcDeriveLock locks the underived memories among ids that no other transaction holds.
SELECT * FROM zb.memory
WHERE tenant_id = @tenant_id::text AND id = ANY (@ids::bigint[]) AND derived_at IS NULL
ORDER BY id
FOR UPDATE SKIP LOCKED;

-- name: LcDeriveWrite :exec
-- LcDeriveWrite writes what derivation computed for one memory and marks it derived.
UPDATE zb.memory
SET embedding = coalesce(sqlc.narg('embedding')::vector, embedding),
    embedding_model = coalesce(sqlc.narg('embedding_model')::text, embedding_model),
    terms = @terms::text[], term_count = @term_count::int,
    valence = @valence::real, arousal = @arousal::real, significance = @significance::real,
    priority = @priority::real, fade_at = sqlc.narg('fade_at')::timestamptz, derived_at = @now::timestamptz
WHERE tenant_id = @tenant_id::text AND id = @id::bigint;

-- name: LcMarkDerived :exec
-- LcMarkDerived marks memories derived without changing anything else (erased rows).
UPDATE zb.memory SET derived_at = @now::timestamptz
WHERE tenant_id = @tenant_id::text AND id = ANY (@ids::bigint[]) AND derived_at IS NULL;

-- name: LcEntityFind :one
-- LcEntityFind returns the entity of a context with a normalized name (any type; the most
-- mentioned first).
SELECT id, type FROM zb.entity
WHERE tenant_id = @tenant_id::text AND context = @context::text AND normalized_name = @normalized_name::text
ORDER BY mention_count DESC, id
LIMIT 1;

-- name: LcEntityUpsert :one
-- LcEntityUpsert creates an entity, or returns the existing one with the same key.
INSERT INTO zb.entity (tenant_id, context, name, normalized_name, type, created_at, updated_at)
VALUES (@tenant_id::text, @context::text, @name::text, @normalized_name::text, @type::text, @now::timestamptz, @now::timestamptz)
ON CONFLICT (tenant_id, context, normalized_name, type) DO UPDATE SET updated_at = greatest(zb.entity.updated_at, EXCLUDED.updated_at)
RETURNING id;

-- name: LcMentionInsert :execrows
-- LcMentionInsert records that a memory mentions an entity (once) and counts the mention.
WITH ins AS (
    INSERT INTO zb.mention (tenant_id, memory_id, entity_id, span_start, span_end)
    VALUES (@tenant_id::text, @memory_id::bigint, @entity_id::bigint, @span_start::int, @span_end::int)
    ON CONFLICT (tenant_id, memory_id, entity_id) DO NOTHING
    RETURNING entity_id
)
UPDATE zb.entity e SET mention_count = e.mention_count + 1, updated_at = @now::timestamptz
FROM ins WHERE e.tenant_id = @tenant_id::text AND e.id = ins.entity_id;

-- name: LcMentionsOf :many
-- LcMentionsOf returns the entities mentioned by the given memories.
SELECT mn.memory_id, mn.entity_id, en.normalized_name, en.type
FROM zb.mention mn JOIN zb.entity en ON en.tenant_id = mn.tenant_id AND en.id = mn.entity_id
WHERE mn.tenant_id = @tenant_id::text AND mn.memory_id = ANY (@memory_ids::bigint[])
ORDER BY mn.memory_id, mn.entity_id;

-- name: LcEdgesAmongLock :many
-- LcEdgesAmongLock locks the edges (any relation) whose both ends are among the entities.
SELECT id, source_id, target_id, relation, weight, variance, activation_count, last_activated_at
FROM zb.edge
WHERE tenant_id = @tenant_id::text AND source_id = ANY (@entity_ids::bigint[]) AND target_id = ANY (@entity_ids::bigint[])
ORDER BY id
FOR UPDATE;

-- name: LcEdgeUpsert :exec
-- LcEdgeUpsert writes the Two-Factor state of edges: inserted when new, replaced when present.
INSERT INTO zb.edge (tenant_id, source_id, target_id, relation, weight, variance, activation_count, origin,
                     created_at, last_activated_at)
SELECT @tenant_id::text, u.s, u.t, (@relation::text)::zb.edge_relation, u.w, u.v, u.k, @origin::text,
       @now::timestamptz, u.at
FROM (SELECT unnest(@source_ids::bigint[]) AS s, unnest(@target_ids::bigint[]) AS t,
             unnest(@weights::double precision[]) AS w, unnest(@variances::double precision[]) AS v,
             unnest(@activation_counts::int[]) AS k, unnest(@activated_at::timestamptz[]) AS at) u
ON CONFLICT (tenant_id, source_id, target_id, relation) DO UPDATE
SET weight = EXCLUDED.weight, variance = EXCLUDED.variance, activation_count = EXCLUDED.activation_count,
    last_activated_at = EXCLUDED.last_activated_at;

-- name: LcTripleCopyEnsure :execrows
-- LcTripleCopyEnsure writes the fast and medium copies of a memory when it has none.
INSERT INTO zb.triple_copy (tenant_id, memory_id, copy, initial_strength, tau_seconds, created_at)
SELECT @tenant_id::text, @memory_id::bigint, u.c, u.s, u.tau, @stored_at::timestamptz
FROM (SELECT unnest(@copies::text[]) AS c, unnest(@strengths::double precision[]) AS s,
             unnest(@taus::double precision[]) AS tau) u
ON CONFLICT (tenant_id, memory_id, copy) DO NOTHING;

-- name: LcReviewStateEnsure :execrows
-- LcReviewStateEnsure creates the FSRS review state of a memory (a new card due at due) when it
-- has none.
INSERT INTO zb.review_state (tenant_id, memory_id, due, accesses_at_review)
VALUES (@tenant_id::text, @memory_id::bigint, @due::timestamptz, @accesses::int)
ON CONFLICT (tenant_id, memory_id) DO NOTHING;

-- name: LcFactsSameSubject :many
-- LcFactsSameSubject returns the active semantic and episodic memories about a subject and
-- attribute, other than id.
SELECT id, content, created_at, valid_from, valid_to, superseded_by, conf_alpha, conf_beta, confidence, kind
FROM zb.memory
WHERE tenant_id = @tenant_id::text AND subject = @subject::text AND attribute = @attribute::text
  AND status = 'active' AND id <> @id::bigint AND layer IN ('semantic', 'episodic')
ORDER BY id
LIMIT 50;

-- name: LcFactsSimilar :many
-- LcFactsSimilar returns the k active semantic memories nearest to an embedding (HNSW), other than id.
SELECT id, content, created_at, valid_from, valid_to, superseded_by, conf_alpha, conf_beta, confidence, kind,
       (1 - (embedding <=> @query::vector))::double precision AS cosine
FROM zb.memory
WHERE tenant_id = @tenant_id::text AND status = 'active' AND layer = 'semantic' AND embedding IS NOT NULL
  AND id <> @id::bigint
ORDER BY embedding <=> @query::vector
LIMIT @k::int;

-- name: LcLinkInsert :execrows
-- LcLinkInsert links two memories (once per relation).
INSERT INTO zb.memory_link (tenant_id, source_id, target_id, relation, weight, origin, created_at)
VALUES (@tenant_id::text, @source_id::bigint, @target_id::bigint, (@relation::text)::zb.edge_relation,
        @weight::double precision, @origin::text, @now::timestamptz)
ON CONFLICT (tenant_id, source_id, target_id, relation) DO NOTHING;

-- name: LcLinkDelete :execrows
-- LcLinkDelete removes one memory link.
DELETE FROM zb.memory_link
WHERE tenant_id = @tenant_id::text AND source_id = @source_id::bigint AND target_id = @target_id::bigint
  AND relation = (@relation::text)::zb.edge_relation;

-- name: LcEvidenceInsert :exec
-- LcEvidenceInsert appends one confidence evidence row.
INSERT INTO zb.confidence_evidence (tenant_id, memory_id, kind, weight, source, source_memory_id, created_at)
VALUES (@tenant_id::text, @memory_id::bigint, @kind::text, @weight::double precision, @source::text,
        sqlc.narg('source_memory_id')::bigint, @now::timestamptz);

-- name: LcSetBelief :exec
-- LcSetBelief writes a memory's Beta(alpha, beta) confidence and its point estimate.
UPDATE zb.memory SET conf_alpha = @conf_alpha::double precision, conf_beta = @conf_beta::double precision,
    confidence = @confidence::double precision, updated_at = @now::timestamptz
WHERE tenant_id = @tenant_id::text AND id = @id::bigint;

-- name: LcDebateFor :one
-- LcDebateFor counts the debates about a memory.
SELECT count(*)::bigint FROM zb.debate WHERE tenant_id = @tenant_id::text AND memory_id = @memory_id::bigint;

-- name: LcDebateInsert :one
-- LcDebateInsert stores a debate outcome.
INSERT INTO zb.debate (tenant_id, memory_id, contradicted, positions, outcome, reason, judge, decided_at)
VALUES (@tenant_id::text, @memory_id::bigint, @contradicted::bigint[], @positions::jsonb, @outcome::text,
        @reason::text, @judge::text, @now::timestamptz)
RETURNING id;

-- name: LcSupersede :execrows
-- LcSupersede ends the validity of a live fact and points it at the fact that replaces it.
UPDATE zb.memory
SET valid_to = @valid_to::timestamptz, superseded_by = @superseded_by::bigint, updated_at = @now::timestamptz
WHERE tenant_id = @tenant_id::text AND id = @id::bigint AND valid_to IS NULL;

-- name: LcLiveFacts :many
-- LcLiveFacts returns the live semantic facts about a subject and attribute other than id, locked.
SELECT id, valid_from, created_at FROM zb.memory
WHERE tenant_id = @tenant_id::text AND layer = 'semantic' AND status = 'active'
  AND subject = @subject::text AND attribute = @attribute::text AND valid_to IS NULL AND id <> @id::bigint
ORDER BY id
FOR UPDATE;

-- name: LcSetKindMeta :exec
-- LcSetKindMeta changes memories' kind and merges a JSON object into their metadata.
UPDATE zb.memory SET kind = @kind::text, metadata = metadata || @metadata::jsonb, updated_at = @now::timestamptz
WHERE tenant_id = @tenant_id::text AND id = ANY (@ids::bigint[]);

-- name: LcArchive :execrows
-- LcArchive archives active memories (they leave default recall; provenance and deep recall
-- still reach them) and drops their review state.
WITH a AS (
    UPDATE zb.memory SET status = 'archived', updated_at = @now::timestamptz
    WHERE tenant_id = @tenant_id::text AND id = ANY (@ids::bigint[]) AND status = 'active'
    RETURNING id
), r AS (
    DELETE FROM zb.review_state rs USING a WHERE rs.tenant_id = @tenant_id::text AND rs.memory_id = a.id
)
SELECT count(*) FROM a;

-- name: LcLabileNear :many
-- LcLabileNear returns the memories of a context whose lability window is open at `at`, other
-- than id, nearest to an embedding first.
SELECT m.id, m.context, m.layer, m.content, m.metadata, m.source_ids, m.stability, m.conf_alpha, m.conf_beta,
       m.confidence, m.updated_at, m.created_at, m.access_count, lw.opened_at, lw.closes_at,
       coalesce(1 - (m.embedding <=> sqlc.narg('query')::vector), 0)::double precision AS cosine
FROM zb.lability_window lw
JOIN zb.memory m ON m.tenant_id = lw.tenant_id AND m.id = lw.memory_id
WHERE lw.tenant_id = @tenant_id::text AND lw.opened_at <= @at::timestamptz AND lw.closes_at > @at::timestamptz
  AND m.id <> @id::bigint AND m.status = 'active' AND m.context = @context::text AND m.created_at < @at::timestamptz
ORDER BY cosine DESC, m.id
LIMIT 8;

-- name: LcNeuroGet :many
-- LcNeuroGet returns a tenant's neuromodulator state (no row: never changed).
SELECT * FROM zb.neuromodulator_state WHERE tenant_id = @tenant_id::text;

-- name: LcStabilityLockUpsert :exec
-- LcStabilityLockUpsert writes a memory's stability lock.
INSERT INTO zb.stability_lock (tenant_id, memory_id, lock_level, rho, threshold, computed_at)
VALUES (@tenant_id::text, @memory_id::bigint, @lock_level::double precision, @rho::double precision,
        @threshold::double precision, @now::timestamptz)
ON CONFLICT (tenant_id, memory_id) DO UPDATE
SET lock_level = EXCLUDED.lock_level, rho = EXCLUDED.rho, threshold = EXCLUDED.threshold, computed_at = EXCLUDED.computed_at;

-- name: LcReconEventsByTrigger :one
-- LcReconEventsByTrigger counts the reconsolidation events a memory triggered.
SELECT count(*)::bigint FROM zb.reconsolidation_event WHERE tenant_id = @tenant_id::text AND trigger_id = @trigger_id::bigint;

-- name: LcReconEventInsert :one
-- LcReconEventInsert records a reconsolidation event with its snapshot.
INSERT INTO zb.reconsolidation_event (tenant_id, memory_id, trigger_id, result_id, mode, raw_pe, effective_pe,
                                      contradiction, blocked, snapshot, new_content, applied_at)
VALUES (@tenant_id::text, @memory_id::bigint, sqlc.narg('trigger_id')::bigint, sqlc.narg('result_id')::bigint,
        (@mode::text)::zb.reconsolidation_mode, @raw_pe::double precision, @effective_pe::double precision,
        @contradiction::boolean, @blocked::boolean, @snapshot::jsonb, sqlc.narg('new_content')::text, @now::timestamptz)
RETURNING id;

-- name: LcReconEventGet :one
-- LcReconEventGet returns one reconsolidation event, locked.
SELECT * FROM zb.reconsolidation_event WHERE tenant_id = @tenant_id::text AND id = @id::bigint FOR UPDATE;

-- name: LcReconEventRolledBack :exec
-- LcReconEventRolledBack marks a reconsolidation event rolled back.
UPDATE zb.reconsolidation_event SET rolled_back_at = @now::timestamptz, rollback_reason = @reason::text
WHERE tenant_id = @tenant_id::text AND id = @id::bigint;

-- name: LcMemoryLockOne :one
-- LcMemoryLockOne returns one memory, locked.
SELECT * FROM zb.memory WHERE tenant_id = @tenant_id::text AND id = @id::bigint FOR UPDATE;

-- name: LcMemoryRewrite :exec
-- LcMemoryRewrite writes a memory's reconsolidated or restored state.
UPDATE zb.memory
SET content = @content::text, metadata = @metadata::jsonb, source_ids = @source_ids::bigint[],
    stability = sqlc.narg('stability')::double precision, conf_alpha = @conf_alpha::double precision,
    conf_beta = @conf_beta::double precision, confidence = @confidence::double precision,
    updated_at = @updated_at::timestamptz, terms = @terms::text[], term_count = @term_count::int,
    embedding = sqlc.narg('embedding')::vector, embedding_model = sqlc.narg('embedding_model')::text,
    derived_at = sqlc.narg('derived_at')::timestamptz, fade_at = sqlc.narg('fade_at')::timestamptz
WHERE tenant_id = @tenant_id::text AND id = @id::bigint;
