-- name: McCopyStrengths :many
-- McCopyStrengths returns, for each of @ids of the tenant that has triple copies, its triple-copy
-- strength at @now: the maximum over its fast, medium and deep copies of zb.copy_strength
-- (pma.TripleCopyMemory.Strengths(...).Strength), clamped to [0, 1]. Memories without copies
-- are absent. Only zb.triple_copy is read (its primary key serves the lookup).
SELECT c.memory_id,
       least(1, greatest(0, max(zb.copy_strength(c.copy, c.initial_strength, c.tau_seconds, c.created_at, @now::timestamptz))))::double precision AS strength
FROM zb.triple_copy c
WHERE c.tenant_id = @tenant_id::text AND c.memory_id = ANY (@ids::bigint[])
GROUP BY c.memory_id
ORDER BY c.memory_id;

-- name: McSessionContext :one
-- McSessionContext returns the context (domain) of a session of the tenant: the reading context
-- of the compositional context [compositional_context].
SELECT s.context FROM zb.session s WHERE s.tenant_id = @tenant_id::text AND s.id = @id::uuid;

-- name: McMentionNames :many
-- McMentionNames returns the normalized names of the entities each of @ids mentions (the
-- entity identifiers within the memory's own context), by memory then name.
SELECT mn.memory_id, e.normalized_name
FROM zb.mention mn
JOIN zb.entity e ON e.tenant_id = mn.tenant_id AND e.id = mn.entity_id
WHERE mn.tenant_id = @tenant_id::text AND mn.memory_id = ANY (@ids::bigint[])
ORDER BY mn.memory_id, e.normalized_name;

-- name: McComposeCandidates :many
-- McComposeCandidates returns the compositional context's candidates from other contexts
-- [compositional_context]: the active memories of the contexts that zb.context_policy lets
-- @target read (allowed rows; a context always reads itself, which is not a candidate here) that
-- mention an entity linked to an anchor. The anchors are the entities of @target whose
-- normalized name is in @names (the query's and the home memories' entities). An entity of
-- another context is linked to an anchor when it has the same normalized name (the entity
-- resolution of the cross_context layer) or a same_as edge joins them. Per memory: its
-- context, content, layer and, as link pairs, the anchors' names (anchor_names[i]) and its own
-- linked entities' names (entity_names[i]). At most @k memories, by number of links then
-- recency.
WITH grants AS (
    SELECT p.source_context AS context FROM zb.context_policy p
    WHERE p.tenant_id = @tenant_id::text AND p.reader_context = @target::text AND p.allowed
      AND p.source_context <> @target::text
), anchors AS (
    SELECT a.id, a.normalized_name FROM zb.entity a
    WHERE a.tenant_id = @tenant_id::text AND a.context = @target::text AND a.normalized_name = ANY (@names::text[])
), linked AS (
    SELECT e.id AS entity_id, e.normalized_name, a.normalized_name AS anchor_name
    FROM anchors a
    JOIN zb.entity e ON e.tenant_id = @tenant_id::text AND e.normalized_name = a.normalized_name
    WHERE e.context IN (SELECT g.context FROM grants g)
    UNION
    SELECT e.id, e.normalized_name, a.normalized_name
    FROM anchors a
    JOIN zb.edge x ON x.tenant_id = @tenant_id::text AND x.relation = 'same_as' AND (x.source_id = a.id OR x.target_id = a.id)
    JOIN zb.entity e ON e.tenant_id = @tenant_id::text
                    AND e.id = CASE WHEN x.source_id = a.id THEN x.target_id ELSE x.source_id END
    WHERE e.context IN (SELECT g.context FROM grants g)
)
SELECT m.id, m.context, m.content, m.layer,
       array_agg(l.anchor_name ORDER BY l.anchor_name, l.normalized_name)::text[] AS anchor_names,
       array_agg(l.normalized_name ORDER BY l.anchor_name, l.normalized_name)::text[] AS entity_names
FROM linked l
JOIN zb.mention mn ON mn.tenant_id = @tenant_id::text AND mn.entity_id = l.entity_id
JOIN zb.memory m ON m.tenant_id = @tenant_id::text AND m.id = mn.memory_id
WHERE m.status = 'active' AND m.context IN (SELECT g.context FROM grants g)
GROUP BY m.id, m.context, m.content, m.layer, m.created_at
ORDER BY count(*) DESC, m.created_at DESC, m.id
LIMIT @k::int;

-- name: McContextGrants :many
-- McContextGrants returns the contexts zb.context_policy lets @target read (besides itself).
SELECT p.source_context FROM zb.context_policy p
WHERE p.tenant_id = @tenant_id::text AND p.reader_context = @target::text AND p.allowed
  AND p.source_context <> @target::text
ORDER BY p.source_context;

-- name: McMetacogAt :many
-- McMetacogAt returns the metacognitive events the monitor recorded for the tenant at exactly
-- @now (one sleep run's signals), by kind.
SELECT e.kind, e.value, e.detail FROM zb.metacog_event e
WHERE e.tenant_id = @tenant_id::text AND e.created_at = @now::timestamptz
ORDER BY e.kind, e.id;

-- name: McParams :many
-- McParams returns the tenant's tuned parameters (zb.tenant_parameter), by name.
SELECT p.name, p.value, p.min_value, p.max_value FROM zb.tenant_parameter p
WHERE p.tenant_id = @tenant_id::text ORDER BY p.name;

-- name: McParamSet :exec
-- McParamSet writes one tuned parameter of the tenant with its bounds.
INSERT INTO zb.tenant_parameter (tenant_id, name, value, min_value, max_value, updated_at)
VALUES (@tenant_id::text, @name::text, @value::float8, @min_value::float8, @max_value::float8, @now::timestamptz)
ON CONFLICT (tenant_id, name) DO UPDATE
SET value = EXCLUDED.value, min_value = EXCLUDED.min_value, max_value = EXCLUDED.max_value, updated_at = EXCLUDED.updated_at;

-- name: McAdjustmentInsert :one
-- McAdjustmentInsert logs one HyperAgent adjustment (zb.hyperagent_adjustment).
INSERT INTO zb.hyperagent_adjustment (tenant_id, parameter, old_value, new_value, reason, signals, applied_at)
VALUES (@tenant_id::text, @parameter::text, @old_value::float8, @new_value::float8, @reason::text, @signals::jsonb, @now::timestamptz)
RETURNING id;

-- name: McAdjustmentsSince :many
-- McAdjustmentsSince returns the tenant's adjustments applied after @since and not reverted,
-- oldest first (the HyperAgent's daily budget).
SELECT a.id, a.parameter, a.old_value, a.new_value, a.applied_at FROM zb.hyperagent_adjustment a
WHERE a.tenant_id = @tenant_id::text AND a.applied_at > @since::timestamptz AND a.reverted_at IS NULL
ORDER BY a.applied_at, a.id;

-- name: McAdjustmentLock :one
-- McAdjustmentLock locks one adjustment of the tenant for its revert.
SELECT a.id, a.parameter, a.old_value, a.new_value, a.reason, a.applied_at, a.reverted_at FROM zb.hyperagent_adjustment a
WHERE a.tenant_id = @tenant_id::text AND a.id = @id::bigint
FOR UPDATE;

-- name: McAdjustmentReverted :exec
-- McAdjustmentReverted marks one adjustment of the tenant reverted at @now.
UPDATE zb.hyperagent_adjustment SET reverted_at = @now::timestamptz
WHERE tenant_id = @tenant_id::text AND id = @id::bigint AND reverted_at IS NULL;
