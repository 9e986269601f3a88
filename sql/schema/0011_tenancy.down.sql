-- 0011_tenancy down: row-level security, policies, grants and the tenancy functions go; the
-- audit trigger function of 0005 returns. The roles are cluster-wide and may serve other
-- databases: they stay (DROP ROLE them by hand when no database uses them).

DO $$
DECLARE
    app name := zb.role_name('app');
    wrk name := zb.role_name('worker');
    adm name := zb.role_name('admin');
    def name := zb.role_name('definer');
    t   regclass;
    pol record;
    roles text := format('%I, %I, %I, %I', app, wrk, adm, def);
BEGIN
    FOR pol IN
        SELECT p.polname, p.polrelid::regclass AS rel FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
        WHERE c.relnamespace IN ('zb'::regnamespace, coalesce(to_regnamespace('river'), 'zb'::regnamespace))
          AND p.polname IN ('zb_tenant', 'zb_operator', 'zb_self')
    LOOP
        EXECUTE format('DROP POLICY %I ON %s', pol.polname, pol.rel);
    END LOOP;
    FOR t IN
        SELECT c.oid::regclass FROM pg_class c
        WHERE c.relnamespace = 'zb'::regnamespace AND c.relkind IN ('r', 'p', 'v')
    LOOP
        EXECUTE format('REVOKE ALL ON %s FROM %s', t, roles);
        IF (SELECT c.relkind FROM pg_class c WHERE c.oid = t) = 'v' THEN
            EXECUTE format('ALTER VIEW %s RESET (security_invoker)', t);
        ELSE
            EXECUTE format('ALTER TABLE %s NO FORCE ROW LEVEL SECURITY', t);
            EXECUTE format('ALTER TABLE %s DISABLE ROW LEVEL SECURITY', t);
        END IF;
    END LOOP;
    IF to_regclass('river.river_job') IS NOT NULL THEN
        ALTER TABLE river.river_job DISABLE ROW LEVEL SECURITY;
        EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA river FROM %s', roles);
        EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA river FROM %s', roles);
    END IF;
    IF to_regnamespace('river') IS NOT NULL THEN
        EXECUTE format('REVOKE ALL ON SCHEMA river FROM %s', roles);
    END IF;
    EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA zb FROM %s', roles);
    EXECUTE format('REVOKE ALL ON ALL FUNCTIONS IN SCHEMA zb FROM %s', roles);
    EXECUTE format('REVOKE ALL ON SCHEMA zb FROM %s', roles);
END
$$;

GRANT EXECUTE ON FUNCTION zb.apply_embedding_dim(regclass, name) TO PUBLIC;
GRANT EXECUTE ON FUNCTION zb.job_counts() TO PUBLIC;

CREATE OR REPLACE FUNCTION zb.audit_event_append_only() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF coalesce(current_setting('zb.erase', true), '') = 'on' THEN
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    RAISE EXCEPTION 'zb.audit_event is append-only (% refused)', TG_OP
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'audit events change only through an erase';
END
$$;

DROP FUNCTION zb.secure_river();
DROP FUNCTION zb.secure_tenant_table(regclass, name);
DROP FUNCTION zb.current_tenant();
DROP FUNCTION zb.tenant_setting();
DROP TABLE zb.tenant_binding;
DROP FUNCTION zb.role_name(text);
DELETE FROM zb.config WHERE key = 'role_prefix';
