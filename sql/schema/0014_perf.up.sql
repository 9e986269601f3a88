-- 0014_perf: recall candidate generation at scale (issue #10, docs/performance.md).
--
--  * zb.bm25_doc: the same Okapi BM25 score as 0006, in PL/pgSQL. The SQL version started an
--    executor per call (about 0.1 ms); recall scores every memory that shares a term with the
--    query, which made the lexical pass of a large tenant cost hundreds of milliseconds.
--  * zb.recall_candidates_model: the same candidates and signals as 0010, in PL/pgSQL, so that
--    its statements are prepared once per connection and planned generically once (a LANGUAGE
--    sql function with SET options was planned anew on every call: 5–35 ms of planning for a
--    2 ms query; each step's access path is chosen explicitly instead), and in steps that
--    choose their access path by the tenant's size (its active documents from
--    zb.lexical_stat_delta): a small tenant's rows are read through the tenant btree and
--    ranked exactly (cosine and BM25), a large tenant's through the HNSW index (one scan for
--    all layers, iterative) and the terms GIN index. The corpus statistics are read once.
--  * zb.recall_lexical_scan and zb.recall_vector_scan: the large-tenant halves (GIN, HNSW).
--    Under row-level security PostgreSQL uses neither index (&& and @> are not leakproof; the
--    HNSW ordering is not chosen), so for the tenant the transaction is bound to they run inside
--    zb.recall_lexical and zb.recall_vector: SECURITY DEFINER, owned by the role
--    <prefix>_search (NOLOGIN, BYPASSRLS, SELECT on zb.memory and zb.tenant_binding), created
--    when the migrating role is a superuser. They refuse any tenant but zb.current_tenant().
--  * Recall's access update (MemoryRecallApply: access_count, last_accessed_at, stability) is
--    a HOT update: memory_activity_idx (tenant_id, last_accessed_at) goes, so no index covers a
--    column it writes (fade_at, in memory_fade_idx, is no longer written by recall: see the
--    query), and a recalled row is no longer inserted again into every index (HNSW and GIN
--    included). Its two readers (sleep's episodes, STC's tagging pass) read the tenant's active
--    rows through memory_layer_status_idx instead. zb.memory gets fillfactor 90 so updated rows
--    find room on their page; this applies to pages written from now on (existing pages keep
--    what they have until VACUUM FULL or CLUSTER rewrites the table).

CREATE OR REPLACE FUNCTION zb.bm25_doc(doc_terms text[], doc_len integer, q_terms text[], q_idf double precision[],
                                       avgdl double precision, k1 double precision DEFAULT 1.2, b double precision DEFAULT 0.75)
RETURNS double precision
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
    s  double precision := 0;
    tf integer;
    x  double precision;
BEGIN
    FOR i IN 1 .. coalesce(cardinality(q_terms), 0) LOOP
        tf := cardinality(array_positions(doc_terms, q_terms[i]));
        IF tf > 0 THEN
            x := q_idf[i] * tf * (k1 + 1) / (tf + k1 * (1 - b + b * doc_len / greatest(avgdl, 1e-9)));
            IF x IS NOT NULL THEN
                s := s + x;
            END IF;
        END IF;
    END LOOP;
    RETURN s;
END
$$;

-- recall_lexical_scan is the lexical half of zb.recall_candidates_model for a large tenant:
-- the inverse document frequencies of the distinct sorted query terms p_terms (over its p_n
-- active memories and p_sn sessions) and per layer the top p_k live memories by BM25, both
-- through the terms GIN index.
CREATE OR REPLACE FUNCTION zb.recall_lexical_scan(
    p_tenant text, p_terms text[], p_n bigint, p_sn double precision, p_avgdl double precision,
    p_layers zb.memory_layer[], p_k integer, p_now timestamptz, p_from timestamptz, p_to timestamptz,
    p_as_of timestamptz, p_contexts text[], p_deep boolean,
    OUT idf double precision[], OUT sidf double precision[], OUT ids bigint[]
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = 'force_generic_plan'
AS $$
BEGIN
    SELECT coalesce(array_agg(ln(1 + (p_n - f.df + 0.5) / (f.df + 0.5)) ORDER BY q.t), '{}'),
           coalesce(array_agg(ln(1 + (greatest(p_sn, f.sdf) - f.sdf + 0.5) / (f.sdf + 0.5)) ORDER BY q.t), '{}')
    INTO idf, sidf
    FROM unnest(p_terms) q(t)
    CROSS JOIN LATERAL (
        SELECT count(*) AS df, count(DISTINCT m.session_id) AS sdf FROM zb.memory m
        WHERE m.tenant_id = p_tenant AND m.status = 'active' AND m.terms @> ARRAY[q.t]
    ) f;
    SELECT coalesce(array_agg(r.id), '{}') INTO ids
    FROM (
        SELECT m.id, row_number() OVER (
            PARTITION BY m.layer ORDER BY zb.bm25_doc(m.terms, m.term_count, p_terms, idf, p_avgdl) DESC, m.id) AS rn
        FROM zb.memory m
        WHERE m.tenant_id = p_tenant AND m.layer = ANY (p_layers) AND m.terms && p_terms
          AND (m.status = 'active' OR (p_deep AND m.status IN ('consolidated', 'archived')))
          AND (m.valid_to IS NULL OR m.valid_to > coalesce(p_as_of, p_now))
          AND (p_as_of IS NULL OR m.valid_from IS NULL OR m.valid_from <= p_as_of)
          AND (p_as_of IS NULL OR m.created_at <= p_as_of)
          AND (p_contexts IS NULL OR m.context = ANY (p_contexts))
          AND (m.layer = 'core' OR p_from IS NULL
               OR coalesce(m.event_to, m.occurred_at + interval '1 microsecond', m.created_at + interval '1 microsecond') > p_from)
          AND (m.layer = 'core' OR p_to IS NULL OR coalesce(m.event_from, m.occurred_at, m.created_at) < p_to)
    ) r
    WHERE r.rn <= p_k;
    idf := coalesce(idf, '{}');
    sidf := coalesce(sidf, '{}');
END
$$;

-- recall_lexical is zb.recall_lexical_scan for the tenant the transaction is bound to
-- (zb.current_tenant(); any other tenant is refused with SQLSTATE 42501). It is SECURITY
-- DEFINER, owned by <prefix>_search (NOLOGIN, BYPASSRLS, SELECT on zb.memory and zb.tenant_binding only) when the
-- migrating role may create that role (a superuser), so the GIN index serves a zb_app recall of
-- a large tenant too; the explicit tenant check keeps the row-level security guarantee. Without
-- that role it stays owned by the migrating role, under row-level security: correct, slower.
CREATE OR REPLACE FUNCTION zb.recall_lexical(
    p_tenant text, p_terms text[], p_n bigint, p_sn double precision, p_avgdl double precision,
    p_layers zb.memory_layer[], p_k integer, p_now timestamptz, p_from timestamptz, p_to timestamptz,
    p_as_of timestamptz, p_contexts text[], p_deep boolean,
    OUT idf double precision[], OUT sidf double precision[], OUT ids bigint[]
)
LANGUAGE plpgsql STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_tenant IS NULL OR p_tenant IS DISTINCT FROM zb.current_tenant() THEN
        RAISE EXCEPTION 'zb.recall_lexical: tenant % is not the tenant of the transaction', quote_literal(left(coalesce(p_tenant, ''), 60))
            USING ERRCODE = '42501';
    END IF;
    SELECT l.idf, l.sidf, l.ids INTO idf, sidf, ids
    FROM zb.recall_lexical_scan(p_tenant, p_terms, p_n, p_sn, p_avgdl, p_layers, p_k, p_now, p_from, p_to, p_as_of,
                                p_contexts, p_deep) l;
END
$$;

-- recall_vector_scan is the vector half of zb.recall_candidates_model for a large tenant: per
-- layer the ids of the top p_k live memories by cosine to p_query.
CREATE OR REPLACE FUNCTION zb.recall_vector_scan(
    p_tenant text, p_query vector, p_layers zb.memory_layer[], p_k integer, p_now timestamptz, p_from timestamptz,
    p_to timestamptz, p_as_of timestamptz, p_contexts text[], p_deep boolean, p_active text, OUT ids bigint[]
)
LANGUAGE plpgsql STABLE
SET hnsw.iterative_scan = 'relaxed_order'
SET hnsw.ef_search = 100
SET enable_seqscan = on
SET enable_bitmapscan = on
AS $$
DECLARE
    v_more   bigint[];
    v_full   zb.memory_layer[];
    p_terms  text[];
BEGIN
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
        IF cardinality(v_full) < cardinality(p_layers) THEN
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
            USING p_tenant, p_query, p_terms, array(SELECT DISTINCT u FROM unnest(p_layers) u WHERE u <> ALL (v_full)),
                  p_k, p_now, p_from, p_to, p_as_of, p_contexts, p_deep, p_active;
            ids := ids || v_more;
        END IF;
END
$$;

-- recall_vector is zb.recall_vector_scan for the tenant the transaction is bound to (any other
-- tenant: SQLSTATE 42501). Under row-level security the planner does not order a scan by the
-- HNSW index (it sorts the tenant's rows instead); as SECURITY DEFINER owned by
-- <prefix>_search (see zb.recall_lexical) the HNSW index serves zb_app too.
CREATE OR REPLACE FUNCTION zb.recall_vector(
    p_tenant text, p_query vector, p_layers zb.memory_layer[], p_k integer, p_now timestamptz, p_from timestamptz,
    p_to timestamptz, p_as_of timestamptz, p_contexts text[], p_deep boolean, p_active text
)
RETURNS bigint[]
LANGUAGE plpgsql STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_tenant IS NULL OR p_tenant IS DISTINCT FROM zb.current_tenant() THEN
        RAISE EXCEPTION 'zb.recall_vector: tenant % is not the tenant of the transaction', quote_literal(left(coalesce(p_tenant, ''), 60))
            USING ERRCODE = '42501';
    END IF;
    RETURN zb.recall_vector_scan(p_tenant, p_query, p_layers, p_k, p_now, p_from, p_to, p_as_of, p_contexts, p_deep, p_active);
END
$$;

-- The role <prefix>_search owns the two SECURITY DEFINER functions; zb.recall_vector_scan
-- resolves pgvector's operators in the extension's schema, whatever the caller's search_path.
DO $$
DECLARE
    lex name := (coalesce((SELECT c.value FROM zb.config c WHERE c.key = 'role_prefix'), 'zb') || '_search')::name;
    vec name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector');
BEGIN
    EXECUTE format('ALTER FUNCTION zb.recall_vector_scan(text, vector, zb.memory_layer[], integer, timestamptz, timestamptz, '
                   'timestamptz, timestamptz, text[], boolean, text) SET search_path = pg_catalog, %I, pg_temp', vec);
    IF coalesce((SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user), false) THEN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = lex) THEN
            BEGIN
                EXECUTE format('CREATE ROLE %I NOLOGIN BYPASSRLS', lex);
            EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; -- created concurrently
            END;
        END IF;
        EXECUTE format('GRANT USAGE ON SCHEMA zb TO %I', lex);
        EXECUTE format('GRANT SELECT ON zb.memory, zb.tenant_binding TO %I', lex);
        EXECUTE format('ALTER FUNCTION zb.recall_lexical(text, text[], bigint, double precision, double precision, zb.memory_layer[], '
                       'integer, timestamptz, timestamptz, timestamptz, timestamptz, text[], boolean) OWNER TO %I', lex);
        EXECUTE format('ALTER FUNCTION zb.recall_vector(text, vector, zb.memory_layer[], integer, timestamptz, timestamptz, '
                       'timestamptz, timestamptz, text[], boolean, text) OWNER TO %I', lex);
    END IF;
END
$$;

-- recall_candidates_model: see the header. Small tenants (at most 1000 active memories for the
-- vector signal, 5000 for the lexical one) are read whole through the tenant btree: cheaper
-- than any index walk over every tenant's postings or graph, and exact.
CREATE OR REPLACE FUNCTION zb.recall_candidates_model(
    p_tenant text, p_query vector, p_terms text[], p_layers zb.memory_layer[], p_k integer,
    p_now timestamptz, p_from timestamptz, p_to timestamptz, p_as_of timestamptz, p_contexts text[],
    p_deep boolean, p_active text
)
RETURNS TABLE (
    id bigint, cosine double precision, bm25 double precision, by_vector boolean, by_lexical boolean,
    by_context boolean, prev_id bigint, next_id bigint, session_bm25 double precision, session_speakers text[],
    edge_weight double precision, edge_variance double precision, edge_activated_at timestamptz,
    doc_count bigint, avgdl double precision, disabled text[]
)
LANGUAGE plpgsql STABLE
SET hnsw.iterative_scan = 'relaxed_order'
SET hnsw.ef_search = 100
SET plan_cache_mode = 'force_generic_plan'
AS $$
#variable_conflict use_column
DECLARE
    v_n      bigint;
    v_avgdl  double precision;
    v_total  double precision;
    v_sn     double precision;
    v_terms  text[];
    v_idf    double precision[] := '{}';
    v_sidf   double precision[] := '{}';
    v_vec    bigint[] := '{}';
    v_more   bigint[];
    v_full   zb.memory_layer[];
    v_lex    bigint[] := '{}';
BEGIN
    SELECT greatest(coalesce(sum(d.docs), 0), 0)::bigint,
           CASE WHEN coalesce(sum(d.docs), 0) > 0 THEN sum(d.terms)::double precision / sum(d.docs) ELSE 0 END,
           greatest(coalesce(sum(d.terms), 0), 0)::double precision
    INTO v_n, v_avgdl, v_total
    FROM zb.lexical_stat_delta d WHERE d.tenant_id = p_tenant;
    SELECT greatest(count(*), 1)::double precision INTO v_sn FROM zb.session se WHERE se.tenant_id = p_tenant;
    SELECT array_agg(x.t ORDER BY x.t) INTO v_terms FROM (SELECT DISTINCT t FROM unnest(p_terms) t WHERE t <> '') x;

    -- Inverse document frequencies of the query terms (over active memories and sessions).
    IF v_terms IS NOT NULL THEN
        IF v_n <= 5000 THEN
            -- (… && …) IS TRUE cannot use the GIN index: the tenant's rows through its btree.
            SELECT coalesce(array_agg(ln(1 + (v_n - coalesce(f.df, 0) + 0.5) / (coalesce(f.df, 0) + 0.5)) ORDER BY q.t), '{}'),
                   coalesce(array_agg(ln(1 + (greatest(v_sn, coalesce(f.sdf, 0)) - coalesce(f.sdf, 0) + 0.5)
                                         / (coalesce(f.sdf, 0) + 0.5)) ORDER BY q.t), '{}')
            INTO v_idf, v_sidf
            FROM unnest(v_terms) q(t)
            LEFT JOIN (
                SELECT u.t, count(*) AS df, count(DISTINCT m.session_id) AS sdf
                FROM zb.memory m
                CROSS JOIN LATERAL (SELECT DISTINCT y FROM unnest(m.terms) y WHERE y = ANY (v_terms)) u(t)
                WHERE m.tenant_id = p_tenant AND m.status = 'active' AND (m.terms && v_terms) IS TRUE
                GROUP BY u.t
            ) f ON f.t = q.t;
        ELSIF p_tenant = zb.current_tenant() THEN
            -- Under row-level security the GIN index is not used (&& and @> are not leakproof):
            -- the SECURITY DEFINER zb.recall_lexical runs the same scan for the bound tenant.
            SELECT l.idf, l.sidf, l.ids INTO v_idf, v_sidf, v_lex
            FROM zb.recall_lexical(p_tenant, v_terms, v_n, v_sn, v_avgdl, p_layers, p_k, p_now, p_from, p_to, p_as_of,
                                   p_contexts, p_deep) l;
        ELSE
            SELECT l.idf, l.sidf, l.ids INTO v_idf, v_sidf, v_lex
            FROM zb.recall_lexical_scan(p_tenant, v_terms, v_n, v_sn, v_avgdl, p_layers, p_k, p_now, p_from, p_to, p_as_of,
                                        p_contexts, p_deep) l;
        END IF;
    END IF;

    -- Vector signal: per layer the top p_k live memories by cosine.
    IF p_query IS NOT NULL THEN
        IF v_n <= 1000 THEN
            SELECT coalesce(array_agg(v.id), '{}') INTO v_vec
            FROM (
                SELECT m.id, row_number() OVER (PARTITION BY m.layer ORDER BY m.embedding <=> p_query) AS rn
                FROM zb.memory m
                WHERE m.tenant_id = p_tenant AND m.layer = ANY (p_layers) AND m.embedding IS NOT NULL
                  AND (p_active IS NULL OR m.embedding_model = p_active)
                  AND (m.status = 'active' OR (p_deep AND m.status IN ('consolidated', 'archived')))
                  AND (m.valid_to IS NULL OR m.valid_to > coalesce(p_as_of, p_now))
                  AND (p_as_of IS NULL OR m.valid_from IS NULL OR m.valid_from <= p_as_of)
                  AND (p_as_of IS NULL OR m.created_at <= p_as_of)
                  AND (p_contexts IS NULL OR m.context = ANY (p_contexts))
                  AND (m.layer = 'core' OR p_from IS NULL
                       OR coalesce(m.event_to, m.occurred_at + interval '1 microsecond', m.created_at + interval '1 microsecond') > p_from)
                  AND (m.layer = 'core' OR p_to IS NULL OR coalesce(m.event_from, m.occurred_at, m.created_at) < p_to)
            ) v
            WHERE v.rn <= p_k;
        ELSE
            IF p_tenant = zb.current_tenant() THEN
                v_vec := zb.recall_vector(p_tenant, p_query, p_layers, p_k, p_now, p_from, p_to, p_as_of, p_contexts,
                                          p_deep, p_active);
            ELSE
                v_vec := zb.recall_vector_scan(p_tenant, p_query, p_layers, p_k, p_now, p_from, p_to, p_as_of, p_contexts,
                                               p_deep, p_active);
            END IF;
        END IF;
    END IF;

    -- Lexical signal: per layer the top p_k live memories by BM25 (large tenants: above).
    IF v_terms IS NOT NULL THEN
        IF v_n <= 5000 THEN
            SELECT coalesce(array_agg(r.id), '{}') INTO v_lex
            FROM (
                SELECT m.id, row_number() OVER (
                    PARTITION BY m.layer ORDER BY zb.bm25_doc(m.terms, m.term_count, v_terms, v_idf, v_avgdl) DESC, m.id) AS rn
                FROM zb.memory m
                WHERE m.tenant_id = p_tenant AND m.layer = ANY (p_layers) AND (m.terms && v_terms) IS TRUE
                  AND (m.status = 'active' OR (p_deep AND m.status IN ('consolidated', 'archived')))
                  AND (m.valid_to IS NULL OR m.valid_to > coalesce(p_as_of, p_now))
                  AND (p_as_of IS NULL OR m.valid_from IS NULL OR m.valid_from <= p_as_of)
                  AND (p_as_of IS NULL OR m.created_at <= p_as_of)
                  AND (p_contexts IS NULL OR m.context = ANY (p_contexts))
                  AND (m.layer = 'core' OR p_from IS NULL
                       OR coalesce(m.event_to, m.occurred_at + interval '1 microsecond', m.created_at + interval '1 microsecond') > p_from)
                  AND (m.layer = 'core' OR p_to IS NULL OR coalesce(m.event_from, m.occurred_at, m.created_at) < p_to)
            ) r
            WHERE r.rn <= p_k;
        END IF;
    END IF;

    -- The candidates, their session neighbours and every signal, as in 0010.
    RETURN QUERY
    WITH live AS NOT MATERIALIZED (
        SELECT m.*, coalesce(m.occurred_at, m.created_at) AS ord
        FROM zb.memory m
        WHERE m.tenant_id = p_tenant
          AND (m.status = 'active' OR (p_deep AND m.status IN ('consolidated', 'archived')))
          AND (m.valid_to IS NULL OR m.valid_to > coalesce(p_as_of, p_now))
          AND (p_as_of IS NULL OR m.valid_from IS NULL OR m.valid_from <= p_as_of)
          AND (p_as_of IS NULL OR m.created_at <= p_as_of)
          AND (p_contexts IS NULL OR m.context = ANY (p_contexts))
          AND (m.layer = 'core' OR p_from IS NULL
               OR coalesce(m.event_to, m.occurred_at + interval '1 microsecond', m.created_at + interval '1 microsecond') > p_from)
          AND (m.layer = 'core' OR p_to IS NULL OR coalesce(m.event_from, m.occurred_at, m.created_at) < p_to)
    ), base AS (
        SELECT c.id, bool_or(c.v) AS by_vector, bool_or(NOT c.v) AS by_lexical
        FROM (SELECT u AS id, true AS v FROM unnest(v_vec) u UNION ALL SELECT u, false FROM unnest(v_lex) u) c
        GROUP BY c.id
    ), nbr AS MATERIALIZED (
        SELECT b.id,
               (SELECT p.id FROM live p
                WHERE p.session_id = m.session_id AND p.layer = ANY (p_layers)
                  AND (p.ord, p.id) < (coalesce(m.occurred_at, m.created_at), m.id)
                ORDER BY p.ord DESC, p.id DESC LIMIT 1) AS prev_id,
               (SELECT p.id FROM live p
                WHERE p.session_id = m.session_id AND p.layer = ANY (p_layers)
                  AND (p.ord, p.id) > (coalesce(m.occurred_at, m.created_at), m.id)
                ORDER BY p.ord, p.id LIMIT 1) AS next_id
        FROM base b
        JOIN zb.memory m ON m.tenant_id = p_tenant AND m.id = b.id
        WHERE m.session_id IS NOT NULL
    ), cand AS MATERIALIZED (
        SELECT x.id, bool_or(x.by_vector) AS by_vector, bool_or(x.by_lexical) AS by_lexical,
               bool_and(x.ctx) AS by_context
        FROM (
            SELECT base.id, base.by_vector, base.by_lexical, false AS ctx FROM base
            UNION ALL SELECT nbr.prev_id, false, false, true FROM nbr WHERE nbr.prev_id IS NOT NULL
            UNION ALL SELECT nbr.next_id, false, false, true FROM nbr WHERE nbr.next_id IS NOT NULL
        ) x
        GROUP BY x.id
    ), cand_nbr AS (
        SELECT c.id, n.prev_id, n.next_id FROM cand c LEFT JOIN nbr n ON n.id = c.id
    ), sessions AS (
        SELECT DISTINCT m.session_id FROM cand c JOIN zb.memory m ON m.tenant_id = p_tenant AND m.id = c.id
        WHERE m.session_id IS NOT NULL
    ), sess_doc AS (
        SELECT se.session_id,
               (SELECT sum(m.term_count) FROM live m WHERE m.session_id = se.session_id)::integer AS len,
               (SELECT array_agg(DISTINCT m.metadata ->> 'speaker') FROM live m
                WHERE m.session_id = se.session_id AND m.metadata ->> 'speaker' IS NOT NULL) AS speakers,
               (SELECT array_agg(u) FROM live m CROSS JOIN LATERAL unnest(m.terms) u
                WHERE m.session_id = se.session_id AND u = ANY (v_terms)) AS terms
        FROM sessions se
    ), sess_score AS MATERIALIZED (
        -- Materialized: once per session, not once per candidate of the session.
        SELECT d.session_id, d.speakers,
               CASE WHEN v_terms IS NULL OR d.terms IS NULL THEN 0
                    ELSE zb.bm25_doc(d.terms, coalesce(d.len, 0), v_terms, v_sidf, v_total / v_sn) END AS score
        FROM sess_doc d
    )
    SELECT m.id,
           (CASE WHEN p_query IS NULL OR m.embedding IS NULL
                      OR (p_active IS NOT NULL AND m.embedding_model IS DISTINCT FROM p_active) THEN 0
                 ELSE greatest(-1, least(1, 1 - (m.embedding <=> p_query))) END)::double precision,
           (CASE WHEN v_terms IS NULL THEN 0
                 ELSE zb.bm25_doc(m.terms, m.term_count, v_terms, v_idf, v_avgdl) END)::double precision,
           c.by_vector, c.by_lexical, c.by_context, cn.prev_id, cn.next_id,
           coalesce(sc.score, 0)::double precision, coalesce(sc.speakers, '{}'::text[]),
           coalesce(e.weight, 0)::double precision, coalesce(e.variance, 1)::double precision,
           coalesce(e.last_activated_at, p_now),
           v_n, v_avgdl,
           ARRAY(SELECT a.algorithm FROM zb.algorithm_switch a WHERE a.tenant_id = p_tenant AND NOT a.enabled ORDER BY 1)
    FROM cand c
    JOIN cand_nbr cn ON cn.id = c.id
    JOIN zb.memory m ON m.tenant_id = p_tenant AND m.id = c.id
    LEFT JOIN sess_score sc ON sc.session_id = m.session_id
    LEFT JOIN LATERAL (
        SELECT x.weight, x.variance, x.last_activated_at
        FROM zb.mention mn
        CROSS JOIN LATERAL (
            SELECT ed.weight, ed.variance, ed.last_activated_at FROM zb.edge ed
            WHERE ed.tenant_id = p_tenant AND ed.source_id = mn.entity_id
            UNION ALL
            SELECT ed.weight, ed.variance, ed.last_activated_at FROM zb.edge ed
            WHERE ed.tenant_id = p_tenant AND ed.target_id = mn.entity_id
        ) x
        WHERE mn.tenant_id = p_tenant AND mn.memory_id = m.id
        ORDER BY x.weight / x.variance DESC
        LIMIT 1
    ) e ON true
    ORDER BY m.id;
END
$$;


-- HOT recall updates (see the header).
DROP INDEX IF EXISTS zb.memory_activity_idx;
ALTER TABLE zb.memory SET (fillfactor = 80);
