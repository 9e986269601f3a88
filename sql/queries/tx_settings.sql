-- name: TxSetLockTimeout :exec
-- TxSetLockTimeout sets lock_timeout for the rest of the current transaction (e.g. '200ms').
SELECT set_config('lock_timeout', @timeout::text, true);
