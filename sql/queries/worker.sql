-- name: JobCountsByQueueState :many
-- JobCountsByQueueState returns River's jobs by queue and state.
SELECT queue::text AS queue, state::text AS state, n::bigint AS n FROM zb.job_counts();

-- name: MemoryCountAllByLayerStatus :many
-- MemoryCountAllByLayerStatus counts memories of all tenants by layer and status.
SELECT layer, status, count(*)::bigint AS n FROM zb.memory GROUP BY layer, status ORDER BY layer, status;

-- name: DeriveWaitingTenants :many
-- DeriveWaitingTenants returns which of the tenants have a pending-derive job waiting to start.
SELECT t::text AS tenant_id FROM zb.derive_waiting(@tenants::text[]) t;
