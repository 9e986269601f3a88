-- name: LcUnderivedIDs :many
-- LcUnderivedIDs returns up to k ids of a tenant's memories that were never derived, oldest first
-- (derive's queue, zb.memory_underived).
SELECT memory_id AS id FROM zb.memory_underived
WHERE tenant_id = @tenant_id::text
ORDER BY memory_id
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

-- name: LcDeriveWriteMany :execrows
-- LcDeriveWriteMany writes what derivation computed for many memories in one statement and marks
-- them derived. Per memory (arrays in the order of ids): has_embedding says whether a new
-- embedding is written, taken from embeddings (dim values per memory that has one, in order,
-- flattened; emb_offsets gives each one's start); set_terms whether its BM25 terms are replaced by
-- terms[term_offsets + 1 .. term_offsets + term_counts]; fade_null clears the fade time, else
-- fade_ats is written.
UPDATE zb.memory m
SET embedding = CASE WHEN u.has_emb
                     THEN ((@embeddings::real[])[u.emb_off + 1 : u.emb_off + @dim::int])::vector
                     ELSE m.embedding END,
    embedding_model = CASE WHEN u.has_emb THEN @embedding_model::text ELSE m.embedding_model END,
    terms = CASE WHEN u.set_terms THEN (@terms::text[])[u.term_off + 1 : u.term_off + u.term_count] ELSE m.terms END,
    term_count = CASE WHEN u.set_terms THEN u.term_count ELSE m.term_count END,
    valence = u.valence, arousal = u.arousal, significance = u.significance, priority = u.priority,
    fade_at = CASE WHEN u.fade_null THEN NULL ELSE u.fade_at END,
    derived_at = @now::timestamptz
FROM (SELECT unnest(@ids::bigint[]) AS id, unnest(@has_embedding::boolean[]) AS has_emb,
             unnest(@emb_offsets::int[]) AS emb_off, unnest(@set_terms::boolean[]) AS set_terms,
             unnest(@term_offsets::int[]) AS term_off, unnest(@term_counts::int[]) AS term_count,
             unnest(@valences::real[]) AS valence, unnest(@arousals::real[]) AS arousal,
             unnest(@significances::real[]) AS significance, unnest(@priorities::real[]) AS priority,
             unnest(@fade_null::boolean[]) AS fade_null, unnest(@fade_ats::timestamptz[]) AS fade_at) AS u
WHERE m.tenant_id = @tenant_id::text AND m.id = ANY (@ids::bigint[]) AND m.id = u.id;

-- name: LcMarkDerived :exec
-- LcMarkDerived marks memories derived without changing anything else (erased rows).
UPDATE zb.memory SET derived_at = @now::timestamptz
WHERE tenant_id = @tenant_id::text AND id = ANY (@ids::bigint[]) AND derived_at IS NULL;

-- name: LcEntityResolveMany :many
-- LcEntityResolveMany returns the entity of each (context, normalized name): the existing one of
-- any type (the most mentioned first), else a new one of the given name and type, created in the
-- order of ords (one with the same key created concurrently is reused).
WITH want AS (
    SELECT * FROM (SELECT unnest(@contexts::text[]) AS context, unnest(@normalized_names::text[]) AS normalized_name,
             unnest(@names::text[]) AS name, unnest(@types::text[]) AS type, unnest(@ords::int[]) AS ord) AS w
), found AS (
    SELECT DISTINCT ON (w.context, w.normalized_name) w.context, w.normalized_name, e.id
    FROM want w
    JOIN zb.entity e ON e.tenant_id = @tenant_id::text AND e.context = w.context AND e.normalized_name = w.normalized_name
    ORDER BY w.context, w.normalized_name, e.mention_count DESC, e.id
), ins AS (
    INSERT INTO zb.entity (tenant_id, context, name, normalized_name, type, created_at, updated_at)
    SELECT @tenant_id::text, w.context, w.name, w.normalized_name, w.type, @now::timestamptz, @now::timestamptz
    FROM want w
    WHERE NOT EXISTS (SELECT 1 FROM found f WHERE f.context = w.context AND f.normalized_name = w.normalized_name)
    ORDER BY w.ord
    ON CONFLICT (tenant_id, context, normalized_name, type) DO UPDATE SET updated_at = greatest(zb.entity.updated_at, EXCLUDED.updated_at)
    RETURNING context, normalized_name, id
)
SELECT f.context::text AS context, f.normalized_name::text AS normalized_name, f.id::bigint AS id FROM found f
UNION ALL
SELECT i.context::text, i.normalized_name::text, i.id::bigint FROM ins i;

-- name: LcMentionInsertMany :one
-- LcMentionInsertMany records memory–entity mentions (each pair once) and adds the new ones to
-- the entities' mention counts; it returns the number of new mentions.
WITH ins AS (
    INSERT INTO zb.mention (tenant_id, memory_id, entity_id, span_start, span_end)
    SELECT @tenant_id::text, u.m, u.e, u.s, u.en
    FROM (SELECT unnest(@memory_ids::bigint[]) AS m, unnest(@entity_ids::bigint[]) AS e,
             unnest(@span_starts::int[]) AS s, unnest(@span_ends::int[]) AS en) AS u
    ON CONFLICT (tenant_id, memory_id, entity_id) DO NOTHING
    RETURNING entity_id
), per AS (
    SELECT entity_id, count(*) AS n FROM ins GROUP BY entity_id
), upd AS (
    UPDATE zb.entity e SET mention_count = e.mention_count + per.n, updated_at = @now::timestamptz
    FROM per WHERE e.tenant_id = @tenant_id::text AND e.id = per.entity_id
    RETURNING 1
)
SELECT (SELECT count(*) FROM ins)::int AS inserted;

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

-- name: LcEdgePairsLock :many
-- LcEdgePairsLock locks the edges of one relation between the given (source, target) pairs.
SELECT e.id, e.source_id, e.target_id, e.weight, e.variance, e.activation_count, e.last_activated_at
FROM zb.edge e
JOIN (SELECT unnest(@source_ids::bigint[]) AS s, unnest(@target_ids::bigint[]) AS t) AS p ON e.source_id = p.s AND e.target_id = p.t
WHERE e.tenant_id = @tenant_id::text AND e.relation = (@relation::text)::zb.edge_relation
ORDER BY e.id
FOR UPDATE OF e;

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

-- name: LcTripleCopyEnsureMany :execrows
-- LcTripleCopyEnsureMany writes triple copies (memory, copy, strength, tau, stored at) that do
-- not exist yet.
INSERT INTO zb.triple_copy (tenant_id, memory_id, copy, initial_strength, tau_seconds, created_at)
SELECT @tenant_id::text, u.m, u.c, u.s, u.tau, u.at
FROM (SELECT unnest(@memory_ids::bigint[]) AS m, unnest(@copies::text[]) AS c,
             unnest(@strengths::double precision[]) AS s, unnest(@taus::double precision[]) AS tau,
             unnest(@stored_at::timestamptz[]) AS at) AS u
ON CONFLICT (tenant_id, memory_id, copy) DO NOTHING;

-- name: LcReviewStateEnsure :execrows
-- LcReviewStateEnsure creates the FSRS review state of a memory (a new card due at due) when it
-- has none.
INSERT INTO zb.review_state (tenant_id, memory_id, due, accesses_at_review)
VALUES (@tenant_id::text, @memory_id::bigint, @due::timestamptz, @accesses::int)
ON CONFLICT (tenant_id, memory_id) DO NOTHING;

-- name: LcReviewStateEnsureMany :execrows
-- LcReviewStateEnsureMany creates the FSRS review states (new cards due at due) of memories that
-- have none.
INSERT INTO zb.review_state (tenant_id, memory_id, due, accesses_at_review)
SELECT @tenant_id::text, u.m, @due::timestamptz, u.a
FROM (SELECT unnest(@memory_ids::bigint[]) AS m, unnest(@accesses::int[]) AS a) AS u
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

-- name: LcFactsSimilarMany :many
-- LcFactsSimilarMany returns, for each of the memories ids that has an embedding, the k active
-- semantic memories nearest to it, other than itself, nearest first (zb.similar_semantic: exact
-- in a small tenant, HNSW with iterative scans in a large one).
SELECT s.memory_id::bigint AS memory_id, f.id, f.content, f.created_at, f.valid_from, f.valid_to, f.superseded_by,
       f.conf_alpha, f.conf_beta, f.confidence, f.kind, s.cosine::double precision AS cosine
FROM zb.similar_semantic(@tenant_id::text, @ids::bigint[], @k::int) s
JOIN zb.memory f ON f.tenant_id = @tenant_id::text AND f.id = s.id
ORDER BY 1, 12 DESC, 2;

-- name: LcLabileWindowsBetween :many
-- LcLabileWindowsBetween returns a tenant's lability windows open at some time in [since, until].
SELECT memory_id, opened_at, closes_at FROM zb.lability_window
WHERE tenant_id = @tenant_id::text AND opened_at <= @until::timestamptz AND closes_at > @since::timestamptz
ORDER BY memory_id;

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
-- LcSupersede ends the validity of a live fact and points it at the fact that replaces it. A fact
-- stated at the same instant as its replacement ends a microsecond after it began (valid_to >
-- valid_from), as in store: the later one wins.
UPDATE zb.memory
SET valid_to = greatest(@valid_to::timestamptz, valid_from + interval '1 microsecond'),
    superseded_by = @superseded_by::bigint, updated_at = @now::timestamptz
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
    DELETE FROM zb.review_state rs USING a
    WHERE rs.tenant_id = @tenant_id::text AND rs.memory_id = ANY (@ids::bigint[]) AND rs.memory_id = a.id
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
