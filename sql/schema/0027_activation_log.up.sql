-- 0027_activation_log: a log of the memories' activation times, so that synaptic tagging and
-- capture finds the memories activated in a span without reading the whole tenant (issue 10).
--
-- Tag capture looks for the strong memories activated (created, last accessed, or returned by a
-- recall) within a tag's window (zb.StcDonors' "activations" way), and sleep's tagging pass for
-- the weak memories last activated since the previous sweep (StcTagWeakActive). No index covers
-- last_accessed_at — one would make recall's access update non-HOT (0014) — so both read every
-- memory of the tenant: 59 ms at 100k and 553 ms at 1M once per sleep window, and ≈ 70–85 ms in
-- every full recall and derive batch of a 100k tenant while a tag is open and its clusters cover
-- the tenant (few entities mentioned often: the activations way is the cheaper one).
--
-- zb.memory_activation holds, for every memory, a row at its creation time and one at every value
-- its last_accessed_at has taken, written by the memory table's triggers whoever writes the row
-- (recall's side effects, feedback, reviews, procedure runs, tag rescues, plain SQL): the insert
-- trigger (memory_inserted) and a row trigger on updates of the two columns. The queries take
-- the log's rows in their span, then read those memories by primary key and apply the same
-- conditions to their current values — the same rows as the tenant pass. Sleep prunes a tenant's
-- rows older than its retention (zb.memory_activation_prune) and records the horizon
-- (zb.memory_activation_horizon): a span that starts before it takes the tenant pass as before.
-- The rows carry ids and times only, no content; zb.erase removes an erased memory's rows (as it
-- does in every zb table with a memory_id), and a tenant's go with the tenant.

CREATE TABLE zb.memory_activation (
    tenant_id text        NOT NULL REFERENCES zb.tenant (id) ON DELETE CASCADE,
    at        timestamptz NOT NULL,
    memory_id bigint      NOT NULL,
    PRIMARY KEY (tenant_id, at, memory_id)
);

COMMENT ON TABLE zb.memory_activation IS
    'Activation log: a row at each memory''s creation time and at every value of its last_accessed_at since the tenant''s horizon, kept by triggers; read by tag capture and sleep''s tagging pass by time range.';

CREATE TABLE zb.memory_activation_horizon (
    tenant_id text        PRIMARY KEY REFERENCES zb.tenant (id) ON DELETE CASCADE,
    horizon   timestamptz NOT NULL
);

COMMENT ON TABLE zb.memory_activation_horizon IS
    'Per tenant, the time before which zb.memory_activation may have been pruned (no row: complete).';

SELECT zb.secure_tenant_table('zb.memory_activation');
SELECT zb.secure_tenant_table('zb.memory_activation_horizon');
-- Insert-mostly and read by range: vacuumed and analysed after 2 % new rows (as the postings,
-- 0023), so that its statistics follow the activity and its ranges read index-only.
ALTER TABLE zb.memory_activation SET (autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02);

-- Every memory's current creation and access times.
INSERT INTO zb.memory_activation (tenant_id, at, memory_id)
SELECT m.tenant_id, m.created_at, m.id FROM zb.memory m
UNION
SELECT m.tenant_id, m.last_accessed_at, m.id FROM zb.memory m;

CREATE OR REPLACE FUNCTION zb.memory_inserted() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    bad record;
BEGIN
    -- Consent (0012): a tenant that requires consent refuses memories of a context without it.
    SELECT n.tenant_id, n.context INTO bad
    FROM (SELECT DISTINCT i.tenant_id, i.context FROM new_rows i WHERE NOT i.ai_generated AND i.status = 'active') n
    JOIN zb.tenant t ON t.id = n.tenant_id
    WHERE t.settings -> 'consent_required' = 'true'::jsonb
      AND NOT EXISTS (SELECT 1 FROM zb.consent c
                      WHERE c.tenant_id = n.tenant_id AND c.purpose = 'memory' AND c.revoked_at IS NULL
                        AND (c.context IS NULL OR c.context = n.context))
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'tenant % requires consent to store memories (context %) and has none', bad.tenant_id, bad.context
            USING ERRCODE = 'ZB001', HINT = 'record the data subject''s consent for the purpose ''memory'' first';
    END IF;
    -- Decay's schedule (0016).
    INSERT INTO zb.memory_fade (tenant_id, memory_id, fade_at)
    SELECT n.tenant_id, n.id, n.fade_at FROM new_rows n WHERE n.fade_at IS NOT NULL AND n.status = 'active';
    -- BM25 corpus statistics (0006).
    INSERT INTO zb.lexical_stat_delta (tenant_id, docs, terms)
    SELECT n.tenant_id, count(*), sum(n.term_count)
    FROM new_rows n
    WHERE n.status = 'active'
    GROUP BY n.tenant_id;
    -- Postings (0018).
    INSERT INTO zb.memory_posting (tenant_id, term, layer, memory_id, tf, dl, session_id, valid_to)
    SELECT n.tenant_id, u.t, n.layer, n.id, count(*), n.term_count, n.session_id, n.valid_to
    FROM new_rows n CROSS JOIN LATERAL unnest(n.terms) u(t)
    WHERE n.status = 'active'
    GROUP BY n.tenant_id, u.t, n.layer, n.id, n.term_count, n.session_id, n.valid_to;
    -- The derivation queue (0017).
    INSERT INTO zb.memory_underived (tenant_id, memory_id)
    SELECT n.tenant_id, n.id FROM new_rows n WHERE n.derived_at IS NULL;
    -- The activation log (0027): the creation and, when it differs, the last access (UNION ALL
    -- and no conflict clause: a new memory has no rows yet; 0.01–0.02 ms a one-row insert, the
    -- deduplicating form 0.03–0.05).
    INSERT INTO zb.memory_activation (tenant_id, at, memory_id)
    SELECT n.tenant_id, n.created_at, n.id FROM new_rows n
    UNION ALL
    SELECT n.tenant_id, n.last_accessed_at, n.id FROM new_rows n WHERE n.last_accessed_at <> n.created_at;
    RETURN NULL;
END
$$;

-- Updates: a row trigger on the two columns, so that only statements that write them pay
-- (≈ 0.02 ms a changed row; recall's access update of ten memories ≈ 0.2 ms). A statement
-- trigger would share the transition tables memory_lexical_stat_update has PostgreSQL capture,
-- but it cannot name columns, and joining the old and new rows cost every UPDATE of the table
-- (0.24–0.31 ms for ten rows, 43–52 ms for 10 000 rows that kept their times).
CREATE FUNCTION zb.memory_activation_updated() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF NEW.last_accessed_at IS DISTINCT FROM OLD.last_accessed_at THEN
        INSERT INTO zb.memory_activation (tenant_id, at, memory_id) VALUES (NEW.tenant_id, NEW.last_accessed_at, NEW.id)
        ON CONFLICT DO NOTHING;
    END IF;
    IF NEW.created_at IS DISTINCT FROM OLD.created_at THEN
        INSERT INTO zb.memory_activation (tenant_id, at, memory_id) VALUES (NEW.tenant_id, NEW.created_at, NEW.id)
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER memory_activation_update AFTER UPDATE OF last_accessed_at, created_at ON zb.memory
    FOR EACH ROW WHEN (OLD.last_accessed_at IS DISTINCT FROM NEW.last_accessed_at OR OLD.created_at IS DISTINCT FROM NEW.created_at)
    EXECUTE FUNCTION zb.memory_activation_updated();

-- memory_activation_prune deletes a tenant's log rows older than p_before and moves its horizon
-- there (never back); it returns the rows deleted.
CREATE FUNCTION zb.memory_activation_prune(p_tenant text, p_before timestamptz) RETURNS bigint
LANGUAGE sql
AS $$
    WITH h AS (
        INSERT INTO zb.memory_activation_horizon AS h (tenant_id, horizon) VALUES (p_tenant, p_before)
        ON CONFLICT (tenant_id) DO UPDATE SET horizon = greatest(h.horizon, EXCLUDED.horizon)
        RETURNING 1
    ), gone AS (
        DELETE FROM zb.memory_activation a WHERE a.tenant_id = p_tenant AND a.at < p_before RETURNING 1
    )
    SELECT count(*) FROM gone
$$;

-- memory_activation_count counts a tenant's log rows in [p_lo, p_hi], stopping at p_cap: the
-- queries weigh the log against reading the tenant without counting a large span to its end.
CREATE FUNCTION zb.memory_activation_count(p_tenant text, p_lo timestamptz, p_hi timestamptz, p_cap bigint) RETURNS bigint
LANGUAGE sql STABLE
AS $$
    SELECT count(*) FROM (
        SELECT 1 FROM zb.memory_activation a WHERE a.tenant_id = p_tenant AND a.at BETWEEN p_lo AND p_hi LIMIT p_cap
    ) x
$$;

COMMENT ON FUNCTION zb.memory_activation_count(text, timestamptz, timestamptz, bigint) IS
    'The number of p_tenant''s activation-log rows in [p_lo, p_hi], counted up to p_cap.';

COMMENT ON FUNCTION zb.memory_activation_prune(text, timestamptz) IS
    'Deletes p_tenant''s activation-log rows older than p_before and moves its horizon there (never back); returns the rows deleted.';
