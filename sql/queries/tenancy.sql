-- name: TenantCurrent :one
-- TenantCurrent returns the tenant the transaction is bound to (zb.current_tenant()), '' when none.
SELECT coalesce(zb.current_tenant(), '')::text AS tenant_id;

-- name: TenantBindingAdd :execrows
-- TenantBindingAdd restricts a login role to a tenant (operators only): a role with bindings
-- sees and writes nothing unless zb.tenant_id names one of its tenants.
INSERT INTO zb.tenant_binding (role_name, tenant_id) VALUES (@role_name::text, @tenant_id::text)
ON CONFLICT DO NOTHING;

-- name: TenantBindingRemove :execrows
-- TenantBindingRemove removes one binding of a login role.
DELETE FROM zb.tenant_binding WHERE role_name = @role_name::text AND tenant_id = @tenant_id::text;

-- name: TenantBindingList :many
-- TenantBindingList lists the tenant bindings the caller may see (its own, or all for operators).
SELECT role_name, tenant_id, created_at FROM zb.tenant_binding ORDER BY role_name, tenant_id;

-- name: TenantRowSecurityActive :one
-- TenantRowSecurityActive reports whether row-level security applies to the connection's role
-- on zb.memory (then COPY FROM is refused and bulk loads insert row by row).
SELECT row_security_active('zb.memory'::regclass)::boolean AS active;

-- name: MemoryInsertBatch :batchexec
-- MemoryInsertBatch inserts memories in one pipelined batch: the bulk load of roles under
-- row-level security, for which PostgreSQL refuses COPY FROM.
INSERT INTO zb.memory (
    tenant_id, context, layer, kind, content, session_id, external_id, subject, attribute,
    occurred_at, created_at, updated_at, last_accessed_at, source_ids, metadata, valence, arousal,
    significance, importance, priority, stability, fade_at, ai_generated, terms, term_count, event_from,
    event_to, valid_from, embedding, embedding_model
) VALUES (
    @tenant_id::text, @context::text, (@layer::text)::zb.memory_layer, @kind::text, @content::text,
    sqlc.narg('session_id')::uuid, sqlc.narg('external_id')::text, sqlc.narg('subject')::text,
    sqlc.narg('attribute')::text, sqlc.narg('occurred_at')::timestamptz, @created_at::timestamptz,
    @updated_at::timestamptz, @last_accessed_at::timestamptz, @source_ids::bigint[], @metadata::jsonb,
    @valence::real, @arousal::real, @significance::real, @importance::real, @priority::real,
    sqlc.narg('stability')::double precision, sqlc.narg('fade_at')::timestamptz, @ai_generated::boolean,
    @terms::text[], @term_count::int, sqlc.narg('event_from')::timestamptz, sqlc.narg('event_to')::timestamptz,
    sqlc.narg('valid_from')::timestamptz, sqlc.narg('embedding')::vector, sqlc.narg('embedding_model')::text
);
