-- name: TenantEnsure :exec
-- TenantEnsure creates the tenant when it does not exist yet.
INSERT INTO zb.tenant (id, name)
VALUES (@id::text, @name::text)
ON CONFLICT (id) DO NOTHING;

-- name: TenantGetByID :one
-- TenantGetByID returns one tenant.
SELECT * FROM zb.tenant WHERE id = @id::text;

-- name: TenantList :many
-- TenantList returns all tenants in id order.
SELECT * FROM zb.tenant ORDER BY id;
