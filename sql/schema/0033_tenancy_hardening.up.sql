-- 0033_tenancy_hardening: tenancy that holds against an attacker (docs/security.md).
--
--  * A tenant is bound to one transaction: zb.bind_tenant(t) sets zb.tenant_id and a stamp of the
--    transaction (zb.tenant_xact, its start time in microseconds), both transaction-local.
--    zb.current_tenant() counts the setting only with this transaction's stamp; a setting without
--    it (SET zb.tenant_id, set_config(..., false), a connection or role default, or a value left
--    by another client of a pooled connection) is an error that says how to bind. A plain
--    set_config('zb.tenant_id', t, true) is such a setting too: call zb.bind_tenant.
--  * Tenant bindings are access control, not tenant data: a tenant erase leaves them (zb_definer
--    loses DELETE on zb.tenant_binding), so a bound login cannot unbind itself by erasing its
--    tenant. Operators remove bindings.
--  * An approval request is inserted pending and undecided, by every role (trigger
--    approval_request_insert); only operators (zb_admin) may update one, as before.
--  * zb.audit_event: the server records when a row was written (recorded_at) and by which login
--    (login); no role but the owner may supply either (column privileges). Actions are data
--    (zb.audit_action): an unknown action is refused, erase actions are written only by the erase
--    functions (zb_definer), governance actions only by operators, and a row only in a
--    transaction bound to its tenant (superusers excepted).
--  * An erase queues a request to vacuum and analyze zb's tables (zb.vacuum_request): the erased
--    content's dead row versions and planner statistics (pg_statistic) go when the worker, or an
--    operator with zbctl vacuum, has run it.
--  * zb.recall refuses a query above 64 KiB or with more than 1,024 distinct terms, like the Go API.
--  * The insert notification zb_memory_inserted carries no tenant id (an empty payload): the
--    worker reads which tenants have underived memories from zb.memory_underived, and queues a
--    derive job for those that have none waiting (zb.derive_waiting).
--  * zb_worker keeps on River's tables what River's client needs: reading and writing jobs,
--    leaders and queues; reading the migration table.

-- xact_stamp identifies the current transaction within its session: its start time in
-- microseconds since the epoch (the same in parallel workers).
CREATE FUNCTION zb.xact_stamp() RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT (extract(epoch FROM transaction_timestamp()) * 1000000)::bigint::text $$;

COMMENT ON FUNCTION zb.xact_stamp() IS 'The current transaction''s start time in microseconds: the stamp zb.bind_tenant records.';

-- bind_tenant binds the current transaction to a tenant: zb.tenant_id and the transaction's stamp
-- zb.tenant_xact, both transaction-local. NULL or '' unbinds. Returns zb.current_tenant(): the
-- tenant, or NULL when the session user is bound (zb.tenant_binding) to other tenants only.
CREATE FUNCTION zb.bind_tenant(p_tenant text) RETURNS text
LANGUAGE plpgsql
AS $$
BEGIN
    IF coalesce(p_tenant, '') = '' THEN
        PERFORM set_config('zb.tenant_id', '', true);
        PERFORM set_config('zb.tenant_xact', '', true);
        RETURN NULL;
    END IF;
    IF p_tenant !~ '^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$' THEN
        RAISE EXCEPTION 'zb.bind_tenant: invalid tenant id %', quote_literal(left(p_tenant, 40))
            USING ERRCODE = '22023', HINT = 'tenant ids are 1-128 characters of A-Z a-z 0-9 _ . : @ -, starting with a letter or digit';
    END IF;
    PERFORM set_config('zb.tenant_id', p_tenant, true);
    PERFORM set_config('zb.tenant_xact', zb.xact_stamp(), true);
    RETURN zb.current_tenant();
END
$$;

COMMENT ON FUNCTION zb.bind_tenant(text) IS
    'Binds the current transaction to a tenant (transaction-local); returns the tenant, NULL when the login is bound to others.';

-- current_tenant returns the tenant of the transaction: the setting zb.tenant_id when
-- zb.bind_tenant set it in this transaction, NULL when it is unset, or when the session user has
-- tenant bindings and the setting is not one of them. A setting made otherwise is an error.
CREATE OR REPLACE FUNCTION zb.current_tenant() RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
DECLARE
    t text := zb.tenant_setting();
BEGIN
    IF t IS NULL THEN
        RETURN NULL;
    END IF;
    IF current_setting('zb.tenant_xact', true) IS DISTINCT FROM zb.xact_stamp() THEN
        -- The value may be another client's (a pooled connection): it is not named here.
        RAISE EXCEPTION 'zb.tenant_id is set, but not by zb.bind_tenant in this transaction'
            USING ERRCODE = '42501',
                  HINT = 'bind the tenant inside each transaction with SELECT zb.bind_tenant(''<tenant>''); a session-level '
                         'SET zb.tenant_id, set_config(..., false) or a connection default never counts (RESET zb.tenant_id)';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM zb.tenant_binding b WHERE b.role_name = session_user::text)
       OR EXISTS (SELECT 1 FROM zb.tenant_binding b WHERE b.role_name = session_user::text AND b.tenant_id = t) THEN
        RETURN t;
    END IF;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION zb.current_tenant() IS
    'The tenant of the transaction (zb.bind_tenant), NULL when unbound or not among the session user''s tenant bindings.';

-- erase_bind binds an unbound operator's transaction with zb.bind_tenant (as 0012 did with a bare
-- setting).
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
            PERFORM zb.bind_tenant(p_tenant);
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

-- Tenant bindings outlive a tenant erase: zb.erase's tenant scope skips zb.tenant_binding, and
-- the erase functions' role may no longer delete bindings.
DO $$
DECLARE
    def name := zb.role_name('definer');
BEGIN
    IF EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = 'zb.tenant_binding'::regclass AND p.polname = 'zb_erase') THEN
        DROP POLICY zb_erase ON zb.tenant_binding;
    END IF;
    EXECUTE format('REVOKE DELETE ON zb.tenant_binding FROM %I', def);
END
$$;

-- approval_request_insert: a request is born pending and undecided, whoever inserts it; only an
-- operator's UPDATE decides it (zb_app and zb_worker have no UPDATE on the table).
CREATE FUNCTION zb.approval_request_insert() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    -- (A pending row with a decision time is the table's CHECK's to refuse.)
    IF NEW.status IS DISTINCT FROM 'pending' OR NEW.decided_by IS NOT NULL THEN
        RAISE EXCEPTION 'zb.approval_request: a request is inserted pending, without a decision (got status %, decided by %)',
                        quote_literal(NEW.status), coalesce(quote_literal(left(NEW.decided_by, 40)), 'nobody')
            USING ERRCODE = '42501', HINT = 'insert it pending; an operator decides it (zbctl approve ID, zbctl deny ID)';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER approval_request_insert BEFORE INSERT ON zb.approval_request
    FOR EACH ROW EXECUTE FUNCTION zb.approval_request_insert();

-- audit_action lists the actions of the audit trail and who may write each: any of zenbrain's
-- roles, operators only (zb_admin: governance and approval decisions), or the erase functions
-- only (zb_definer).
CREATE TABLE zb.audit_action (
    action    text PRIMARY KEY CHECK (action ~ '^[a-z_]+\.[a-z_]+$'),
    performer text NOT NULL CHECK (performer IN ('any', 'operator', 'erase'))
);

COMMENT ON TABLE zb.audit_action IS
    'Actions of zb.audit_event and who may write each: any role, operators (zb_admin) only, or the erase functions only.';

INSERT INTO zb.audit_action (action, performer) VALUES
    ('memory.store', 'any'), ('memory.recall', 'any'), ('memory.update', 'any'), ('memory.feedback', 'any'),
    ('memory.outcome', 'any'), ('memory.reconsolidate', 'any'), ('memory.reconsolidate_rollback', 'any'),
    ('memory.review', 'any'), ('memory.sleep', 'any'), ('memory.archive', 'any'), ('memory.debate', 'any'),
    ('memory.stc_rescue', 'any'), ('memory.stc_sweep', 'any'), ('session.consolidate', 'any'),
    ('intention.add', 'any'), ('intention.dismiss', 'any'), ('intention.expire', 'any'), ('intention.fire', 'any'),
    ('hyperagent.adjust', 'any'), ('hyperagent.revert', 'any'), ('consent.grant', 'any'), ('consent.revoke', 'any'),
    ('approval.request', 'any'), ('tenant.export', 'any'), ('tenant.import', 'any'), ('tenant.reembed', 'any'),
    ('approval.approve', 'operator'), ('approval.deny', 'operator'), ('approval.execute', 'operator'),
    ('governance.update', 'operator'), ('retention.update', 'operator'), ('algorithm.switch', 'operator'),
    ('memory.erase', 'erase'), ('session.erase', 'erase'), ('context.erase', 'erase'), ('tenant.erase', 'erase');

-- The server's own record of each audit row: when it was written and by which login. Rows
-- written before this migration have neither.
ALTER TABLE zb.audit_event ADD COLUMN recorded_at timestamptz DEFAULT now(),
                           ADD COLUMN login text DEFAULT session_user;

COMMENT ON COLUMN zb.audit_event.at IS 'When the event happened, as the writer states it (a virtual clock in simulations).';
COMMENT ON COLUMN zb.audit_event.recorded_at IS 'When the server wrote the row (the transaction''s start); set by the server.';
COMMENT ON COLUMN zb.audit_event.login IS 'The session user that wrote the row; set by the server.';

-- audit_event_check refuses, for the statement's new rows, an action zb.audit_action does not
-- list, an erase action written outside the erase functions, a governance action written by a
-- non-operator, and a row of a tenant the transaction is not bound to (superusers are trusted).
CREATE FUNCTION zb.audit_event_check() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    bound text;
    bad   record;
BEGIN
    IF coalesce((SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user), false) THEN
        RETURN NULL;
    END IF;
    bound := zb.current_tenant();
    SELECT n.tenant_id, n.action, a.performer INTO bad
    FROM new_rows n
    LEFT JOIN zb.audit_action a ON a.action = n.action
    WHERE a.action IS NULL
       OR n.tenant_id IS DISTINCT FROM bound
       OR (a.performer = 'erase' AND current_user <> zb.role_name('definer'))
       OR (a.performer = 'operator' AND NOT pg_has_role(current_user, zb.role_name('admin'), 'MEMBER'))
    LIMIT 1;
    IF FOUND THEN
        IF bad.performer IS NULL THEN
            RAISE EXCEPTION 'zb.audit_event: unknown action %', quote_literal(left(bad.action, 60))
                USING ERRCODE = '42501', HINT = 'the actions are listed in zb.audit_action';
        ELSIF bad.tenant_id IS DISTINCT FROM bound THEN
            RAISE EXCEPTION 'zb.audit_event: an event is written only in a transaction bound to its tenant'
                USING ERRCODE = '42501', HINT = 'SELECT zb.bind_tenant(''<tenant>'') first';
        ELSE
            RAISE EXCEPTION 'zb.audit_event: % may not write the action % (written by %)', current_user, bad.action,
                            CASE bad.performer WHEN 'erase' THEN 'zb.erase only' ELSE 'operators only' END
                USING ERRCODE = '42501';
        END IF;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER audit_event_check AFTER INSERT ON zb.audit_event
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION zb.audit_event_check();

-- vacuum_request: an erase's request that zb's tables be vacuumed and analyzed, so that the
-- erased content leaves dead row versions and planner statistics (pg_statistic). Not tenant
-- data (it holds times only) and outlives a tenant erase. The worker's vacuum job, or zbctl
-- vacuum, claims pending requests (started_at), runs VACUUM (ANALYZE) over the tables as a role
-- that may (their owner or a superuser), and records done_at.
CREATE TABLE zb.vacuum_request (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    requested_at timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    done_at      timestamptz,
    tables       integer     CHECK (tables >= 0),
    CHECK (done_at IS NULL OR started_at IS NOT NULL)
);

CREATE INDEX vacuum_request_pending_idx ON zb.vacuum_request (id) WHERE done_at IS NULL;

COMMENT ON TABLE zb.vacuum_request IS
    'Requests, queued by erases, to VACUUM (ANALYZE) zb''s tables so that erased content leaves dead tuples and pg_statistic.';

DO $$
DECLARE
    app name := zb.role_name('app');
    wrk name := zb.role_name('worker');
    adm name := zb.role_name('admin');
    def name := zb.role_name('definer');
BEGIN
    -- Audit rows: the server's columns cannot be supplied by zenbrain's roles.
    EXECUTE format('REVOKE INSERT ON zb.audit_event FROM %I, %I, %I, %I', app, wrk, adm, def);
    EXECUTE format('GRANT INSERT (tenant_id, at, actor, action, memory_id, detail) ON zb.audit_event TO %I, %I, %I, %I',
                   app, wrk, adm, def);
    EXECUTE format('GRANT SELECT ON zb.audit_action TO %I, %I, %I, %I', app, wrk, adm, def);
    EXECUTE format('GRANT SELECT, INSERT ON zb.vacuum_request TO %I', def);
    EXECUTE format('GRANT SELECT, UPDATE ON zb.vacuum_request TO %I', wrk);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON zb.vacuum_request TO %I', adm);
END
$$;

-- zb.erase: the tenant scope leaves zb.tenant_binding; every erase that removed something queues
-- a vacuum request (one pending request serves a burst) and returns its id as "vacuum_request".
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
    vac    bigint;
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
                WHERE c.relnamespace = 'zb'::regnamespace AND c.relkind IN ('r', 'p')
                  AND c.relname NOT IN ('audit_event', 'tenant_binding')
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
        -- The erased content's dead row versions and planner statistics go when the worker (or
        -- zbctl vacuum) has vacuumed and analyzed zb's tables: one pending request serves a burst.
        SELECT r.id INTO vac FROM zb.vacuum_request r WHERE r.started_at IS NULL ORDER BY r.id LIMIT 1;
        IF vac IS NULL THEN
            INSERT INTO zb.vacuum_request (requested_at) VALUES (now()) RETURNING id INTO vac;
        END IF;
        INSERT INTO zb.audit_event (tenant_id, at, actor, action, memory_id, detail)
        VALUES (p_tenant, p_now, p_actor, p_scope || '.erase', mid,
                jsonb_strip_nulls(counts || jsonb_build_object('scope', p_scope, 'approval_id', p_approval,
                                             'session_id', CASE WHEN p_scope = 'session' THEN sid::text END,
                                             'context', CASE WHEN p_scope = 'context' THEN p_target END,
                                             'reason_code', CASE WHEN p_reason ~ '^[a-z0-9_.:-]{1,40}$' THEN p_reason END)));
    END IF;
    PERFORM set_config('zb.erase', erase_was, true);
    PERFORM set_config('zb.tenant_id', was, true);
    RETURN counts || jsonb_strip_nulls(jsonb_build_object('scope', p_scope, 'vacuum_request', vac));
END
$$;

-- notify_underived: one notification per statement that inserted underived memories, with an
-- empty payload (any login may LISTEN, and NOTIFY, on the channel: it must carry nothing). The
-- worker reads the tenants from zb.memory_underived.
CREATE OR REPLACE FUNCTION zb.notify_underived() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM inserted WHERE derived_at IS NULL) THEN
        PERFORM pg_notify('zb_memory_inserted', '');
    END IF;
    RETURN NULL;
END
$$;

-- derive_waiting returns which of p_tenants have a pending-derive job waiting to start (River's
-- zb_derive jobs with "pending": true, available or scheduled): a notified worker queues none
-- for them, since that job reads the whole queue when it starts. PL/pgSQL, because River's tables
-- are created after zb's migrations.
CREATE FUNCTION zb.derive_waiting(p_tenants text[]) RETURNS SETOF text
LANGUAGE plpgsql STABLE
AS $$
BEGIN
    RETURN QUERY
    SELECT DISTINCT j.args ->> 'tenant_id'
    FROM river.river_job j
    WHERE j.kind = 'zb_derive' AND j.state IN ('available', 'scheduled')
      AND j.args ->> 'tenant_id' = ANY (p_tenants) AND j.args @> '{"pending": true}';
END
$$;

COMMENT ON FUNCTION zb.derive_waiting(text[]) IS
    'Which of the tenants have a pending-derive job waiting to start (the notified worker queues no other).';

-- recall_check: zb.recall's arguments, and the Go API's bounds on the query (64 KiB, 1,024
-- distinct terms).
CREATE OR REPLACE FUNCTION zb.recall_check(p_query text, p_k integer, p_class text, p_candidates integer)
RETURNS boolean
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
    IF p_query IS NULL OR btrim(p_query) = '' THEN
        RAISE EXCEPTION 'zb.recall: the query is empty' USING ERRCODE = '22023', HINT = 'pass the question as text';
    END IF;
    IF octet_length(p_query) > 65536 THEN
        RAISE EXCEPTION 'zb.recall: the query is % bytes, at most 65536', octet_length(p_query) USING ERRCODE = '22023';
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

-- recall_terms_check raises when a recall's query terms exceed the Go API's bound (1,024
-- distinct terms; each is a read of the postings), and returns true otherwise.
CREATE FUNCTION zb.recall_terms_check(p_terms text[]) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
    n integer;
BEGIN
    IF cardinality(p_terms) > 1024 THEN
        SELECT count(DISTINCT t) INTO n FROM unnest(p_terms) t;
        IF n > 1024 THEN
            RAISE EXCEPTION 'zb.recall: the query has % distinct terms, at most 1024', n USING ERRCODE = '22023';
        END IF;
    END IF;
    RETURN true;
END
$$;

COMMENT ON FUNCTION zb.recall_terms_check(text[]) IS 'Refuses more than 1,024 distinct query terms (22023); true otherwise.';

-- recall_candidates (0010's, with the model): the query terms bounded first.
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
        CASE WHEN zb.recall_terms_check(p_terms) THEN p_terms END, p_layers, p_k, p_now, p_from, p_to, p_as_of,
        p_contexts, p_deep, a.model) r
$$;

-- secure_river: the worker's rights on River's tables narrowed to what River's client uses.
CREATE OR REPLACE FUNCTION zb.secure_river() RETURNS boolean
LANGUAGE plpgsql
AS $$
DECLARE
    app name := zb.role_name('app');
    wrk name := zb.role_name('worker');
    adm name := zb.role_name('admin');
    def name := zb.role_name('definer');
    t   regclass;
BEGIN
    IF to_regnamespace('river') IS NOT NULL THEN
        EXECUTE format('GRANT USAGE ON SCHEMA river TO %I, %I, %I, %I', app, wrk, adm, def);
    END IF;
    IF to_regclass('river.river_job') IS NULL THEN
        RETURN false;
    END IF;
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA river TO %I', adm);
    EXECUTE format('GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA river TO %I', adm);
    -- The worker gets what River's client does: jobs (insert, fetch, complete, clean up),
    -- leadership and queues read and written; every other River table (migrations, clients)
    -- only read; sequences only drawn from.
    EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA river FROM %I', wrk);
    EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA river FROM %I', wrk);
    EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA river TO %I', wrk);
    FOR t IN SELECT c.oid::regclass FROM pg_class c
             WHERE c.relnamespace = 'river'::regnamespace AND c.relkind IN ('r', 'p')
               AND c.relname IN ('river_job', 'river_leader', 'river_queue')
    LOOP
        EXECUTE format('GRANT INSERT, UPDATE, DELETE ON %s TO %I', t, wrk);
    END LOOP;
    EXECUTE format('GRANT USAGE ON ALL SEQUENCES IN SCHEMA river TO %I', wrk);
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
