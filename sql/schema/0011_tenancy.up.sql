-- 0011_tenancy: database roles, row-level security and grants (docs/security.md).
--
--  * Roles (cluster-wide, created when missing, NOLOGIN group roles): <prefix>_app (store, recall
--    and forget within one tenant), <prefix>_worker (the lifecycle of every tenant, River),
--    <prefix>_admin (operators: governance, approvals, every tenant) and <prefix>_definer (owns
--    the SECURITY DEFINER erase functions of 0012; nobody logs in as it or is a member of it,
--    except the migrating role). The prefix is the setting zb.role_prefix at migration time
--    (default 'zb': zb_app, zb_worker, zb_admin, zb_definer), recorded in zb.config
--    'role_prefix'. Grant the group roles to LOGIN users: GRANT zb_app TO myservice.
--  * The tenant of a transaction is the setting zb.tenant_id (SELECT set_config('zb.tenant_id',
--    'acme', true)); zb.current_tenant() returns it, or NULL when it is unset or when the session
--    user is bound (zb.tenant_binding) to other tenants only.
--  * Every table of schema zb with a tenant_id column (and zb.tenant by its id) has row-level
--    security, forced for the owner too: zb_app and zb_definer see and write only rows of the
--    current tenant, and nothing without one; zb_worker and zb_admin likewise once a tenant is
--    set, and every tenant's rows while none is set (cross-tenant sweeps, operators).
--    zb.secure_tenant_table(t) applies the same to a table of a later migration.
--  * Views run with the caller's rights (security_invoker), so RLS applies through them.
--  * zb.audit_event changes only through the erase functions: the append-only trigger now also
--    requires the role zb_definer (or a superuser), and no group role may UPDATE or DELETE it.
--  * River's tables: zb.secure_river() grants what each role needs and confines zb_app to the
--    jobs of its tenant; the migrator calls it after River's own migrations.

DO $$
DECLARE
    prefix text := coalesce(nullif(current_setting('zb.role_prefix', true), ''), 'zb');
    kind   text;
    r      text;
    rec    record;
BEGIN
    IF prefix !~ '^[a-z][a-z0-9_]{0,40}$' THEN
        RAISE EXCEPTION 'zb.role_prefix % is not a valid role prefix', quote_literal(left(prefix, 60))
            USING ERRCODE = '22023', HINT = 'use 1-41 lower-case letters, digits and _, starting with a letter';
    END IF;
    INSERT INTO zb.config (key, value) VALUES ('role_prefix', prefix)
    ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now();
    FOREACH kind IN ARRAY ARRAY['app', 'worker', 'admin', 'definer'] LOOP
        r := prefix || '_' || kind;
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
            BEGIN
                EXECUTE format('CREATE ROLE %I NOLOGIN', r);
            EXCEPTION
                WHEN duplicate_object OR unique_violation THEN NULL; -- created concurrently by another database's migration
                WHEN insufficient_privilege THEN
                    RAISE EXCEPTION 'role % does not exist and % may not create it', r, current_user
                        USING ERRCODE = '42501',
                              HINT = format('create the roles %1$s_app, %1$s_worker, %1$s_admin and %1$s_definer (NOLOGIN) first, '
                                            'or migrate as a role with CREATEROLE', prefix);
            END;
        END IF;
        SELECT rolsuper, rolbypassrls INTO rec FROM pg_roles WHERE rolname = r;
        IF kind IN ('app', 'definer') AND (rec.rolsuper OR rec.rolbypassrls) THEN
            RAISE EXCEPTION 'role % is a superuser or has BYPASSRLS: row-level security would not apply to it', r
                USING ERRCODE = '42501', HINT = format('ALTER ROLE %I NOSUPERUSER NOBYPASSRLS', r);
        END IF;
    END LOOP;
END
$$;

-- role_name returns the name of one of zenbrain's roles: kind is app, worker, admin or definer.
CREATE FUNCTION zb.role_name(p_kind text) RETURNS name
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT (coalesce((SELECT c.value FROM zb.config c WHERE c.key = 'role_prefix'), 'zb') || '_' || p_kind)::name
$$;

COMMENT ON FUNCTION zb.role_name(text) IS 'Name of zenbrain''s role of a kind (app, worker, admin, definer): zb.config role_prefix || ''_'' || kind.';

-- tenant_binding restricts a login role to some tenants: a role with bindings gets NULL from
-- zb.current_tenant() (sees and writes nothing) unless zb.tenant_id names one of its tenants.
-- Roles without bindings may set any tenant. Every role reads only its own bindings.
CREATE TABLE zb.tenant_binding (
    role_name  text        NOT NULL CHECK (length(role_name) BETWEEN 1 AND 63),
    tenant_id  text        NOT NULL CHECK (tenant_id ~ '^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$'),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (role_name, tenant_id)
);

CREATE INDEX tenant_binding_tenant_idx ON zb.tenant_binding (tenant_id);

-- tenant_setting returns the raw setting zb.tenant_id of the transaction (NULL when unset or
-- empty), before bindings are checked.
CREATE FUNCTION zb.tenant_setting() RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT nullif(current_setting('zb.tenant_id', true), '') $$;

COMMENT ON FUNCTION zb.tenant_setting() IS 'The setting zb.tenant_id as set (NULL when unset), before tenant bindings are checked.';

-- current_tenant returns the tenant of the transaction: the setting zb.tenant_id, or NULL when it
-- is unset, or when the session user has tenant bindings and the setting is not one of them.
CREATE FUNCTION zb.current_tenant() RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.t
    FROM (SELECT zb.tenant_setting() AS t) s
    WHERE s.t IS NOT NULL
      AND (NOT EXISTS (SELECT 1 FROM zb.tenant_binding b WHERE b.role_name = session_user::text)
           OR EXISTS (SELECT 1 FROM zb.tenant_binding b WHERE b.role_name = session_user::text AND b.tenant_id = s.t))
$$;

COMMENT ON FUNCTION zb.current_tenant() IS
    'The tenant of the transaction (setting zb.tenant_id), NULL when unset or not among the session user''s tenant bindings.';

-- secure_tenant_table puts a table of schema zb under tenant isolation: row-level security
-- enabled and forced, the policy zb_tenant (zb_app and zb_definer: rows whose p_column is the
-- current tenant) and the policy zb_operator (zb_worker and zb_admin: the same once a tenant is
-- set, every row while none is), and SELECT, INSERT, UPDATE, DELETE for the four roles (narrowed
-- per table afterwards where a role needs less). For a view it sets security_invoker and grants
-- SELECT. Later migrations call it for every new tenant table and view; idempotent.
CREATE FUNCTION zb.secure_tenant_table(p_table regclass, p_column name DEFAULT 'tenant_id') RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    app  name := zb.role_name('app');
    wrk  name := zb.role_name('worker');
    adm  name := zb.role_name('admin');
    def  name := zb.role_name('definer');
    kind "char";
BEGIN
    SELECT c.relkind INTO kind FROM pg_class c WHERE c.oid = p_table;
    IF kind = 'v' THEN
        EXECUTE format('ALTER VIEW %s SET (security_invoker = true)', p_table);
        EXECUTE format('GRANT SELECT ON %s TO %I, %I, %I, %I', p_table, app, wrk, adm, def);
        RETURN;
    END IF;
    IF kind IS DISTINCT FROM 'r' AND kind IS DISTINCT FROM 'p' THEN
        RAISE EXCEPTION 'zb.secure_tenant_table: % is not a table or view', p_table USING ERRCODE = '22023';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = p_table AND a.attname = p_column AND NOT a.attisdropped) THEN
        RAISE EXCEPTION 'zb.secure_tenant_table: % has no column %', p_table, p_column USING ERRCODE = '42703';
    END IF;
    EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', p_table);
    EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', p_table);
    IF EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = p_table AND p.polname = 'zb_tenant') THEN
        EXECUTE format('DROP POLICY zb_tenant ON %s', p_table);
    END IF;
    EXECUTE format('CREATE POLICY zb_tenant ON %s AS PERMISSIVE FOR ALL TO %I, %I '
                   'USING (%I = (SELECT zb.current_tenant())) WITH CHECK (%I = (SELECT zb.current_tenant()))',
                   p_table, app, def, p_column, p_column);
    IF EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = p_table AND p.polname = 'zb_operator') THEN
        EXECUTE format('DROP POLICY zb_operator ON %s', p_table);
    END IF;
    EXECUTE format('CREATE POLICY zb_operator ON %s AS PERMISSIVE FOR ALL TO %I, %I '
                   'USING ((SELECT zb.tenant_setting()) IS NULL OR %I = (SELECT zb.current_tenant())) '
                   'WITH CHECK ((SELECT zb.tenant_setting()) IS NULL OR %I = (SELECT zb.current_tenant()))',
                   p_table, wrk, adm, p_column, p_column);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %s TO %I, %I, %I, %I', p_table, app, wrk, adm, def);
END
$$;

COMMENT ON FUNCTION zb.secure_tenant_table(regclass, name) IS
    'Tenant isolation for a table (forced RLS keyed on zb.current_tenant(), grants) or a view (security_invoker); call it for every new tenant table.';

-- secure_river grants zenbrain's roles what they need on River's tables and confines zb_app (and
-- zb_definer) to the jobs of the current tenant (args ->> 'tenant_id'); zb_worker and zb_admin
-- see every job. It does nothing before River's tables exist; the migrator calls it after
-- River's migrations. Idempotent.
CREATE FUNCTION zb.secure_river() RETURNS boolean
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

COMMENT ON FUNCTION zb.secure_river() IS
    'Grants on River''s tables and RLS on river.river_job (zb_app: jobs of the current tenant only); run after River''s migrations.';

-- The append-only audit trail changes only through the erase functions (owned by zb_definer)
-- or a superuser, and only while zb.erase is on.
CREATE OR REPLACE FUNCTION zb.audit_event_append_only() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF coalesce(current_setting('zb.erase', true), '') = 'on'
       AND (current_user = zb.role_name('definer')
            OR EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = current_user AND r.rolsuper)) THEN
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    RAISE EXCEPTION 'zb.audit_event is append-only (% refused)', TG_OP
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'audit events change only through an erase (zb.erase)';
END
$$;

DO $$
DECLARE
    app name := zb.role_name('app');
    wrk name := zb.role_name('worker');
    adm name := zb.role_name('admin');
    def name := zb.role_name('definer');
    t   regclass;
BEGIN
    EXECUTE format('GRANT USAGE ON SCHEMA zb TO %I, %I, %I, %I', app, wrk, adm, def);

    -- Every tenant table and every view of schema zb (0010's included).
    FOR t IN
        SELECT c.oid::regclass FROM pg_class c
        WHERE c.relnamespace = 'zb'::regnamespace
          AND (c.relkind = 'v'
               OR (c.relkind IN ('r', 'p') AND c.relname <> 'tenant_binding'
                   AND EXISTS (SELECT 1 FROM pg_attribute a
                               WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped)))
        ORDER BY c.relname
    LOOP
        PERFORM zb.secure_tenant_table(t);
    END LOOP;
    PERFORM zb.secure_tenant_table('zb.tenant', 'id');

    -- Narrower rights where a role needs less (least privilege):
    --   audit_event: append-only for everyone; the definer scrubs through the erase functions.
    EXECUTE format('REVOKE UPDATE, DELETE ON zb.audit_event FROM %I, %I, %I', app, wrk, adm);
    --   tenant: created on first use; settings and removal are the operators'.
    EXECUTE format('REVOKE UPDATE, DELETE ON zb.tenant FROM %I, %I', app, wrk);
    EXECUTE format('REVOKE UPDATE ON zb.tenant FROM %I', def);
    --   governance: the application requests approvals and records consent; operators decide.
    EXECUTE format('REVOKE UPDATE, DELETE ON zb.approval_request FROM %I, %I', app, wrk);
    EXECUTE format('REVOKE DELETE ON zb.consent FROM %I, %I', app, wrk);
    EXECUTE format('REVOKE INSERT, UPDATE, DELETE ON zb.context_policy, zb.retention_policy, zb.algorithm_switch FROM %I, %I',
                   app, wrk);

    -- Tenant bindings: every role reads its own; operators manage them.
    ALTER TABLE zb.tenant_binding ENABLE ROW LEVEL SECURITY;
    ALTER TABLE zb.tenant_binding FORCE ROW LEVEL SECURITY;
    EXECUTE format('CREATE POLICY zb_self ON zb.tenant_binding FOR SELECT TO %I, %I, %I USING (role_name = session_user::text)',
                   app, wrk, def);
    EXECUTE format('CREATE POLICY zb_operator ON zb.tenant_binding FOR ALL TO %I USING (true) WITH CHECK (true)', adm);
    EXECUTE format('GRANT SELECT ON zb.tenant_binding TO %I, %I, %I', app, wrk, def);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON zb.tenant_binding TO %I', adm);

    -- Install-wide tables.
    EXECUTE format('GRANT SELECT ON zb.config TO %I, %I, %I', app, wrk, def);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON zb.config TO %I', adm);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON zb.worker_heartbeat TO %I, %I', wrk, adm);

    -- Functions: EXECUTE stays public except for these.
    REVOKE EXECUTE ON FUNCTION zb.apply_embedding_dim(regclass, name) FROM PUBLIC;
    REVOKE EXECUTE ON FUNCTION zb.secure_tenant_table(regclass, name) FROM PUBLIC;
    REVOKE EXECUTE ON FUNCTION zb.secure_river() FROM PUBLIC;
    REVOKE EXECUTE ON FUNCTION zb.job_counts() FROM PUBLIC;
    EXECUTE format('GRANT EXECUTE ON FUNCTION zb.job_counts() TO %I, %I', wrk, adm);

    -- The migrating role owns every table, and row-level security is forced on the owner too: it
    -- acts as an operator (zb_admin) and may hand functions to zb_definer (0012). A superuser
    -- needs neither.
    IF NOT coalesce((SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user), false) THEN
        BEGIN
            IF NOT pg_has_role(current_user, adm, 'MEMBER') THEN
                EXECUTE format('GRANT %I TO %I', adm, current_user);
            END IF;
            IF NOT pg_has_role(current_user, def, 'MEMBER') THEN
                EXECUTE format('GRANT %I TO %I', def, current_user);
            END IF;
        EXCEPTION WHEN insufficient_privilege THEN
            RAISE EXCEPTION 'the migrating role % needs membership in % and %', current_user, adm, def
                USING ERRCODE = '42501',
                      HINT = format('GRANT %I, %I TO %I (as a role with CREATEROLE), then migrate again', adm, def, current_user);
        END;
    END IF;

    PERFORM zb.secure_river();
END
$$;
