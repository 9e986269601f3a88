-- name: EdgeUpdateCoOccurs :exec
-- EdgeUpdateCoOccurs writes the new Two-Factor state of co_occurs edges the caller has locked.
UPDATE zb.edge e
SET weight = u.weight, variance = u.variance, activation_count = u.activation_count, last_activated_at = @now::timestamptz
FROM (SELECT unnest(@ids::bigint[]) AS id, unnest(@weights::double precision[]) AS weight,
             unnest(@variances::double precision[]) AS variance, unnest(@activation_counts::int[]) AS activation_count) u
WHERE e.tenant_id = @tenant_id::text AND e.id = u.id;

-- name: EdgeInsertCoOccurs :exec
-- EdgeInsertCoOccurs creates co_occurs edges (source < target) that do not exist yet; an edge
-- that exists (even one locked by a sleep run) is left alone, without waiting.
INSERT INTO zb.edge (tenant_id, source_id, target_id, relation, weight, variance, activation_count, origin,
                     created_at, last_activated_at)
SELECT @tenant_id::text, unnest(@source_ids::bigint[]), unnest(@target_ids::bigint[]), 'co_occurs',
       unnest(@weights::double precision[]), unnest(@variances::double precision[]),
       unnest(@activation_counts::int[]), 'hebbian', @now::timestamptz, @now::timestamptz
ON CONFLICT (tenant_id, source_id, target_id, relation) DO NOTHING;
