-- 0033_tenancy_hardening down: the definitions of 0008, 0009, 0011, 0012 and 0022 again.
DROP TRIGGER audit_event_check ON zb.audit_event;
DROP FUNCTION zb.audit_event_check();
DROP TRIGGER approval_request_insert ON zb.approval_request;
DROP FUNCTION zb.approval_request_insert();
DROP TABLE zb.vacuum_request;
DROP TABLE zb.audit_action;
ALTER TABLE zb.audit_event DROP COLUMN recorded_at, DROP COLUMN login;
COMMENT ON COLUMN zb.audit_event.at IS NULL;

DO $$
DECLARE
    app name := zb.role_name('app');
    wrk name := zb.role_name('worker');
    adm name := zb.role_name('admin');
    def name := zb.role_name('definer');
BEGIN
    EXECUTE format('GRANT INSERT ON zb.audit_event TO %I, %I, %I, %I', app, wrk, adm, def);
    EXECUTE format('GRANT DELETE ON zb.tenant_binding TO %I', def);
    EXECUTE format('CREATE POLICY zb_erase ON zb.tenant_binding FOR ALL TO %I USING (tenant_id = (SELECT zb.tenant_setting()))', def);
END
$$;

CREATE OR REPLACE FUNCTION zb.erase_bind(p_tenant text) RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    was text := zb.tenant_setting();
BEGIN
    IF p_tenant IS NULL OR p_tenant !~ '^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$' THEN
        RAISE EXCEPTION 'zb.erase: invalid tenant id %', coalesce(quote_literal(left(p_tenant, 40)), 'NULL')
            USING ERRCODE = '22023';
    END IF;
    IF was IS NULL THEN
        IF EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = session_user AND r.rolsuper)
           OR pg_has_role(session_user, zb.role_name('worker'), 'MEMBER')
           OR pg_has_role(session_user, zb.role_name('admin'), 'MEMBER') THEN
            PERFORM set_config('zb.tenant_id', p_tenant, true);
            RETURN '';
        END IF;
        RAISE EXCEPTION 'zb.erase: no tenant is set for this transaction'
            USING ERRCODE = '42501', HINT = format('SELECT set_config(''zb.tenant_id'', %L, true) first', p_tenant);
    END IF;
    IF zb.current_tenant() IS DISTINCT FROM p_tenant THEN
        RAISE EXCEPTION 'zb.erase: the transaction is bound to another tenant than %', quote_literal(p_tenant)
            USING ERRCODE = '42501';
    END IF;
    RETURN was;
END
$$;

CREATE OR REPLACE FUNCTION zb.erase(p_tenant text, p_scope text, p_target text DEFAULT NULL, p_actor text DEFAULT 'sql',
                         p_now timestamptz DEFAULT now(), p_reason text DEFAULT NULL, p_approval bigint DEFAULT NULL,
                         p_dry_run boolean DEFAULT false, p_ids bigint[] DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    was    text := zb.erase_bind(p_tenant);
    erase_was text := coalesce(current_setting('zb.erase', true), '');
    ids    bigint[];
    counts jsonb := '{}'::jsonb;
    n      bigint;
    t      record;
    sid    uuid;
    mid    bigint;
    op     text;
    total  bigint;
BEGIN
    IF p_scope IS NULL OR p_scope NOT IN ('memory', 'session', 'context', 'tenant') THEN
        RAISE EXCEPTION 'zb.erase: unknown scope %', coalesce(quote_literal(left(p_scope, 40)), 'NULL')
            USING ERRCODE = '22023', HINT = 'use memory, session, context or tenant';
    END IF;
    IF p_actor IS NULL OR length(p_actor) NOT BETWEEN 1 AND 200 THEN
        RAISE EXCEPTION 'zb.erase: the actor must be 1-200 characters' USING ERRCODE = '22023';
    END IF;
    IF p_reason IS NOT NULL AND length(p_reason) > 500 THEN
        RAISE EXCEPTION 'zb.erase: the reason is longer than 500 characters' USING ERRCODE = '22023';
    END IF;
    -- Serialize with the tenant's lifecycle writes (derive, decay, sleep ... take the same
    -- transaction-level lock), which touch the same rows in their own order.
    PERFORM pg_advisory_xact_lock(hashtext('zb.lifecycle'), hashtext(p_tenant));
    op := CASE p_scope WHEN 'tenant' THEN 'tenant_erase' WHEN 'context' THEN 'context_erase' END;
    IF op IS NOT NULL AND NOT coalesce(p_dry_run, false) AND zb.tenant_approval_required(p_tenant, op) THEN
        IF p_approval IS NULL OR NOT EXISTS (
            SELECT 1 FROM zb.approval_request r
            WHERE r.tenant_id = p_tenant AND r.id = p_approval AND r.operation = op AND r.status = 'approved'
              AND (op = 'tenant_erase' OR r.payload ->> 'context' = p_target)) THEN
            RAISE EXCEPTION 'zb.erase: % of tenant % needs an approved request', op, quote_literal(p_tenant)
                USING ERRCODE = 'ZB002', HINT = 'request it (coordinator.Erase, zbctl forget) and have an operator approve it';
        END IF;
    END IF;
    PERFORM set_config('zb.erase', 'on', true);

    BEGIN
    CASE p_scope
    WHEN 'memory' THEN
        IF p_ids IS NOT NULL AND p_target IS NULL THEN
            IF cardinality(p_ids) > 100000 THEN
                RAISE EXCEPTION 'zb.erase: at most 100000 memories at once, got %', cardinality(p_ids) USING ERRCODE = '22023';
            END IF;
            ids := p_ids;
        ELSIF p_target IS NULL OR p_target !~ '^[0-9]{1,18}$' THEN
            RAISE EXCEPTION 'zb.erase: memory id % is not a positive integer', coalesce(quote_literal(left(p_target, 40)), 'NULL')
                USING ERRCODE = '22023';
        ELSE
            mid := p_target::bigint;
            ids := ARRAY[mid];
        END IF;
        counts := zb.erase_memories(p_tenant, ids, p_now);
    WHEN 'session' THEN
        BEGIN
            sid := p_target::uuid;
        EXCEPTION WHEN invalid_text_representation THEN
            RAISE EXCEPTION 'zb.erase: session id % is not a UUID', quote_literal(left(p_target, 40)) USING ERRCODE = '22023';
        END;
        SELECT coalesce(array_agg(m.id), '{}') INTO ids FROM zb.memory m
        WHERE m.tenant_id = p_tenant AND m.session_id = sid AND m.status <> 'erased';
        counts := zb.erase_memories(p_tenant, ids, p_now);
        DELETE FROM zb.session s WHERE s.tenant_id = p_tenant AND s.id = sid;
        GET DIAGNOSTICS n = ROW_COUNT;
        counts := counts || jsonb_build_object('session', n);
    WHEN 'context' THEN
        IF p_target IS NULL OR p_target !~ '^[a-z0-9][a-z0-9_.-]{0,63}$' THEN
            RAISE EXCEPTION 'zb.erase: invalid context %', coalesce(quote_literal(left(p_target, 40)), 'NULL') USING ERRCODE = '22023';
        END IF;
        SELECT coalesce(array_agg(m.id), '{}') INTO ids FROM zb.memory m
        WHERE m.tenant_id = p_tenant AND m.context = p_target AND m.status <> 'erased';
        counts := zb.erase_memories(p_tenant, ids, p_now);
        DELETE FROM zb.session s WHERE s.tenant_id = p_tenant AND s.context = p_target;
        GET DIAGNOSTICS n = ROW_COUNT;
        counts := counts || jsonb_build_object('session', n);
        DELETE FROM zb.entity en WHERE en.tenant_id = p_tenant AND en.context = p_target;
        GET DIAGNOSTICS n = ROW_COUNT;
        counts := counts || jsonb_build_object('entity', coalesce((counts ->> 'entity')::bigint, 0) + n);
        DELETE FROM zb.prospective_intention p WHERE p.tenant_id = p_tenant AND p.context = p_target;
        GET DIAGNOSTICS n = ROW_COUNT;
        IF n > 0 THEN
            counts := counts || jsonb_build_object('prospective_intention',
                                                   coalesce((counts ->> 'prospective_intention')::bigint, 0) + n);
        END IF;
    WHEN 'tenant' THEN
        SELECT count(*) INTO n FROM zb.memory m WHERE m.tenant_id = p_tenant AND m.status <> 'erased';
        counts := jsonb_build_object('memory', n);
        -- Tables that reference others first, so each count is what that table held; a second
        -- pass removes what the first one's triggers wrote (lexical statistics deltas).
        FOR pass IN 1..2 LOOP
            FOR t IN
                SELECT c.relname,
                       (SELECT count(*) FROM pg_constraint k
                        WHERE k.confrelid = c.oid AND k.contype = 'f' AND k.conrelid <> c.oid) AS refs
                FROM pg_class c
                WHERE c.relnamespace = 'zb'::regnamespace AND c.relkind IN ('r', 'p') AND c.relname <> 'audit_event'
                  AND EXISTS (SELECT 1 FROM pg_attribute a
                              WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped)
                ORDER BY 2, 1
            LOOP
                EXECUTE format('DELETE FROM zb.%I WHERE tenant_id = $1', t.relname) USING p_tenant;
                GET DIAGNOSTICS n = ROW_COUNT;
                IF n > 0 AND t.relname <> 'memory' THEN
                    counts := counts || jsonb_build_object(t.relname, coalesce((counts ->> t.relname)::bigint, 0) + n);
                END IF;
            END LOOP;
        END LOOP;
        UPDATE zb.audit_event a SET detail = zb.scrub_detail(a.detail)
        WHERE a.tenant_id = p_tenant AND NOT coalesce(a.detail @> '{"scrubbed": true}', false);
        GET DIAGNOSTICS n = ROW_COUNT;
        IF n > 0 THEN counts := counts || jsonb_build_object('audit_event', n); END IF;
        IF to_regclass('river.river_job') IS NOT NULL THEN
            EXECUTE 'DELETE FROM river.river_job j WHERE j.args ->> ''tenant_id'' = $1 AND j.state::text <> ''running'''
                USING p_tenant;
            GET DIAGNOSTICS n = ROW_COUNT;
            IF n > 0 THEN counts := counts || jsonb_build_object('river_job', n); END IF;
        END IF;
        DELETE FROM zb.tenant WHERE id = p_tenant;
        GET DIAGNOSTICS n = ROW_COUNT;
        counts := counts || jsonb_build_object('tenant', n);
    END CASE;
    IF coalesce(p_dry_run, false) THEN
        RAISE EXCEPTION 'dry run' USING ERRCODE = 'ZB099';
    END IF;
    EXCEPTION WHEN SQLSTATE 'ZB099' THEN
        PERFORM set_config('zb.erase', erase_was, true);
        PERFORM set_config('zb.tenant_id', was, true);
        RETURN counts || jsonb_build_object('scope', p_scope, 'dry_run', true);
    END;

    IF op IS NOT NULL AND p_approval IS NOT NULL AND p_scope <> 'tenant' THEN
        UPDATE zb.approval_request r SET status = 'executed'
        WHERE r.tenant_id = p_tenant AND r.id = p_approval AND r.status = 'approved';
    END IF;
    SELECT coalesce(sum((v.value #>> '{}')::bigint), 0) INTO total FROM jsonb_each(counts) v
    WHERE jsonb_typeof(v.value) = 'number' AND v.key NOT IN ('derived', 'restored', 'reactivated');
    IF total > 0 THEN
        INSERT INTO zb.audit_event (tenant_id, at, actor, action, memory_id, detail)
        VALUES (p_tenant, p_now, p_actor, p_scope || '.erase', mid,
                jsonb_strip_nulls(counts || jsonb_build_object('scope', p_scope, 'approval_id', p_approval,
                                             'session_id', CASE WHEN p_scope = 'session' THEN sid::text END,
                                             'context', CASE WHEN p_scope = 'context' THEN p_target END,
                                             'reason_code', CASE WHEN p_reason ~ '^[a-z0-9_.:-]{1,40}$' THEN p_reason END)));
    END IF;
    PERFORM set_config('zb.erase', erase_was, true);
    PERFORM set_config('zb.tenant_id', was, true);
    RETURN counts || jsonb_build_object('scope', p_scope);
END
$$;

CREATE OR REPLACE FUNCTION zb.current_tenant() RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
DECLARE
    t text := zb.tenant_setting();
BEGIN
    IF t IS NULL
       OR NOT EXISTS (SELECT 1 FROM zb.tenant_binding b WHERE b.role_name = session_user::text)
       OR EXISTS (SELECT 1 FROM zb.tenant_binding b WHERE b.role_name = session_user::text AND b.tenant_id = t) THEN
        RETURN t;
    END IF;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION zb.current_tenant() IS
    'The tenant of the transaction (setting zb.tenant_id), NULL when unset or not among the session user''s tenant bindings.';

CREATE OR REPLACE FUNCTION zb.recall_candidates(
    p_tenant text, p_query vector, p_terms text[], p_layers zb.memory_layer[], p_k integer,
    p_now timestamptz, p_from timestamptz, p_to timestamptz, p_as_of timestamptz, p_contexts text[],
    p_deep boolean, p_model text
)
RETURNS TABLE (
    id bigint, cosine double precision, bm25 double precision, by_vector boolean, by_lexical boolean,
    by_context boolean, prev_id bigint, next_id bigint, session_bm25 double precision, session_speakers text[],
    edge_weight double precision, edge_variance double precision, edge_activated_at timestamptz,
    doc_count bigint, avgdl double precision, disabled text[]
)
LANGUAGE sql STABLE
AS $$
    SELECT r.*
    FROM (SELECT (SELECT c.value FROM zb.config c WHERE c.key = 'embedding_model') AS model) a
    CROSS JOIN LATERAL zb.recall_candidates_model(
        p_tenant, CASE WHEN a.model IS NULL OR p_model IS NULL OR p_model = a.model THEN p_query END,
        p_terms, p_layers, p_k, p_now, p_from, p_to, p_as_of, p_contexts, p_deep, a.model) r
$$;

DROP FUNCTION zb.recall_terms_check(text[]);
DROP FUNCTION zb.derive_waiting(text[]);
DROP FUNCTION zb.bind_tenant(text);
DROP FUNCTION zb.xact_stamp();

CREATE OR REPLACE FUNCTION zb.notify_underived() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    t text;
BEGIN
    FOR t IN SELECT DISTINCT tenant_id FROM inserted WHERE derived_at IS NULL LOOP
        PERFORM pg_notify('zb_memory_inserted', t);
    END LOOP;
    RETURN NULL;
END
$$;


CREATE OR REPLACE FUNCTION zb.recall_check(p_query text, p_k integer, p_class text, p_candidates integer)
RETURNS boolean
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
    IF p_query IS NULL OR btrim(p_query) = '' THEN
        RAISE EXCEPTION 'zb.recall: the query is empty' USING ERRCODE = '22023', HINT = 'pass the question as text';
    END IF;
    IF p_k IS NULL OR p_k < 1 OR p_k > 1000 THEN
        RAISE EXCEPTION 'zb.recall: k must be in [1, 1000], got %', p_k USING ERRCODE = '22023';
    END IF;
    IF p_candidates IS NULL OR p_candidates < 1 OR p_candidates > 1000 THEN
        RAISE EXCEPTION 'zb.recall: p_candidates must be in [1, 1000], got %', p_candidates USING ERRCODE = '22023';
    END IF;
    IF p_class IS NULL OR p_class NOT IN ('general', 'temporal', 'factual', 'procedural') THEN
        RAISE EXCEPTION 'zb.recall: unknown query class %', coalesce(p_class, 'NULL') USING ERRCODE = '22023',
            HINT = 'use general, temporal, factual or procedural';
    END IF;
    RETURN true;
END
$$;


CREATE OR REPLACE FUNCTION zb.secure_river() RETURNS boolean
LANGUAGE plpgsql
AS $$
DECLARE
    app name := zb.role_name('app');
    wrk name := zb.role_name('worker');
    adm name := zb.role_name('admin');
    def name := zb.role_name('definer');
BEGIN
    IF to_regnamespace('river') IS NOT NULL THEN
        EXECUTE format('GRANT USAGE ON SCHEMA river TO %I, %I, %I, %I', app, wrk, adm, def);
    END IF;
    IF to_regclass('river.river_job') IS NULL THEN
        RETURN false;
    END IF;
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA river TO %I, %I', wrk, adm);
    EXECUTE format('GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA river TO %I, %I', wrk, adm);
    -- River's InsertTx: INSERT ... ON CONFLICT (unique_key) DO UPDATE ... RETURNING river_job.*.
    EXECUTE format('GRANT SELECT, INSERT, UPDATE ON river.river_job TO %I', app);
    EXECUTE format('GRANT SELECT, UPDATE, DELETE ON river.river_job TO %I', def);
    IF to_regclass('river.river_job_id_seq') IS NOT NULL THEN
        EXECUTE format('GRANT USAGE ON SEQUENCE river.river_job_id_seq TO %I', app);
    END IF;
    ALTER TABLE river.river_job ENABLE ROW LEVEL SECURITY;
    IF EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = 'river.river_job'::regclass AND p.polname = 'zb_tenant') THEN
        DROP POLICY zb_tenant ON river.river_job;
    END IF;
    EXECUTE format('CREATE POLICY zb_tenant ON river.river_job AS PERMISSIVE FOR ALL TO %I, %I '
                   'USING (args ->> ''tenant_id'' = (SELECT zb.current_tenant())) '
                   'WITH CHECK (args ->> ''tenant_id'' = (SELECT zb.current_tenant()))', app, def);
    IF EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = 'river.river_job'::regclass AND p.polname = 'zb_operator') THEN
        DROP POLICY zb_operator ON river.river_job;
    END IF;
    EXECUTE format('CREATE POLICY zb_operator ON river.river_job AS PERMISSIVE FOR ALL TO %I, %I USING (true) WITH CHECK (true)',
                   wrk, adm);
    RETURN true;
END
$$;


SELECT zb.secure_river();
