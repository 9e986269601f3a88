-- name: GovernanceSettingsGet :one
-- GovernanceSettingsGet returns a tenant's settings object.
SELECT settings FROM zb.tenant WHERE id = @tenant_id::text;

-- name: GovernanceSettingsMerge :execrows
-- GovernanceSettingsMerge merges keys into a tenant's settings object (operators only).
UPDATE zb.tenant SET settings = settings || @patch::jsonb WHERE id = @tenant_id::text;

-- name: ConsentInsert :one
-- ConsentInsert records a granted consent and returns its id.
INSERT INTO zb.consent (tenant_id, subject, purpose, context, granted_at, evidence)
VALUES (@tenant_id::text, @subject::text, @purpose::text, sqlc.narg('context')::text, @now::timestamptz, @evidence::text)
RETURNING id;

-- name: ConsentRevoke :many
-- ConsentRevoke revokes a subject's active consents for a purpose (every context) and returns
-- their ids.
UPDATE zb.consent SET revoked_at = greatest(@now::timestamptz, granted_at)
WHERE tenant_id = @tenant_id::text AND subject = @subject::text AND purpose = @purpose::text AND revoked_at IS NULL
RETURNING id;

-- name: ConsentList :many
-- ConsentList lists a tenant's consent records, newest first.
SELECT id, subject, purpose, context, granted_at, revoked_at, evidence
FROM zb.consent WHERE tenant_id = @tenant_id::text ORDER BY granted_at DESC, id DESC;

-- name: RetentionSet :exec
-- RetentionSet sets the retention window of a tenant's context (operators only).
INSERT INTO zb.retention_policy (tenant_id, context, max_age, updated_at)
VALUES (@tenant_id::text, @context::text, make_interval(secs => @max_age_seconds::double precision), @now::timestamptz)
ON CONFLICT (tenant_id, context) DO UPDATE SET max_age = EXCLUDED.max_age, updated_at = EXCLUDED.updated_at;

-- name: RetentionDelete :execrows
-- RetentionDelete removes the retention window of a tenant's context.
DELETE FROM zb.retention_policy WHERE tenant_id = @tenant_id::text AND context = @context::text;

-- name: RetentionList :many
-- RetentionList lists a tenant's retention windows in context order.
SELECT context, extract(epoch FROM max_age)::double precision AS max_age_seconds, updated_at
FROM zb.retention_policy WHERE tenant_id = @tenant_id::text ORDER BY context;

-- name: ApprovalInsert :one
-- ApprovalInsert queues a request for a sensitive operation.
INSERT INTO zb.approval_request (tenant_id, operation, payload, requested_by, requested_at)
VALUES (@tenant_id::text, @operation::text, @payload::jsonb, @requested_by::text, @now::timestamptz)
RETURNING *;

-- name: ApprovalGet :one
-- ApprovalGet returns one request by id (of the bound tenant, or of any tenant for an operator
-- without one).
SELECT * FROM zb.approval_request WHERE id = @id::bigint;

-- name: ApprovalList :many
-- ApprovalList lists requests, optionally of one tenant and one status, oldest first.
SELECT * FROM zb.approval_request
WHERE (sqlc.narg('tenant_id')::text IS NULL OR tenant_id = sqlc.narg('tenant_id')::text)
  AND (sqlc.narg('status')::text IS NULL OR status = sqlc.narg('status')::text)
ORDER BY requested_at, id
LIMIT @k::int;

-- name: ApprovalDecide :one
-- ApprovalDecide approves or rejects a pending request; a rejected one loses the content its
-- payload held.
UPDATE zb.approval_request
SET status = @status::text, decided_by = @decided_by::text, decided_at = greatest(@now::timestamptz, requested_at),
    reason = sqlc.narg('reason')::text,
    payload = CASE WHEN @status::text = 'rejected' THEN payload - 'content' ELSE payload END
WHERE tenant_id = @tenant_id::text AND id = @id::bigint AND status = 'pending'
RETURNING *;

-- name: ApprovalMarkExecuted :execrows
-- ApprovalMarkExecuted marks an approved request as carried out; the content its payload held
-- (a core overwrite's value) is dropped.
UPDATE zb.approval_request SET status = 'executed', payload = payload - 'content'
WHERE tenant_id = @tenant_id::text AND id = @id::bigint AND status = 'approved';

-- name: ApprovalFindApproved :one
-- ApprovalFindApproved returns the oldest approved, not yet executed request of an operation
-- whose payload contains the given object.
SELECT * FROM zb.approval_request
WHERE tenant_id = @tenant_id::text AND operation = @operation::text AND status = 'approved'
  AND payload @> @payload::jsonb
ORDER BY id
LIMIT 1;
