-- 0018_postings down: recall's lexical half returns to the GIN index for every large-tenant
-- recall, and the postings table and its triggers go.
ALTER FUNCTION zb.recall_candidates_model(text, vector, text[], zb.memory_layer[], integer, timestamptz, timestamptz,
                                          timestamptz, timestamptz, text[], boolean, text) ROWS 1000;
DROP FUNCTION zb.recall_lexical_scan(text, text[], bigint, double precision, double precision, zb.memory_layer[], integer,
                                     timestamptz, timestamptz, timestamptz, timestamptz, text[], boolean);
DROP FUNCTION zb.recall_lexical_postings(text, text[], bigint, double precision, double precision, zb.memory_layer[], integer,
                                         timestamptz, timestamptz, timestamptz, timestamptz, text[]);
ALTER FUNCTION zb.recall_lexical_gin(text, text[], bigint, double precision, double precision, zb.memory_layer[], integer,
                                     timestamptz, timestamptz, timestamptz, timestamptz, text[], boolean)
    RENAME TO recall_lexical_scan;
DROP TRIGGER memory_posting_update ON zb.memory;
DROP TRIGGER memory_posting_delete ON zb.memory;
DROP TRIGGER memory_posting_insert ON zb.memory;
DROP FUNCTION zb.memory_posting_updated();
DROP FUNCTION zb.memory_posting_deleted();
DROP FUNCTION zb.memory_posting_inserted();
DROP TABLE zb.memory_posting;
