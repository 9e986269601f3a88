-- 0034_integrity down: 0009's zb.remember again.
-- remember stores a memory and returns its id. It creates the tenant if needed; a NULL layer
-- routes to semantic (the Go router's content-based routing is not replicated); the stability is
-- the layer's initial one (1 day for working, short_term and episodic, 7 days for semantic,
-- procedural and cross_context, none for core, which needs a core_label). The row is stored
-- underived with provisional lexical terms (zb.text_terms), so zb.recall finds it at once; the
-- worker (notified by the 0008 trigger) computes the exact terms, the embedding, emotional tags,
-- entities and the rest within seconds.
CREATE OR REPLACE FUNCTION zb.remember(p_tenant text, p_content text, p_layer zb.memory_layer DEFAULT NULL,
                            p_context text DEFAULT 'default', p_metadata jsonb DEFAULT '{}',
                            p_session_id uuid DEFAULT NULL, p_occurred_at timestamptz DEFAULT NULL,
                            p_external_id text DEFAULT NULL, p_core_label text DEFAULT NULL,
                            p_now timestamptz DEFAULT now())
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
    l  zb.memory_layer := coalesce(p_layer, 'semantic');
    id bigint;
BEGIN
    IF p_tenant IS NULL OR p_tenant !~ '^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$' THEN
        RAISE EXCEPTION 'zb.remember: invalid tenant id %', coalesce(quote_literal(left(p_tenant, 40)), 'NULL')
            USING ERRCODE = '22023', HINT = 'a tenant id is 1-128 letters, digits and _ . : @ -, starting with a letter or digit';
    END IF;
    IF p_content IS NULL OR btrim(p_content) = '' THEN
        RAISE EXCEPTION 'zb.remember: content is empty' USING ERRCODE = '22023';
    END IF;
    IF (l = 'core') <> (p_core_label IS NOT NULL) THEN
        RAISE EXCEPTION 'zb.remember: a core memory needs a core_label, and only a core memory takes one'
            USING ERRCODE = '22023';
    END IF;
    INSERT INTO zb.tenant (id) VALUES (p_tenant) ON CONFLICT DO NOTHING;
    IF p_session_id IS NOT NULL THEN
        INSERT INTO zb.session (tenant_id, id, context, started_at, last_activity_at)
        VALUES (p_tenant, p_session_id, coalesce(p_context, 'default'), p_now, p_now)
        ON CONFLICT (tenant_id, id) DO UPDATE SET last_activity_at = greatest(zb.session.last_activity_at, p_now);
    END IF;
    INSERT INTO zb.memory (tenant_id, context, layer, content, session_id, external_id, core_label, occurred_at,
                           created_at, updated_at, last_accessed_at, metadata, stability, terms, term_count)
    SELECT p_tenant, coalesce(p_context, 'default'), l, p_content, p_session_id, p_external_id, p_core_label,
           p_occurred_at, p_now, p_now, p_now, coalesce(p_metadata, '{}'),
           CASE WHEN l IN ('working', 'short_term', 'episodic') THEN 1
                WHEN l = 'core' THEN NULL ELSE 7 END,
           t.terms, cardinality(t.terms)
    FROM (SELECT zb.text_terms(p_content) AS terms) t
    RETURNING zb.memory.id INTO id;
    RETURN id;
END
$$;

COMMENT ON FUNCTION zb.remember(text, text, zb.memory_layer, text, jsonb, uuid, timestamptz, text, text, timestamptz) IS
    'Stores a raw memory (layer NULL → semantic) for a tenant (created if needed) and returns its id; the worker derives the rest.';

DROP FUNCTION zb.remember_insert(text, text, zb.memory_layer, text, jsonb, uuid, timestamptz, text, text, timestamptz);
