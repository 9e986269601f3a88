-- 0015_scale down: zb.edge_weak_idx and the default fillfactor of zb.edge return; zb.exp_or_zero and
-- zb.copy_strength as in 0009;
-- zb.recall_lexical_scan as in 0014 (exact document frequencies, every match scored).

ALTER TABLE zb.edge RESET (fillfactor);
CREATE INDEX edge_weak_idx ON zb.edge (tenant_id, weight) WHERE weight < 0.1;

CREATE OR REPLACE FUNCTION zb.exp_or_zero(x double precision)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN x < -745 THEN 0 ELSE exp(x) END
$$;

COMMENT ON FUNCTION zb.exp_or_zero(double precision) IS 'exp(x), 0 below −745 instead of an underflow error (like Go''s math.Exp).';

CREATE OR REPLACE FUNCTION zb.copy_strength(copy text, initial_strength double precision, tau_seconds double precision,
                                            created_at timestamptz, p_now timestamptz)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE
        WHEN p_now < created_at OR NOT (tau_seconds > 0) OR NOT (initial_strength > 0) THEN 0
        WHEN copy = 'deep' THEN least(1, greatest(0, initial_strength
             * (1 - zb.exp_or_zero(-extract(epoch FROM p_now - created_at)::double precision / tau_seconds))))
        ELSE least(1, greatest(0, initial_strength
             * zb.exp_or_zero(-extract(epoch FROM p_now - created_at)::double precision / tau_seconds)))
    END::double precision
$$;

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
