-- name: SessionTouch :exec
-- SessionTouch creates a session or records activity in it (last_activity_at never goes back).
-- Activity reopens an ended session (ended_at NULL): the idle sweep then consolidates the late
-- memories, which would otherwise stay short-term forever.
INSERT INTO zb.session (tenant_id, id, context, started_at, last_activity_at)
VALUES (@tenant_id::text, @id::uuid, @context::text, @now::timestamptz, @now::timestamptz)
ON CONFLICT (tenant_id, id) DO UPDATE
SET last_activity_at = greatest(zb.session.last_activity_at, EXCLUDED.last_activity_at), ended_at = NULL;

-- name: SessionEnd :one
-- SessionEnd marks an open session ended and returns it; an ended session is returned unchanged.
UPDATE zb.session
SET ended_at = coalesce(ended_at, greatest(@now::timestamptz, started_at)),
    last_activity_at = greatest(last_activity_at, least(@now::timestamptz, coalesce(ended_at, @now::timestamptz)))
WHERE tenant_id = @tenant_id::text AND id = @id::uuid
RETURNING *;

-- name: SessionGet :one
-- SessionGet returns one session.
SELECT * FROM zb.session WHERE tenant_id = @tenant_id::text AND id = @id::uuid;

-- name: SessionListIdle :many
-- SessionListIdle returns up to k open sessions (of every tenant whose lifecycle the worker
-- runs, see LcTenants) without activity since idle_before, oldest first, for the worker's idle
-- sweep.
SELECT * FROM zb.session
WHERE ended_at IS NULL AND last_activity_at < @idle_before::timestamptz
  AND NOT EXISTS (SELECT 1 FROM zb.tenant x WHERE x.id = zb.session.tenant_id AND x.settings @> '{"lifecycle": "manual"}')
ORDER BY last_activity_at, tenant_id, id
LIMIT @k::int;

-- name: SessionMarkConsolidated :exec
-- SessionMarkConsolidated records that a session's short-term memories were consolidated.
UPDATE zb.session SET consolidated_at = @now::timestamptz, ended_at = coalesce(ended_at, greatest(@now::timestamptz, started_at))
WHERE tenant_id = @tenant_id::text AND id = @id::uuid;

-- name: SessionListIdleTenant :many
-- SessionListIdleTenant returns up to k open sessions of one tenant without activity since
-- idle_before, oldest first, whatever its lifecycle setting (the caller drives it).
SELECT * FROM zb.session
WHERE tenant_id = @tenant_id::text AND ended_at IS NULL AND last_activity_at < @idle_before::timestamptz
ORDER BY last_activity_at, id
LIMIT @k::int;
