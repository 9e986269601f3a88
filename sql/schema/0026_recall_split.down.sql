-- 0026_recall_split down: zb.recall_candidates_model in one body again (0019's, with 0025's jit
-- setting), and the three parts dropped.
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
SET jit = off
ROWS 100
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

    -- Inverse document frequencies of the query terms (over active memories and sessions) and
    -- the lexical signal: per layer the top p_k live memories by BM25.
    IF v_terms IS NOT NULL THEN
        IF p_deep AND v_n <= 5000 THEN
            -- Deep recall of a small tenant: (… && …) IS TRUE cannot use the GIN index: the
            -- tenant's rows through its btree, read once for both the document frequencies and
            -- the ranking. (Live recall reads the postings at any size, below.)
            WITH hit AS MATERIALIZED (
                SELECT m.id, m.layer, m.status, m.terms, m.term_count, m.session_id,
                       (m.layer = ANY (p_layers)
                        AND (m.valid_to IS NULL OR m.valid_to > coalesce(p_as_of, p_now))
                        AND (p_as_of IS NULL OR m.valid_from IS NULL OR m.valid_from <= p_as_of)
                        AND (p_as_of IS NULL OR m.created_at <= p_as_of)
                        AND (p_contexts IS NULL OR m.context = ANY (p_contexts))
                        AND (m.layer = 'core' OR p_from IS NULL
                             OR coalesce(m.event_to, m.occurred_at + interval '1 microsecond', m.created_at + interval '1 microsecond') > p_from)
                        AND (m.layer = 'core' OR p_to IS NULL OR coalesce(m.event_from, m.occurred_at, m.created_at) < p_to)
                       ) IS TRUE AS ranked
                FROM zb.memory m
                WHERE m.tenant_id = p_tenant AND (m.terms && v_terms) IS TRUE
                  AND (m.status = 'active' OR (p_deep AND m.status IN ('consolidated', 'archived')))
            ), tf AS MATERIALIZED (
                -- Each matching row's query terms with their frequency in it.
                SELECT y.id, y.t, count(*)::integer AS tf
                FROM (SELECT h.id, unnest(h.terms) AS t FROM hit h) y
                WHERE y.t = ANY (v_terms)
                GROUP BY y.id, y.t
            ), f AS (
                SELECT tf.t, count(*) AS df, count(DISTINCT h.session_id) AS sdf
                FROM tf JOIN hit h ON h.id = tf.id
                WHERE h.status = 'active'
                GROUP BY tf.t
            ), w AS MATERIALIZED (
                SELECT coalesce(array_agg(ln(1 + (v_n - coalesce(f.df, 0) + 0.5) / (coalesce(f.df, 0) + 0.5)) ORDER BY q.t), '{}') AS idf,
                       coalesce(array_agg(ln(1 + (greatest(v_sn, coalesce(f.sdf, 0)) - coalesce(f.sdf, 0) + 0.5)
                                             / (coalesce(f.sdf, 0) + 0.5)) ORDER BY q.t), '{}') AS sidf
                FROM unnest(v_terms) q(t)
                LEFT JOIN f ON f.t = q.t
            ), r AS (
                -- zb.bm25_doc's score (k1 1.2, b 0.75) as one aggregate per row, summed in the
                -- order of the query terms as zb.bm25_doc sums it, so the values are identical.
                SELECT x.id, row_number() OVER (PARTITION BY x.layer ORDER BY x.score DESC, x.id) AS rn
                FROM (
                    SELECT h.id, h.layer,
                           sum(q.idf * tf.tf * (1.2::double precision + 1)
                               / (tf.tf + 1.2::double precision * (1 - 0.75::double precision
                                  + 0.75::double precision * h.term_count / greatest(v_avgdl, 1e-9))) ORDER BY q.i) AS score
                    FROM hit h
                    JOIN tf ON tf.id = h.id
                    JOIN (SELECT u.t, u.idf, u.i FROM w CROSS JOIN LATERAL unnest(v_terms, w.idf) WITH ORDINALITY u(t, idf, i)) q
                      ON q.t = tf.t
                    WHERE h.ranked
                    GROUP BY h.id, h.layer
                ) x
            )
            SELECT w.idf, w.sidf, (SELECT coalesce(array_agg(r.id), '{}') FROM r WHERE r.rn <= p_k)
            INTO v_idf, v_sidf, v_lex
            FROM w;
        ELSIF p_tenant = zb.current_tenant() THEN
            -- The postings (live recall) or the GIN index (deep recall of a large tenant), through
            -- the SECURITY DEFINER zb.recall_lexical for the bound tenant: under row-level security
            -- the GIN index is not used (&& and @> are not leakproof).
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
                SELECT m.id, row_number() OVER (PARTITION BY m.layer ORDER BY m.embedding <=> p_query, m.id) AS rn
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

    -- The candidates, their session neighbours and every signal, as in 0010; a candidate's
    -- strongest edge is the strongest of its entities' strongest edges.
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
    ), ents AS MATERIALIZED (
        SELECT DISTINCT mn.entity_id
        FROM cand c JOIN zb.mention mn ON mn.tenant_id = p_tenant AND mn.memory_id = c.id
    ), ent_edge AS MATERIALIZED (
        -- Each entity's strongest edge (by weight / variance; ties to the most recently
        -- activated, then the heavier), read once per entity, not once per memory mentioning it.
        SELECT en.entity_id, x.weight, x.variance, x.last_activated_at
        FROM ents en
        CROSS JOIN LATERAL (
            SELECT y.weight, y.variance, y.last_activated_at
            FROM (
                SELECT ed.weight, ed.variance, ed.last_activated_at FROM zb.edge ed
                WHERE ed.tenant_id = p_tenant AND ed.source_id = en.entity_id
                UNION ALL
                SELECT ed.weight, ed.variance, ed.last_activated_at FROM zb.edge ed
                WHERE ed.tenant_id = p_tenant AND ed.target_id = en.entity_id
            ) y
            ORDER BY y.weight / y.variance DESC, y.last_activated_at DESC, y.weight DESC
            LIMIT 1
        ) x
    ), mem_edge AS (
        SELECT DISTINCT ON (mn.memory_id) mn.memory_id, ee.weight, ee.variance, ee.last_activated_at
        FROM cand c
        JOIN zb.mention mn ON mn.tenant_id = p_tenant AND mn.memory_id = c.id
        JOIN ent_edge ee ON ee.entity_id = mn.entity_id
        ORDER BY mn.memory_id, ee.weight / ee.variance DESC, ee.last_activated_at DESC, ee.weight DESC
    )
    SELECT m.id,
           (CASE WHEN p_query IS NULL OR m.embedding IS NULL
                      OR (p_active IS NOT NULL AND m.embedding_model IS DISTINCT FROM p_active) THEN 0
                 ELSE greatest(-1, least(1, 1 - (m.embedding <=> p_query))) END)::double precision,
           (CASE WHEN v_terms IS NULL THEN 0
                 ELSE zb.bm25_doc(m.terms, m.term_count, v_terms, v_idf, v_avgdl) END)::double precision,
           c.by_vector, c.by_lexical, c.by_context, n.prev_id, n.next_id,
           coalesce(sc.score, 0)::double precision, coalesce(sc.speakers, '{}'::text[]),
           coalesce(e.weight, 0)::double precision, coalesce(e.variance, 1)::double precision,
           coalesce(e.last_activated_at, p_now),
           v_n, v_avgdl,
           ARRAY(SELECT a.algorithm FROM zb.algorithm_switch a WHERE a.tenant_id = p_tenant AND NOT a.enabled ORDER BY 1)
    FROM cand c
    LEFT JOIN nbr n ON n.id = c.id
    JOIN zb.memory m ON m.tenant_id = p_tenant AND m.id = c.id
    LEFT JOIN sess_score sc ON sc.session_id = m.session_id
    LEFT JOIN mem_edge e ON e.memory_id = m.id
    ORDER BY m.id;
END
$$;


DROP FUNCTION zb.recall_candidates_join(text, vector, text[], double precision[], double precision[], zb.memory_layer[],
    timestamptz, timestamptz, timestamptz, timestamptz, text[], boolean, text, bigint[], bigint[], bigint, double precision,
    double precision, double precision, boolean);
DROP FUNCTION zb.recall_vector_half(text, vector, zb.memory_layer[], integer, timestamptz, timestamptz, timestamptz,
    timestamptz, text[], boolean, text, bigint);
DROP FUNCTION zb.recall_lexical_half(text, text[], zb.memory_layer[], integer, timestamptz, timestamptz, timestamptz,
    timestamptz, text[], boolean);
