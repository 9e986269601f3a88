DROP FUNCTION zb.recall_candidates(text, vector, text[], zb.memory_layer[], integer, timestamptz, timestamptz,
                                   timestamptz, timestamptz, text[], boolean);
DROP FUNCTION zb.bm25_doc(text[], integer, text[], double precision[], double precision, double precision, double precision);
DROP FUNCTION zb.lexical_stat_compact(text);
DROP TRIGGER memory_lexical_stat_update ON zb.memory;
DROP TRIGGER memory_lexical_stat_delete ON zb.memory;
DROP TRIGGER memory_lexical_stat_insert ON zb.memory;
DROP FUNCTION zb.lexical_stat_on_update();
DROP FUNCTION zb.lexical_stat_on_delete();
DROP FUNCTION zb.lexical_stat_on_insert();
DROP TABLE zb.lexical_stat_delta;
DROP INDEX zb.memory_session_order_idx;
DROP INDEX zb.memory_event_from_idx;
DROP INDEX zb.memory_terms_gin_idx;
ALTER TABLE zb.memory
    DROP CONSTRAINT memory_event_span_valid,
    DROP COLUMN event_to,
    DROP COLUMN event_from,
    DROP COLUMN term_count,
    DROP COLUMN terms;
