-- name: AuditEventInsert :exec
-- AuditEventInsert appends one audit event.
INSERT INTO zb.audit_event (tenant_id, at, actor, action, memory_id, detail)
VALUES (@tenant_id::text, @at::timestamptz, @actor::text, @action::text, sqlc.narg('memory_id')::bigint, @detail::jsonb);

-- name: AuditEventListByTenant :many
-- AuditEventListByTenant returns a tenant's most recent audit events.
SELECT * FROM zb.audit_event WHERE tenant_id = @tenant_id::text ORDER BY at DESC, id DESC LIMIT @k::int;
