-- 0031_similar_resort down: 0029's nearest-fact search (cut at k rows of the scan), with its settings.
CREATE OR REPLACE FUNCTION zb.similar_semantic(p_tenant text, p_ids bigint[], p_k integer)
RETURNS TABLE (memory_id bigint, id bigint, cosine double precision)
LANGUAGE plpgsql STABLE
SET hnsw.iterative_scan = 'relaxed_order'
SET hnsw.ef_search = 100
SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    v_n bigint;
BEGIN
    SELECT coalesce(sum(d.docs), 0)::bigint INTO v_n FROM zb.lexical_stat_delta d WHERE d.tenant_id = p_tenant;
    IF v_n <= 1000 THEN
        -- Every (memory, fact) pair of the tenant's facts, ranked per memory.
        RETURN QUERY
        SELECT x.qid, x.id, x.cosine
        FROM (
            SELECT q.id AS qid, m.id, (1 - (m.embedding <=> q.embedding))::double precision AS cosine,
                   row_number() OVER (PARTITION BY q.id ORDER BY (1 - (m.embedding <=> q.embedding)) DESC, m.id) AS rn
            FROM zb.memory q
            JOIN zb.memory m ON m.tenant_id = p_tenant AND m.layer = 'semantic' AND m.status = 'active'
                            AND m.embedding IS NOT NULL AND m.id <> q.id
            WHERE q.tenant_id = p_tenant AND q.id = ANY (p_ids) AND q.embedding IS NOT NULL
        ) x
        WHERE x.rn <= p_k;
    ELSE
        -- ef_search by the tenant's size (zb.recall_ef_search), as recall's vector half.
        PERFORM set_config('hnsw.ef_search', zb.recall_ef_search(v_n)::text, true);
        RETURN QUERY
        SELECT q.id, f.id, f.cosine
        FROM zb.memory q
        CROSS JOIN LATERAL (
            SELECT m.id, (1 - (m.embedding <=> q.embedding))::double precision AS cosine
            FROM zb.memory m
            WHERE m.tenant_id = p_tenant AND m.layer = 'semantic' AND m.status = 'active' AND m.embedding IS NOT NULL
              AND m.id <> q.id
            ORDER BY m.embedding <=> q.embedding
            LIMIT p_k
        ) f
        WHERE q.tenant_id = p_tenant AND q.id = ANY (p_ids) AND q.embedding IS NOT NULL;
    END IF;
END
$$;

COMMENT ON FUNCTION zb.similar_semantic(text, bigint[], integer) IS
    'For each of p_ids with an embedding, the p_k active semantic memories of p_tenant nearest to it (exact up to 1 000 active memories, HNSW with iterative scans at zb.recall_ef_search(n) above).';
