-- name: StcTagWeakActive :many
-- StcTagWeakActive is sleep's tagging pass: every weak (confidence below @below), active,
-- decaying memory of the tenant last activated (stored or recalled) in [@since, @now] is tagged
-- at its last activation, its window closing @window_seconds later (the same conflict rule as
-- StcTagWeak). At most @k memories, the most recently activated first. It returns the ids tagged.
-- The candidates come from the activation log's rows in the span (0027), each memory then read
-- by primary key and held to the same conditions — when the span starts at or after the
-- tenant's log horizon and its rows, each weighed @lookup_cost scanned memories, cost no more
-- than reading the tenant (the count stops there); otherwise the tenant's memories are read (the
-- other branch is skipped by a one-time filter).
WITH bounds AS MATERIALIZED (
    -- The tenant's active memories (n), the weight of a logged activation (k), the log's horizon
    -- and the span (parameters alone in their own select list: sqlc types them there).
    SELECT coalesce((SELECT sum(d.docs) FROM zb.lexical_stat_delta d WHERE d.tenant_id = @tenant_id::text), 0)::bigint AS n,
           greatest(@lookup_cost::double precision, 1e-9) AS k,
           coalesce((SELECT h.horizon FROM zb.memory_activation_horizon h WHERE h.tenant_id = @tenant_id::text),
                    '-infinity'::timestamptz) AS horizon,
           @since::timestamptz AS lo, @now::timestamptz AS hi
), logged AS MATERIALIZED (
    SELECT b.lo >= b.horizon
           AND zb.memory_activation_count(@tenant_id::text, b.lo, b.hi, least(b.n / b.k, 1e15)::bigint + 1) * b.k <= b.n AS ok
    FROM bounds b
)
INSERT INTO zb.stc_tag (tenant_id, memory_id, tagged_at, expires_at, strength_before)
SELECT m.tenant_id, m.id, m.last_accessed_at, m.last_accessed_at + make_interval(secs => @window_seconds::double precision),
       least(1, greatest(0, coalesce((
           SELECT max(zb.copy_strength(t.copy, t.initial_strength, t.tau_seconds, t.created_at, m.last_accessed_at))
           FROM zb.triple_copy t WHERE t.tenant_id = m.tenant_id AND t.memory_id = m.id), 0)))
FROM (
    SELECT w.tenant_id, w.id, w.last_accessed_at
    FROM (
        SELECT x.tenant_id, x.id, x.last_accessed_at FROM zb.memory x
        WHERE NOT (SELECT l.ok FROM logged l)
          AND x.tenant_id = @tenant_id::text AND x.status = 'active' AND x.layer <> 'core' AND x.stability IS NOT NULL
          AND x.last_accessed_at BETWEEN @since::timestamptz AND @now::timestamptz AND x.confidence < @below::double precision
        UNION ALL
        SELECT x.tenant_id, x.id, x.last_accessed_at
        FROM (SELECT DISTINCT a.memory_id FROM zb.memory_activation a
              WHERE (SELECT l.ok FROM logged l) AND a.tenant_id = @tenant_id::text
                AND a.at BETWEEN @since::timestamptz AND @now::timestamptz) a
        CROSS JOIN LATERAL (
            SELECT x.tenant_id, x.id, x.last_accessed_at FROM zb.memory x
            WHERE x.tenant_id = @tenant_id::text AND x.id = a.memory_id
              AND x.status = 'active' AND x.layer <> 'core' AND x.stability IS NOT NULL
              AND x.last_accessed_at BETWEEN @since::timestamptz AND @now::timestamptz AND x.confidence < @below::double precision
            OFFSET 0
        ) x
    ) w
    ORDER BY w.last_accessed_at DESC, w.id
    LIMIT @k::integer
) m
ORDER BY m.id
ON CONFLICT (tenant_id, memory_id) DO UPDATE
SET tagged_at = EXCLUDED.tagged_at, expires_at = EXCLUDED.expires_at, strength_before = EXCLUDED.strength_before
WHERE zb.stc_tag.rescued_at IS NULL AND zb.stc_tag.expires_at < EXCLUDED.tagged_at
RETURNING memory_id;

-- name: StcOpenTags :many
-- StcOpenTags returns the tenant's unrescued tags set in [@from_time, @to_time] whose memory is still
-- active and decaying, with the memory's current triple-copy strength at @now (0 without
-- copies), oldest tag first, at most @k. It opens every capture pass, and switches JIT off for
-- the rest of the transaction as the lifecycle jobs' preamble does (NeuroTickPreamble): the
-- donor search that follows (StcDonors) has a high estimated cost whichever way it takes, and a
-- recall's side effects would otherwise compile it for about a second.
WITH nojit AS MATERIALIZED (SELECT set_config('jit', 'off', true) AS jit)
SELECT t.memory_id, t.tagged_at, t.expires_at, t.strength_before, m.confidence,
       least(1, greatest(0, coalesce((
           SELECT max(zb.copy_strength(c.copy, c.initial_strength, c.tau_seconds, c.created_at, @now::timestamptz))
           FROM zb.triple_copy c WHERE c.tenant_id = m.tenant_id AND c.memory_id = m.id), 0)))::double precision AS strength
FROM nojit
CROSS JOIN zb.stc_tag t
JOIN zb.memory m ON m.tenant_id = t.tenant_id AND m.id = t.memory_id
WHERE t.tenant_id = @tenant_id::text AND t.rescued_at IS NULL
  AND t.tagged_at BETWEEN @from_time::timestamptz AND @to_time::timestamptz
  AND m.status = 'active' AND m.stability IS NOT NULL
ORDER BY t.tagged_at, t.memory_id
LIMIT @k::integer;

-- name: StcDonors :many
-- StcDonors returns, for each given unrescued tag, the strong related memories (confidence
-- above @above, active) activated within @window_seconds of the tag's time and not after @now,
-- with the activation closest to the tag's time. Related means sharing the tag memory's entity
-- cluster: an entity of the tagged memory, or an entity joined to one of them by an edge of
-- weight at least @min_weight. Activations are the donor's creation, its last access and the
-- recall events that returned it.
--
-- Two ways give the same rows; the cheaper one runs (the other is skipped by a one-time
-- filter). From the clusters: every memory mentioning one of a cluster's entities is read, then
-- the window decides — the entities' mention counts, summed over the tags, times @cluster_cost,
-- is its cost. From the activations: the strong memories activated in the span the tags'
-- windows cover (created or last accessed in it, or returned by a recall event in it), and only
-- those are matched with the clusters. Since 0027 they come from the activation log's rows in
-- the span, each memory read by primary key and held to the same conditions (the rows times
-- @lookup_cost is this way's cost), unless the span starts before the tenant's log horizon or
-- that costs more than reading the tenant's memories (the tenant's memory count is then the
-- cost). A tenant with many entities has small clusters; one with few has clusters covering
-- most of it.
WITH tags AS (
    SELECT t.memory_id, t.tagged_at FROM zb.stc_tag t
    WHERE t.tenant_id = @tenant_id::text AND t.memory_id = ANY (@tag_ids::bigint[]) AND t.rescued_at IS NULL
), tag_ents AS (
    SELECT g.memory_id AS tag_id, mn.entity_id
    FROM tags g JOIN zb.mention mn ON mn.tenant_id = @tenant_id::text AND mn.memory_id = g.memory_id
), cluster AS (
    SELECT te.tag_id, te.entity_id FROM tag_ents te
    UNION
    SELECT te.tag_id, e.target_id FROM tag_ents te
    JOIN zb.edge e ON e.tenant_id = @tenant_id::text AND e.source_id = te.entity_id AND e.weight >= @min_weight::double precision
    UNION
    SELECT te.tag_id, e.source_id FROM tag_ents te
    JOIN zb.edge e ON e.tenant_id = @tenant_id::text AND e.target_id = te.entity_id AND e.weight >= @min_weight::double precision
), span AS MATERIALIZED (
    SELECT min(g.tagged_at) - make_interval(secs => @window_seconds::double precision) AS lo,
           least(max(g.tagged_at) + make_interval(secs => @window_seconds::double precision), @now::timestamptz) AS hi
    FROM tags g
), docs AS MATERIALIZED (
    -- The tenant's active memories and the weight of a logged activation (parameters alone in
    -- their own select list: sqlc types them there).
    SELECT coalesce((SELECT sum(d.docs) FROM zb.lexical_stat_delta d WHERE d.tenant_id = @tenant_id::text), 0)::bigint AS n,
           greatest(@lookup_cost::double precision, 1e-9) AS k
), logged AS MATERIALIZED (
    -- The activation log's rows in the span, counted up to what reading the tenant would cost.
    SELECT c.lo >= coalesce((SELECT h.horizon FROM zb.memory_activation_horizon h WHERE h.tenant_id = @tenant_id::text),
                            '-infinity')
           AND c.rows * c.k <= c.n AS ok,
           c.rows * c.k AS cost
    FROM (SELECT s.lo, dc.n, dc.k, zb.memory_activation_count(@tenant_id::text, s.lo, s.hi, least(dc.n / dc.k, 1e15)::bigint + 1) AS rows
          FROM span s CROSS JOIN docs dc) c
), route AS MATERIALIZED (
    SELECT coalesce((SELECT sum(en.mention_count) FROM cluster c
                     JOIN zb.entity en ON en.tenant_id = @tenant_id::text AND en.id = c.entity_id), 0)::double precision
               * @cluster_cost::double precision
           <= CASE WHEN (SELECT l.ok FROM logged l) THEN (SELECT l.cost FROM logged l)
                   ELSE (SELECT dc.n FROM docs dc) END::double precision
           AS from_clusters
), recalled AS (
    SELECT e.created_at AS at, r.id AS memory_id
    FROM span s
    JOIN zb.recall_event e ON e.tenant_id = @tenant_id::text AND e.created_at BETWEEN s.lo AND s.hi
    CROSS JOIN LATERAL unnest(e.result_ids) AS r(id)
), strong AS (
    SELECT d.id, d.confidence, d.created_at, d.last_accessed_at
    FROM span s
    JOIN zb.memory d ON d.tenant_id = @tenant_id::text
    WHERE NOT (SELECT r.from_clusters FROM route r) AND NOT (SELECT l.ok FROM logged l)
      AND d.status = 'active' AND d.confidence > @above::double precision
      AND (d.created_at BETWEEN s.lo AND s.hi OR d.last_accessed_at BETWEEN s.lo AND s.hi
           OR d.id IN (SELECT r.memory_id FROM recalled r))
    UNION ALL
    -- From the log: the memories with a logged activation in the span or a recall event in it,
    -- each read by primary key (LATERAL, kept apart) and held to the same conditions.
    SELECT d.id, d.confidence, d.created_at, d.last_accessed_at
    FROM (SELECT a.memory_id FROM span s JOIN zb.memory_activation a
          ON a.tenant_id = @tenant_id::text AND a.at BETWEEN s.lo AND s.hi
          WHERE NOT (SELECT rt.from_clusters FROM route rt) AND (SELECT l.ok FROM logged l)
          UNION
          SELECT rc.memory_id FROM recalled rc
          WHERE NOT (SELECT rt.from_clusters FROM route rt) AND (SELECT l.ok FROM logged l)) c
    CROSS JOIN span s
    CROSS JOIN LATERAL (
        SELECT d.id, d.confidence, d.created_at, d.last_accessed_at FROM zb.memory d
        WHERE d.tenant_id = @tenant_id::text AND d.id = c.memory_id
          AND d.status = 'active' AND d.confidence > @above::double precision
          AND (d.created_at BETWEEN s.lo AND s.hi OR d.last_accessed_at BETWEEN s.lo AND s.hi
               OR d.id IN (SELECT r.memory_id FROM recalled r))
        OFFSET 0
    ) d
), pairs AS (
    SELECT DISTINCT c.tag_id, s.id AS donor_id, s.confidence, s.created_at, s.last_accessed_at
    FROM strong s
    -- LATERAL, kept apart (OFFSET 0): each strong memory's mentions through the primary key
    -- (joined, the planner misjudges the strong set's size and hashes the tenant's mentions).
    CROSS JOIN LATERAL (
        SELECT mn.entity_id FROM zb.mention mn WHERE mn.tenant_id = @tenant_id::text AND mn.memory_id = s.id OFFSET 0
    ) mn
    JOIN cluster c ON c.entity_id = mn.entity_id
    WHERE s.id <> c.tag_id
    UNION ALL
    SELECT p.tag_id, p.donor_id, d.confidence, d.created_at, d.last_accessed_at
    FROM (SELECT DISTINCT c.tag_id, mn.memory_id AS donor_id
          FROM cluster c JOIN zb.mention mn ON mn.tenant_id = @tenant_id::text AND mn.entity_id = c.entity_id
          WHERE mn.memory_id <> c.tag_id AND (SELECT r.from_clusters FROM route r)) p
    -- LATERAL, kept apart (OFFSET 0): one primary-key read per pair, none when this way is
    -- skipped (joined, the planner hashes the tenant's memories for the other side).
    CROSS JOIN LATERAL (
        SELECT d.confidence, d.created_at, d.last_accessed_at FROM zb.memory d
        WHERE d.tenant_id = @tenant_id::text AND d.id = p.donor_id
          AND d.status = 'active' AND d.confidence > @above::double precision
        OFFSET 0
    ) d
), acts AS (
    SELECT p.tag_id, p.donor_id, p.confidence, g.tagged_at, p.created_at AS at FROM pairs p JOIN tags g ON g.memory_id = p.tag_id
    UNION ALL
    SELECT p.tag_id, p.donor_id, p.confidence, g.tagged_at, p.last_accessed_at FROM pairs p JOIN tags g ON g.memory_id = p.tag_id
    UNION ALL
    SELECT p.tag_id, p.donor_id, p.confidence, g.tagged_at, r.at
    FROM pairs p JOIN tags g ON g.memory_id = p.tag_id JOIN recalled r ON r.memory_id = p.donor_id
)
SELECT DISTINCT ON (a.tag_id, a.donor_id) a.tag_id, a.donor_id, a.confidence, a.at::timestamptz AS activated_at
FROM acts a
WHERE a.at BETWEEN a.tagged_at - make_interval(secs => @window_seconds::double precision)
               AND a.tagged_at + make_interval(secs => @window_seconds::double precision)
  AND a.at <= @now::timestamptz
ORDER BY a.tag_id, a.donor_id, abs(extract(epoch FROM a.at - a.tagged_at)), a.at;

-- name: StcLockMemory :many
-- StcLockMemory locks a tagged memory for its rescue, skipping it when another transaction holds
-- it (a sleep or decay run), and returns the state the rescue rewrites: stability, emotion, last
-- access, the current triple-copy strength at @now and the medium copy's time constant (0 without
-- one). No row means skipped.
SELECT m.id, m.layer, m.stability, m.valence, m.arousal, m.significance, m.last_accessed_at,
       least(1, greatest(0, coalesce((
           SELECT max(zb.copy_strength(c.copy, c.initial_strength, c.tau_seconds, c.created_at, @now::timestamptz))
           FROM zb.triple_copy c WHERE c.tenant_id = m.tenant_id AND c.memory_id = m.id), 0)))::double precision AS strength,
       coalesce((SELECT c.tau_seconds FROM zb.triple_copy c
                 WHERE c.tenant_id = m.tenant_id AND c.memory_id = m.id AND c.copy = 'medium'), 0)::double precision AS medium_tau
FROM zb.memory m
WHERE m.tenant_id = @tenant_id::text AND m.id = @id::bigint AND m.status = 'active' AND m.stability IS NOT NULL
FOR UPDATE OF m SKIP LOCKED;

-- name: StcRescueTag :execrows
-- StcRescueTag marks an unrescued tag rescued by a donor at @now.
UPDATE zb.stc_tag SET rescued_at = @now::timestamptz, rescued_by = @donor_id::bigint
WHERE tenant_id = @tenant_id::text AND memory_id = @memory_id::bigint AND rescued_at IS NULL;

-- name: StcMemoryRescue :execrows
-- StcMemoryRescue writes a rescued memory's new stability (decay rate halved: stability doubled)
-- and its new predicted fade time.
UPDATE zb.memory SET stability = @stability::double precision, fade_at = sqlc.narg('fade_at')::timestamptz,
                     updated_at = greatest(updated_at, @now::timestamptz)
WHERE tenant_id = @tenant_id::text AND id = @id::bigint AND status = 'active' AND stability IS NOT NULL;

-- name: StcCopyRescue :exec
-- StcCopyRescue re-bases a rescued memory's medium triple copy at @now: strength
-- min(1, s + 0.3) and a doubled time constant (decay rate halved). A memory without a medium
-- copy gets one.
INSERT INTO zb.triple_copy (tenant_id, memory_id, copy, initial_strength, tau_seconds, created_at)
VALUES (@tenant_id::text, @memory_id::bigint, 'medium', @strength::double precision, @tau_seconds::double precision,
        @now::timestamptz)
ON CONFLICT (tenant_id, memory_id, copy) DO UPDATE
SET initial_strength = EXCLUDED.initial_strength, tau_seconds = EXCLUDED.tau_seconds, created_at = EXCLUDED.created_at;

-- name: StcTagList :many
-- StcTagList returns a tenant's synaptic tags, newest first, at most @k.
SELECT memory_id, tagged_at, expires_at, strength_before, rescued_at, rescued_by
FROM zb.stc_tag WHERE tenant_id = @tenant_id::text
ORDER BY tagged_at DESC, memory_id
LIMIT @k::integer;

-- name: StcTagWeakFormed :many
-- StcTagWeakFormed is StcTagWeak for memories activated at their formation: each weak one is
-- tagged at its created_at (at most @now), its window closing @window_seconds later.
INSERT INTO zb.stc_tag (tenant_id, memory_id, tagged_at, expires_at, strength_before)
SELECT m.tenant_id, m.id, least(m.created_at, @now::timestamptz),
       least(m.created_at, @now::timestamptz) + make_interval(secs => @window_seconds::double precision),
       least(1, greatest(0, coalesce((
           SELECT max(zb.copy_strength(t.copy, t.initial_strength, t.tau_seconds, t.created_at, least(m.created_at, @now::timestamptz)))
           FROM zb.triple_copy t WHERE t.tenant_id = m.tenant_id AND t.memory_id = m.id), 0)))
FROM zb.memory m
WHERE m.tenant_id = @tenant_id::text AND m.id = ANY (@ids::bigint[]) AND m.status = 'active'
  AND m.layer <> 'core' AND m.stability IS NOT NULL AND m.confidence < @below::double precision
ORDER BY m.id
ON CONFLICT (tenant_id, memory_id) DO UPDATE
SET tagged_at = EXCLUDED.tagged_at, expires_at = EXCLUDED.expires_at, strength_before = EXCLUDED.strength_before
WHERE zb.stc_tag.rescued_at IS NULL AND zb.stc_tag.expires_at < EXCLUDED.tagged_at
RETURNING memory_id;

-- name: StcActivationPrune :one
-- StcActivationPrune deletes the tenant's activation-log rows older than @before and moves its
-- log horizon there (0027); it returns the rows deleted.
SELECT zb.memory_activation_prune(@tenant_id::text, @before::timestamptz)::bigint AS deleted;
