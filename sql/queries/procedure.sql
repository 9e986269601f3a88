-- name: ProcedureInsert :exec
-- ProcedureInsert records the structure of a procedural memory.
INSERT INTO zb.procedure (tenant_id, memory_id, trigger_text, steps, tools)
VALUES (@tenant_id::text, @memory_id::bigint, @trigger_text::text, @steps::text[], @tools::text[]);

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

-- name: TripleCopyStore :exec
-- TripleCopyStore writes a new memory's fast and medium copies unless the tenant switched
-- triple_copy off (a store's copies without a separate read of the switches).
INSERT INTO zb.triple_copy (tenant_id, memory_id, copy, initial_strength, tau_seconds, created_at)
SELECT @tenant_id::text, @memory_id::bigint, unnest(@copies::text[]), unnest(@strengths::double precision[]),
       unnest(@taus::double precision[]), @now::timestamptz
WHERE NOT EXISTS (SELECT 1 FROM zb.algorithm_switch s
                  WHERE s.tenant_id = @tenant_id::text AND s.algorithm = 'triple_copy' AND NOT s.enabled);

-- name: TripleCopyInsert :exec
-- TripleCopyInsert writes the fast and medium copies of a stored memory.
INSERT INTO zb.triple_copy (tenant_id, memory_id, copy, initial_strength, tau_seconds, created_at)
SELECT @tenant_id::text, @memory_id::bigint, unnest(@copies::text[]), unnest(@strengths::double precision[]),
       unnest(@taus::double precision[]), @now::timestamptz;
