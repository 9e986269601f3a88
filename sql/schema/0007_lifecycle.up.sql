-- 0007_lifecycle: what the coordinator's lifecycle entry points (Derive, DecayDue, ReviewDue,
-- Consolidate, Sleep, Propagate) need beyond the tables of 0002-0004.
--
--  * memory_activity_idx: the recent activity of a tenant (last_accessed_at is set at store and
--    by every used recall), so a sleep run reads its recent episodes without scanning the tenant.
--  * review_state.accesses_at_review: the memory's access count at its last review (or when its
--    review state was created), so a review infers its grade from the use since then.
--  * debate_memory_idx, reconsolidation_event_trigger_idx: lookups by the memory a debate or a
--    reconsolidation is about (idempotency checks, rollback, erase).

CREATE INDEX memory_activity_idx ON zb.memory (tenant_id, last_accessed_at) WHERE status = 'active';

ALTER TABLE zb.review_state
    ADD COLUMN accesses_at_review integer NOT NULL DEFAULT 0 CHECK (accesses_at_review >= 0);

CREATE INDEX debate_memory_idx ON zb.debate (tenant_id, memory_id);
CREATE INDEX reconsolidation_event_trigger_idx ON zb.reconsolidation_event (tenant_id, trigger_id)
    WHERE trigger_id IS NOT NULL;
