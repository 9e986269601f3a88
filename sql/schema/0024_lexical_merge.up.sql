-- 0024_lexical_merge: recall's lexical half merges the query terms' postings in memory order
-- (issue 10).
--
-- 0019 read each layer's postings term by term and grouped them by memory in a hash table. In one
-- tenant of 100 000 memories a four-term query scores ≈ 35 000 postings, and the grouping was
-- most of the lexical half (≈ 28 ms of 32). Each (tenant, term, layer) range of the postings'
-- primary key is already in memory order — memory_id is the key's last column — so the ranges
-- of one layer can be merged (Merge Append) and summed one memory at a time (GroupAggregate),
-- with no hash table: 14.5–15.1 ms instead of 27–28 for the same 45 queries, the same
-- candidates for every one (docs/performance.md).
--
-- The merge needs one branch per term written out, so zb.recall_lexical_merge takes up to
-- twelve distinct terms (a branch whose term is NULL reads nothing: the index scan sees a NULL
-- key and never descends); longer queries, and tenants of fewer than
-- zb.lexical_merge_min_docs active memories (default 1000: below it the extra call costs more
-- than the hash table — 0.10 against 0.08 ms at 100 memories, 0.25 against 0.3–0.6 ms at 1 000),
-- keep 0019's grouping. 99.9 % of LoCoMo's development questions have at most twelve terms.
-- Terms and weights are scalar variables: a PL/pgSQL array element read per posting copies the
-- array each time (0018). The scores — each term's part rounded to a multiple of 2^-40, so the
-- sum is exact in any order — the filters and the tie order are 0019's: the candidates are
-- the same.

CREATE FUNCTION zb.recall_lexical_merge(
    p_tenant text, p_terms text[], p_idf double precision[], p_avgdl double precision,
    p_layers zb.memory_layer[], p_k integer, p_now timestamptz, p_from timestamptz, p_to timestamptz,
    p_as_of timestamptz, p_contexts text[]
) RETURNS bigint[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = 'force_generic_plan'
SET enable_hashagg = off
AS $$
DECLARE
    v_filtered boolean := p_from IS NOT NULL OR p_to IS NOT NULL OR p_as_of IS NOT NULL OR p_contexts IS NOT NULL;
    v_ids      bigint[];
    t1  text := p_terms[1];  w1  double precision := p_idf[1];
    t2  text := p_terms[2];  w2  double precision := p_idf[2];
    t3  text := p_terms[3];  w3  double precision := p_idf[3];
    t4  text := p_terms[4];  w4  double precision := p_idf[4];
    t5  text := p_terms[5];  w5  double precision := p_idf[5];
    t6  text := p_terms[6];  w6  double precision := p_idf[6];
    t7  text := p_terms[7];  w7  double precision := p_idf[7];
    t8  text := p_terms[8];  w8  double precision := p_idf[8];
    t9  text := p_terms[9];  w9  double precision := p_idf[9];
    t10 text := p_terms[10]; w10 double precision := p_idf[10];
    t11 text := p_terms[11]; w11 double precision := p_idf[11];
    t12 text := p_terms[12]; w12 double precision := p_idf[12];
BEGIN
    IF cardinality(p_terms) > 12 OR cardinality(p_idf) <> cardinality(p_terms) THEN
        RAISE EXCEPTION 'zb.recall_lexical_merge: at most 12 distinct terms with one weight each, got % terms and % weights',
            cardinality(p_terms), cardinality(p_idf) USING ERRCODE = '22023';
    END IF;
    SELECT coalesce(array_agg(t.memory_id ORDER BY t.memory_id), '{}') INTO v_ids
    FROM (SELECT DISTINCT u AS layer FROM unnest(p_layers) u) l
    CROSS JOIN LATERAL (
        SELECT s.memory_id
        FROM (
            SELECT po.memory_id, sum(round(po.part * 1099511627776.0::double precision) / 1099511627776.0::double precision) AS score
            FROM (
                (SELECT w1 * p.tf * (1.2::double precision + 1)
                        / (p.tf + 1.2::double precision * (1 - 0.75::double precision
                           + 0.75::double precision * p.dl / greatest(p_avgdl, 1e-9))) AS part, p.memory_id
                 FROM zb.memory_posting p
                 WHERE p.tenant_id = p_tenant AND p.term = t1 AND p.layer = l.layer
                   AND (p.valid_to IS NULL OR p.valid_to > coalesce(p_as_of, p_now))
                 ORDER BY p.memory_id)
                UNION ALL
                (SELECT w2 * p.tf * (1.2::double precision + 1)
                        / (p.tf + 1.2::double precision * (1 - 0.75::double precision
                           + 0.75::double precision * p.dl / greatest(p_avgdl, 1e-9))) AS part, p.memory_id
                 FROM zb.memory_posting p
                 WHERE p.tenant_id = p_tenant AND p.term = t2 AND p.layer = l.layer
                   AND (p.valid_to IS NULL OR p.valid_to > coalesce(p_as_of, p_now))
                 ORDER BY p.memory_id)
                UNION ALL
                (SELECT w3 * p.tf * (1.2::double precision + 1)
                        / (p.tf + 1.2::double precision * (1 - 0.75::double precision
                           + 0.75::double precision * p.dl / greatest(p_avgdl, 1e-9))) AS part, p.memory_id
                 FROM zb.memory_posting p
                 WHERE p.tenant_id = p_tenant AND p.term = t3 AND p.layer = l.layer
                   AND (p.valid_to IS NULL OR p.valid_to > coalesce(p_as_of, p_now))
                 ORDER BY p.memory_id)
                UNION ALL
                (SELECT w4 * p.tf * (1.2::double precision + 1)
                        / (p.tf + 1.2::double precision * (1 - 0.75::double precision
                           + 0.75::double precision * p.dl / greatest(p_avgdl, 1e-9))) AS part, p.memory_id
                 FROM zb.memory_posting p
                 WHERE p.tenant_id = p_tenant AND p.term = t4 AND p.layer = l.layer
                   AND (p.valid_to IS NULL OR p.valid_to > coalesce(p_as_of, p_now))
                 ORDER BY p.memory_id)
                UNION ALL
                (SELECT w5 * p.tf * (1.2::double precision + 1)
                        / (p.tf + 1.2::double precision * (1 - 0.75::double precision
                           + 0.75::double precision * p.dl / greatest(p_avgdl, 1e-9))) AS part, p.memory_id
                 FROM zb.memory_posting p
                 WHERE p.tenant_id = p_tenant AND p.term = t5 AND p.layer = l.layer
                   AND (p.valid_to IS NULL OR p.valid_to > coalesce(p_as_of, p_now))
                 ORDER BY p.memory_id)
                UNION ALL
                (SELECT w6 * p.tf * (1.2::double precision + 1)
                        / (p.tf + 1.2::double precision * (1 - 0.75::double precision
                           + 0.75::double precision * p.dl / greatest(p_avgdl, 1e-9))) AS part, p.memory_id
                 FROM zb.memory_posting p
                 WHERE p.tenant_id = p_tenant AND p.term = t6 AND p.layer = l.layer
                   AND (p.valid_to IS NULL OR p.valid_to > coalesce(p_as_of, p_now))
                 ORDER BY p.memory_id)
                UNION ALL
                (SELECT w7 * p.tf * (1.2::double precision + 1)
                        / (p.tf + 1.2::double precision * (1 - 0.75::double precision
                           + 0.75::double precision * p.dl / greatest(p_avgdl, 1e-9))) AS part, p.memory_id
                 FROM zb.memory_posting p
                 WHERE p.tenant_id = p_tenant AND p.term = t7 AND p.layer = l.layer
                   AND (p.valid_to IS NULL OR p.valid_to > coalesce(p_as_of, p_now))
                 ORDER BY p.memory_id)
                UNION ALL
                (SELECT w8 * p.tf * (1.2::double precision + 1)
                        / (p.tf + 1.2::double precision * (1 - 0.75::double precision
                           + 0.75::double precision * p.dl / greatest(p_avgdl, 1e-9))) AS part, p.memory_id
                 FROM zb.memory_posting p
                 WHERE p.tenant_id = p_tenant AND p.term = t8 AND p.layer = l.layer
                   AND (p.valid_to IS NULL OR p.valid_to > coalesce(p_as_of, p_now))
                 ORDER BY p.memory_id)
                UNION ALL
                (SELECT w9 * p.tf * (1.2::double precision + 1)
                        / (p.tf + 1.2::double precision * (1 - 0.75::double precision
                           + 0.75::double precision * p.dl / greatest(p_avgdl, 1e-9))) AS part, p.memory_id
                 FROM zb.memory_posting p
                 WHERE p.tenant_id = p_tenant AND p.term = t9 AND p.layer = l.layer
                   AND (p.valid_to IS NULL OR p.valid_to > coalesce(p_as_of, p_now))
                 ORDER BY p.memory_id)
                UNION ALL
                (SELECT w10 * p.tf * (1.2::double precision + 1)
                        / (p.tf + 1.2::double precision * (1 - 0.75::double precision
                           + 0.75::double precision * p.dl / greatest(p_avgdl, 1e-9))) AS part, p.memory_id
                 FROM zb.memory_posting p
                 WHERE p.tenant_id = p_tenant AND p.term = t10 AND p.layer = l.layer
                   AND (p.valid_to IS NULL OR p.valid_to > coalesce(p_as_of, p_now))
                 ORDER BY p.memory_id)
                UNION ALL
                (SELECT w11 * p.tf * (1.2::double precision + 1)
                        / (p.tf + 1.2::double precision * (1 - 0.75::double precision
                           + 0.75::double precision * p.dl / greatest(p_avgdl, 1e-9))) AS part, p.memory_id
                 FROM zb.memory_posting p
                 WHERE p.tenant_id = p_tenant AND p.term = t11 AND p.layer = l.layer
                   AND (p.valid_to IS NULL OR p.valid_to > coalesce(p_as_of, p_now))
                 ORDER BY p.memory_id)
                UNION ALL
                (SELECT w12 * p.tf * (1.2::double precision + 1)
                        / (p.tf + 1.2::double precision * (1 - 0.75::double precision
                           + 0.75::double precision * p.dl / greatest(p_avgdl, 1e-9))) AS part, p.memory_id
                 FROM zb.memory_posting p
                 WHERE p.tenant_id = p_tenant AND p.term = t12 AND p.layer = l.layer
                   AND (p.valid_to IS NULL OR p.valid_to > coalesce(p_as_of, p_now))
                 ORDER BY p.memory_id)
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
    RETURN v_ids;
END
$$;

COMMENT ON FUNCTION zb.recall_lexical_merge(text, text[], double precision[], double precision, zb.memory_layer[], integer,
    timestamptz, timestamptz, timestamptz, timestamptz, text[]) IS
    'Per layer the p_k best memories of p_tenant by BM25 over the postings of up to 12 distinct terms (weights p_idf), merged in memory order; recall''s lexical half for tenants of zb.lexical_merge_min_docs (default 1000) active memories or more.';

-- recall_lexical_postings: 0019's, with the merge above for up to twelve terms in a tenant of
-- zb.lexical_merge_min_docs active memories or more (a setting, so that an operator — and the
-- tests — can choose the way; a value that is not a whole number is refused with 22023, naming
-- the setting, rather than failing a cast inside recall).
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
    v_terms    text[];
    v_w        double precision[];
    v_min      text;
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
    -- Up to twelve distinct terms in a tenant of zb.lexical_merge_min_docs active memories or
    -- more: the postings merged in memory order (zb.recall_lexical_merge). A repeated term counts
    -- once, with the weight of its first position, as below.
    v_min := coalesce(nullif(current_setting('zb.lexical_merge_min_docs', true), ''), '1000');
    IF v_min !~ '^[0-9]{1,18}$' THEN
        RAISE EXCEPTION 'zb.lexical_merge_min_docs must be a whole number of memories (0 to 999999999999999999), got "%"',
            left(v_min, 40) USING ERRCODE = '22023';
    END IF;
    IF p_n >= v_min::bigint THEN
        SELECT array_agg(d.t ORDER BY d.o), array_agg(idf[d.o] ORDER BY d.o) INTO v_terms, v_w
        FROM (SELECT DISTINCT ON (u.t) u.t, u.o FROM unnest(p_terms) WITH ORDINALITY u(t, o) ORDER BY u.t, u.o) d;
        IF cardinality(v_terms) BETWEEN 1 AND 12 THEN
            ids := zb.recall_lexical_merge(p_tenant, v_terms, v_w, p_avgdl, p_layers, p_k, p_now, p_from, p_to, p_as_of,
                                           p_contexts);
            RETURN;
        END IF;
    END IF;
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
