-- 0022_current_tenant_plpgsql: zb.current_tenant() in PL/pgSQL (issue 10).
--
-- zb.current_tenant() is read by every row-level security policy ((SELECT zb.current_tenant())
-- once per table per statement) and by the recall functions' tenant checks. As a SQL function
-- whose body has a FROM clause and EXISTS sublinks it cannot be inlined, so each of those calls
-- parsed, analyzed and planned its body again: ≈ 0.06 ms a call (pgbench, two calls a statement:
-- 0.204 against 0.089 ms). A recall as zb_app (row-level security on) makes one such call for
-- each policy of each statement: its candidate query took 3.3–3.5 ms with the SQL function and
-- 2.2–2.5 ms with this one (10 000 memories in 100 tenants, interleaved runs). PL/pgSQL keeps the
-- plans of its two lookups for the session. The result is the same: the setting zb.tenant_id,
-- NULL when unset, or when the session user has tenant bindings and the setting is not one of
-- them.

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
