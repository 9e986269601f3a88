-- name: MetacogRecallResults :many
-- MetacogRecallResults returns the metacognitive monitor's recall log: one row per result of
-- every recall of the tenant in [@since, @now] (recalls without results give one row with a
-- NULL memory), with the memory's age at the recall, its confidence, and whether it was used:
-- a feedback event (audit memory.feedback with "used": true) on it at or after this recall and
-- before the next recall that returned it.
WITH ev AS (
    SELECT e.id, e.created_at, e.success, e.result_ids
    FROM zb.recall_event e
    WHERE e.tenant_id = @tenant_id::text AND e.created_at >= @since::timestamptz AND e.created_at <= @now::timestamptz
), res AS (
    SELECT ev.id AS recall_id, ev.created_at AS recall_at, ev.success, r.memory_id, r.pos,
           lead(ev.created_at) OVER (PARTITION BY r.memory_id ORDER BY ev.created_at, ev.id) AS next_at
    FROM ev
    LEFT JOIN LATERAL unnest(ev.result_ids) WITH ORDINALITY AS r(memory_id, pos) ON true
)
SELECT res.recall_id, res.recall_at, coalesce(res.success, false)::boolean AS success,
       coalesce(res.memory_id, 0)::bigint AS memory_id,
       coalesce(greatest(extract(epoch FROM res.recall_at - m.created_at) / 86400, 0), 0)::float8 AS age_days,
       coalesce(m.confidence, 0.5)::float8 AS confidence,
       (res.memory_id IS NOT NULL AND EXISTS (
           SELECT 1 FROM zb.audit_event a
           WHERE a.tenant_id = @tenant_id::text AND a.action = 'memory.feedback' AND a.memory_id = res.memory_id
             AND (a.detail ->> 'used')::boolean AND a.at >= res.recall_at AND a.at <= @now::timestamptz
             AND (res.next_at IS NULL OR a.at < res.next_at)))::boolean AS used
FROM res
LEFT JOIN zb.memory m ON m.tenant_id = @tenant_id::text AND m.id = res.memory_id
ORDER BY res.recall_at, res.recall_id, res.pos;

-- name: MetacogFeedbackCount :one
-- MetacogFeedbackCount counts the tenant's feedback events in [@since, @now] (part of the basis
-- that tells whether the monitor's input changed since its last assessment).
SELECT count(*)::bigint FROM zb.audit_event
WHERE tenant_id = @tenant_id::text AND action = 'memory.feedback' AND at >= @since::timestamptz AND at <= @now::timestamptz;

-- name: MetacogEventInsert :execrows
-- MetacogEventInsert records one signal of the metacognitive monitor unless an event of the same
-- kind was already recorded from the same input (detail -> 'basis'): re-running a job on
-- unchanged logs writes nothing.
INSERT INTO zb.metacog_event (tenant_id, kind, value, alert, detail, created_at)
SELECT @tenant_id::text, @kind::text, @value::float8, @alert::boolean, @detail::jsonb, @now::timestamptz
WHERE NOT EXISTS (
    SELECT 1 FROM zb.metacog_event e
    WHERE e.tenant_id = @tenant_id::text AND e.kind = @kind::text AND e.detail -> 'basis' = @detail::jsonb -> 'basis');
