-- 0034_integrity: zb.remember with a session, and core labels, from SQL.
--
--  * A session id works: the function's result variable no longer shares its name with the
--    session table's column (42702 "column reference id is ambiguous" in ON CONFLICT).
--  * A memory stored into a session that has ended reopens it (ended_at NULL), so the worker's
--    idle sweep consolidates the late turn; the Go API's store does the same (SessionTouch).
--  * A core label is an upsert, as in the Go API: the live core memory with the label gets the new
--    content (an audit event memory.update with the old and new value, re-derived by the worker);
--    the same content changes nothing; concurrent writers of one label serialize on it (the
--    loser of the insert race updates). A tenant whose settings put core overwrites behind an
--    approval gets SQLSTATE ZB002 from SQL (the Go API queues the request).

-- remember_insert inserts the row of zb.remember (validated there) and returns its id: underived,
-- with provisional lexical terms and the layer's initial stability.
CREATE FUNCTION zb.remember_insert(p_tenant text, p_content text, p_layer zb.memory_layer, p_context text,
                                   p_metadata jsonb, p_session_id uuid, p_occurred_at timestamptz,
                                   p_external_id text, p_core_label text, p_now timestamptz)
RETURNS bigint
LANGUAGE sql
AS $$
    INSERT INTO zb.memory (tenant_id, context, layer, content, session_id, external_id, core_label, occurred_at,
                           created_at, updated_at, last_accessed_at, metadata, stability, terms, term_count)
    SELECT p_tenant, coalesce(p_context, 'default'), p_layer, p_content, p_session_id, p_external_id, p_core_label,
           p_occurred_at, p_now, p_now, p_now, coalesce(p_metadata, '{}'),
           CASE WHEN p_layer IN ('working', 'short_term', 'episodic') THEN 1
                WHEN p_layer = 'core' THEN NULL ELSE 7 END,
           t.terms, cardinality(t.terms)
    FROM (SELECT zb.text_terms(p_content) AS terms) t
    RETURNING id
$$;

-- remember stores a memory and returns its id. It creates the tenant if needed; a NULL layer
-- routes to semantic (the Go router's content-based routing is not replicated); the stability is
-- the layer's initial one (1 day for working, short_term and episodic, 7 days for semantic,
-- procedural and cross_context, none for core, which needs a core_label). A session id creates
-- the session or records activity in it, reopening it when it had ended. A core label names the
-- tenant's live core memory with that label when there is one: its content is replaced (audited
-- as memory.update) and its id returned. The row is stored underived with provisional lexical
-- terms (zb.text_terms), so zb.recall finds it at once; the worker (notified by the insert
-- trigger) computes the exact terms, the embedding, emotional tags, entities and the rest within
-- seconds.
CREATE OR REPLACE FUNCTION zb.remember(p_tenant text, p_content text, p_layer zb.memory_layer DEFAULT NULL,
                                       p_context text DEFAULT 'default', p_metadata jsonb DEFAULT '{}',
                                       p_session_id uuid DEFAULT NULL, p_occurred_at timestamptz DEFAULT NULL,
                                       p_external_id text DEFAULT NULL, p_core_label text DEFAULT NULL,
                                       p_now timestamptz DEFAULT now())
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
    l   zb.memory_layer := coalesce(p_layer, 'semantic');
    cur record;
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
        INSERT INTO zb.session AS s (tenant_id, id, context, started_at, last_activity_at)
        VALUES (p_tenant, p_session_id, coalesce(p_context, 'default'), p_now, p_now)
        ON CONFLICT (tenant_id, id) DO UPDATE
        SET last_activity_at = greatest(s.last_activity_at, EXCLUDED.last_activity_at), ended_at = NULL;
    END IF;
    -- A core label is an upsert. Only this path enters an exception block (a subtransaction):
    -- plain memories stored in bulk from SQL would otherwise spend one each.
    WHILE l = 'core' LOOP
        SELECT m.id, m.content INTO cur FROM zb.memory m
        WHERE m.tenant_id = p_tenant AND m.core_label = p_core_label AND m.status <> 'erased'
        FOR UPDATE;
        IF FOUND THEN
            IF cur.content IS DISTINCT FROM p_content THEN
                IF zb.tenant_approval_required(p_tenant, 'core_overwrite') THEN
                    RAISE EXCEPTION 'zb.remember: overwriting core label % of tenant % needs an approved request',
                                    quote_literal(left(p_core_label, 60)), quote_literal(p_tenant)
                        USING ERRCODE = 'ZB002', HINT = 'store it through the Go API or zbctl, which queue the request for an operator';
                END IF;
                UPDATE zb.memory m
                SET content = p_content, terms = t.terms, term_count = cardinality(t.terms),
                    metadata = coalesce(p_metadata, '{}'), embedding = NULL, embedding_model = NULL,
                    updated_at = p_now, status = 'active', derived_at = NULL
                FROM (SELECT zb.text_terms(p_content) AS terms) t
                WHERE m.tenant_id = p_tenant AND m.id = cur.id;
                INSERT INTO zb.audit_event (tenant_id, at, actor, action, memory_id, detail)
                VALUES (p_tenant, p_now, 'sql', 'memory.update', cur.id,
                        jsonb_build_object('label', p_core_label, 'old_value', cur.content, 'new_value', p_content));
            END IF;
            RETURN cur.id;
        END IF;
        BEGIN
            RETURN zb.remember_insert(p_tenant, p_content, l, p_context, p_metadata, p_session_id, p_occurred_at,
                                      p_external_id, p_core_label, p_now);
        EXCEPTION WHEN unique_violation THEN
            -- Another transaction created the label first (it committed while this insert
            -- waited): update its memory instead. Any other unique violation is the caller's.
            IF NOT EXISTS (SELECT 1 FROM zb.memory m WHERE m.tenant_id = p_tenant
                           AND m.core_label = p_core_label AND m.status <> 'erased') THEN
                RAISE;
            END IF;
        END;
    END LOOP;
    RETURN zb.remember_insert(p_tenant, p_content, l, p_context, p_metadata, p_session_id, p_occurred_at,
                              p_external_id, p_core_label, p_now);
END
$$;

COMMENT ON FUNCTION zb.remember(text, text, zb.memory_layer, text, jsonb, uuid, timestamptz, text, text, timestamptz) IS
    'Stores a raw memory (layer NULL → semantic) for a tenant (created if needed) and returns its id; a core label is an upsert; the worker derives the rest.';
