-- 0014_perf down: zb.bm25_doc as in 0006 and zb.recall_candidates_model as in 0010 return; the
-- lexical functions go, and the role <prefix>_search (cluster-wide, kept: other databases may
-- use it) loses its grants in this database.

CREATE OR REPLACE FUNCTION zb.bm25_doc(doc_terms text[], doc_len integer, q_terms text[], q_idf double precision[],
                            avgdl double precision, k1 double precision DEFAULT 1.2, b double precision DEFAULT 0.75)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT coalesce(sum(q.idf * tf.c * (k1 + 1)
                        / (tf.c + k1 * (1 - b + b * doc_len / greatest(avgdl, 1e-9)))), 0)::double precision
    FROM (SELECT u AS t, count(*)::double precision AS c FROM unnest(doc_terms) u WHERE u = ANY (q_terms) GROUP BY u) tf
    JOIN unnest(q_terms, q_idf) AS q(t, idf) ON q.t = tf.t
$$;

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
LANGUAGE sql STABLE
SET hnsw.iterative_scan = 'relaxed_order'
SET hnsw.ef_search = 100
AS $$
    WITH stats AS (
        SELECT greatest(coalesce(sum(d.docs), 0), 0)::bigint AS n,
               CASE WHEN coalesce(sum(d.docs), 0) > 0 THEN sum(d.terms)::double precision / sum(d.docs) ELSE 0 END AS avgdl,
               greatest(coalesce(sum(d.terms), 0), 0)::double precision AS total
        FROM zb.lexical_stat_delta d WHERE d.tenant_id = p_tenant
    ), sess_stats AS (
        SELECT greatest(count(*), 1)::double precision AS n FROM zb.session se WHERE se.tenant_id = p_tenant
    ), qt AS (
        SELECT array_agg(t ORDER BY t) AS terms FROM (SELECT DISTINCT t FROM unnest(p_terms) t WHERE t <> '') x
    ), df AS (
        SELECT q.t, x.df, x.sdf
        FROM unnest((SELECT terms FROM qt)) q(t)
        CROSS JOIN LATERAL (
            SELECT count(*) AS df, count(DISTINCT m.session_id) AS sdf FROM zb.memory m
            WHERE m.tenant_id = p_tenant AND m.status = 'active' AND m.terms @> ARRAY[q.t]
        ) x
    ), idf AS (
        SELECT coalesce(array_agg(ln(1 + (s.n - df.df + 0.5) / (df.df + 0.5)) ORDER BY df.t), '{}') AS idf,
               coalesce(array_agg(ln(1 + (greatest(ss.n, df.sdf) - df.sdf + 0.5) / (df.sdf + 0.5)) ORDER BY df.t), '{}') AS sidf
        FROM stats s, sess_stats ss, df
    ), live AS NOT MATERIALIZED (
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
    ), vec AS (
        -- Layers without a live embedded memory are skipped: a filtered HNSW scan for them would
        -- walk the whole index of every tenant before giving up.
        SELECT v.id
        FROM (SELECT u.layer FROM unnest(p_layers) AS u(layer)
              WHERE p_query IS NOT NULL
                AND EXISTS (SELECT 1 FROM live e WHERE e.layer = u.layer AND e.embedding IS NOT NULL
                            AND (p_active IS NULL OR e.embedding_model = p_active))) AS l
        CROSS JOIN LATERAL (
            SELECT m.id FROM live m
            WHERE p_query IS NOT NULL AND m.layer = l.layer AND m.embedding IS NOT NULL
              AND (p_active IS NULL OR m.embedding_model = p_active)
            ORDER BY m.embedding <=> p_query
            LIMIT p_k
        ) v
    ), lex AS (
        SELECT r.id FROM (
            SELECT m.id, row_number() OVER (
                PARTITION BY m.layer
                ORDER BY zb.bm25_doc(m.terms, m.term_count, qt.terms, idf.idf, s.avgdl) DESC, m.id) AS rn
            FROM live m, qt, idf, stats s
            WHERE m.layer = ANY (p_layers) AND qt.terms IS NOT NULL AND m.terms && qt.terms
        ) r
        WHERE r.rn <= p_k
    ), base AS (
        SELECT c.id, bool_or(c.v) AS by_vector, bool_or(NOT c.v) AS by_lexical
        FROM (SELECT vec.id, true AS v FROM vec UNION ALL SELECT lex.id, false FROM lex) c
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
                WHERE m.session_id = se.session_id AND u = ANY (qt.terms)) AS terms
        FROM sessions se CROSS JOIN qt
    ), sess_score AS (
        SELECT d.session_id, d.speakers,
               CASE WHEN qt.terms IS NULL OR d.terms IS NULL THEN 0
                    ELSE zb.bm25_doc(d.terms, coalesce(d.len, 0), qt.terms, idf.sidf,
                                     s.total / ss.n) END AS score
        FROM sess_doc d CROSS JOIN qt CROSS JOIN idf CROSS JOIN stats s CROSS JOIN sess_stats ss
    )
    SELECT m.id,
           CASE WHEN p_query IS NULL OR m.embedding IS NULL
                     OR (p_active IS NOT NULL AND m.embedding_model IS DISTINCT FROM p_active) THEN 0
                ELSE greatest(-1, least(1, 1 - (m.embedding <=> p_query))) END::double precision,
           CASE WHEN qt.terms IS NULL THEN 0
                ELSE zb.bm25_doc(m.terms, m.term_count, qt.terms, idf.idf, s.avgdl) END,
           c.by_vector, c.by_lexical, c.by_context, cn.prev_id, cn.next_id,
           coalesce(sc.score, 0)::double precision, coalesce(sc.speakers, '{}'),
           coalesce(e.weight, 0), coalesce(e.variance, 1), coalesce(e.last_activated_at, p_now),
           s.n, s.avgdl,
           ARRAY(SELECT a.algorithm FROM zb.algorithm_switch a WHERE a.tenant_id = p_tenant AND NOT a.enabled ORDER BY 1)
    FROM cand c
    JOIN cand_nbr cn ON cn.id = c.id
    JOIN zb.memory m ON m.tenant_id = p_tenant AND m.id = c.id
    LEFT JOIN sess_score sc ON sc.session_id = m.session_id
    CROSS JOIN qt CROSS JOIN idf CROSS JOIN stats s
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
    ORDER BY m.id
$$;

DROP FUNCTION IF EXISTS zb.recall_vector(text, vector, zb.memory_layer[], integer, timestamptz, timestamptz,
    timestamptz, timestamptz, text[], boolean, text);
DROP FUNCTION IF EXISTS zb.recall_vector_scan(text, vector, zb.memory_layer[], integer, timestamptz, timestamptz,
    timestamptz, timestamptz, text[], boolean, text);
DROP FUNCTION IF EXISTS zb.recall_lexical(text, text[], bigint, double precision, double precision, zb.memory_layer[],
    integer, timestamptz, timestamptz, timestamptz, timestamptz, text[], boolean);
DROP FUNCTION IF EXISTS zb.recall_lexical_scan(text, text[], bigint, double precision, double precision, zb.memory_layer[],
    integer, timestamptz, timestamptz, timestamptz, timestamptz, text[], boolean);

DO $$
DECLARE
    lex name := (coalesce((SELECT c.value FROM zb.config c WHERE c.key = 'role_prefix'), 'zb') || '_search')::name;
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = lex) THEN
        EXECUTE format('REVOKE SELECT ON zb.memory, zb.tenant_binding FROM %I', lex);
        EXECUTE format('REVOKE USAGE ON SCHEMA zb FROM %I', lex);
    END IF;
END
$$;


-- memory_activity_idx (0007) returns; zb.memory's fillfactor goes back to the default (100).
CREATE INDEX IF NOT EXISTS memory_activity_idx ON zb.memory (tenant_id, last_accessed_at) WHERE status = 'active';
ALTER TABLE zb.memory RESET (fillfactor);
