-- 0032_lexical_compiled down: 0024's SQL function is the lexical half again; the extension goes.
DROP FUNCTION zb.recall_lexical_postings(text, text[], bigint, double precision, double precision, zb.memory_layer[],
                                         integer, timestamptz, timestamptz, timestamptz, timestamptz, text[]);
ALTER FUNCTION zb.recall_lexical_postings_sql(text, text[], bigint, double precision, double precision,
                                              zb.memory_layer[], integer, timestamptz, timestamptz, timestamptz,
                                              timestamptz, text[])
    RENAME TO recall_lexical_postings;
COMMENT ON FUNCTION zb.recall_lexical_postings(text, text[], bigint, double precision, double precision,
    zb.memory_layer[], integer, timestamptz, timestamptz, timestamptz, timestamptz, text[]) IS NULL;
DROP FUNCTION zb.lexical_scorer();
DROP FUNCTION zb.lexical_topk_definer(text, text[], bigint, double precision, double precision, zb.memory_layer[], integer,
                                      timestamptz, timestamptz, timestamptz, timestamptz, text[]);
DROP EXTENSION IF EXISTS zb_lexical;
