-- 0005_governance: the append-only audit trail, consent, context policy, retention windows,
-- the approval queue and worker heartbeats.

-- audit_event is append-only: a trigger refuses UPDATE and DELETE unless the transaction runs
-- an erase (SET LOCAL zb.erase = 'on'), which scrubs payload text of erased content. Audit rows
-- have no foreign key to the tenant on purpose: the record of an erase outlives the tenant.
CREATE TABLE zb.audit_event (
    tenant_id  text        NOT NULL,
    id         bigint      GENERATED ALWAYS AS IDENTITY,
    at         timestamptz NOT NULL,
    actor      text        NOT NULL CHECK (length(actor) BETWEEN 1 AND 200),
    action     text        NOT NULL CHECK (action ~ '^[a-z_]+\.[a-z_]+$'),
    memory_id  bigint,
    detail     jsonb       NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(detail) = 'object'),
    PRIMARY KEY (tenant_id, id)
);

CREATE INDEX audit_event_time_idx ON zb.audit_event (tenant_id, at);
CREATE INDEX audit_event_memory_idx ON zb.audit_event (tenant_id, memory_id) WHERE memory_id IS NOT NULL;

CREATE FUNCTION zb.audit_event_append_only() RETURNS trigger
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

CREATE TRIGGER audit_event_append_only
    BEFORE UPDATE OR DELETE ON zb.audit_event
    FOR EACH ROW EXECUTE FUNCTION zb.audit_event_append_only();

CREATE TRIGGER audit_event_no_truncate
    BEFORE TRUNCATE ON zb.audit_event
    FOR EACH STATEMENT EXECUTE FUNCTION zb.audit_event_append_only();

CREATE TABLE zb.consent (
    tenant_id  text        NOT NULL REFERENCES zb.tenant (id) ON DELETE CASCADE,
    id         bigint      GENERATED ALWAYS AS IDENTITY,
    subject    text        NOT NULL CHECK (length(subject) BETWEEN 1 AND 200),
    purpose    text        NOT NULL CHECK (length(purpose) BETWEEN 1 AND 200),
    context    text        CHECK (context IS NULL OR context ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'),
    granted_at timestamptz NOT NULL,
    revoked_at timestamptz,
    evidence   text        NOT NULL DEFAULT '',
    PRIMARY KEY (tenant_id, id),
    CHECK (revoked_at IS NULL OR revoked_at >= granted_at)
);

CREATE INDEX consent_subject_idx ON zb.consent (tenant_id, subject, purpose);

-- context_policy: reader_context may read memories of source_context (cross-context recall and
-- entity links only where allowed). A context always reads itself.
CREATE TABLE zb.context_policy (
    tenant_id      text        NOT NULL REFERENCES zb.tenant (id) ON DELETE CASCADE,
    reader_context text        NOT NULL CHECK (reader_context ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'),
    source_context text        NOT NULL CHECK (source_context ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'),
    allowed        boolean     NOT NULL,
    updated_at     timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, reader_context, source_context),
    CHECK (reader_context <> source_context)
);

-- retention_policy: memories of a context older than max_age are erased by the worker.
CREATE TABLE zb.retention_policy (
    tenant_id  text        NOT NULL REFERENCES zb.tenant (id) ON DELETE CASCADE,
    context    text        NOT NULL CHECK (context ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'),
    max_age    interval    NOT NULL CHECK (max_age > interval '0'),
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, context)
);

CREATE TABLE zb.approval_request (
    tenant_id    text        NOT NULL REFERENCES zb.tenant (id) ON DELETE CASCADE,
    id           bigint      GENERATED ALWAYS AS IDENTITY,
    operation    text        NOT NULL CHECK (operation IN ('tenant_erase', 'context_erase', 'core_overwrite',
                                                           'algorithm_switch', 'export', 'rollback')),
    payload      jsonb       NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(payload) = 'object'),
    status       text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'expired', 'executed')),
    requested_by text        NOT NULL,
    requested_at timestamptz NOT NULL,
    decided_by   text,
    decided_at   timestamptz,
    reason       text,
    PRIMARY KEY (tenant_id, id),
    CHECK ((status = 'pending') = (decided_at IS NULL)),
    CHECK (decided_at IS NULL OR decided_at >= requested_at)
);

CREATE INDEX approval_request_pending_idx ON zb.approval_request (tenant_id, requested_at) WHERE status = 'pending';

-- worker_heartbeat: one row per running zbworker, for zbctl status.
CREATE TABLE zb.worker_heartbeat (
    worker_id    text        PRIMARY KEY,
    hostname     text        NOT NULL,
    pid          integer     NOT NULL CHECK (pid > 0),
    queues       text[]      NOT NULL DEFAULT '{}',
    version      text        NOT NULL DEFAULT '',
    started_at   timestamptz NOT NULL,
    heartbeat_at timestamptz NOT NULL,
    CHECK (heartbeat_at >= started_at)
);
