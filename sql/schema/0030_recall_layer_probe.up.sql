-- 0030_recall_layer_probe: recall's vector half skips the requested layers a tenant holds no
-- embedded memory in without a second planned statement (issue 10).
--
-- zb.recall_vector_scan (the vector half for a tenant of more than 1 000 active memories) reads
-- 10·k rows of one HNSW scan and ranks each requested layer's rows among them; layers left with
-- fewer than k rows get a scan of their own in a second statement, which first checks, layer by
-- layer, that the tenant holds a live embedded memory there (a filtered HNSW scan for an empty
-- layer would walk the whole index). Recall asks for all seven layers by default, and most
-- tenants fill few of them — the perf benchmark's three — so a default recall in a large tenant
-- always ran that second statement, planned anew on every call (EXECUTE), only to find the four
-- empty layers empty. Measured on the kept one-tenant 10k database (pgbench, prepared, a stored
-- memory's embedding as the query, 8 s per run, four alternations): the every-layer scan took
-- 4.79–5.78 ms with the second statement and 4.38–4.90 ms with the probe below (−0.33 to −0.88
-- ms, ≈ 10 %); asked for the three filled layers only, 4.33–5.70 ms.
--
-- Now the layers left short are first probed with one static statement (its plan cached by
-- PL/pgSQL): a layer is kept when the tenant holds an embedded memory of a status the call
-- asks for (the (tenant_id, layer, status) index, then the row). That is a weaker condition than
-- the second statement's, which applies every filter (validity, as-of, contexts, time range,
-- model) — so a layer it drops could never have contributed a row, and the second statement runs,
-- unchanged, for the layers it keeps. The results are the same (TestRecallVectorScanLayerProbe;
-- 900 of 900 scans identical to 0028's function on the kept database, three kinds of call). The
-- body is 0028's otherwise, with its settings named again.
CREATE OR REPLACE FUNCTION zb.recall_vector_scan(
    p_tenant text, p_query vector, p_layers zb.memory_layer[], p_k integer, p_now timestamptz, p_from timestamptz,
    p_to timestamptz, p_as_of timestamptz, p_contexts text[], p_deep boolean, p_active text, OUT ids bigint[]
)
LANGUAGE plpgsql STABLE
SET hnsw.iterative_scan = 'relaxed_order'
SET hnsw.ef_search = 100
SET enable_seqscan = on
SET enable_bitmapscan = on
SET jit = off
AS $$
DECLARE
    v_n      bigint;
    v_more   bigint[];
    v_full   zb.memory_layer[];
    v_rest   zb.memory_layer[];
    p_terms  text[];
BEGIN
    -- ef_search by the tenant's active memory count (zb.recall_ef_search; restored on return by
    -- the SET clause above).
    SELECT coalesce(sum(d.docs), 0)::bigint INTO v_n FROM zb.lexical_stat_delta d WHERE d.tenant_id = p_tenant;
    PERFORM set_config('hnsw.ef_search', zb.recall_ef_search(v_n)::text, true);
        -- One HNSW scan for all layers, planned with the actual values (EXECUTE) like a plain
        -- top-k query, for 10·p_k rows split by layer: a layer's nearest rows among the
        -- tenant's nearest are its own nearest. Layers left with fewer than p_k get their
        -- own scan (a small layer through the btree, as the planner sees fit); layers
        -- without a live embedded memory are skipped, as a filtered HNSW scan for them would
        -- walk the whole index before giving up.
        -- The planner underrates reading every 768-d vector of a large tenant (TOAST), so
        -- sequential and bitmap scans are off for this statement (restored on return by the
        -- function's SET clauses).
        PERFORM set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true);
        EXECUTE $q$
            WITH live AS NOT MATERIALIZED (
                SELECT m.* FROM zb.memory m
                WHERE m.tenant_id = $1
                  AND (m.status = 'active' OR ($11 AND m.status IN ('consolidated', 'archived')))
                  AND (m.valid_to IS NULL OR m.valid_to > coalesce($9, $6))
                  AND ($9 IS NULL OR m.valid_from IS NULL OR m.valid_from <= $9)
                  AND ($9 IS NULL OR m.created_at <= $9)
                  AND ($10 IS NULL OR m.context = ANY ($10))
                  AND (m.layer = 'core' OR $7 IS NULL
                       OR coalesce(m.event_to, m.occurred_at + interval '1 microsecond', m.created_at + interval '1 microsecond') > $7)
                  AND (m.layer = 'core' OR $8 IS NULL OR coalesce(m.event_from, m.occurred_at, m.created_at) < $8)
            )
            SELECT coalesce(array_agg(r.id), '{}'), coalesce(array_agg(DISTINCT r.layer) FILTER (WHERE r.rn = $5), '{}')
            FROM (
                SELECT g.id, g.layer, row_number() OVER (PARTITION BY g.layer ORDER BY g.d, g.id) AS rn
                FROM (SELECT m.id, m.layer, m.embedding <=> $2 AS d FROM live m
                      WHERE m.layer = ANY ($4) AND m.embedding IS NOT NULL AND ($12 IS NULL OR m.embedding_model = $12)
                      ORDER BY m.embedding <=> $2
                      LIMIT $5 * 10) g
            ) r
            WHERE r.rn <= $5
        $q$ INTO ids, v_full
        USING p_tenant, p_query, p_terms, p_layers, p_k, p_now, p_from, p_to, p_as_of, p_contexts, p_deep, p_active;
        PERFORM set_config('enable_seqscan', 'on', true), set_config('enable_bitmapscan', 'on', true);
        -- Requested layers left with fewer than p_k rows, of which the tenant holds an embedded
        -- memory of a status asked for at all (one probe of the (tenant, layer, status) index per
        -- layer; the statement below applies every filter): most tenants fill few of the seven
        -- layers, and recall asks for all of them by default.
        IF cardinality(v_full) < cardinality(p_layers) THEN
            v_rest := ARRAY(
                SELECT DISTINCT u.layer FROM unnest(p_layers) AS u(layer)
                WHERE u.layer <> ALL (v_full)
                  AND EXISTS (SELECT 1 FROM zb.memory e
                              WHERE e.tenant_id = p_tenant AND e.layer = u.layer
                                AND (e.status = 'active' OR (p_deep AND e.status IN ('consolidated', 'archived')))
                                AND e.embedding IS NOT NULL));
        END IF;
        IF cardinality(v_rest) > 0 THEN
            EXECUTE $q$
            WITH live AS NOT MATERIALIZED (
                SELECT m.* FROM zb.memory m
                WHERE m.tenant_id = $1
                  AND (m.status = 'active' OR ($11 AND m.status IN ('consolidated', 'archived')))
                  AND (m.valid_to IS NULL OR m.valid_to > coalesce($9, $6))
                  AND ($9 IS NULL OR m.valid_from IS NULL OR m.valid_from <= $9)
                  AND ($9 IS NULL OR m.created_at <= $9)
                  AND ($10 IS NULL OR m.context = ANY ($10))
                  AND (m.layer = 'core' OR $7 IS NULL
                       OR coalesce(m.event_to, m.occurred_at + interval '1 microsecond', m.created_at + interval '1 microsecond') > $7)
                  AND (m.layer = 'core' OR $8 IS NULL OR coalesce(m.event_from, m.occurred_at, m.created_at) < $8)
            )
                SELECT coalesce(array_agg(v.id), '{}')
                FROM (SELECT u.layer FROM unnest($4) AS u(layer)
                      WHERE EXISTS (SELECT 1 FROM live e WHERE e.layer = u.layer AND e.embedding IS NOT NULL
                                    AND ($12 IS NULL OR e.embedding_model = $12))) AS l
                CROSS JOIN LATERAL (
                    SELECT m.id FROM live m
                    WHERE m.layer = l.layer AND m.embedding IS NOT NULL AND ($12 IS NULL OR m.embedding_model = $12)
                    ORDER BY m.embedding <=> $2
                    LIMIT $5
                ) v
            $q$ INTO v_more
            USING p_tenant, p_query, p_terms, v_rest,
                  p_k, p_now, p_from, p_to, p_as_of, p_contexts, p_deep, p_active;
            ids := ids || v_more;
        END IF;
END
$$;


-- pgvector's schema on the search path, as 0014 and 0016 set it (CREATE OR REPLACE keeps no
-- setting the new definition does not name).
DO $$
DECLARE
    vec name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector');
BEGIN
    EXECUTE format('ALTER FUNCTION zb.recall_vector_scan(text, vector, zb.memory_layer[], integer, timestamptz, timestamptz, '
                   'timestamptz, timestamptz, text[], boolean, text) SET search_path = pg_catalog, %I, pg_temp', vec);
END
$$;
