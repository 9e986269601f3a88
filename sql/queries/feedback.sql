-- name: FeedbackMemoryUpdate :one
-- FeedbackMemoryUpdate applies usefulness feedback to a memory: a TD(0) step of its value
-- estimate toward the reward (1 used, 0 not used) and, when used, one more access.
UPDATE zb.memory
SET value_estimate   = (1 - sqlc.arg('alpha')::float8) * value_estimate + sqlc.arg('alpha')::float8 * sqlc.arg('reward')::float8,
    access_count     = access_count + CASE WHEN @used::boolean THEN 1 ELSE 0 END,
    last_accessed_at = CASE WHEN @used::boolean THEN greatest(last_accessed_at, @now::timestamptz) ELSE last_accessed_at END,
    updated_at       = @now::timestamptz
WHERE tenant_id = @tenant_id::text AND id = @id::bigint AND status <> 'erased'
RETURNING value_estimate, access_count;

-- name: FeedbackRecallEventMark :execrows
-- FeedbackRecallEventMark records on the tenant's latest recall that returned the memory
-- whether it helped (the metacognitive monitor's success signal).
UPDATE zb.recall_event
SET success = @used::boolean
WHERE tenant_id = @tenant_id::text AND id = (
    SELECT e.id FROM zb.recall_event e
    WHERE e.tenant_id = @tenant_id::text AND @id::bigint = ANY (e.result_ids)
    ORDER BY e.created_at DESC, e.id DESC
    LIMIT 1);
