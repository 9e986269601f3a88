-- 0022_current_tenant_plpgsql down: zb.current_tenant() as released (0011).

CREATE OR REPLACE FUNCTION zb.current_tenant() RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.t
    FROM (SELECT zb.tenant_setting() AS t) s
    WHERE s.t IS NOT NULL
      AND (NOT EXISTS (SELECT 1 FROM zb.tenant_binding b WHERE b.role_name = session_user::text)
           OR EXISTS (SELECT 1 FROM zb.tenant_binding b WHERE b.role_name = session_user::text AND b.tenant_id = s.t))
$$;
