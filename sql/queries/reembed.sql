-- Embedding-model versioning (coordinator/reembed.go).

-- name: ReembedModelSet :exec
-- ReembedModelSet records the active embedding model (zb.config embedding_model).
INSERT INTO zb.config (key, value, updated_at) VALUES ('embedding_model', @model::text, @now::timestamptz)
ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at;

-- name: ReembedTargets :many
-- ReembedTargets returns up to k memories (tenant, id) after (after_tenant, after_id) whose
-- embedding is missing or of another model than model: the rows a re-embedding has to do. A
-- tenant given limits them to that tenant.
SELECT tenant_id, id
FROM zb.memory
WHERE status <> 'erased' AND content <> '' AND embedding_model IS DISTINCT FROM @model::text
  AND (tenant_id, id) > (@after_tenant::text, @after_id::bigint)
  AND (sqlc.narg('tenant')::text IS NULL OR tenant_id = sqlc.narg('tenant')::text)
ORDER BY tenant_id, id
LIMIT @k::int;

-- name: ReembedRead :many
-- ReembedRead returns the content and embedding model of memories of a tenant.
SELECT id, content, embedding_model, updated_at, status
FROM zb.memory
WHERE tenant_id = @tenant_id::text AND id = ANY (@ids::bigint[])
ORDER BY id;

-- name: ReembedWrite :execrows
-- ReembedWrite stores a memory's new embedding and its model unless the memory changed since it
-- was read (updated_at) or was erased. updated_at is kept: the memory itself did not change.
UPDATE zb.memory
SET embedding = @embedding::vector, embedding_model = @model::text
WHERE tenant_id = @tenant_id::text AND id = @id::bigint AND updated_at = @read_at::timestamptz
  AND status <> 'erased';

-- name: ReembedProgress :many
-- ReembedProgress counts the memories (not erased, with content) by embedding model ('' for none),
-- of one tenant or of all.
SELECT coalesce(embedding_model, '')::text AS model, count(*)::bigint AS n
FROM zb.memory
WHERE status <> 'erased' AND content <> ''
  AND (sqlc.narg('tenant')::text IS NULL OR tenant_id = sqlc.narg('tenant')::text)
GROUP BY 1
ORDER BY 1;

-- name: ReembedJobCounts :many
-- ReembedJobCounts counts the re-embedding jobs (River kind zb_reembed) by state.
SELECT state::text AS state, n::bigint AS n FROM zb.job_kind_counts('zb_reembed'::text);
