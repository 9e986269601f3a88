-- zb_lexical 1.0: the compiled lexical scorer behind zb.recall_lexical_postings.
\echo Use "CREATE EXTENSION zb_lexical SCHEMA zb" to load this file. \quit

-- Per layer the p_k memories of p_tenant with the highest BM25 (k1 1.2, b 0.75) over the
-- distinct terms p_terms, among postings still valid at coalesce(p_as_of, p_now) and memories
-- that pass recall's filters (time range p_from–p_to, as-of, contexts; NULL: none); the document
-- and session frequencies of each term over the tenant's postings give idf and sidf (one per
-- element of p_terms). Every value is the one zb.recall_lexical_postings_sql computes, to the bit.
-- NULL when any of the first eight arguments is NULL.
-- It reads zb.memory_posting through its primary key without row-level security, so only the
-- owner of schema zb may run it; recall calls it for the transaction's own tenant only.
CREATE FUNCTION lexical_topk(
    p_tenant text, p_terms text[], p_n bigint, p_sn double precision, p_avgdl double precision,
    p_layers anyarray, p_k integer, p_now timestamptz, p_from timestamptz, p_to timestamptz,
    p_as_of timestamptz, p_contexts text[],
    OUT idf double precision[], OUT sidf double precision[], OUT ids bigint[]
)
RETURNS record
LANGUAGE C STABLE
AS 'MODULE_PATHNAME', 'zb_lexical_topk';

REVOKE ALL ON FUNCTION lexical_topk(text, text[], bigint, double precision, double precision, anyarray, integer,
                                    timestamptz, timestamptz, timestamptz, timestamptz, text[]) FROM PUBLIC;
-- The owner of schema zb runs it (migration 0032's SECURITY DEFINER zb.lexical_topk_definer,
-- which recall's lexical half calls for the transaction's own tenant).
DO $$
BEGIN
    EXECUTE format('GRANT EXECUTE ON FUNCTION @extschema@.lexical_topk(text, text[], bigint, double precision, '
                   'double precision, anyarray, integer, timestamptz, timestamptz, timestamptz, timestamptz, text[]) TO %I',
                   (SELECT pg_get_userbyid(n.nspowner) FROM pg_namespace n WHERE n.nspname = '@extschema@'));
END
$$;

-- The build of the loaded library, for zbctl and the tests.
CREATE FUNCTION lexical_version() RETURNS text
LANGUAGE C IMMUTABLE STRICT
AS 'MODULE_PATHNAME', 'zb_lexical_version';
