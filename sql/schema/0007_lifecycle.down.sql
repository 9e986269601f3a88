DROP INDEX zb.reconsolidation_event_trigger_idx;
DROP INDEX zb.debate_memory_idx;
ALTER TABLE zb.review_state DROP COLUMN accesses_at_review;
DROP INDEX zb.memory_activity_idx;
