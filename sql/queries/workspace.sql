-- name: WorkspaceStateGet :many
-- WorkspaceStateGet returns the previous winner set of a tenant's workspace scope (no row: none).
SELECT winners, assembled FROM zb.workspace_state WHERE tenant_id = @tenant_id::text AND scope = @scope::text;

-- name: WorkspaceStateSave :exec
-- WorkspaceStateSave records the winner set and the competition of the latest assembly of a
-- scope, when the tenant exists.
INSERT INTO zb.workspace_state (tenant_id, scope, winners, scores, assembled, updated_at)
SELECT t.id, @scope::text, @winners::text[], @scores::jsonb, 1, @now::timestamptz
FROM zb.tenant t WHERE t.id = @tenant_id::text
ON CONFLICT (tenant_id, scope) DO UPDATE
SET winners = EXCLUDED.winners, scores = EXCLUDED.scores, assembled = zb.workspace_state.assembled + 1,
    updated_at = EXCLUDED.updated_at;

-- name: WorkspaceMemorySignals :many
-- WorkspaceMemorySignals returns the stored PriorityMap priority, valence and context of the
-- given memories: the signals of the workspace's PriorityMap blend.
SELECT id, priority, valence, context FROM zb.memory
WHERE tenant_id = @tenant_id::text AND id = ANY (@ids::bigint[]);

-- name: WorkspaceMetacogAlerts :many
-- WorkspaceMetacogAlerts returns the tenant's metacognitive alerts raised at or after @since,
-- newest first, at most @k.
SELECT id, kind, value, detail, created_at FROM zb.metacog_event
WHERE tenant_id = @tenant_id::text AND alert AND created_at >= @since::timestamptz
ORDER BY created_at DESC, id DESC
LIMIT @k::integer;
