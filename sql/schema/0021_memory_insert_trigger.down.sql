-- 0021_memory_insert_trigger down: the five statement triggers and their functions as released.

DROP TRIGGER memory_inserted ON zb.memory;
DROP FUNCTION zb.memory_inserted();

CREATE FUNCTION zb.memory_consent_check() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    bad record;
BEGIN
    SELECT n.tenant_id, n.context INTO bad
    FROM (SELECT DISTINCT i.tenant_id, i.context FROM inserted i WHERE NOT i.ai_generated AND i.status = 'active') n
    JOIN zb.tenant t ON t.id = n.tenant_id
    WHERE t.settings -> 'consent_required' = 'true'::jsonb
      AND NOT EXISTS (SELECT 1 FROM zb.consent c
                      WHERE c.tenant_id = n.tenant_id AND c.purpose = 'memory' AND c.revoked_at IS NULL
                        AND (c.context IS NULL OR c.context = n.context))
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'tenant % requires consent to store memories (context %) and has none', bad.tenant_id, bad.context
            USING ERRCODE = 'ZB001', HINT = 'record the data subject''s consent for the purpose ''memory'' first';
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION zb.memory_fade_inserted() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO zb.memory_fade (tenant_id, memory_id, fade_at)
    SELECT n.tenant_id, n.id, n.fade_at FROM new_rows n WHERE n.fade_at IS NOT NULL AND n.status = 'active';
    RETURN NULL;
END
$$;

CREATE FUNCTION zb.lexical_stat_on_insert() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO zb.lexical_stat_delta (tenant_id, docs, terms)
    SELECT n.tenant_id, count(*), sum(n.term_count)
    FROM new_rows n
    WHERE n.status = 'active'
    GROUP BY n.tenant_id;
    RETURN NULL;
END
$$;

CREATE FUNCTION zb.memory_posting_inserted() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO zb.memory_posting (tenant_id, term, layer, memory_id, tf, dl, session_id, valid_to)
    SELECT n.tenant_id, u.t, n.layer, n.id, count(*), n.term_count, n.session_id, n.valid_to
    FROM new_rows n CROSS JOIN LATERAL unnest(n.terms) u(t)
    WHERE n.status = 'active'
    GROUP BY n.tenant_id, u.t, n.layer, n.id, n.term_count, n.session_id, n.valid_to;
    RETURN NULL;
END
$$;

CREATE FUNCTION zb.memory_underived_inserted() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO zb.memory_underived (tenant_id, memory_id)
    SELECT n.tenant_id, n.id FROM new_rows n WHERE n.derived_at IS NULL;
    RETURN NULL;
END
$$;

CREATE TRIGGER memory_consent_insert AFTER INSERT ON zb.memory REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION zb.memory_consent_check();
CREATE TRIGGER memory_fade_insert AFTER INSERT ON zb.memory REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION zb.memory_fade_inserted();
CREATE TRIGGER memory_lexical_stat_insert AFTER INSERT ON zb.memory REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION zb.lexical_stat_on_insert();
CREATE TRIGGER memory_posting_insert AFTER INSERT ON zb.memory REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION zb.memory_posting_inserted();
CREATE TRIGGER memory_underived_insert AFTER INSERT ON zb.memory REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION zb.memory_underived_inserted();
