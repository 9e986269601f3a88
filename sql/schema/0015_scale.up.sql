-- 0015_scale: work proportional to change in large tenants (issue 10).
--
-- 1. HOT edge updates. zb.edge_weak_idx (tenant_id, weight) WHERE weight < 0.1 was read by no
--    query, but as an index on weight it made every update of an edge's weight non-HOT: decay,
--    sleep's LTP/LTD and recall's co-activation re-inserted each touched edge into all four
--    indexes. It goes, and zb.edge keeps 20 % of each page free (fillfactor 80) so that those
--    updates can stay on their page.
--
-- 2. Bounded lexical candidate generation (the function at the end of this file).
-- zb.recall_lexical_scan (the lexical half of recall for a tenant of more than 5 000 active
-- memories, since 0014) counted every query term's document frequency exactly and scored every
-- memory sharing a term with the query: linear in the matching rows, which in a tenant of
-- 100 000 memories whose query terms are common (each in 7–10 % of the memories) is 30 000
-- scored rows and ≈ 0.5 s. Now:
--   * a term's document frequency is counted exactly up to 200 matches; a term that reaches it
--     is common, and its frequency is estimated from ≈ 1 500 of the tenant's memories spread
--     over its id range (50 probes of the primary key, 30 memories each): its IDF is
--     approximate (sampling error), the others stay exact;
--   * while the matching memories are at most 5 000 (by the frequencies above) every one is
--     scored, as before; above, only the memories holding a rare query term or at least two of
--     the 8 rarest query terms (GIN intersections of two posting lists) are scored; a layer
--     they leave with fewer than k has every one of its matches scored (through its btree rows).
-- Measured in docs/performance.md ("Lexical candidates in large tenants").

DROP INDEX zb.edge_weak_idx;
ALTER TABLE zb.edge SET (fillfactor = 80);


-- 3. No float underflow in the triple-copy strength. PostgreSQL raises "value out of range:
--    underflow" when a product of two non-zero doubles rounds to 0: S0 · exp(−age/τ) did for a
--    fast copy about four months old (exp(−745 < x < −708) is subnormal; times S0 < 1 it can round
--    to 0), and decay reads copy strengths (triple_copy protection), so a long-lived tenant's decay
--    job failed (found by the LoCoMo shared-pool run). exp_or_zero now returns 0 below
--    ln(DBL_MIN) ≈ −708.39, where exp leaves the normal range, and copy_strength takes S0 into the
--    exponent (exp(ln S0 − age/τ)) so no product can underflow. Both stay within 1e-300 of their
--    Go twins (math.Exp returns subnormals there).
CREATE OR REPLACE FUNCTION zb.exp_or_zero(x double precision)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN x < -708.39 THEN 0 ELSE exp(x) END
$$;

COMMENT ON FUNCTION zb.exp_or_zero(double precision) IS
    'exp(x), 0 below −708.39 (where exp leaves the normal range) instead of an underflow error; Go''s math.Exp differs there by < 1e-307.';

CREATE OR REPLACE FUNCTION zb.copy_strength(copy text, initial_strength double precision, tau_seconds double precision,
                                            created_at timestamptz, p_now timestamptz)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE
        WHEN p_now < created_at OR NOT (tau_seconds > 0) OR NOT (initial_strength > 0) THEN 0
        WHEN copy = 'deep' THEN least(1, greatest(0, initial_strength
             * (1 - zb.exp_or_zero(-extract(epoch FROM p_now - created_at)::double precision / tau_seconds))))
        ELSE least(1, greatest(0,
             zb.exp_or_zero(ln(initial_strength) - extract(epoch FROM p_now - created_at)::double precision / tau_seconds)))
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
SET enable_seqscan = on
AS $$
DECLARE
    -- A term's document frequency is counted exactly up to c_cap matching memories; a term
    -- that reaches it is common, and its frequency is estimated from a sample of about
    -- c_sample of the tenant's memories spread over its id range (50 probes of the primary key, 30 memories each).
    c_cap    constant integer := 200;
    c_sample constant integer := 1500;
    -- Every memory matching a query term is scored (exact BM25 top-k) while they are at most
    -- c_union; above, only the memories with a rare term (df < c_cap) or with at least two of
    -- the c_pair_terms rarest query terms are (GIN intersections of posting lists), and every
    -- match of a layer those leave with fewer than p_k.
    c_union  constant integer := 5000;
    c_pair_terms constant integer := 8;
    v_df     double precision[];
    v_sdf    double precision[];
    v_common text[];
    v_rare   text[];
    v_lo     bigint;
    v_hi     bigint;
    v_sum    double precision;
    v_a      text[];
    v_b      text[];
    v_full   zb.memory_layer[];
    v_under  zb.memory_layer[];
    v_more   bigint[];
BEGIN
    SELECT array_agg(f.df::double precision ORDER BY q.t), array_agg(f.sdf::double precision ORDER BY q.t),
           array_agg(q.t ORDER BY q.t) FILTER (WHERE f.df >= c_cap), array_agg(q.t ORDER BY q.t) FILTER (WHERE f.df < c_cap AND f.df > 0)
    INTO v_df, v_sdf, v_common, v_rare
    FROM unnest(p_terms) q(t)
    CROSS JOIN LATERAL (
        SELECT count(*) AS df, count(DISTINCT x.session_id) AS sdf
        FROM (SELECT m.session_id FROM zb.memory m
              WHERE m.tenant_id = p_tenant AND m.status = 'active' AND m.terms @> ARRAY[q.t] LIMIT c_cap) x
    ) f;
    IF v_common IS NOT NULL THEN
        SELECT min(m.id), max(m.id) INTO v_lo, v_hi FROM zb.memory m WHERE m.tenant_id = p_tenant;
        WITH s AS (
            SELECT DISTINCT ON (p.id) p.terms
            FROM generate_series(0, 49) g(i)
            CROSS JOIN LATERAL (
                SELECT m.id, m.terms FROM zb.memory m
                WHERE m.tenant_id = p_tenant AND m.status = 'active' AND m.id >= v_lo + (v_hi - v_lo) * g.i / 50
                ORDER BY m.id LIMIT c_sample / 50
            ) p
        ), n AS (SELECT count(*)::double precision AS n FROM s)
        SELECT array_agg(CASE WHEN NOT (q.t = ANY (v_common)) THEN v_df[q.o]
                              ELSE greatest(c_cap::double precision,
                                            round(p_n * (SELECT count(*) FROM s WHERE s.terms @> ARRAY[q.t]) / greatest(n.n, 1)))
                         END ORDER BY q.o)
        INTO v_df
        FROM unnest(p_terms) WITH ORDINALITY q(t, o), n;
        -- A common term's session frequency: its capped count scaled like its document frequency.
        SELECT array_agg(CASE WHEN q.t = ANY (v_common) THEN least(greatest(p_sn, 1), v_sdf[q.o] * v_df[q.o] / c_cap)
                              ELSE v_sdf[q.o] END ORDER BY q.o)
        INTO v_sdf
        FROM unnest(p_terms) WITH ORDINALITY q(t, o);
    END IF;
    SELECT coalesce(array_agg(ln(1 + (p_n - d.df + 0.5) / (d.df + 0.5)) ORDER BY d.o), '{}'),
           coalesce(array_agg(ln(1 + (greatest(p_sn, d.sdf) - d.sdf + 0.5) / (d.sdf + 0.5)) ORDER BY d.o), '{}'),
           sum(d.df)
    INTO idf, sidf, v_sum
    FROM unnest(v_df, v_sdf) WITH ORDINALITY d(df, sdf, o);

    IF coalesce(v_sum, 0) > c_union AND cardinality(p_terms) > 1 THEN
        -- Pairs of the rarest query terms (by estimated document frequency).
        SELECT array_agg(x.t1 ORDER BY x.t1, x.t2), array_agg(x.t2 ORDER BY x.t1, x.t2) INTO v_a, v_b
        FROM (SELECT r1.t AS t1, r2.t AS t2
              FROM (SELECT q.t FROM unnest(p_terms, v_df) q(t, df) WHERE q.df > 0 ORDER BY q.df, q.t LIMIT c_pair_terms) r1
              JOIN (SELECT q.t FROM unnest(p_terms, v_df) q(t, df) WHERE q.df > 0 ORDER BY q.df, q.t LIMIT c_pair_terms) r2
                ON r1.t < r2.t) x;
        SELECT coalesce(array_agg(r.id), '{}'), coalesce(array_agg(DISTINCT r.layer) FILTER (WHERE r.rn = p_k), '{}')
        INTO ids, v_full
        FROM (
            SELECT m.id, m.layer, row_number() OVER (
                PARTITION BY m.layer ORDER BY zb.bm25_doc(m.terms, m.term_count, p_terms, idf, p_avgdl) DESC, m.id) AS rn
            FROM (
                SELECT c.id FROM unnest(coalesce(v_a, '{}'), coalesce(v_b, '{}')) p(a, b)
                CROSS JOIN LATERAL (SELECT m.id FROM zb.memory m WHERE m.tenant_id = p_tenant AND m.terms @> ARRAY[p.a, p.b]) c
                UNION
                SELECT m.id FROM zb.memory m WHERE m.tenant_id = p_tenant AND m.terms && coalesce(v_rare, '{}')
            ) c
            JOIN zb.memory m ON m.tenant_id = p_tenant AND m.id = c.id
            WHERE m.layer = ANY (p_layers)
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
        -- A layer left with fewer than p_k (a small layer, or one whose memories share only one
        -- common term with the query): every match of that layer is scored, through the
        -- tenant's (tenant_id, layer, status) rows ((… && …) IS TRUE keeps the GIN index out:
        -- an empty layer costs one index probe, not a pass over every match of the query).
        SELECT array_agg(l) INTO v_under FROM unnest(p_layers) l WHERE l <> ALL (v_full);
        IF v_under IS NOT NULL THEN
            -- The generic plan reads the whole table in parallel; off for this statement only
            -- (the function's SET clause restores it on return).
            PERFORM set_config('enable_seqscan', 'off', true);
            SELECT coalesce(array_agg(r.id), '{}') INTO v_more
            FROM (
                SELECT m.id, row_number() OVER (
                    PARTITION BY m.layer ORDER BY zb.bm25_doc(m.terms, m.term_count, p_terms, idf, p_avgdl) DESC, m.id) AS rn
                FROM zb.memory m
                WHERE m.tenant_id = p_tenant AND m.layer = ANY (v_under) AND (m.terms && p_terms) IS TRUE
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
            PERFORM set_config('enable_seqscan', 'on', true);
            ids := ARRAY(SELECT DISTINCT u FROM unnest(ids || v_more) u ORDER BY u);
        END IF;
        RETURN;
    END IF;
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
END
$$;
