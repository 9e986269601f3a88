-- Export and import of a tenant (coordinator/export.go, coordinator/import.go).

-- name: ExportCounts :one
-- ExportCounts counts what an export of a tenant writes (erased memories are not exported).
SELECT (SELECT count(*) FROM zb.session s WHERE s.tenant_id = @tenant_id::text)::bigint AS sessions,
       (SELECT count(*) FROM zb.entity e WHERE e.tenant_id = @tenant_id::text)::bigint AS entities,
       (SELECT count(*) FROM zb.memory m WHERE m.tenant_id = @tenant_id::text AND m.status <> 'erased')::bigint AS memories,
       (SELECT count(*) FROM zb.mention mn JOIN zb.memory m ON m.tenant_id = mn.tenant_id AND m.id = mn.memory_id
        WHERE mn.tenant_id = @tenant_id::text AND m.status <> 'erased')::bigint AS mentions,
       (SELECT count(*) FROM zb.edge ed WHERE ed.tenant_id = @tenant_id::text)::bigint AS edges,
       (SELECT count(*) FROM zb.memory_link l
        JOIN zb.memory a ON a.tenant_id = l.tenant_id AND a.id = l.source_id
        JOIN zb.memory b ON b.tenant_id = l.tenant_id AND b.id = l.target_id
        WHERE l.tenant_id = @tenant_id::text AND a.status <> 'erased' AND b.status <> 'erased')::bigint AS links,
       (SELECT count(*) FROM zb.review_log r JOIN zb.memory m ON m.tenant_id = r.tenant_id AND m.id = r.memory_id
        WHERE r.tenant_id = @tenant_id::text AND m.status <> 'erased')::bigint AS review_logs,
       (SELECT count(*) FROM zb.confidence_evidence v JOIN zb.memory m ON m.tenant_id = v.tenant_id AND m.id = v.memory_id
        WHERE v.tenant_id = @tenant_id::text AND m.status <> 'erased')::bigint AS evidence,
       (SELECT count(*) FROM zb.reconsolidation_event e JOIN zb.memory m ON m.tenant_id = e.tenant_id AND m.id = e.memory_id
        WHERE e.tenant_id = @tenant_id::text AND m.status <> 'erased')::bigint AS reconsolidations;

-- name: ExportSessions :many
-- ExportSessions returns a tenant's sessions in start order.
SELECT id, context, started_at, last_activity_at, ended_at, consolidated_at, metadata
FROM zb.session
WHERE tenant_id = @tenant_id::text
ORDER BY started_at, id;

-- name: ExportEntities :many
-- ExportEntities returns a tenant's entities (knowledge-graph nodes) in id order.
SELECT id, context, name, normalized_name, type, mention_count, created_at, updated_at
FROM zb.entity
WHERE tenant_id = @tenant_id::text
ORDER BY id;

-- name: ExportMemoryPage :many
-- ExportMemoryPage returns up to k memories of a tenant after after_id (keyset pagination, erased
-- ones left out) with the key they were imported under, their procedure, FSRS card and triple
-- copies; the embedding only when with_embeddings.
SELECT m.id, m.context, m.layer, m.kind, m.content, m.status, m.session_id, m.external_id, m.core_label,
       m.subject, m.attribute, m.occurred_at, m.created_at, m.updated_at, m.derived_at, m.source_ids, m.metadata,
       m.superseded_by, m.valid_from, m.valid_to, m.valence, m.arousal, m.significance, m.importance, m.priority,
       m.access_count, m.last_accessed_at, m.stability, m.difficulty, m.fade_at, m.value_estimate, m.conf_alpha,
       m.conf_beta, m.confidence, m.ai_generated, m.event_from, m.event_to, m.embedding_model,
       (CASE WHEN @with_embeddings::boolean THEN m.embedding::real[] END)::real[] AS embedding,
       coalesce((SELECT k.xid FROM zb.import_key k WHERE k.tenant_id = m.tenant_id AND k.memory_id = m.id
                 ORDER BY k.imported_at, k.xid LIMIT 1), '')::text AS import_xid,
       (p.memory_id IS NOT NULL)::boolean AS has_procedure, p.trigger_text, p.steps, p.tools, p.success_count,
       p.failure_count, p.last_outcome, p.last_used_at,
       (rs.memory_id IS NOT NULL)::boolean AS has_review, rs.stability AS card_stability,
       rs.difficulty AS card_difficulty, rs.due AS card_due, rs.reps AS card_reps, rs.lapses AS card_lapses,
       rs.state AS card_state, rs.elapsed_days AS card_elapsed_days, rs.scheduled_days AS card_scheduled_days,
       rs.last_review AS card_last_review, rs.accesses_at_review AS card_accesses_at_review,
       coalesce((SELECT array_agg(tc.copy ORDER BY tc.copy) FROM zb.triple_copy tc
                 WHERE tc.tenant_id = m.tenant_id AND tc.memory_id = m.id), '{}')::text[] AS copy_names,
       coalesce((SELECT array_agg(tc.initial_strength ORDER BY tc.copy) FROM zb.triple_copy tc
                 WHERE tc.tenant_id = m.tenant_id AND tc.memory_id = m.id), '{}')::double precision[] AS copy_strengths,
       coalesce((SELECT array_agg(tc.tau_seconds ORDER BY tc.copy) FROM zb.triple_copy tc
                 WHERE tc.tenant_id = m.tenant_id AND tc.memory_id = m.id), '{}')::double precision[] AS copy_taus,
       coalesce((SELECT array_agg(tc.created_at ORDER BY tc.copy) FROM zb.triple_copy tc
                 WHERE tc.tenant_id = m.tenant_id AND tc.memory_id = m.id), '{}')::timestamptz[] AS copy_created
FROM zb.memory m
LEFT JOIN zb.procedure p ON p.tenant_id = m.tenant_id AND p.memory_id = m.id
LEFT JOIN zb.review_state rs ON rs.tenant_id = m.tenant_id AND rs.memory_id = m.id
WHERE m.tenant_id = @tenant_id::text AND m.id > @after_id::bigint AND m.status <> 'erased'
ORDER BY m.id
LIMIT @k::int;

-- name: ExportMentionPage :many
-- ExportMentionPage returns up to k mentions of a tenant's exported memories after
-- (after_memory, after_entity) in key order.
SELECT mn.memory_id, mn.entity_id, mn.span_start, mn.span_end
FROM zb.mention mn
JOIN zb.memory m ON m.tenant_id = mn.tenant_id AND m.id = mn.memory_id
WHERE mn.tenant_id = @tenant_id::text AND m.status <> 'erased'
  AND (mn.memory_id, mn.entity_id) > (@after_memory::bigint, @after_entity::bigint)
ORDER BY mn.memory_id, mn.entity_id
LIMIT @k::int;

-- name: ExportEdges :many
-- ExportEdges returns a tenant's entity edges in id order.
SELECT source_id, target_id, relation, weight, variance, activation_count, origin, created_at, last_activated_at
FROM zb.edge
WHERE tenant_id = @tenant_id::text
ORDER BY id;

-- name: ExportLinks :many
-- ExportLinks returns the links between a tenant's exported memories.
SELECT l.source_id, l.target_id, l.relation, l.weight, l.origin, l.created_at
FROM zb.memory_link l
JOIN zb.memory a ON a.tenant_id = l.tenant_id AND a.id = l.source_id
JOIN zb.memory b ON b.tenant_id = l.tenant_id AND b.id = l.target_id
WHERE l.tenant_id = @tenant_id::text AND a.status <> 'erased' AND b.status <> 'erased'
ORDER BY l.source_id, l.target_id, l.relation;

-- name: ImportKeyLookup :many
-- ImportKeyLookup returns the memories imported into a tenant under the given keys.
SELECT xid, memory_id FROM zb.import_key WHERE tenant_id = @tenant_id::text AND xid = ANY (@xids::text[]);

-- name: ImportKeyInsert :exec
-- ImportKeyInsert records the key a memory was imported under.
INSERT INTO zb.import_key (tenant_id, xid, memory_id, imported_at)
VALUES (@tenant_id::text, @xid::text, @memory_id::bigint, @now::timestamptz)
ON CONFLICT (tenant_id, xid) DO NOTHING;

-- name: ImportMemoryByExternalID :many
-- ImportMemoryByExternalID returns a tenant's memories with the given external ids.
SELECT external_id::text AS external_id, id
FROM zb.memory
WHERE tenant_id = @tenant_id::text AND external_id = ANY (@external_ids::text[]);

-- name: ImportCoreLabels :many
-- ImportCoreLabels returns a tenant's live core labels with the memory holding each and the key
-- it was imported under ('' when it was not imported).
SELECT m.core_label::text AS core_label, m.id,
       coalesce((SELECT k.xid FROM zb.import_key k WHERE k.tenant_id = m.tenant_id AND k.memory_id = m.id
                 ORDER BY k.imported_at, k.xid LIMIT 1), '')::text AS xid
FROM zb.memory m
WHERE m.tenant_id = @tenant_id::text AND m.core_label IS NOT NULL AND m.status <> 'erased';

-- name: ImportMemoryInsert :one
-- ImportMemoryInsert writes one imported memory with its full state and returns its new id.
-- Provenance references (source ids, superseded_by) are set afterwards by ImportMemoryRelink.
INSERT INTO zb.memory (
    tenant_id, context, layer, kind, content, status, session_id, external_id, core_label, subject, attribute,
    occurred_at, created_at, updated_at, derived_at, source_ids, metadata, valid_from, valid_to, valence, arousal,
    significance, importance, priority, access_count, last_accessed_at, stability, difficulty, fade_at,
    value_estimate, conf_alpha, conf_beta, confidence, ai_generated, event_from, event_to, terms, term_count,
    embedding, embedding_model
) VALUES (
    @tenant_id::text, @context::text, @layer::zb.memory_layer, @kind::text, @content::text, @status::zb.memory_status,
    sqlc.narg('session_id')::uuid, sqlc.narg('external_id')::text, sqlc.narg('core_label')::text,
    sqlc.narg('subject')::text, sqlc.narg('attribute')::text, sqlc.narg('occurred_at')::timestamptz,
    @created_at::timestamptz, @updated_at::timestamptz, sqlc.narg('derived_at')::timestamptz, '{}', @metadata::jsonb,
    sqlc.narg('valid_from')::timestamptz, sqlc.narg('valid_to')::timestamptz, @valence::real, @arousal::real,
    @significance::real, @importance::real, @priority::real, @access_count::int, @last_accessed_at::timestamptz,
    sqlc.narg('stability')::double precision, @difficulty::double precision, sqlc.narg('fade_at')::timestamptz,
    @value_estimate::double precision, @conf_alpha::double precision, @conf_beta::double precision,
    @confidence::double precision, @ai_generated::boolean, sqlc.narg('event_from')::timestamptz,
    sqlc.narg('event_to')::timestamptz, @terms::text[], @term_count::int, sqlc.narg('embedding')::vector,
    sqlc.narg('embedding_model')::text
)
RETURNING id;

-- name: ImportMemoryRelink :execrows
-- ImportMemoryRelink sets the provenance references of an imported memory (ids of this tenant).
UPDATE zb.memory
SET source_ids = @source_ids::bigint[], superseded_by = sqlc.narg('superseded_by')::bigint
WHERE tenant_id = @tenant_id::text AND id = @id::bigint;

-- name: ImportProcedureInsert :exec
-- ImportProcedureInsert writes an imported skill's structure and outcome record.
INSERT INTO zb.procedure (tenant_id, memory_id, trigger_text, steps, tools, success_count, failure_count,
                          last_outcome, last_used_at)
VALUES (@tenant_id::text, @memory_id::bigint, @trigger_text::text, @steps::text[], @tools::text[],
        @success_count::int, @failure_count::int, sqlc.narg('last_outcome')::text, sqlc.narg('last_used_at')::timestamptz)
ON CONFLICT (tenant_id, memory_id) DO NOTHING;

-- name: ImportReviewStateInsert :exec
-- ImportReviewStateInsert writes an imported memory's FSRS card (without its context embedding).
INSERT INTO zb.review_state (tenant_id, memory_id, stability, difficulty, due, reps, lapses, state, elapsed_days,
                             scheduled_days, last_review, accesses_at_review)
VALUES (@tenant_id::text, @memory_id::bigint, @stability::double precision, @difficulty::double precision,
        @due::timestamptz, @reps::int, @lapses::int, @state::smallint, @elapsed_days::int, @scheduled_days::int,
        sqlc.narg('last_review')::timestamptz, @accesses_at_review::int)
ON CONFLICT (tenant_id, memory_id) DO NOTHING;

-- name: ImportTripleCopyInsert :exec
-- ImportTripleCopyInsert writes an imported memory's triple copies.
INSERT INTO zb.triple_copy (tenant_id, memory_id, copy, initial_strength, tau_seconds, created_at)
SELECT @tenant_id::text, @memory_id::bigint, unnest(@copies::text[]), unnest(@strengths::double precision[]),
       unnest(@taus::double precision[]), unnest(@created_ats::timestamptz[])
ON CONFLICT (tenant_id, memory_id, copy) DO NOTHING;

-- name: ImportSessionInsert :exec
-- ImportSessionInsert writes an imported session unless the tenant has it.
INSERT INTO zb.session (tenant_id, id, context, started_at, last_activity_at, ended_at, consolidated_at, metadata)
VALUES (@tenant_id::text, @id::uuid, @context::text, @started_at::timestamptz, @last_activity_at::timestamptz,
        sqlc.narg('ended_at')::timestamptz, sqlc.narg('consolidated_at')::timestamptz, @metadata::jsonb)
ON CONFLICT (tenant_id, id) DO NOTHING;

-- name: ImportEntityUpsert :one
-- ImportEntityUpsert writes an imported entity, or finds the tenant's entity with the same
-- context, normalized name and type, and returns its id.
INSERT INTO zb.entity (tenant_id, context, name, normalized_name, type, mention_count, created_at, updated_at)
VALUES (@tenant_id::text, @context::text, @name::text, @normalized_name::text, @type::text, @mention_count::int,
        @created_at::timestamptz, @updated_at::timestamptz)
ON CONFLICT (tenant_id, context, normalized_name, type) DO UPDATE SET updated_at = zb.entity.updated_at
RETURNING id;

-- name: ImportMentionInsert :exec
-- ImportMentionInsert writes an imported mention unless it exists.
INSERT INTO zb.mention (tenant_id, memory_id, entity_id, span_start, span_end)
VALUES (@tenant_id::text, @memory_id::bigint, @entity_id::bigint, sqlc.narg('span_start')::int, sqlc.narg('span_end')::int)
ON CONFLICT (tenant_id, memory_id, entity_id) DO NOTHING;

-- name: ImportEdgeInsert :exec
-- ImportEdgeInsert writes an imported Two-Factor edge unless the tenant has one between the same
-- entities with the same relation.
INSERT INTO zb.edge (tenant_id, source_id, target_id, relation, weight, variance, activation_count, origin,
                     created_at, last_activated_at)
VALUES (@tenant_id::text, @source_id::bigint, @target_id::bigint, @relation::zb.edge_relation, @weight::double precision,
        @variance::double precision, @activation_count::int, @origin::text, @created_at::timestamptz,
        @last_activated_at::timestamptz)
ON CONFLICT (tenant_id, source_id, target_id, relation) DO NOTHING;

-- name: ImportLinkInsert :exec
-- ImportLinkInsert writes an imported memory link unless it exists.
INSERT INTO zb.memory_link (tenant_id, source_id, target_id, relation, weight, origin, created_at)
VALUES (@tenant_id::text, @source_id::bigint, @target_id::bigint, @relation::zb.edge_relation, @weight::double precision,
        @origin::text, @created_at::timestamptz)
ON CONFLICT (tenant_id, source_id, target_id, relation) DO NOTHING;

-- name: ExportReviewLogs :many
-- ExportReviewLogs returns the FSRS review history of a tenant's memories that are not erased,
-- by memory and time.
SELECT r.id, r.memory_id, r.grade, r.reviewed_at, r.state_before, r.interval_days, r.vmpfc_pe, r.multiplier
FROM zb.review_log r
JOIN zb.memory m ON m.tenant_id = r.tenant_id AND m.id = r.memory_id
WHERE r.tenant_id = @tenant_id::text AND m.status <> 'erased'
ORDER BY r.memory_id, r.reviewed_at, r.id;

-- name: ExportEvidence :many
-- ExportEvidence returns the confidence evidence of a tenant's memories that are not erased, by
-- memory and time; a source memory that is erased is left out (NULL).
SELECT v.id, v.memory_id, v.kind, v.weight, v.source, s.id AS source_memory_id, v.created_at
FROM zb.confidence_evidence v
JOIN zb.memory m ON m.tenant_id = v.tenant_id AND m.id = v.memory_id
LEFT JOIN zb.memory s ON s.tenant_id = v.tenant_id AND s.id = v.source_memory_id AND s.status <> 'erased'
WHERE v.tenant_id = @tenant_id::text AND m.status <> 'erased'
ORDER BY v.memory_id, v.created_at, v.id;

-- name: ExportReconsolidations :many
-- ExportReconsolidations returns the reconsolidation events of a tenant's memories that are not
-- erased, with their snapshots, by memory and time; a trigger or result memory that is erased
-- is left out (NULL).
SELECT e.id, e.memory_id, tr.id AS trigger_id, rs.id AS result_id,
       e.mode, e.raw_pe, e.effective_pe, e.contradiction, e.blocked, e.snapshot, e.new_content, e.applied_at,
       e.rolled_back_at, e.rollback_reason
FROM zb.reconsolidation_event e
JOIN zb.memory m ON m.tenant_id = e.tenant_id AND m.id = e.memory_id
LEFT JOIN zb.memory tr ON tr.tenant_id = e.tenant_id AND tr.id = e.trigger_id AND tr.status <> 'erased'
LEFT JOIN zb.memory rs ON rs.tenant_id = e.tenant_id AND rs.id = e.result_id AND rs.status <> 'erased'
WHERE e.tenant_id = @tenant_id::text AND m.status <> 'erased'
ORDER BY e.memory_id, e.applied_at, e.id;

-- name: ImportReviewLogInsert :execrows
-- ImportReviewLogInsert adds one review of an imported memory unless the same review (memory,
-- time, grade) is there already: importing twice writes it once.
INSERT INTO zb.review_log (tenant_id, memory_id, grade, reviewed_at, state_before, interval_days, vmpfc_pe, multiplier)
SELECT @tenant_id::text, @memory_id::bigint, @grade::smallint, @reviewed_at::timestamptz, @state_before::smallint,
       @interval_days::float8, sqlc.narg('vmpfc_pe')::float8, sqlc.narg('multiplier')::float8
WHERE NOT EXISTS (
    SELECT 1 FROM zb.review_log r
    WHERE r.tenant_id = @tenant_id::text AND r.memory_id = @memory_id::bigint AND r.reviewed_at = @reviewed_at::timestamptz
      AND r.grade = @grade::smallint);

-- name: ImportEvidenceInsert :execrows
-- ImportEvidenceInsert adds one piece of confidence evidence of an imported memory unless the
-- same one (memory, kind, source, time) is there already.
INSERT INTO zb.confidence_evidence (tenant_id, memory_id, kind, weight, source, source_memory_id, created_at)
SELECT @tenant_id::text, @memory_id::bigint, @kind::text, @weight::float8, @source::text, sqlc.narg('source_memory_id')::bigint,
       @created_at::timestamptz
WHERE NOT EXISTS (
    SELECT 1 FROM zb.confidence_evidence v
    WHERE v.tenant_id = @tenant_id::text AND v.memory_id = @memory_id::bigint AND v.kind = @kind::text
      AND v.source = @source::text AND v.created_at = @created_at::timestamptz);

-- name: ImportReconsolidationInsert :execrows
-- ImportReconsolidationInsert adds one reconsolidation event of an imported memory unless the
-- same one (memory, time, mode) is there already.
INSERT INTO zb.reconsolidation_event (tenant_id, memory_id, trigger_id, result_id, mode, raw_pe, effective_pe, contradiction,
                                      blocked, snapshot, new_content, applied_at, rolled_back_at, rollback_reason)
SELECT @tenant_id::text, @memory_id::bigint, sqlc.narg('trigger_id')::bigint, sqlc.narg('result_id')::bigint,
       @mode::zb.reconsolidation_mode, @raw_pe::float8, @effective_pe::float8, @contradiction::boolean, @blocked::boolean,
       @snapshot::jsonb, sqlc.narg('new_content')::text, @applied_at::timestamptz, sqlc.narg('rolled_back_at')::timestamptz,
       sqlc.narg('rollback_reason')::text
WHERE NOT EXISTS (
    SELECT 1 FROM zb.reconsolidation_event e
    WHERE e.tenant_id = @tenant_id::text AND e.memory_id = @memory_id::bigint AND e.applied_at = @applied_at::timestamptz
      AND e.mode = @mode::zb.reconsolidation_mode);
