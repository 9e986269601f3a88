-- name: MemoryStore :one
-- MemoryStore inserts one memory with everything the coordinator computes at store time (index
-- terms, event span, embedding, forgetting state, validity) and returns its id. The same
-- statement writes what a store adds to the row, each only when asked: the triple copies named
-- in copies (none for NULL; none when the tenant switched triple_copy off), the procedure when
-- with_procedure, the audit row when detail is given. A plain store is then one statement, which
-- travels with BEGIN and COMMIT in one round trip. Its parts see the same snapshot; the
-- foreign keys of the copies, the procedure and the audit row are checked, and the memory's
-- triggers fire, at the end of the statement, when the memory row exists.
WITH m AS (
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
RETURNING id
), copies AS (
    INSERT INTO zb.triple_copy (tenant_id, memory_id, copy, initial_strength, tau_seconds, created_at)
    SELECT @tenant_id::text, m.id, unnest(sqlc.narg('copies')::text[]), unnest(sqlc.narg('strengths')::double precision[]),
           unnest(sqlc.narg('taus')::double precision[]), @now::timestamptz
    FROM m
    WHERE NOT EXISTS (SELECT 1 FROM zb.algorithm_switch s
                      WHERE s.tenant_id = @tenant_id::text AND s.algorithm = 'triple_copy' AND NOT s.enabled)
), proc AS (
    INSERT INTO zb.procedure (tenant_id, memory_id, trigger_text, steps, tools)
    SELECT @tenant_id::text, m.id, @trigger_text::text, @steps::text[], @tools::text[]
    FROM m WHERE @with_procedure::boolean
), audit AS (
    INSERT INTO zb.audit_event (tenant_id, at, actor, action, memory_id, detail)
    SELECT @tenant_id::text, @now::timestamptz, @actor::text, 'memory.store', m.id, sqlc.narg('detail')::jsonb
    FROM m WHERE sqlc.narg('detail')::jsonb IS NOT NULL
)
SELECT m.id FROM m;

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

-- name: RecallApply :one
-- RecallApply writes a used recall's side effects on its memories in one statement (one round
-- trip instead of four) and returns what the rest of the side-effect transaction needs:
--   touched  — the memories updated, in id order: access count, last access and the grown
--              stability, skipping rows another transaction holds (recall never waits on a
--              sleep or decay run). Recall computes the growth from the stability it read
--              without a lock (read_stabilities); when another transaction changed the
--              stability since (a sleep, a review), the growth factor applies to the current
--              value, capped at max(current, max_stability), so neither write is lost. The
--              update writes no indexed column and stays HOT (0014); fade_at
--              (memory_fade_idx) is left to DecayDue: a recall only grows stability, so the
--              stored fade time stays at or before the true one, and DecayDue, finding
--              R still >= 0.1 when it comes due, moves it to the next predicted crossing.
--   (no column) — each touched memory's reconsolidation lability window opened (or
--              extended) to [now, closes_at].
--   tagged   — with @stc: the touched memories tagged by synaptic tagging and capture (the
--              rule of StcTagWeak, on the updated rows, tagged at @now).
--   entities — with @entities: the distinct entities the touched memories mention, in id
--              order, the first @max_entities of them (those the Hebbian co-activation pairs).
--   edge_*   — with @entities, when the first @max_entities of them are two or more: the
--              co_occurs edges among those, locked, in id order, as parallel arrays (id,
--              source, target, weight, variance, activation count, last activation); edges
--              another transaction holds are skipped (recall never waits on a sleep or decay run), so the
--              co-activation needs no read of its own.
--   open_tags — with @stc: whether an unrescued tag was set in [@tags_from, @now] (these
--              memories' new tags among them), i.e. whether tag capture has anything to do.
--   pending_cues — with @cues: whether a pending, unexpired cue intention exists.
WITH upd AS (
    SELECT unnest(@ids::bigint[]) AS id, unnest(@stabilities::double precision[]) AS stability,
           unnest(@read_stabilities::double precision[]) AS read_stability
), locked AS (
    SELECT m.id FROM zb.memory m
    WHERE m.tenant_id = @tenant_id::text AND m.id IN (SELECT upd.id FROM upd)
    FOR UPDATE SKIP LOCKED
), touched AS (
    UPDATE zb.memory m
    SET access_count = m.access_count + 1, last_accessed_at = greatest(m.last_accessed_at, @now::timestamptz),
        stability = CASE WHEN m.stability IS NULL THEN NULL
                         WHEN m.stability = upd.read_stability OR NOT (upd.read_stability > 0) THEN upd.stability
                         ELSE least(m.stability * (upd.stability / upd.read_stability),
                                    greatest(m.stability, @max_stability::double precision)) END
    FROM upd
    WHERE m.tenant_id = @tenant_id::text AND m.id = upd.id AND m.id IN (SELECT locked.id FROM locked)
    RETURNING m.tenant_id, m.id, m.layer, m.status, m.stability, m.confidence
), lability AS (
    INSERT INTO zb.lability_window (tenant_id, memory_id, opened_at, closes_at)
    SELECT t.tenant_id, t.id, @now::timestamptz, @closes_at::timestamptz FROM touched t
    ON CONFLICT (tenant_id, memory_id) DO UPDATE SET opened_at = EXCLUDED.opened_at, closes_at = EXCLUDED.closes_at
), tagged AS (
    INSERT INTO zb.stc_tag (tenant_id, memory_id, tagged_at, expires_at, strength_before)
    SELECT t.tenant_id, t.id, @now::timestamptz, @tag_expires_at::timestamptz,
           least(1, greatest(0, coalesce((
               SELECT max(zb.copy_strength(c.copy, c.initial_strength, c.tau_seconds, c.created_at, @now::timestamptz))
               FROM zb.triple_copy c WHERE c.tenant_id = t.tenant_id AND c.memory_id = t.id), 0)))
    FROM touched t
    WHERE @stc::boolean AND t.status = 'active' AND t.layer <> 'core' AND t.stability IS NOT NULL
      AND t.confidence < @tag_below::double precision
    ORDER BY t.id
    ON CONFLICT (tenant_id, memory_id) DO UPDATE
    SET tagged_at = EXCLUDED.tagged_at, expires_at = EXCLUDED.expires_at, strength_before = EXCLUDED.strength_before
    WHERE zb.stc_tag.rescued_at IS NULL AND zb.stc_tag.expires_at < EXCLUDED.tagged_at
    RETURNING memory_id
), ents AS (
    SELECT DISTINCT mn.entity_id FROM zb.mention mn
    WHERE @entities::boolean AND mn.tenant_id = @tenant_id::text AND mn.memory_id IN (SELECT t.id FROM touched t)
), coact AS (
    SELECT e.entity_id FROM ents e ORDER BY e.entity_id LIMIT @max_entities::int
), edges AS (
    SELECT ed.id, ed.source_id, ed.target_id, ed.weight, ed.variance, ed.activation_count, ed.last_activated_at
    FROM zb.edge ed
    WHERE ed.tenant_id = @tenant_id::text AND ed.relation = 'co_occurs'
      AND ed.source_id IN (SELECT c.entity_id FROM coact c) AND ed.target_id IN (SELECT c.entity_id FROM coact c)
      AND (SELECT count(*) FROM coact) > 1
    ORDER BY ed.id
    FOR UPDATE SKIP LOCKED
)
SELECT coalesce((SELECT array_agg(t.id ORDER BY t.id) FROM touched t), '{}')::bigint[] AS touched,
       coalesce((SELECT array_agg(g.memory_id ORDER BY g.memory_id) FROM tagged g), '{}')::bigint[] AS tagged,
       coalesce((SELECT array_agg(c.entity_id ORDER BY c.entity_id) FROM coact c), '{}')::bigint[] AS entities,
       coalesce((SELECT array_agg(x.id ORDER BY x.id) FROM edges x), '{}')::bigint[] AS edge_ids,
       coalesce((SELECT array_agg(x.source_id ORDER BY x.id) FROM edges x), '{}')::bigint[] AS edge_sources,
       coalesce((SELECT array_agg(x.target_id ORDER BY x.id) FROM edges x), '{}')::bigint[] AS edge_targets,
       coalesce((SELECT array_agg(x.weight ORDER BY x.id) FROM edges x), '{}')::double precision[] AS edge_weights,
       coalesce((SELECT array_agg(x.variance ORDER BY x.id) FROM edges x), '{}')::double precision[] AS edge_variances,
       coalesce((SELECT array_agg(x.activation_count ORDER BY x.id) FROM edges x), '{}')::integer[] AS edge_activation_counts,
       coalesce((SELECT array_agg(x.last_activated_at ORDER BY x.id) FROM edges x), '{}')::timestamptz[] AS edge_last_activated,
       (@stc::boolean AND (EXISTS (SELECT 1 FROM tagged)
            OR EXISTS (SELECT 1 FROM zb.stc_tag s WHERE s.tenant_id = @tenant_id::text AND s.rescued_at IS NULL
                         AND s.tagged_at BETWEEN @tags_from::timestamptz AND @now::timestamptz)))::boolean AS open_tags,
       (@cues::boolean AND EXISTS (
            SELECT 1 FROM zb.prospective_intention p
            WHERE p.tenant_id = @tenant_id::text AND p.status = 'pending' AND p.trigger_kind = 'cue'
              AND (p.expires_at IS NULL OR p.expires_at > @now::timestamptz)))::boolean AS pending_cues;

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
