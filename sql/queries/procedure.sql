-- name: ProcedureRecordOutcome :one
-- ProcedureRecordOutcome counts one reported execution of a skill and returns the counts.
UPDATE zb.procedure
SET success_count = success_count + CASE WHEN @success::boolean THEN 1 ELSE 0 END,
    failure_count = failure_count + CASE WHEN @success::boolean THEN 0 ELSE 1 END,
    last_outcome = CASE WHEN @success::boolean THEN 'success' ELSE 'failure' END,
    last_used_at = @now::timestamptz
WHERE tenant_id = @tenant_id::text AND memory_id = @memory_id::bigint
RETURNING success_count, failure_count;

-- name: MemoryOutcomeUpdate :execrows
-- MemoryOutcomeUpdate writes a skill's new stability, fade time and Beta confidence after a
-- reported outcome.
UPDATE zb.memory
SET stability = @stability::double precision, fade_at = @fade_at::timestamptz, last_accessed_at = @now::timestamptz,
    conf_alpha = @conf_alpha::double precision, conf_beta = @conf_beta::double precision,
    confidence = @confidence::double precision, updated_at = @now::timestamptz
WHERE tenant_id = @tenant_id::text AND id = @id::bigint;

