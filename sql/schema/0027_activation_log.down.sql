-- 0027_activation_log down: the activation log, its triggers and prune function go; 0021's insert
-- trigger function comes back.
DROP TRIGGER memory_activation_update ON zb.memory;
DROP FUNCTION zb.memory_activation_updated();
DROP FUNCTION zb.memory_activation_prune(text, timestamptz);
DROP FUNCTION zb.memory_activation_count(text, timestamptz, timestamptz, bigint);
CREATE OR REPLACE FUNCTION zb.memory_inserted() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    bad record;
BEGIN
    -- Consent (0012): a tenant that requires consent refuses memories of a context without it.
    SELECT n.tenant_id, n.context INTO bad
    FROM (SELECT DISTINCT i.tenant_id, i.context FROM new_rows i WHERE NOT i.ai_generated AND i.status = 'active') n
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
    -- Decay's schedule (0016).
    INSERT INTO zb.memory_fade (tenant_id, memory_id, fade_at)
    SELECT n.tenant_id, n.id, n.fade_at FROM new_rows n WHERE n.fade_at IS NOT NULL AND n.status = 'active';
    -- BM25 corpus statistics (0006).
    INSERT INTO zb.lexical_stat_delta (tenant_id, docs, terms)
    SELECT n.tenant_id, count(*), sum(n.term_count)
    FROM new_rows n
    WHERE n.status = 'active'
    GROUP BY n.tenant_id;
    -- Postings (0018).
    INSERT INTO zb.memory_posting (tenant_id, term, layer, memory_id, tf, dl, session_id, valid_to)
    SELECT n.tenant_id, u.t, n.layer, n.id, count(*), n.term_count, n.session_id, n.valid_to
    FROM new_rows n CROSS JOIN LATERAL unnest(n.terms) u(t)
    WHERE n.status = 'active'
    GROUP BY n.tenant_id, u.t, n.layer, n.id, n.term_count, n.session_id, n.valid_to;
    -- The derivation queue (0017).
    INSERT INTO zb.memory_underived (tenant_id, memory_id)
    SELECT n.tenant_id, n.id FROM new_rows n WHERE n.derived_at IS NULL;
    RETURN NULL;
END
$$;

DROP TABLE zb.memory_activation_horizon;
DROP TABLE zb.memory_activation;
