-- 0012_governance down: the erase functions, the consent gate and the indexes go; zb.forget of
-- 0009 returns.

DROP POLICY IF EXISTS zb_erase ON zb.tenant_binding;
DROP TRIGGER approval_request_no_self_approval ON zb.approval_request;
DROP FUNCTION zb.approval_no_self_approval();

-- zb.retrievability of 0009.
CREATE OR REPLACE FUNCTION zb.retrievability(stability_days double precision, m_emo double precision,
                                             last_access timestamptz, p_now timestamptz)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE
        WHEN stability_days IS NULL OR NOT (stability_days > 0)
             OR stability_days * 86400e9 > 9223372036854775807::double precision / 3
             OR m_emo IS NULL OR NOT (m_emo BETWEEN 1 AND 3) THEN 1
        WHEN p_now <= last_access THEN 1
        ELSE zb.exp_or_zero(-(extract(epoch FROM p_now - last_access)::double precision)
                 / (stability_days * 86400 * m_emo))
    END::double precision
$$;
DROP TRIGGER memory_consent_core_update ON zb.memory;
DROP TRIGGER memory_consent_insert ON zb.memory;
DROP FUNCTION zb.memory_consent_core_check();
DROP FUNCTION zb.memory_consent_check();
ALTER TABLE zb.memory DROP CONSTRAINT memory_metadata_size;
DROP INDEX IF EXISTS zb.consent_active_idx;
DROP INDEX IF EXISTS zb.memory_retention_idx;

CREATE OR REPLACE FUNCTION zb.forget(p_tenant text, p_memory_id bigint, p_now timestamptz DEFAULT now())
RETURNS boolean
LANGUAGE plpgsql
AS $$
DECLARE
    l zb.memory_layer;
BEGIN
    UPDATE zb.memory m
    SET status = 'erased', content = '', metadata = '{}', embedding = NULL, embedding_model = NULL,
        terms = '{}', term_count = 0, updated_at = greatest(m.updated_at, p_now)
    WHERE m.tenant_id = p_tenant AND m.id = p_memory_id AND m.status <> 'erased'
    RETURNING m.layer INTO l;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    DELETE FROM zb.mention WHERE tenant_id = p_tenant AND memory_id = p_memory_id;
    DELETE FROM zb.working_slot WHERE tenant_id = p_tenant AND memory_id = p_memory_id;
    DELETE FROM zb.review_state WHERE tenant_id = p_tenant AND memory_id = p_memory_id;
    DELETE FROM zb.triple_copy WHERE tenant_id = p_tenant AND memory_id = p_memory_id;
    INSERT INTO zb.audit_event (tenant_id, at, actor, action, memory_id, detail)
    VALUES (p_tenant, p_now, 'sql', 'memory.erase', p_memory_id, jsonb_build_object('layer', l, 'via', 'zb.forget'));
    RETURN true;
END
$$;

COMMENT ON FUNCTION zb.forget(text, bigint, timestamptz) IS
    'Erases a memory (status erased, content and embedding removed); true if the tenant had it.';

DROP FUNCTION zb.apply_retention(text, timestamptz, integer);
DROP FUNCTION zb.erase(text, text, text, text, timestamptz, text, bigint, boolean, bigint[]);
DROP FUNCTION zb.erase_memories(text, bigint[], timestamptz);
DROP FUNCTION zb.erase_bind(text);
DROP FUNCTION zb.tenant_approval_required(text, text);
DROP FUNCTION zb.scrub_detail(jsonb);
