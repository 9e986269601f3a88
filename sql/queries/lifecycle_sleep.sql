-- name: LcSleepLock :exec
-- LcSleepLock takes the transaction-level advisory lock of a tenant's sleep, so two sleeps never
-- overlap (the second waits for the first to commit).
SELECT pg_advisory_xact_lock(hashtext('zb.sleep'), hashtext(@tenant_id::text));

-- name: LcLastSleepRun :one
-- LcLastSleepRun returns the start and details of a tenant's last finished sleep run (no row:
-- never slept).
SELECT started_at, details FROM zb.sleep_run
WHERE tenant_id = @tenant_id::text AND finished_at IS NOT NULL
ORDER BY started_at DESC, id DESC
LIMIT 1;

-- name: LcSleepEpisodes :many
-- LcSleepEpisodes locks up to k active, decaying memories of a tenant with activity (store or
-- used recall) in (since, until] whose id is below the cursor, newest (highest id) first;
-- rows another transaction holds are skipped. The tenant's primary key is walked downwards
-- from the cursor, so the rounds of one window read each of the tenant's memories at most once
-- in all (ordering by last activity instead sorted the tenant's active rows in every round:
-- memory_activity_idx was dropped in 0014 so that recall's access update stays HOT).
SELECT m.id, m.context, m.layer, m.kind, m.content, m.session_id, m.occurred_at, m.created_at, m.stability,
       m.last_accessed_at, m.valence, m.arousal, m.significance, m.value_estimate, m.access_count, m.confidence,
       m.fade_at, cardinality(m.source_ids)::int AS carries, m.ai_generated
FROM zb.memory m
WHERE m.tenant_id = @tenant_id::text AND m.id < @cursor_id::bigint
  AND m.status = 'active' AND m.last_accessed_at > @since::timestamptz AND m.last_accessed_at <= @until::timestamptz
  AND m.layer NOT IN ('core', 'working') AND m.stability IS NOT NULL
ORDER BY m.id DESC
LIMIT @k::int
FOR UPDATE OF m SKIP LOCKED;

-- name: LcRecallCounts :many
-- LcRecallCounts counts, per memory, the recalls that returned it in (since, now].
SELECT u.id::bigint AS memory_id, count(*)::int AS n
FROM zb.recall_event r, unnest(r.result_ids) AS u(id)
WHERE r.tenant_id = @tenant_id::text AND r.created_at > @since::timestamptz AND r.created_at <= @now::timestamptz
  AND u.id = ANY (@memory_ids::bigint[])
GROUP BY u.id;

-- name: LcLinksAmongLock :many
-- LcLinksAmongLock locks the memory links of one relation whose both ends are among ids.
SELECT source_id, target_id, relation, weight, origin, created_at FROM zb.memory_link
WHERE tenant_id = @tenant_id::text AND relation = (@relation::text)::zb.edge_relation
  AND source_id = ANY (@ids::bigint[]) AND target_id = ANY (@ids::bigint[])
ORDER BY source_id, target_id
FOR UPDATE;

-- name: LcLinkSetWeight :exec
-- LcLinkSetWeight writes one memory link's weight.
UPDATE zb.memory_link SET weight = @weight::double precision
WHERE tenant_id = @tenant_id::text AND source_id = @source_id::bigint AND target_id = @target_id::bigint
  AND relation = (@relation::text)::zb.edge_relation;

-- name: LcSetValues :exec
-- LcSetValues writes memories' TD value estimates.
UPDATE zb.memory m SET value_estimate = u.v
FROM (SELECT unnest(@ids::bigint[]) AS id, unnest(@values::double precision[]) AS v) u
WHERE m.tenant_id = @tenant_id::text AND m.id = u.id;

-- name: LcSetStability :exec
-- LcSetStability writes memories' stability and predicted fade time.
UPDATE zb.memory m SET stability = u.s, fade_at = u.f
FROM (SELECT unnest(@ids::bigint[]) AS id, unnest(@stabilities::double precision[]) AS s,
             unnest(@fade_ats::timestamptz[]) AS f) u
WHERE m.tenant_id = @tenant_id::text AND m.id = u.id;

-- name: LcDeepCopyUpsert :execrows
-- LcDeepCopyUpsert promotes a memory to a deep copy (the first promotion time is kept, the
-- strength only grows).
INSERT INTO zb.triple_copy (tenant_id, memory_id, copy, initial_strength, tau_seconds, created_at)
VALUES (@tenant_id::text, @memory_id::bigint, 'deep', @strength::double precision, @tau_seconds::double precision, @now::timestamptz)
ON CONFLICT (tenant_id, memory_id, copy) DO UPDATE
SET initial_strength = greatest(zb.triple_copy.initial_strength, EXCLUDED.initial_strength);

-- name: LcCountActive :one
-- LcCountActive counts a tenant's active memories (the storage figure of sleep_run) from the
-- document counts of its BM25 statistic deltas, which the memory table's triggers keep equal to
-- the number of its active rows: a few delta rows (one per writing statement until compaction)
-- instead of every memory of the tenant, twice per sleep round.
SELECT coalesce(sum(d.docs), 0)::int FROM zb.lexical_stat_delta d WHERE d.tenant_id = @tenant_id::text;

-- name: LcCountGraph :one
-- LcCountGraph counts a tenant's entity edges plus its associated memory links (the edge figure
-- of sleep_run).
SELECT ((SELECT count(*) FROM zb.edge e WHERE e.tenant_id = @tenant_id::text)
      + (SELECT count(*) FROM zb.memory_link l WHERE l.tenant_id = @tenant_id::text AND l.relation = 'associated'))::int AS n;

-- name: LcEntityGraph :many
-- LcEntityGraph returns up to k of a tenant's entity edges, strongest first (spectral health).
SELECT source_id, target_id, weight, variance, activation_count, last_activated_at FROM zb.edge
WHERE tenant_id = @tenant_id::text
ORDER BY weight DESC, id
LIMIT @k::int;

-- name: LcSchemaCandidates :many
-- LcSchemaCandidates locks the active, embedded episodic memories among ids that are not
-- schemas, oldest first, for dual-process consolidation.
SELECT id, content, occurred_at, created_at, embedding::real[] AS embedding, embedding_model, source_ids, context
FROM zb.memory
WHERE tenant_id = @tenant_id::text AND id = ANY (@ids::bigint[]) AND status = 'active' AND layer = 'episodic'
  AND kind <> 'schema' AND embedding IS NOT NULL
ORDER BY coalesce(occurred_at, created_at), id
FOR UPDATE SKIP LOCKED;

-- name: LcSleepRunInsert :one
-- LcSleepRunInsert records a finished sleep run.
INSERT INTO zb.sleep_run (tenant_id, trigger, seed, started_at, finished_at, episodes_considered, counterfactuals,
    selected, ltp_count, ltd_count, new_associations, pruned_edges, archived, promotions, schemas_created,
    mean_stability_before, mean_stability_after, storage_before, storage_after, edges_before, edges_after,
    fiedler_before, fiedler_after, details)
VALUES (@tenant_id::text, @trigger::text, @seed::bigint, @now::timestamptz, @now::timestamptz, @episodes::int,
    @counterfactuals::int, @selected::int, @ltp::int, @ltd::int, @new_associations::int, @pruned::int,
    @archived::int, @promotions::int, @schemas::int, sqlc.narg('mean_stability_before')::double precision,
    sqlc.narg('mean_stability_after')::double precision, @storage_before::int, @storage_after::int,
    @edges_before::int, @edges_after::int, sqlc.narg('fiedler_before')::double precision,
    sqlc.narg('fiedler_after')::double precision, @details::jsonb)
RETURNING id;

-- name: LcNeighbourhood :many
-- LcNeighbourhood returns the memories within max_depth memory_link hops (either direction) of
-- ids, nearest first, at most k.
WITH RECURSIVE hop(id, depth) AS (
    SELECT u.id, 0 FROM unnest(@ids::bigint[]) AS u(id)
    UNION
    -- Both directions as two index probes (the primary key and memory_link_target_idx): an OR
    -- in the join condition makes the planner scan the tenant's links on every iteration.
    SELECT n.id, h.depth + 1
    FROM hop h
    CROSS JOIN LATERAL (
        SELECT l.target_id AS id FROM zb.memory_link l WHERE l.tenant_id = @tenant_id::text AND l.source_id = h.id
        UNION ALL
        SELECT l.source_id FROM zb.memory_link l WHERE l.tenant_id = @tenant_id::text AND l.target_id = h.id
    ) n
    WHERE h.depth < @max_depth::int
)
SELECT hop.id::bigint AS id, min(hop.depth)::int AS depth FROM hop
GROUP BY hop.id
ORDER BY 2, 1
LIMIT @k::int;

-- name: LcBeliefsLock :many
-- LcBeliefsLock locks the memories' confidence state.
SELECT id, conf_alpha, conf_beta, confidence FROM zb.memory
WHERE tenant_id = @tenant_id::text AND id = ANY (@ids::bigint[]) AND status <> 'erased'
ORDER BY id
FOR UPDATE;

-- name: LcLinksAmong :many
-- LcLinksAmong returns the memory links (any relation) whose both ends are among ids.
SELECT source_id, target_id, relation::text AS relation, weight FROM zb.memory_link
WHERE tenant_id = @tenant_id::text AND source_id = ANY (@ids::bigint[]) AND target_id = ANY (@ids::bigint[])
ORDER BY source_id, target_id, relation;

-- name: LcSetConfidence :exec
-- LcSetConfidence writes memories' propagated confidence.
UPDATE zb.memory m SET confidence = u.c
FROM (SELECT unnest(@ids::bigint[]) AS id, unnest(@confidences::double precision[]) AS c) u
WHERE m.tenant_id = @tenant_id::text AND m.id = u.id;
