-- 0016_fade_queue: decay's schedule leaves zb.memory's indexes, and derive's nearest-fact search
-- becomes exact in small tenants and complete in large ones (issues 9 and 10).
--
-- 1. Decay's schedule.
-- Decay finds the memories whose predicted fade time has passed and, for every one it keeps,
-- writes the next fade time. fade_at was indexed on zb.memory (memory_fade_idx), so each of
-- those writes changed an indexed column: the update could not be HOT and PostgreSQL inserted
-- a new entry for the row into all of zb.memory's fifteen indexes, the HNSW graph among them
-- (a graph search per row: ≈ 600 buffer reads per rescheduled memory in the ablation, 75 ms for
-- a night of 338 memories). The same held for review, sleep and STC, which write fade_at with
-- the stability.
--
-- The schedule now lives in a narrow table of its own, zb.memory_fade (tenant, memory, fade
-- time), with one row per active memory that has a fade time, kept by triggers on zb.memory:
-- writes of fade_at anywhere (the coordinator, the SQL API, import, rollback) keep it exact.
-- memory_fade_idx goes, so a write of fade_at (with stability or last_accessed_at) is an
-- update of unindexed columns: HOT when the page has room (zb.memory keeps 20 % free), and the
-- queue's own two btree entries are all that is re-indexed. Decay reads the queue through
-- (tenant_id, fade_at) as it read the old partial index.

CREATE TABLE zb.memory_fade (
    tenant_id text        NOT NULL,
    memory_id bigint      NOT NULL,
    fade_at   timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, memory_id),
    FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory (tenant_id, id) ON DELETE CASCADE
);

CREATE INDEX memory_fade_due_idx ON zb.memory_fade (tenant_id, fade_at);

COMMENT ON TABLE zb.memory_fade IS
    'Decay''s schedule: one row per active memory with a fade time (zb.memory.fade_at), kept by triggers; read by decay through (tenant_id, fade_at).';

SELECT zb.secure_tenant_table('zb.memory_fade');

INSERT INTO zb.memory_fade (tenant_id, memory_id, fade_at)
SELECT tenant_id, id, fade_at FROM zb.memory WHERE fade_at IS NOT NULL AND status = 'active';

-- New rows: one statement per INSERT or COPY, over its transition table.
CREATE FUNCTION zb.memory_fade_inserted() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO zb.memory_fade (tenant_id, memory_id, fade_at)
    SELECT n.tenant_id, n.id, n.fade_at FROM new_rows n WHERE n.fade_at IS NOT NULL AND n.status = 'active';
    RETURN NULL;
END
$$;

-- Changed rows: only those whose fade_at or status changed (the trigger's WHEN), one at a time.
CREATE FUNCTION zb.memory_fade_updated() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF NEW.fade_at IS NOT NULL AND NEW.status = 'active' THEN
        INSERT INTO zb.memory_fade (tenant_id, memory_id, fade_at) VALUES (NEW.tenant_id, NEW.id, NEW.fade_at)
        ON CONFLICT (tenant_id, memory_id) DO UPDATE SET fade_at = excluded.fade_at;
    ELSE
        DELETE FROM zb.memory_fade WHERE tenant_id = OLD.tenant_id AND memory_id = OLD.id;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER memory_fade_insert AFTER INSERT ON zb.memory
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION zb.memory_fade_inserted();

CREATE TRIGGER memory_fade_update AFTER UPDATE OF fade_at, status ON zb.memory FOR EACH ROW
    WHEN (OLD.fade_at IS DISTINCT FROM NEW.fade_at OR OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION zb.memory_fade_updated();

DROP INDEX zb.memory_fade_idx;


-- 2. Derive's nearest facts. Contradiction detection and reconsolidation compare a new memory
--    with the k active semantic memories of its tenant nearest to it. That was a plain
--    ORDER BY embedding <=> q LIMIT k, which the planner may serve from the HNSW index shared by
--    every tenant: without iterative scans (the session default) such a scan returns the first
--    ef_search (40) graph neighbours and THEN filters by tenant, so in a database of many
--    tenants it found few or none of this tenant's facts, and which ones depended on what the
--    other tenants had stored. zb.similar_semantic reads a tenant of at most 1 000 active
--    memories (the bound recall uses for its vector signal) whole through the tenant btree and
--    ranks exactly (ties by id); a larger tenant goes through the HNSW index with relaxed
--    iterative scans at ef_search 100, as recall does, which keeps scanning until it has k rows
--    of the tenant.
CREATE FUNCTION zb.similar_semantic(p_tenant text, p_ids bigint[], p_k integer)
RETURNS TABLE (memory_id bigint, id bigint, cosine double precision)
LANGUAGE plpgsql STABLE
SET hnsw.iterative_scan = 'relaxed_order'
SET hnsw.ef_search = 100
AS $$
#variable_conflict use_column
DECLARE
    v_n bigint;
BEGIN
    SELECT coalesce(sum(d.docs), 0)::bigint INTO v_n FROM zb.lexical_stat_delta d WHERE d.tenant_id = p_tenant;
    IF v_n <= 1000 THEN
        -- Every (memory, fact) pair of the tenant's facts, ranked per memory.
        RETURN QUERY
        SELECT x.qid, x.id, x.cosine
        FROM (
            SELECT q.id AS qid, m.id, (1 - (m.embedding <=> q.embedding))::double precision AS cosine,
                   row_number() OVER (PARTITION BY q.id ORDER BY (1 - (m.embedding <=> q.embedding)) DESC, m.id) AS rn
            FROM zb.memory q
            JOIN zb.memory m ON m.tenant_id = p_tenant AND m.layer = 'semantic' AND m.status = 'active'
                            AND m.embedding IS NOT NULL AND m.id <> q.id
            WHERE q.tenant_id = p_tenant AND q.id = ANY (p_ids) AND q.embedding IS NOT NULL
        ) x
        WHERE x.rn <= p_k;
    ELSE
        RETURN QUERY
        SELECT q.id, f.id, f.cosine
        FROM zb.memory q
        CROSS JOIN LATERAL (
            SELECT m.id, (1 - (m.embedding <=> q.embedding))::double precision AS cosine
            FROM zb.memory m
            WHERE m.tenant_id = p_tenant AND m.layer = 'semantic' AND m.status = 'active' AND m.embedding IS NOT NULL
              AND m.id <> q.id
            ORDER BY m.embedding <=> q.embedding
            LIMIT p_k
        ) f
        WHERE q.tenant_id = p_tenant AND q.id = ANY (p_ids) AND q.embedding IS NOT NULL;
    END IF;
END
$$;

COMMENT ON FUNCTION zb.similar_semantic(text, bigint[], integer) IS
    'For each of p_ids with an embedding, the p_k active semantic memories of p_tenant nearest to it (exact up to 1 000 active memories, HNSW with iterative scans above).';
