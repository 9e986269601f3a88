-- 0020_erase_scrub down: 0013's zb.curiosity_scrub_terms, no index on superseded_by.

DROP INDEX zb.memory_superseded_by_idx;

CREATE OR REPLACE FUNCTION zb.curiosity_scrub_terms() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    gone text[];
BEGIN
    IF cardinality(OLD.terms) = 0 OR NOT EXISTS (SELECT 1 FROM zb.tenant t WHERE t.id = OLD.tenant_id) THEN
        RETURN NULL;
    END IF;
    SELECT coalesce(array_agg(DISTINCT u), '{}') INTO gone
    FROM unnest(OLD.terms) u
    WHERE NOT EXISTS (SELECT 1 FROM zb.memory m
                      WHERE m.tenant_id = OLD.tenant_id AND m.id <> OLD.id AND m.status <> 'erased' AND m.terms @> ARRAY[u]);
    IF cardinality(gone) > 0 THEN
        UPDATE zb.recall_event e
        SET query_terms = ARRAY(SELECT x.q FROM unnest(e.query_terms) WITH ORDINALITY AS x (q, i)
                                WHERE x.q <> ALL (gone) ORDER BY x.i)
        WHERE e.tenant_id = OLD.tenant_id AND e.query_terms && gone;
    END IF;
    RETURN NULL;
END
$$;
