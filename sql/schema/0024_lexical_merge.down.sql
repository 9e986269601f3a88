-- 0024_lexical_merge down: 0019's zb.recall_lexical_postings, without the merge.

CREATE OR REPLACE FUNCTION zb.recall_lexical_postings(
    p_tenant text, p_terms text[], p_n bigint, p_sn double precision, p_avgdl double precision,
    p_layers zb.memory_layer[], p_k integer, p_now timestamptz, p_from timestamptz, p_to timestamptz,
    p_as_of timestamptz, p_contexts text[],
    OUT idf double precision[], OUT sidf double precision[], OUT ids bigint[]
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = 'force_generic_plan'
AS $$
DECLARE
    v_filtered boolean := p_from IS NOT NULL OR p_to IS NOT NULL OR p_as_of IS NOT NULL OR p_contexts IS NOT NULL;
BEGIN
    -- Document and session frequencies: one index-only count per term.
    SELECT coalesce(array_agg(ln(1 + (p_n - f.df + 0.5) / (f.df + 0.5))::double precision ORDER BY q.o), '{}'),
           coalesce(array_agg(ln(1 + (greatest(p_sn, f.sdf) - f.sdf + 0.5) / (f.sdf + 0.5))::double precision ORDER BY q.o), '{}')
    INTO idf, sidf
    FROM unnest(p_terms) WITH ORDINALITY q(t, o)
    CROSS JOIN LATERAL (
        SELECT count(*) AS df, count(DISTINCT po.session_id) FILTER (WHERE po.session_id IS NOT NULL) AS sdf
        FROM zb.memory_posting po WHERE po.tenant_id = p_tenant AND po.term = q.t
    ) f;
    -- Each term's BM25 part (k1 1.2, b 0.75, zb.bm25_doc's arithmetic) is rounded to a multiple
    -- of 2^-40, so that the sum is exact in any order: the ranking does not depend on the order
    -- in which the plan aggregates (zb.bm25_doc's unrounded score, which recall uses, differs
    -- from it by less than 1e-11). The weights are a one-row CTE: a PL/pgSQL array variable read
    -- once per posting is copied each time (12 µs a row).
    -- Per layer, the layer's postings of the query terms are scored and grouped on their own
    -- (one index range per term and layer), and the best p_k still-valid memories kept; a
    -- filtered recall (time range, as-of, contexts: columns only zb.memory holds) also reads each
    -- scored memory's row for the filters, an unfiltered one reads none (the OR stops at its
    -- first operand).
    WITH w AS MATERIALIZED (
        SELECT idf AS idf
    )
    SELECT coalesce(array_agg(t.memory_id ORDER BY t.memory_id), '{}') INTO ids
    FROM (SELECT DISTINCT u AS layer FROM unnest(p_layers) u) l
    CROSS JOIN LATERAL (
        SELECT s.memory_id
        FROM (
            SELECT po.memory_id,
                   sum(round(w.idf[q.o] * po.tf * (1.2::double precision + 1)
                             / (po.tf + 1.2::double precision * (1 - 0.75::double precision
                                + 0.75::double precision * po.dl / greatest(p_avgdl, 1e-9))) * 1099511627776.0::double precision)
                       / 1099511627776.0::double precision) AS score
            FROM w
            CROSS JOIN (SELECT DISTINCT ON (u.t) u.t, u.o FROM unnest(p_terms) WITH ORDINALITY u(t, o) ORDER BY u.t, u.o) q
            CROSS JOIN LATERAL (
                SELECT p.memory_id, p.tf, p.dl FROM zb.memory_posting p
                WHERE p.tenant_id = p_tenant AND p.term = q.t AND p.layer = l.layer
                  AND (p.valid_to IS NULL OR p.valid_to > coalesce(p_as_of, p_now))
                OFFSET 0
            ) po
            GROUP BY po.memory_id
        ) s
        WHERE (NOT v_filtered OR EXISTS (
              SELECT 1 FROM zb.memory m
              WHERE m.tenant_id = p_tenant AND m.id = s.memory_id AND m.status = 'active'
                AND (p_as_of IS NULL OR m.valid_from IS NULL OR m.valid_from <= p_as_of)
                AND (p_as_of IS NULL OR m.created_at <= p_as_of)
                AND (p_contexts IS NULL OR m.context = ANY (p_contexts))
                AND (m.layer = 'core' OR p_from IS NULL
                     OR coalesce(m.event_to, m.occurred_at + interval '1 microsecond', m.created_at + interval '1 microsecond') > p_from)
                AND (m.layer = 'core' OR p_to IS NULL OR coalesce(m.event_from, m.occurred_at, m.created_at) < p_to)))
        ORDER BY s.score DESC, s.memory_id
        LIMIT p_k
    ) t;
END
$$;

DROP FUNCTION zb.recall_lexical_merge(text, text[], double precision[], double precision, zb.memory_layer[], integer,
    timestamptz, timestamptz, timestamptz, timestamptz, text[]);
