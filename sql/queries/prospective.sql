-- name: ProspectiveInsert :one
-- ProspectiveInsert creates a pending intention.
INSERT INTO zb.prospective_intention (tenant_id, context, content, trigger_kind, due_at, cue, cue_embedding, status,
                                      memory_id, expires_at, created_at, priority, cue_entities, lang)
VALUES (@tenant_id::text, @context::text, @content::text, @trigger_kind::text, sqlc.narg('due_at')::timestamptz,
        sqlc.narg('cue')::text, sqlc.narg('cue_embedding')::vector, 'pending', sqlc.narg('memory_id')::bigint,
        sqlc.narg('expires_at')::timestamptz, @now::timestamptz, @priority::smallint, @cue_entities::text[],
        sqlc.narg('lang')::text)
RETURNING id;

-- name: ProspectiveCountPending :one
-- ProspectiveCountPending counts a tenant's pending intentions.
SELECT count(*)::integer FROM zb.prospective_intention WHERE tenant_id = @tenant_id::text AND status = 'pending';

-- name: ProspectiveGet :one
-- ProspectiveGet returns one intention.
SELECT id, context, content, trigger_kind, due_at, cue, cue_entities, lang, priority, status, memory_id, created_at,
       expires_at, fired_at, fired_by, fired_reason, fired_score, fired_source, resolved_at
FROM zb.prospective_intention WHERE tenant_id = @tenant_id::text AND id = @id::bigint;

-- name: ProspectiveList :many
-- ProspectiveList returns a tenant's intentions, optionally of one status, newest first, at most
-- @k.
SELECT id, context, content, trigger_kind, due_at, cue, cue_entities, lang, priority, status, memory_id, created_at,
       expires_at, fired_at, fired_by, fired_reason, fired_score, fired_source, resolved_at
FROM zb.prospective_intention
WHERE tenant_id = @tenant_id::text AND (sqlc.narg('status')::text IS NULL OR status = sqlc.narg('status')::text)
ORDER BY created_at DESC, id DESC
LIMIT @k::integer;

-- name: ProspectiveDismiss :execrows
-- ProspectiveDismiss dismisses a pending or expired intention.
UPDATE zb.prospective_intention SET status = 'dismissed', resolved_at = @now::timestamptz
WHERE tenant_id = @tenant_id::text AND id = @id::bigint AND status IN ('pending', 'expired');

-- name: ProspectivePendingCues :many
-- ProspectivePendingCues returns a tenant's pending cue intentions that have not expired by
-- @now, oldest first, at most @k, with their cue embeddings.
SELECT id, content, cue, cue_entities, lang, priority, cue_embedding, created_at, expires_at
FROM zb.prospective_intention
WHERE tenant_id = @tenant_id::text AND status = 'pending' AND trigger_kind = 'cue'
  AND (expires_at IS NULL OR expires_at > @now::timestamptz)
ORDER BY id
LIMIT @k::integer;

-- name: ProspectiveFire :execrows
-- ProspectiveFire fires a pending intention that has not expired by @now, recording what fired
-- it.
UPDATE zb.prospective_intention
SET status = 'fired', fired_at = @now::timestamptz, resolved_at = @now::timestamptz, fired_by = sqlc.narg('fired_by')::bigint,
    fired_reason = @fired_reason::text, fired_score = @fired_score::double precision, fired_source = @fired_source::text
WHERE tenant_id = @tenant_id::text AND id = @id::bigint AND status = 'pending'
  AND (expires_at IS NULL OR expires_at > @now::timestamptz);

-- name: ProspectiveDueTime :many
-- ProspectiveDueTime locks up to @k pending time intentions of all tenants that are due at @now
-- and not expired, skipping rows another tick holds and tenants that switched prospective
-- memory off; earliest due first.
SELECT p.tenant_id, p.id, p.content, p.due_at, p.priority, p.created_at, p.expires_at
FROM zb.prospective_intention p
WHERE p.status = 'pending' AND p.trigger_kind = 'time' AND p.due_at <= @now::timestamptz
  AND (p.expires_at IS NULL OR p.expires_at > @now::timestamptz)
  AND NOT EXISTS (SELECT 1 FROM zb.algorithm_switch s
                  WHERE s.tenant_id = p.tenant_id AND s.algorithm = 'prospective' AND NOT s.enabled)
ORDER BY p.due_at, p.tenant_id, p.id
LIMIT @k::integer
FOR UPDATE OF p SKIP LOCKED;

-- name: ProspectiveExpire :many
-- ProspectiveExpire marks up to @k pending intentions of all tenants whose expiry has come at
-- @now as expired and returns them.
UPDATE zb.prospective_intention p SET status = 'expired', resolved_at = @now::timestamptz
FROM (
    SELECT x.tenant_id, x.id FROM zb.prospective_intention x
    WHERE x.status = 'pending' AND x.expires_at IS NOT NULL AND x.expires_at <= @now::timestamptz
    ORDER BY x.expires_at, x.tenant_id, x.id
    LIMIT @k::integer
    FOR UPDATE SKIP LOCKED
) e
WHERE p.tenant_id = e.tenant_id AND p.id = e.id
RETURNING p.tenant_id, p.id;

-- name: ProspectiveFiredSince :many
-- ProspectiveFiredSince returns a tenant's intentions fired at or after @since and still fired
-- (not dismissed), highest priority first, then newest, at most @k.
SELECT id, content, trigger_kind, cue, priority, fired_at, fired_reason, fired_source
FROM zb.prospective_intention
WHERE tenant_id = @tenant_id::text AND status = 'fired' AND fired_at >= @since::timestamptz
ORDER BY priority DESC, fired_at DESC, id DESC
LIMIT @k::integer;
