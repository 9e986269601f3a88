-- name: EraseScope :one
-- EraseScope runs zb.erase: one memory (target its id, or ids several), a session (target its
-- UUID), a context (target its name) or the whole tenant (target NULL), with every derivative;
-- it returns the counts per table as a JSON object.
SELECT zb.erase(
    @tenant_id::text, @scope::text, sqlc.narg('target')::text, @actor::text, @now::timestamptz,
    sqlc.narg('reason')::text, sqlc.narg('approval_id')::bigint, @dry_run::boolean, sqlc.narg('ids')::bigint[]
)::jsonb AS counts;

-- name: EraseApplyRetention :one
-- EraseApplyRetention runs zb.apply_retention: erases the tenant's memories older than their
-- context's retention window (at most k), returning the counts as a JSON object.
SELECT zb.apply_retention(@tenant_id::text, @now::timestamptz, @k::int)::jsonb AS counts;
