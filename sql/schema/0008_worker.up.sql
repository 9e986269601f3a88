-- worker: notifications for memories inserted with plain SQL, and job counts for metrics.

-- notify_underived tells listening workers which tenants have new underived memories (rows
-- inserted with plain SQL get derived within seconds). One notification per tenant per
-- statement; identical notifications in one transaction are folded by PostgreSQL.
CREATE FUNCTION zb.notify_underived() RETURNS trigger
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

CREATE TRIGGER memory_notify_underived
    AFTER INSERT ON zb.memory
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION zb.notify_underived();

-- job_counts returns River's jobs by queue and state (for the worker's metrics and zbctl).
-- PL/pgSQL, because River's tables are created after zb's migrations.
CREATE FUNCTION zb.job_counts() RETURNS TABLE (queue text, state text, n bigint)
LANGUAGE plpgsql STABLE
AS $$
BEGIN
    RETURN QUERY
    SELECT j.queue::text, j.state::text, count(*)::bigint FROM river.river_job j GROUP BY j.queue, j.state ORDER BY 1, 2;
END
$$;
