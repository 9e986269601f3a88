-- 0013_beyond: the state of the four mechanisms beyond the fifteen (issue #12): synaptic tagging
-- and capture [stc_rescue], the global workspace of Context [gwt], prospective memory
-- [prospective] and curiosity [curiosity]. The tables stc_tag and prospective_intention exist
-- since 0004; this migration adds what wiring them into the running system needs.

-- recall_event.query_terms: the stemmed content terms of the query (textproc.Terms), from which
-- the curiosity engine groups queries into topics. The query text itself is still not stored
-- (query_hash is its SHA-256); NULL for recalls logged before this migration.
ALTER TABLE zb.recall_event ADD COLUMN query_terms text[];

-- prospective_intention: the parts of prospective.Intention that 0004 did not hold (priority,
-- cue entities, stemming language) and how each intention was resolved.
ALTER TABLE zb.prospective_intention
    ADD COLUMN priority     smallint         NOT NULL DEFAULT 2 CHECK (priority BETWEEN 1 AND 3),
    ADD COLUMN cue_entities text[]           NOT NULL DEFAULT '{}',
    ADD COLUMN lang         text             CHECK (lang IN ('en', 'de')),
    ADD COLUMN resolved_at  timestamptz,
    ADD COLUMN fired_reason text             CHECK (fired_reason IN ('time', 'entity', 'keyword', 'embedding')),
    ADD COLUMN fired_score  double precision CHECK (fired_score BETWEEN -1 AND 1),
    ADD COLUMN fired_source text             CHECK (fired_source IN ('time', 'store', 'recall'));

UPDATE zb.prospective_intention SET resolved_at = coalesce(fired_at, created_at) WHERE status <> 'pending';

ALTER TABLE zb.prospective_intention
    ADD CONSTRAINT prospective_intention_resolved_check CHECK ((status = 'pending') = (resolved_at IS NULL)),
    ADD CONSTRAINT prospective_intention_expiry_check CHECK (expires_at IS NULL OR expires_at >= created_at);

-- Pending cue intentions of a tenant (checked on every derive and recall).
CREATE INDEX prospective_cue_idx ON zb.prospective_intention (tenant_id, id)
    WHERE status = 'pending' AND trigger_kind = 'cue';
-- Due time intentions and pending intentions about to expire, over all tenants (the worker's
-- prospective_tick).
CREATE INDEX prospective_time_due_idx ON zb.prospective_intention (due_at)
    WHERE status = 'pending' AND trigger_kind = 'time';
CREATE INDEX prospective_expiry_idx ON zb.prospective_intention (expires_at)
    WHERE status = 'pending' AND expires_at IS NOT NULL;
-- Fired intentions of a tenant, newest first (Context's prospective module).
CREATE INDEX prospective_fired_idx ON zb.prospective_intention (tenant_id, fired_at)
    WHERE status = 'fired';

-- Open synaptic tags of a tenant by tagging time (capture looks at the last 30 minutes).
CREATE INDEX stc_tag_open_idx ON zb.stc_tag (tenant_id, tagged_at) WHERE rescued_at IS NULL;
CREATE INDEX stc_tag_rescued_by_idx ON zb.stc_tag (tenant_id, rescued_by) WHERE rescued_by IS NOT NULL;

-- workspace_state: the global workspace's winner set of the previous Context assembly per
-- tenant and scope ('tenant' without a session, 'session:<uuid>' with one); previous winners
-- ignite at the lower hysteresis threshold. scores keeps the last competition for inspection.
CREATE TABLE zb.workspace_state (
    tenant_id  text        NOT NULL REFERENCES zb.tenant (id) ON DELETE CASCADE,
    scope      text        NOT NULL CHECK (scope ~ '^(tenant|session:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$'),
    winners    text[]      NOT NULL DEFAULT '{}' CHECK (cardinality(winners) <= 16),
    scores     jsonb       NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(scores) = 'array'),
    assembled  integer     NOT NULL DEFAULT 1 CHECK (assembled >= 1),
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, scope)
);

-- Erasure reaches the curiosity log: when a memory is erased (status 'erased') or deleted, the
-- index terms it held that no other live memory of the tenant holds are removed from the
-- tenant's logged query terms, so a word only the erased content knew does not survive there.
-- A tenant being deleted is skipped (its query log goes with it).
CREATE FUNCTION zb.curiosity_scrub_terms() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    gone text[];
BEGIN
    IF cardinality(OLD.terms) = 0 OR NOT EXISTS (SELECT 1 FROM zb.tenant t WHERE t.id = OLD.tenant_id) THEN
        RETURN NULL;
    END IF;
    SELECT coalesce(array_agg(DISTINCT u), '{}') INTO gone
    FROM unnest(OLD.terms) u
    WHERE NOT EXISTS (SELECT 1 FROM zb.memory m
                      WHERE m.tenant_id = OLD.tenant_id AND m.id <> OLD.id AND m.status <> 'erased' AND m.terms @> ARRAY[u]);
    IF cardinality(gone) > 0 THEN
        UPDATE zb.recall_event e
        SET query_terms = ARRAY(SELECT x.q FROM unnest(e.query_terms) WITH ORDINALITY AS x (q, i)
                                WHERE x.q <> ALL (gone) ORDER BY x.i)
        WHERE e.tenant_id = OLD.tenant_id AND e.query_terms && gone;
    END IF;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION zb.curiosity_scrub_terms() IS
    'Removes the index terms of an erased or deleted memory that no live memory still holds from the tenant''s logged query terms.';

CREATE TRIGGER memory_erase_scrub_query_terms AFTER UPDATE OF status ON zb.memory
    FOR EACH ROW WHEN (NEW.status = 'erased' AND OLD.status <> 'erased')
    EXECUTE FUNCTION zb.curiosity_scrub_terms();
CREATE TRIGGER memory_delete_scrub_query_terms AFTER DELETE ON zb.memory
    FOR EACH ROW WHEN (OLD.status <> 'erased')
    EXECUTE FUNCTION zb.curiosity_scrub_terms();

-- Tenant isolation (0011): forced row-level security and grants, like every tenant table.
SELECT zb.secure_tenant_table('zb.workspace_state');
