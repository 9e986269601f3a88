-- name: ConfigGet :one
-- ConfigGet returns one install-wide setting.
SELECT value FROM zb.config WHERE key = @key::text;

-- name: ConfigList :many
-- ConfigList returns every install-wide setting.
SELECT * FROM zb.config ORDER BY key;
