-- name: AlgorithmSwitchSet :exec
-- AlgorithmSwitchSet switches a mechanism on or off for a tenant (the ablation registry).
INSERT INTO zb.algorithm_switch (tenant_id, algorithm, enabled, updated_at, updated_by)
VALUES (@tenant_id::text, @algorithm::text, @enabled::boolean, @now::timestamptz, @updated_by::text)
ON CONFLICT (tenant_id, algorithm)
DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by;

-- name: AlgorithmSwitchListByTenant :many
-- AlgorithmSwitchListByTenant returns a tenant's explicit switches; a missing row means enabled.
SELECT * FROM zb.algorithm_switch WHERE tenant_id = @tenant_id::text ORDER BY algorithm;
