-- name: VacuumLockTry :one
-- VacuumLockTry takes the session-level advisory lock of vacuum runs when it is free (true), so
-- that two runs (workers, zbctl vacuum) never vacuum at once; VacuumUnlock releases it.
SELECT pg_try_advisory_lock(hashtext('zb.vacuum'), 0) AS locked;

-- name: VacuumUnlock :one
-- VacuumUnlock releases the session-level advisory lock VacuumLockTry took (false when this
-- session did not hold it).
SELECT pg_advisory_unlock(hashtext('zb.vacuum'), 0) AS unlocked;

-- name: VacuumRequestLockTimeoutSet :exec
-- VacuumRequestLockTimeoutSet sets lock_timeout for the rest of the transaction (e.g. '5000ms').
SELECT set_config('lock_timeout', @timeout::text, true);

-- name: VacuumRequestLockTable :exec
-- VacuumRequestLockTable locks zb.vacuum_request against every other transaction until the
-- caller's ends. It waits for the erases in flight, which read the table (a pending request to
-- reuse) or write it before they commit: a claim after it never takes a request whose erase has
-- not committed, whose row versions VACUUM could not yet remove.
LOCK TABLE zb.vacuum_request IN ACCESS EXCLUSIVE MODE;

-- name: VacuumRequestClaim :many
-- VacuumRequestClaim claims every request that is not done: started_at becomes now where it is
-- NULL (a request an interrupted run had started keeps its time). It returns the ids claimed.
UPDATE zb.vacuum_request
SET started_at = coalesce(started_at, now())
WHERE done_at IS NULL
RETURNING id;

-- name: VacuumRequestDone :execrows
-- VacuumRequestDone marks claimed requests done with the number of tables vacuumed.
UPDATE zb.vacuum_request
SET done_at = now(), tables = @tables::int
WHERE id = ANY(@ids::bigint[]) AND started_at IS NOT NULL AND done_at IS NULL;

-- name: VacuumRequestRelease :execrows
-- VacuumRequestRelease returns claimed requests that were not done to pending (started_at NULL),
-- after a run that could not vacuum.
UPDATE zb.vacuum_request
SET started_at = NULL
WHERE id = ANY(@ids::bigint[]) AND done_at IS NULL;

-- name: VacuumRequestList :many
-- VacuumRequestList returns the latest requests, newest first.
SELECT * FROM zb.vacuum_request
ORDER BY id DESC
LIMIT @k::int;

-- name: VacuumTargetList :many
-- VacuumTargetList lists the tables a vacuum run covers — every ordinary table of schema zb and
-- River's job table when it exists — in order, with their owner and whether the current role
-- may vacuum and analyze each: a superuser, a member of the table's owner, or of the database's
-- owner (who may vacuum every table of the database but the shared catalogs), and from
-- PostgreSQL 17 on a role with the MAINTAIN privilege on the table or a member of pg_maintain.
SELECT n.nspname::text AS schema_name,
       c.relname::text AS table_name,
       pg_get_userbyid(c.relowner)::text AS owner,
       current_user::text AS role_name,
       (coalesce((SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = current_user), false)
        OR pg_has_role(current_user, c.relowner, 'USAGE')
        OR EXISTS (SELECT 1 FROM pg_catalog.pg_database d
                   WHERE d.datname = current_database() AND pg_has_role(current_user, d.datdba, 'USAGE'))
        OR EXISTS (SELECT 1 FROM pg_catalog.pg_roles m
                   WHERE m.rolname = 'pg_maintain' AND pg_has_role(current_user, m.oid, 'USAGE'))
        OR EXISTS (SELECT 1 FROM aclexplode(c.relacl) a
                   WHERE a.privilege_type = 'MAINTAIN'
                     AND (a.grantee = 0 OR pg_has_role(current_user, a.grantee, 'USAGE'))))::boolean AS may_vacuum
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind = 'r'
  AND (n.nspname = 'zb' OR (n.nspname = 'river' AND c.relname = 'river_job'))
ORDER BY n.nspname DESC, c.relname;
