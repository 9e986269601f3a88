DROP TRIGGER IF EXISTS memory_delete_scrub_query_terms ON zb.memory;
DROP TRIGGER IF EXISTS memory_erase_scrub_query_terms ON zb.memory;
DROP FUNCTION IF EXISTS zb.curiosity_scrub_terms();
DROP TABLE IF EXISTS zb.workspace_state;

DROP INDEX IF EXISTS zb.stc_tag_rescued_by_idx;
DROP INDEX IF EXISTS zb.stc_tag_open_idx;
DROP INDEX IF EXISTS zb.prospective_fired_idx;
DROP INDEX IF EXISTS zb.prospective_expiry_idx;
DROP INDEX IF EXISTS zb.prospective_time_due_idx;
DROP INDEX IF EXISTS zb.prospective_cue_idx;

ALTER TABLE zb.prospective_intention
    DROP CONSTRAINT IF EXISTS prospective_intention_expiry_check,
    DROP CONSTRAINT IF EXISTS prospective_intention_resolved_check,
    DROP COLUMN IF EXISTS fired_source,
    DROP COLUMN IF EXISTS fired_score,
    DROP COLUMN IF EXISTS fired_reason,
    DROP COLUMN IF EXISTS resolved_at,
    DROP COLUMN IF EXISTS lang,
    DROP COLUMN IF EXISTS cue_entities,
    DROP COLUMN IF EXISTS priority;

ALTER TABLE zb.recall_event DROP COLUMN IF EXISTS query_terms;
