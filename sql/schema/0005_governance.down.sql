DROP TABLE zb.worker_heartbeat;
DROP TABLE zb.approval_request;
DROP TABLE zb.retention_policy;
DROP TABLE zb.context_policy;
DROP TABLE zb.consent;
DROP TABLE zb.audit_event;
DROP FUNCTION zb.audit_event_append_only();
