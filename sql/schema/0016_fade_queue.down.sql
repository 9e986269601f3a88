-- 0016_fade_queue down: decay's schedule returns to the partial index on zb.memory; derive's
-- nearest facts to the plain query.

DROP FUNCTION zb.similar_semantic(text, bigint[], integer);

CREATE INDEX memory_fade_idx ON zb.memory (tenant_id, fade_at) WHERE fade_at IS NOT NULL AND status = 'active';

DROP TRIGGER memory_fade_update ON zb.memory;
DROP TRIGGER memory_fade_insert ON zb.memory;
DROP FUNCTION zb.memory_fade_updated();
DROP FUNCTION zb.memory_fade_inserted();
DROP TABLE zb.memory_fade;
