-- 0001_foundation: the zb schema, pgvector, install settings, tenants and the shared enums.
--
-- The embedding dimension is chosen at install time: the migrator sets the transaction-local
-- setting zb.embedding_dim (zbctl migrate up --embedding-dim N, default 768) and this migration
-- records it in zb.config. Later migrations declare vector columns as vector(768), which sqlc
-- reads, and call zb.apply_embedding_dim() on them, which changes them to the recorded dimension
-- while the tables are still empty.

CREATE EXTENSION IF NOT EXISTS vector;

CREATE SCHEMA IF NOT EXISTS zb;

COMMENT ON SCHEMA zb IS 'zenbrain: long-term memory for LLM agents';

-- config holds install-wide settings (not per tenant), e.g. embedding_dim.
CREATE TABLE zb.config (
    key        text        PRIMARY KEY CHECK (key ~ '^[a-z][a-z0-9_]*$'),
    value      text        NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO zb.config (key, value)
VALUES ('embedding_dim', coalesce(nullif(current_setting('zb.embedding_dim', true), ''), '768'));

ALTER TABLE zb.config ADD CONSTRAINT config_embedding_dim_valid
    CHECK (key <> 'embedding_dim' OR (value ~ '^[0-9]{1,5}$' AND value::int BETWEEN 1 AND 16000));

-- embedding_dim returns the embedding dimension chosen at install.
CREATE FUNCTION zb.embedding_dim() RETURNS int
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT value::int FROM zb.config WHERE key = 'embedding_dim' $$;

-- apply_embedding_dim changes a vector(N) column to the install's dimension. Only used by
-- migrations, on empty tables.
CREATE FUNCTION zb.apply_embedding_dim(tbl regclass, col name) RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    dim int := zb.embedding_dim();
BEGIN
    EXECUTE format('ALTER TABLE %s ALTER COLUMN %I TYPE vector(%s)', tbl, col, dim);
END
$$;

CREATE TYPE zb.memory_layer AS ENUM (
    'working', 'short_term', 'episodic', 'semantic', 'procedural', 'core', 'cross_context'
);

CREATE TYPE zb.memory_status AS ENUM ('active', 'consolidated', 'archived', 'erased');

CREATE TYPE zb.edge_relation AS ENUM (
    'supports', 'contradicts', 'causes', 'requires', 'part_of', 'similar_to', 'co_occurs',
    'associated', 'derived_from', 'same_as'
);

-- tenant: every other tenant table references it; deleting a tenant cascades to all its rows
-- (the erase path in Go produces the report first).
CREATE TABLE zb.tenant (
    id         text        PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$'),
    name       text        NOT NULL DEFAULT '',
    settings   jsonb       NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(settings) = 'object'),
    created_at timestamptz NOT NULL DEFAULT now()
);
