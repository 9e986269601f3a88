-- name: WorkingSlotListForUpdate :many
-- WorkingSlotListForUpdate returns a session's working-memory slots, locked, so that concurrent
-- additions to one session serialize.
SELECT * FROM zb.working_slot
WHERE tenant_id = @tenant_id::text AND session_id = @session_id::uuid
ORDER BY slot
FOR UPDATE;

-- name: WorkingSlotInsert :exec
-- WorkingSlotInsert puts a memory into a free slot.
INSERT INTO zb.working_slot (tenant_id, session_id, slot, memory_id, relevance, entered_at, touched_at)
VALUES (@tenant_id::text, @session_id::uuid, @slot::smallint, @memory_id::bigint, @relevance::double precision,
        @now::timestamptz, @now::timestamptz);

-- name: WorkingSlotDelete :execrows
-- WorkingSlotDelete frees one slot.
DELETE FROM zb.working_slot WHERE tenant_id = @tenant_id::text AND session_id = @session_id::uuid AND slot = @slot::smallint;

-- name: WorkingSlotListWithMemory :many
-- WorkingSlotListWithMemory returns a session's slots with their memories, most relevant first.
SELECT w.slot, w.memory_id, w.relevance, w.entered_at, w.touched_at, m.content, m.layer
FROM zb.working_slot w
JOIN zb.memory m ON m.tenant_id = w.tenant_id AND m.id = w.memory_id
WHERE w.tenant_id = @tenant_id::text AND w.session_id = @session_id::uuid AND m.status = 'active'
ORDER BY w.relevance DESC, w.touched_at DESC, w.slot;
