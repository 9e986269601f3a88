DROP TABLE zb.tenant;
DROP TYPE zb.edge_relation;
DROP TYPE zb.memory_status;
DROP TYPE zb.memory_layer;
DROP FUNCTION zb.apply_embedding_dim(regclass, name);
DROP FUNCTION zb.embedding_dim();
DROP TABLE zb.config;
DROP SCHEMA zb;
-- The vector extension is left installed: other schemas of the database may use it.
