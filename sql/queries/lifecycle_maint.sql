-- name: LcDecayCandidates :many
-- LcDecayCandidates locks up to k active memories of a tenant whose predicted fade time has
-- passed, in fade order, through decay's schedule zb.memory_fade (tenant_id, fade_at); rows
-- another transaction holds are skipped. Per row, carried reports that another active
-- consolidated memory (an AI-generated or schema memory) lists it among its sources and states
-- its text as it is (a fact copied from a turn: the same granularity, so the row may go; an
-- episode or schema that merely contains or summarizes it does not carry it), and entities
-- counts the entities it mentions (mention_pkey). The carriers are found once for the whole batch
-- (source_ids && the candidates' ids: one probe of the GIN index memory_source_ids_idx, or at
-- worst one pass over the tenant's active rows) in a materialized step, never once per
-- candidate: inlined into the EXISTS, a planner with stale statistics (a young tenant) ran it
-- per candidate and rescanned the tenant's active rows each time.
WITH cand AS (
    SELECT m.id, m.context, m.layer, m.kind, m.content, m.stability, m.last_accessed_at, m.valence, m.arousal,
           m.significance, m.access_count, m.confidence, m.embedding, m.fade_at, m.source_ids, m.tenant_id, m.ai_generated
    FROM zb.memory_fade f
    JOIN zb.memory m ON m.tenant_id = f.tenant_id AND m.id = f.memory_id
    WHERE f.tenant_id = @tenant_id::text AND f.fade_at <= @now::timestamptz AND m.status = 'active'
    ORDER BY f.fade_at, f.memory_id
    LIMIT @k::int
    FOR UPDATE OF m SKIP LOCKED
), carriers AS MATERIALIZED (
    SELECT DISTINCT s.id, c.content
    FROM zb.memory c CROSS JOIN LATERAL unnest(c.source_ids) AS s(id)
    WHERE c.source_ids && (SELECT coalesce(array_agg(cand.id), '{}'::bigint[]) FROM cand)
      AND c.tenant_id = @tenant_id::text AND c.status = 'active' AND (c.ai_generated OR c.kind = 'schema') AND s.id <> c.id
)
SELECT cand.id, cand.context, cand.layer, cand.kind, cand.content, cand.stability, cand.last_accessed_at, cand.valence,
       cand.arousal, cand.significance, cand.access_count, cand.confidence, cand.embedding, cand.fade_at,
       cardinality(cand.source_ids)::int AS carries, cand.ai_generated,
       EXISTS (SELECT 1 FROM carriers WHERE carriers.id = cand.id AND carriers.content = cand.content)::boolean AS carried,
       (SELECT count(*) FROM zb.mention mn WHERE mn.tenant_id = cand.tenant_id AND mn.memory_id = cand.id)::int AS entities
FROM cand
ORDER BY cand.fade_at, cand.id;

-- name: LcDecayApply :one
-- LcDecayApply writes one decay run's decisions in one statement: the memories with archive set
-- (archive_ids lists them again, for the review-state index) are archived and lose their review
-- state, the others get their next fade time (fade_null: none). It returns the number of each.
WITH u AS (
    SELECT unnest(@ids::bigint[]) AS id, unnest(@archive::boolean[]) AS archive,
           unnest(@fade_null::boolean[]) AS fade_null, unnest(@fade_ats::timestamptz[]) AS fade_at
), upd AS (
    UPDATE zb.memory m
    SET status = CASE WHEN u.archive THEN 'archived'::zb.memory_status ELSE m.status END,
        updated_at = CASE WHEN u.archive THEN @now::timestamptz ELSE m.updated_at END,
        fade_at = CASE WHEN u.archive THEN m.fade_at WHEN u.fade_null THEN NULL ELSE u.fade_at END
    FROM u
    WHERE m.tenant_id = @tenant_id::text AND m.id = ANY (@ids::bigint[]) AND m.id = u.id AND m.status = 'active'
    RETURNING m.id, u.archive
), rs AS (
    DELETE FROM zb.review_state r USING upd
    WHERE upd.archive AND r.tenant_id = @tenant_id::text AND r.memory_id = ANY (@archive_ids::bigint[]) AND r.memory_id = upd.id
)
SELECT (count(*) FILTER (WHERE upd.archive))::int AS archived, (count(*) FILTER (WHERE NOT upd.archive))::int AS rescheduled
FROM upd;

-- name: LcCarried :many
-- LcCarried returns which of ids are carried: another active consolidated memory (an
-- AI-generated or schema memory whose source_ids contain them) states their text as it is (see
-- LcDecayCandidates). The carriers are found once for all ids (source_ids && ids: one probe of
-- the GIN index memory_source_ids_idx, or at worst one pass over the tenant's active rows), never
-- once per id.
SELECT DISTINCT s.id::bigint AS id
FROM zb.memory c CROSS JOIN LATERAL unnest(c.source_ids) AS s(id)
JOIN zb.memory m ON m.tenant_id = c.tenant_id AND m.id = s.id
WHERE c.source_ids && @ids::bigint[] AND c.tenant_id = @tenant_id::text AND c.status = 'active'
  AND (c.ai_generated OR c.kind = 'schema') AND s.id = ANY (@ids::bigint[]) AND s.id <> c.id
  AND m.content = c.content
ORDER BY 1;

-- name: LcRecentContext :one
-- LcRecentContext returns the mean embedding of the memories returned by a tenant's last k
-- recalls (its recent recall context), or NULL when there is none. Each memory is read by its
-- primary key (the LIMIT keeps the lookup a per-id index probe).
SELECT avg(x.embedding)::real[] AS mean
FROM (SELECT DISTINCT unnest(r.result_ids) AS id
      FROM (SELECT result_ids FROM zb.recall_event WHERE tenant_id = @tenant_id::text
            ORDER BY created_at DESC, id DESC LIMIT @k::int) r) ids
CROSS JOIN LATERAL (
    SELECT m.embedding FROM zb.memory m
    WHERE m.tenant_id = @tenant_id::text AND m.id = ids.id AND m.embedding IS NOT NULL
    LIMIT 1
) x;

-- name: LcEdgesTouchingLock :many
-- LcEdgesTouchingLock locks the edges with an end among the entities, skipping locked ones.
SELECT id, source_id, target_id, relation, weight, variance, activation_count, last_activated_at
FROM zb.edge
WHERE tenant_id = @tenant_id::text AND (source_id = ANY (@entity_ids::bigint[]) OR target_id = ANY (@entity_ids::bigint[]))
ORDER BY id
FOR UPDATE SKIP LOCKED;

-- name: LcEdgeDecayApply :one
-- LcEdgeDecayApply writes edges' decayed weights as of their activated_at and prunes the
-- prune_ids, in one statement; it returns the number of each.
WITH up AS (
    UPDATE zb.edge e SET weight = u.w, last_activated_at = u.at
    FROM (SELECT unnest(@ids::bigint[]) AS id, unnest(@weights::double precision[]) AS w,
                 unnest(@activated_at::timestamptz[]) AS at) u
    WHERE e.tenant_id = @tenant_id::text AND e.id = u.id
    RETURNING 1
), del AS (
    DELETE FROM zb.edge WHERE tenant_id = @tenant_id::text AND id = ANY (@prune_ids::bigint[])
    RETURNING 1
)
SELECT (SELECT count(*) FROM up)::int AS decayed, (SELECT count(*) FROM del)::int AS pruned;

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

-- name: LcReviewWriteEach :batchexec
-- LcReviewWriteEach writes the FSRS cards of one ReviewDue batch: one statement per card, all
-- sent in one round trip (pgx batch). Each is a primary-key probe; a set-based UPDATE ... FROM
-- unnest(...) was planned as a hash join over a sequential scan of the whole table (every
-- tenant's cards) once the batch had more than a few rows. With set_context the card's context
-- embedding becomes context (the recent recall context of the vmPFC coupling); otherwise it is
-- left as it is.
UPDATE zb.review_state
SET stability = @stability::double precision, difficulty = @difficulty::double precision, due = @due::timestamptz,
    reps = @reps::int, lapses = @lapses::int, state = @state::smallint, elapsed_days = @elapsed_days::int,
    scheduled_days = @scheduled_days::int, last_review = @now::timestamptz,
    context_embedding = CASE WHEN @set_context::boolean THEN sqlc.narg('context')::vector ELSE context_embedding END,
    accesses_at_review = @accesses::int
WHERE tenant_id = @tenant_id::text AND memory_id = @memory_id::bigint;

-- name: LcReviewLogInsertBatch :execrows
-- LcReviewLogInsertBatch appends the reviews of one ReviewDue batch to the log. A NaN PE or
-- multiplier is stored as NULL (no vmPFC coupling for that review).
INSERT INTO zb.review_log (tenant_id, memory_id, grade, reviewed_at, state_before, interval_days, vmpfc_pe, multiplier)
SELECT @tenant_id::text, u.memory_id, u.grade, @now::timestamptz, u.state_before, u.interval_days,
       nullif(u.pe, 'NaN'::double precision), nullif(u.multiplier, 'NaN'::double precision)
FROM (SELECT unnest(@memory_ids::bigint[]) AS memory_id, unnest(@grades::smallint[]) AS grade,
             unnest(@states_before::smallint[]) AS state_before, unnest(@interval_days::double precision[]) AS interval_days,
             unnest(@pes::double precision[]) AS pe, unnest(@multipliers::double precision[]) AS multiplier) AS u;

-- name: LcMemoryForgettingBatch :execrows
-- LcMemoryForgettingBatch writes the forgetting state (stability, last access, fade time) of
-- several memories; fade_null[i] stores a NULL fade time (the trace never fades).
UPDATE zb.memory m SET stability = u.stability, last_accessed_at = u.last_accessed_at,
    fade_at = CASE WHEN u.fade_null THEN NULL ELSE u.fade_at END
FROM (SELECT unnest(@ids::bigint[]) AS id, unnest(@stabilities::double precision[]) AS stability,
             unnest(@last_accessed_ats::timestamptz[]) AS last_accessed_at, unnest(@fade_null::boolean[]) AS fade_null,
             unnest(@fade_ats::timestamptz[]) AS fade_at) AS u
WHERE m.tenant_id = @tenant_id::text AND m.id = ANY (@ids::bigint[]) AND m.id = u.id;

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

-- name: LcTurnsToEpisodic :execrows
-- LcTurnsToEpisodic moves a consolidated session's active short-term turns to the episodic layer:
-- each stays recallable at its own granularity beside the episode that carries it.
UPDATE zb.memory SET layer = 'episodic', updated_at = @now::timestamptz
WHERE tenant_id = @tenant_id::text AND id = ANY (@ids::bigint[]) AND layer = 'short_term' AND status = 'active';

-- name: LcSetStatus :execrows
-- LcSetStatus moves active memories to another status (consolidated).
UPDATE zb.memory SET status = (@status::text)::zb.memory_status, updated_at = @now::timestamptz
WHERE tenant_id = @tenant_id::text AND id = ANY (@ids::bigint[]) AND status = 'active';

-- name: LcTenants :many
-- LcTenants returns, in order, every tenant whose lifecycle the worker runs: all but those whose
-- settings say {"lifecycle": "manual"} (a caller drives it, e.g. a benchmark on a virtual clock).
SELECT id FROM zb.tenant WHERE NOT settings @> '{"lifecycle": "manual"}' ORDER BY id;

-- name: LcUnderivedTenants :many
-- LcUnderivedTenants returns up to k tenants having memories never derived, by a loose index
-- scan of derive's queue (zb.memory_underived; one probe per tenant, not a scan of the rows),
-- leaving out tenants whose lifecycle is manual (see LcTenants).
WITH RECURSIVE t AS (
    (SELECT u.tenant_id FROM zb.memory_underived u ORDER BY u.tenant_id LIMIT 1)
    UNION ALL
    SELECT (SELECT u.tenant_id FROM zb.memory_underived u WHERE u.tenant_id > t.tenant_id
            ORDER BY u.tenant_id LIMIT 1)
    FROM t WHERE t.tenant_id IS NOT NULL
)
SELECT t.tenant_id::text AS tenant_id FROM t
WHERE t.tenant_id IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM zb.tenant x WHERE x.id = t.tenant_id AND x.settings @> '{"lifecycle": "manual"}')
LIMIT @k::int;

-- name: LcTenantLock :exec
-- LcTenantLock takes the transaction-level advisory lock that serializes a tenant's lifecycle
-- writes (derive, propagate, decay, review, consolidate, sleep, rollback).
SELECT pg_advisory_xact_lock(hashtext('zb.lifecycle'), hashtext(@tenant_id::text));
