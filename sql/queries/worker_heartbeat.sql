-- name: WorkerHeartbeatUpsert :exec
-- WorkerHeartbeatUpsert records that a worker is alive.
INSERT INTO zb.worker_heartbeat (worker_id, hostname, pid, queues, version, started_at, heartbeat_at)
VALUES (@worker_id::text, @hostname::text, @pid::int, @queues::text[], @version::text, @started_at::timestamptz, @now::timestamptz)
ON CONFLICT (worker_id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at, queues = EXCLUDED.queues;

-- name: WorkerHeartbeatList :many
-- WorkerHeartbeatList returns the workers seen since a time.
SELECT * FROM zb.worker_heartbeat WHERE heartbeat_at >= @since::timestamptz ORDER BY worker_id;

-- name: WorkerHeartbeatDelete :execrows
-- WorkerHeartbeatDelete removes a stopped worker's row.
DELETE FROM zb.worker_heartbeat WHERE worker_id = @worker_id::text;
