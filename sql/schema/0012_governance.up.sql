-- 0012_governance: the erase of GDPR Art. 17, consent gating, retention and approvals
-- (docs/security.md).
--
--  * zb.erase(tenant, scope, target, ...) erases one memory, a session, a context or a whole
--    tenant with every derivative and returns a count per table (jsonb); zb.erase_memories is its
--    core. Both are SECURITY DEFINER, owned by zb_definer — a role without BYPASSRLS, subject to
--    the forced row-level security of 0011 — so they act on the current tenant's rows only, and
--    they are the only way to change zb.audit_event. zb.forget (0009) now goes through zb.erase:
--    the Go API's Forget and the SQL API share one erase semantics.
--  * Tenant settings (zb.tenant.settings, written by operators): "consent_required": true makes
--    zb.memory refuse new memories of the tenant without an active consent for the purpose
--    'memory' (SQLSTATE ZB001); "approval_required": ["tenant_erase", "context_erase",
--    "core_overwrite", "algorithm_switch"] puts those operations behind zb.approval_request (an
--    erase of those scopes without an approved request fails with SQLSTATE ZB002).
--  * zb.apply_retention erases what zb.retention_policy's windows let go (the worker's decay job
--    calls it per tenant); memory_retention_idx serves it.
--  * memory_metadata_size bounds metadata like content (1 MiB), for the SQL API.
--  * approval_request_no_self_approval: the requester of an approval request cannot approve it
--    (SQLSTATE ZB003); separation of duties is enforced by the database, not only by the Go API.
--  * zb.retrievability (0009) handles infinite timestamps: last_access = '-infinity' or
--    now = 'infinity' give 0 for a decaying memory instead of an error.

-- scrub_detail keeps of an audit event's detail only what cannot carry erased content: numbers,
-- booleans, nulls, arrays of numbers and the short enumerations of a whitelist of keys; it adds
-- "scrubbed": true.
CREATE FUNCTION zb.scrub_detail(p_detail jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb) || '{"scrubbed": true}'::jsonb
    FROM jsonb_each(CASE WHEN jsonb_typeof(p_detail) = 'object' THEN p_detail ELSE '{}'::jsonb END) e
    WHERE jsonb_typeof(e.value) IN ('number', 'boolean', 'null')
       OR (jsonb_typeof(e.value) = 'array'
           AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(e.value) x WHERE jsonb_typeof(x) <> 'number'))
       OR (jsonb_typeof(e.value) = 'string'
           AND e.key IN ('layer', 'kind', 'route', 'mode', 'action', 'class', 'via', 'algorithm', 'outcome', 'status',
                         'query_sha256', 'scope', 'operation', 'session_id', 'block_reason', 'trigger', 'reason_code'))
$$;

COMMENT ON FUNCTION zb.scrub_detail(jsonb) IS
    'An audit detail without anything that can carry content: numbers, booleans, number arrays and whitelisted enumerations.';

-- tenant_approval_required reports whether the tenant's settings put operation behind an
-- approval.
CREATE FUNCTION zb.tenant_approval_required(p_tenant text, p_operation text) RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT coalesce((SELECT t.settings -> 'approval_required' ? p_operation FROM zb.tenant t WHERE t.id = p_tenant), false)
$$;

COMMENT ON FUNCTION zb.tenant_approval_required(text, text) IS
    'Whether the tenant''s settings list the operation under "approval_required".';

-- erase_bind checks that the transaction may act for p_tenant: the current tenant must be
-- p_tenant; a session user that is a superuser or an operator (zb_worker, zb_admin) without a
-- tenant set is bound to p_tenant for the rest of the call (the caller restores the setting).
-- Returns the setting to restore.
CREATE FUNCTION zb.erase_bind(p_tenant text) RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    was text := zb.tenant_setting();
BEGIN
    IF p_tenant IS NULL OR p_tenant !~ '^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$' THEN
        RAISE EXCEPTION 'zb.erase: invalid tenant id %', coalesce(quote_literal(left(p_tenant, 40)), 'NULL')
            USING ERRCODE = '22023';
    END IF;
    IF was IS NULL THEN
        IF EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = session_user AND r.rolsuper)
           OR pg_has_role(session_user, zb.role_name('worker'), 'MEMBER')
           OR pg_has_role(session_user, zb.role_name('admin'), 'MEMBER') THEN
            PERFORM set_config('zb.tenant_id', p_tenant, true);
            RETURN '';
        END IF;
        RAISE EXCEPTION 'zb.erase: no tenant is set for this transaction'
            USING ERRCODE = '42501', HINT = format('SELECT set_config(''zb.tenant_id'', %L, true) first', p_tenant);
    END IF;
    IF zb.current_tenant() IS DISTINCT FROM p_tenant THEN
        RAISE EXCEPTION 'zb.erase: the transaction is bound to another tenant than %', quote_literal(p_tenant)
            USING ERRCODE = '42501';
    END IF;
    RETURN was;
END
$$;

-- erase_memories erases memories p_ids of the current tenant p_tenant and everything derived from
-- them, and returns a count per table (keys are table names, plus "derived" and "restored"):
--
--  1. The erase set is closed over derivation: a memory whose source_ids name an erased memory is
--     (a) restored from the snapshot of its latest reconsolidation when that reconsolidation,
--     triggered by an erased memory, was the last change of its content; (b) erased too when it
--     is machine-made (ai_generated, or a schema, counterfactual or hypothesis) or when its
--     content was edited by an erased memory and cannot be restored; (c) otherwise only loses
--     the erased ids from its source_ids. Sources of erased machine-made memories that no other
--     live memory carries any more become active again (their knowledge stays reachable).
--  2. Erased memories become tombstones: status erased; content, metadata, embedding, index
--     terms, subject, attribute, external id, event span, validity, emotional tags and sources
--     cleared (a core memory's label becomes 'erased:<id>').
--  3. Every row of a zb table with a memory_id column about an erased memory is deleted (review
--     state and log, triple copies, mentions, working slots, procedures, lability windows,
--     locks, tags, intentions, debates, evidence, reconsolidation events, import keys,
--     neuromodulator events ...), as are links, reconsolidation events triggered by or resulting
--     in them, debates contradicting them and evidence they gave.
--  4. Entities they mentioned that no memory mentions any more are deleted with their edges; a
--     co_occurs/extraction edge between two surviving entities that only an erased memory
--     mentioned together is deleted.
--  5. Audit events about them are scrubbed (zb.scrub_detail); pending approval requests about
--     them expire with their payload scrubbed; River jobs of the tenant naming them are deleted
--     when finished and lose their error texts otherwise.
-- Nothing is audited here; zb.erase writes the audit event.
CREATE FUNCTION zb.erase_memories(p_tenant text, p_ids bigint[], p_now timestamptz)
RETURNS jsonb
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    counts   jsonb := '{}'::jsonb;
    e        bigint[];
    frontier bigint[];
    nxt      bigint[];
    restored bigint[] := '{}';
    ents     bigint[];
    pa       bigint[];
    pb       bigint[];
    n        bigint;
    t        record;
    d        record;
    ev       record;
    snap     jsonb;
    was      text := zb.erase_bind(p_tenant);
    erase_was text := coalesce(current_setting('zb.erase', true), '');
BEGIN
    PERFORM set_config('zb.erase', 'on', true);

    SELECT coalesce(array_agg(m.id ORDER BY m.id), '{}') INTO e
    FROM zb.memory m WHERE m.tenant_id = p_tenant AND m.id = ANY (p_ids) AND m.status <> 'erased';
    counts := counts || jsonb_build_object('memory', cardinality(e));
    IF cardinality(e) = 0 THEN
        PERFORM set_config('zb.erase', erase_was, true);
        PERFORM set_config('zb.tenant_id', was, true);
        RETURN counts;
    END IF;

    -- 1. Closure over derivation.
    frontier := e;
    WHILE cardinality(frontier) > 0 LOOP
        nxt := '{}';
        FOR d IN
            SELECT m.id, m.content, m.ai_generated, m.kind
            FROM zb.memory m
            WHERE m.tenant_id = p_tenant AND m.source_ids && frontier AND m.status <> 'erased'
              AND NOT m.id = ANY (e) AND NOT m.id = ANY (nxt)
            ORDER BY m.id
            FOR UPDATE
        LOOP
            IF d.ai_generated OR d.kind IN ('schema', 'counterfactual', 'hypothesis') THEN
                nxt := nxt || d.id;
                CONTINUE;
            END IF;
            -- Content-changing reconsolidations of d triggered by erased memories.
            IF NOT EXISTS (SELECT 1 FROM zb.reconsolidation_event r
                           WHERE r.tenant_id = p_tenant AND r.memory_id = d.id AND r.rolled_back_at IS NULL
                             AND r.trigger_id = ANY (e) AND r.mode IN ('selective_edit', 'integration')
                             AND NOT r.blocked) THEN
                UPDATE zb.memory m
                SET source_ids = ARRAY(SELECT s FROM unnest(m.source_ids) s WHERE NOT s = ANY (e)),
                    updated_at = greatest(m.updated_at, p_now)
                WHERE m.tenant_id = p_tenant AND m.id = d.id;
                CONTINUE;
            END IF;
            SELECT r.id, r.trigger_id, r.mode, r.blocked, r.snapshot INTO ev
            FROM zb.reconsolidation_event r
            WHERE r.tenant_id = p_tenant AND r.memory_id = d.id AND r.rolled_back_at IS NULL
              AND r.mode IN ('selective_edit', 'integration') AND NOT r.blocked
            ORDER BY r.id DESC LIMIT 1;
            IF ev.trigger_id = ANY (e)
               AND (SELECT count(*) FROM zb.reconsolidation_event r
                    WHERE r.tenant_id = p_tenant AND r.memory_id = d.id AND r.rolled_back_at IS NULL
                      AND r.mode IN ('selective_edit', 'integration') AND NOT r.blocked
                      AND r.trigger_id = ANY (e)) = 1
               AND jsonb_typeof(ev.snapshot -> 'row') = 'object'
               AND coalesce(ev.snapshot -> 'row' ->> 'content', '') <> '' THEN
                snap := ev.snapshot -> 'row';
                UPDATE zb.memory m
                SET content = snap ->> 'content',
                    metadata = CASE WHEN jsonb_typeof(snap -> 'metadata') = 'object' THEN snap -> 'metadata' ELSE '{}' END,
                    source_ids = ARRAY(SELECT s::bigint FROM jsonb_array_elements_text(coalesce(snap -> 'source_ids', '[]')) s
                                       WHERE NOT s::bigint = ANY (e)),
                    stability = CASE WHEN m.layer = 'core' THEN NULL
                                     ELSE coalesce((snap ->> 'stability')::double precision, m.stability) END,
                    conf_alpha = coalesce((snap ->> 'conf_alpha')::double precision, m.conf_alpha),
                    conf_beta = coalesce((snap ->> 'conf_beta')::double precision, m.conf_beta),
                    confidence = coalesce((snap ->> 'confidence')::double precision, m.confidence),
                    terms = ARRAY(SELECT jsonb_array_elements_text(coalesce(snap -> 'terms', '[]'))),
                    term_count = coalesce((snap ->> 'term_count')::int, 0),
                    -- Derived again by the worker (embedding, entities): the derivation of the
                    -- edited text named what the erased memory said.
                    embedding = NULL, embedding_model = NULL, derived_at = NULL,
                    fade_at = (snap ->> 'fade_at')::timestamptz,
                    updated_at = greatest(m.updated_at, p_now)
                WHERE m.tenant_id = p_tenant AND m.id = d.id;
                restored := restored || d.id;
            ELSE
                nxt := nxt || d.id;
            END IF;
        END LOOP;
        e := e || nxt;
        frontier := nxt;
    END LOOP;
    counts := counts || jsonb_build_object('derived', cardinality(e) - (counts ->> 'memory')::int,
                                           'restored', cardinality(restored), 'erased_ids', to_jsonb(e),
                                           'restored_ids', to_jsonb(restored));

    -- Sources of erased machine-made memories that nothing live carries any more: active again.
    UPDATE zb.memory m
    SET status = 'active', fade_at = p_now, updated_at = greatest(m.updated_at, p_now)
    WHERE m.tenant_id = p_tenant AND m.status IN ('consolidated', 'archived') AND NOT m.id = ANY (e)
      AND m.id IN (SELECT s FROM zb.memory x, unnest(x.source_ids) s WHERE x.tenant_id = p_tenant AND x.id = ANY (e))
      AND NOT EXISTS (SELECT 1 FROM zb.memory c
                      WHERE c.tenant_id = p_tenant AND c.source_ids @> ARRAY[m.id] AND NOT c.id = ANY (e)
                        AND c.status = 'active' AND (c.ai_generated OR c.kind = 'schema'));
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN counts := counts || jsonb_build_object('reactivated', n); END IF;

    -- 3a. Entities mentioned by erased (and restored) memories, for the support check after
    -- their mentions go, and the pairs they mentioned together.
    SELECT coalesce(array_agg(DISTINCT mn.entity_id), '{}') INTO ents
    FROM zb.mention mn WHERE mn.tenant_id = p_tenant AND mn.memory_id = ANY (e || restored);
    SELECT coalesce(array_agg(p.a), '{}'), coalesce(array_agg(p.b), '{}') INTO pa, pb
    FROM (SELECT DISTINCT x.entity_id, y.entity_id
          FROM zb.mention x JOIN zb.mention y
            ON y.tenant_id = x.tenant_id AND y.memory_id = x.memory_id AND y.entity_id <> x.entity_id
          WHERE x.tenant_id = p_tenant AND x.memory_id = ANY (e || restored)) p(a, b);
    DELETE FROM zb.mention mn WHERE mn.tenant_id = p_tenant AND mn.memory_id = ANY (restored);

    -- 2. Tombstones.
    UPDATE zb.memory m
    SET status = 'erased', content = '', metadata = '{}', embedding = NULL, embedding_model = NULL, terms = '{}',
        term_count = 0, subject = NULL, attribute = NULL, external_id = NULL,
        core_label = CASE WHEN m.layer = 'core' THEN 'erased:' || m.id END,
        source_ids = '{}', occurred_at = NULL, event_from = NULL, event_to = NULL, valid_from = NULL, valid_to = NULL,
        superseded_by = NULL, valence = 0, arousal = 0, significance = 0, fade_at = NULL,
        derived_at = coalesce(m.derived_at, p_now), updated_at = greatest(m.updated_at, p_now)
    WHERE m.tenant_id = p_tenant AND m.id = ANY (e);
    UPDATE zb.memory m SET superseded_by = NULL
    WHERE m.tenant_id = p_tenant AND m.superseded_by = ANY (e);

    -- 3b. Rows about erased memories, in every zb table with a memory_id column.
    DELETE FROM zb.reconsolidation_event r
    WHERE r.tenant_id = p_tenant AND (r.memory_id = ANY (e) OR r.trigger_id = ANY (e) OR r.result_id = ANY (e));
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN counts := counts || jsonb_build_object('reconsolidation_event', n); END IF;
    DELETE FROM zb.memory_link l WHERE l.tenant_id = p_tenant AND (l.source_id = ANY (e) OR l.target_id = ANY (e));
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN counts := counts || jsonb_build_object('memory_link', n); END IF;
    DELETE FROM zb.confidence_evidence c
    WHERE c.tenant_id = p_tenant AND (c.memory_id = ANY (e) OR c.source_memory_id = ANY (e));
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN counts := counts || jsonb_build_object('confidence_evidence', n); END IF;
    DELETE FROM zb.debate x WHERE x.tenant_id = p_tenant AND (x.memory_id = ANY (e) OR x.contradicted && e);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN counts := counts || jsonb_build_object('debate', n); END IF;
    UPDATE zb.stc_tag s SET rescued_by = NULL WHERE s.tenant_id = p_tenant AND s.rescued_by = ANY (e);
    UPDATE zb.prospective_intention p SET fired_by = NULL WHERE p.tenant_id = p_tenant AND p.fired_by = ANY (e);
    FOR t IN
        SELECT c.relname FROM pg_class c
        WHERE c.relnamespace = 'zb'::regnamespace AND c.relkind IN ('r', 'p')
          AND c.relname NOT IN ('memory', 'audit_event')
          AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'memory_id' AND NOT a.attisdropped)
          AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped)
        ORDER BY c.relname
    LOOP
        EXECUTE format('DELETE FROM zb.%I WHERE tenant_id = $1 AND memory_id = ANY ($2)', t.relname) USING p_tenant, e;
        GET DIAGNOSTICS n = ROW_COUNT;
        IF n > 0 THEN counts := counts || jsonb_build_object(t.relname, n); END IF;
    END LOOP;

    -- 4. Entities without support, and co-mention edges without support.
    DELETE FROM zb.edge g
    WHERE g.tenant_id = p_tenant AND (g.source_id = ANY (ents) OR g.target_id = ANY (ents))
      AND (NOT EXISTS (SELECT 1 FROM zb.mention mn WHERE mn.tenant_id = p_tenant AND mn.entity_id = g.source_id)
           OR NOT EXISTS (SELECT 1 FROM zb.mention mn WHERE mn.tenant_id = p_tenant AND mn.entity_id = g.target_id)
           OR (g.origin <> 'user' AND (g.source_id, g.target_id) IN (SELECT p.a, p.b FROM unnest(pa, pb) AS p(a, b))
               AND NOT EXISTS (SELECT 1 FROM zb.mention x JOIN zb.mention y
                                   ON y.tenant_id = x.tenant_id AND y.memory_id = x.memory_id
                               WHERE x.tenant_id = p_tenant AND x.entity_id = g.source_id AND y.entity_id = g.target_id)));
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN counts := counts || jsonb_build_object('edge', n); END IF;
    DELETE FROM zb.entity en
    WHERE en.tenant_id = p_tenant AND en.id = ANY (ents)
      AND NOT EXISTS (SELECT 1 FROM zb.mention mn WHERE mn.tenant_id = p_tenant AND mn.entity_id = en.id);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN counts := counts || jsonb_build_object('entity', n); END IF;
    UPDATE zb.entity en
    SET mention_count = (SELECT count(*) FROM zb.mention mn WHERE mn.tenant_id = p_tenant AND mn.entity_id = en.id),
        updated_at = greatest(en.updated_at, p_now)
    WHERE en.tenant_id = p_tenant AND en.id = ANY (ents);

    -- 5. Audit payloads, approval payloads, River jobs.
    UPDATE zb.audit_event a SET detail = zb.scrub_detail(a.detail)
    WHERE a.tenant_id = p_tenant AND a.memory_id = ANY (e) AND NOT coalesce(a.detail @> '{"scrubbed": true}', false);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN counts := counts || jsonb_build_object('audit_event', n); END IF;
    UPDATE zb.approval_request r
    SET payload = jsonb_build_object('memory_id', r.payload -> 'memory_id', 'scrubbed', true),
        status = CASE WHEN r.status IN ('pending', 'approved') THEN 'expired' ELSE r.status END,
        decided_at = CASE WHEN r.status = 'pending' THEN greatest(p_now, r.requested_at) ELSE r.decided_at END,
        decided_by = CASE WHEN r.status = 'pending' THEN 'erase' ELSE r.decided_by END,
        reason = CASE WHEN r.status = 'pending' THEN 'the memory was erased' ELSE r.reason END
    WHERE r.tenant_id = p_tenant AND jsonb_typeof(r.payload -> 'memory_id') = 'number'
      AND (r.payload ->> 'memory_id')::bigint = ANY (e) AND NOT coalesce(r.payload @> '{"scrubbed": true}', false);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN counts := counts || jsonb_build_object('approval_request', n); END IF;
    IF to_regclass('river.river_job') IS NOT NULL THEN
        EXECUTE $q$
            WITH named AS (
                SELECT j.id, j.state FROM river.river_job j
                WHERE j.args ->> 'tenant_id' = $1 AND jsonb_typeof(j.args -> 'memory_ids') = 'array'
                  AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(j.args -> 'memory_ids') x WHERE x::bigint = ANY ($2))
            ), gone AS (
                DELETE FROM river.river_job j USING named
                WHERE j.id = named.id AND named.state::text IN ('completed', 'cancelled', 'discarded') RETURNING 1
            ), cleaned AS (
                UPDATE river.river_job j SET errors = NULL FROM named
                WHERE j.id = named.id AND named.state::text NOT IN ('completed', 'cancelled', 'discarded', 'running')
                  AND j.errors IS NOT NULL RETURNING 1
            )
            SELECT (SELECT count(*) FROM gone) + (SELECT count(*) FROM cleaned)$q$
        INTO n USING p_tenant, e;
        IF n > 0 THEN counts := counts || jsonb_build_object('river_job', n); END IF;
    END IF;

    PERFORM set_config('zb.erase', erase_was, true);
    PERFORM set_config('zb.tenant_id', was, true);
    RETURN counts;
END
$$;

COMMENT ON FUNCTION zb.erase_memories(text, bigint[], timestamptz) IS
    'Erases memories of the current tenant with every derivative (see the migration); returns counts per table. Use zb.erase.';

-- erase erases for tenant p_tenant (which must be the transaction's tenant; an operator session
-- without one is bound to it) one scope and returns the counts per table (jsonb) with "scope":
--
--   'memory'  p_target is a memory id (or p_ids several);
--   'session' p_target is a session id: its memories (and what derives from them), then the
--             session row;
--   'context' p_target is a context: its memories, sessions, entities and intentions;
--   'tenant'  p_target NULL: every row of the tenant in every zb table, River's jobs of the
--             tenant that are not running, the tenant itself; its audit events stay, scrubbed.
--
-- A scope the tenant's settings put behind an approval ("tenant_erase", "context_erase") needs
-- p_approval, the id of an approved request for it (which becomes executed); otherwise it fails
-- with SQLSTATE ZB002. An audit event (memory.erase, session.erase, context.erase or
-- tenant.erase) records the actor, the counts and the erased ids, and the reason only when it is
-- a short code ([a-z0-9_.:-], at most 40 characters: free text may name a person), never
-- content. Erasing what is already erased or missing returns zero counts and writes nothing.
-- p_dry_run returns the same counts and changes nothing (the work is rolled back; no approval is
-- needed). The erase holds the tenant's lifecycle lock (the advisory lock of derive, decay, sleep,
-- consolidation) until the transaction ends.
CREATE FUNCTION zb.erase(p_tenant text, p_scope text, p_target text DEFAULT NULL, p_actor text DEFAULT 'sql',
                         p_now timestamptz DEFAULT now(), p_reason text DEFAULT NULL, p_approval bigint DEFAULT NULL,
                         p_dry_run boolean DEFAULT false, p_ids bigint[] DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    was    text := zb.erase_bind(p_tenant);
    erase_was text := coalesce(current_setting('zb.erase', true), '');
    ids    bigint[];
    counts jsonb := '{}'::jsonb;
    n      bigint;
    t      record;
    sid    uuid;
    mid    bigint;
    op     text;
    total  bigint;
BEGIN
    IF p_scope IS NULL OR p_scope NOT IN ('memory', 'session', 'context', 'tenant') THEN
        RAISE EXCEPTION 'zb.erase: unknown scope %', coalesce(quote_literal(left(p_scope, 40)), 'NULL')
            USING ERRCODE = '22023', HINT = 'use memory, session, context or tenant';
    END IF;
    IF p_actor IS NULL OR length(p_actor) NOT BETWEEN 1 AND 200 THEN
        RAISE EXCEPTION 'zb.erase: the actor must be 1-200 characters' USING ERRCODE = '22023';
    END IF;
    IF p_reason IS NOT NULL AND length(p_reason) > 500 THEN
        RAISE EXCEPTION 'zb.erase: the reason is longer than 500 characters' USING ERRCODE = '22023';
    END IF;
    -- Serialize with the tenant's lifecycle writes (derive, decay, sleep ... take the same
    -- transaction-level lock), which touch the same rows in their own order.
    PERFORM pg_advisory_xact_lock(hashtext('zb.lifecycle'), hashtext(p_tenant));
    op := CASE p_scope WHEN 'tenant' THEN 'tenant_erase' WHEN 'context' THEN 'context_erase' END;
    IF op IS NOT NULL AND NOT coalesce(p_dry_run, false) AND zb.tenant_approval_required(p_tenant, op) THEN
        IF p_approval IS NULL OR NOT EXISTS (
            SELECT 1 FROM zb.approval_request r
            WHERE r.tenant_id = p_tenant AND r.id = p_approval AND r.operation = op AND r.status = 'approved'
              AND (op = 'tenant_erase' OR r.payload ->> 'context' = p_target)) THEN
            RAISE EXCEPTION 'zb.erase: % of tenant % needs an approved request', op, quote_literal(p_tenant)
                USING ERRCODE = 'ZB002', HINT = 'request it (coordinator.Erase, zbctl forget) and have an operator approve it';
        END IF;
    END IF;
    PERFORM set_config('zb.erase', 'on', true);

    BEGIN
    CASE p_scope
    WHEN 'memory' THEN
        IF p_ids IS NOT NULL AND p_target IS NULL THEN
            IF cardinality(p_ids) > 100000 THEN
                RAISE EXCEPTION 'zb.erase: at most 100000 memories at once, got %', cardinality(p_ids) USING ERRCODE = '22023';
            END IF;
            ids := p_ids;
        ELSIF p_target IS NULL OR p_target !~ '^[0-9]{1,18}$' THEN
            RAISE EXCEPTION 'zb.erase: memory id % is not a positive integer', coalesce(quote_literal(left(p_target, 40)), 'NULL')
                USING ERRCODE = '22023';
        ELSE
            mid := p_target::bigint;
            ids := ARRAY[mid];
        END IF;
        counts := zb.erase_memories(p_tenant, ids, p_now);
    WHEN 'session' THEN
        BEGIN
            sid := p_target::uuid;
        EXCEPTION WHEN invalid_text_representation THEN
            RAISE EXCEPTION 'zb.erase: session id % is not a UUID', quote_literal(left(p_target, 40)) USING ERRCODE = '22023';
        END;
        SELECT coalesce(array_agg(m.id), '{}') INTO ids FROM zb.memory m
        WHERE m.tenant_id = p_tenant AND m.session_id = sid AND m.status <> 'erased';
        counts := zb.erase_memories(p_tenant, ids, p_now);
        DELETE FROM zb.session s WHERE s.tenant_id = p_tenant AND s.id = sid;
        GET DIAGNOSTICS n = ROW_COUNT;
        counts := counts || jsonb_build_object('session', n);
    WHEN 'context' THEN
        IF p_target IS NULL OR p_target !~ '^[a-z0-9][a-z0-9_.-]{0,63}$' THEN
            RAISE EXCEPTION 'zb.erase: invalid context %', coalesce(quote_literal(left(p_target, 40)), 'NULL') USING ERRCODE = '22023';
        END IF;
        SELECT coalesce(array_agg(m.id), '{}') INTO ids FROM zb.memory m
        WHERE m.tenant_id = p_tenant AND m.context = p_target AND m.status <> 'erased';
        counts := zb.erase_memories(p_tenant, ids, p_now);
        DELETE FROM zb.session s WHERE s.tenant_id = p_tenant AND s.context = p_target;
        GET DIAGNOSTICS n = ROW_COUNT;
        counts := counts || jsonb_build_object('session', n);
        DELETE FROM zb.entity en WHERE en.tenant_id = p_tenant AND en.context = p_target;
        GET DIAGNOSTICS n = ROW_COUNT;
        counts := counts || jsonb_build_object('entity', coalesce((counts ->> 'entity')::bigint, 0) + n);
        DELETE FROM zb.prospective_intention p WHERE p.tenant_id = p_tenant AND p.context = p_target;
        GET DIAGNOSTICS n = ROW_COUNT;
        IF n > 0 THEN
            counts := counts || jsonb_build_object('prospective_intention',
                                                   coalesce((counts ->> 'prospective_intention')::bigint, 0) + n);
        END IF;
    WHEN 'tenant' THEN
        SELECT count(*) INTO n FROM zb.memory m WHERE m.tenant_id = p_tenant AND m.status <> 'erased';
        counts := jsonb_build_object('memory', n);
        -- Tables that reference others first, so each count is what that table held; a second
        -- pass removes what the first one's triggers wrote (lexical statistics deltas).
        FOR pass IN 1..2 LOOP
            FOR t IN
                SELECT c.relname,
                       (SELECT count(*) FROM pg_constraint k
                        WHERE k.confrelid = c.oid AND k.contype = 'f' AND k.conrelid <> c.oid) AS refs
                FROM pg_class c
                WHERE c.relnamespace = 'zb'::regnamespace AND c.relkind IN ('r', 'p') AND c.relname <> 'audit_event'
                  AND EXISTS (SELECT 1 FROM pg_attribute a
                              WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped)
                ORDER BY 2, 1
            LOOP
                EXECUTE format('DELETE FROM zb.%I WHERE tenant_id = $1', t.relname) USING p_tenant;
                GET DIAGNOSTICS n = ROW_COUNT;
                IF n > 0 AND t.relname <> 'memory' THEN
                    counts := counts || jsonb_build_object(t.relname, coalesce((counts ->> t.relname)::bigint, 0) + n);
                END IF;
            END LOOP;
        END LOOP;
        UPDATE zb.audit_event a SET detail = zb.scrub_detail(a.detail)
        WHERE a.tenant_id = p_tenant AND NOT coalesce(a.detail @> '{"scrubbed": true}', false);
        GET DIAGNOSTICS n = ROW_COUNT;
        IF n > 0 THEN counts := counts || jsonb_build_object('audit_event', n); END IF;
        IF to_regclass('river.river_job') IS NOT NULL THEN
            EXECUTE 'DELETE FROM river.river_job j WHERE j.args ->> ''tenant_id'' = $1 AND j.state::text <> ''running'''
                USING p_tenant;
            GET DIAGNOSTICS n = ROW_COUNT;
            IF n > 0 THEN counts := counts || jsonb_build_object('river_job', n); END IF;
        END IF;
        DELETE FROM zb.tenant WHERE id = p_tenant;
        GET DIAGNOSTICS n = ROW_COUNT;
        counts := counts || jsonb_build_object('tenant', n);
    END CASE;
    IF coalesce(p_dry_run, false) THEN
        RAISE EXCEPTION 'dry run' USING ERRCODE = 'ZB099';
    END IF;
    EXCEPTION WHEN SQLSTATE 'ZB099' THEN
        PERFORM set_config('zb.erase', erase_was, true);
        PERFORM set_config('zb.tenant_id', was, true);
        RETURN counts || jsonb_build_object('scope', p_scope, 'dry_run', true);
    END;

    IF op IS NOT NULL AND p_approval IS NOT NULL AND p_scope <> 'tenant' THEN
        UPDATE zb.approval_request r SET status = 'executed'
        WHERE r.tenant_id = p_tenant AND r.id = p_approval AND r.status = 'approved';
    END IF;
    SELECT coalesce(sum((v.value #>> '{}')::bigint), 0) INTO total FROM jsonb_each(counts) v
    WHERE jsonb_typeof(v.value) = 'number' AND v.key NOT IN ('derived', 'restored', 'reactivated');
    IF total > 0 THEN
        INSERT INTO zb.audit_event (tenant_id, at, actor, action, memory_id, detail)
        VALUES (p_tenant, p_now, p_actor, p_scope || '.erase', mid,
                jsonb_strip_nulls(counts || jsonb_build_object('scope', p_scope, 'approval_id', p_approval,
                                             'session_id', CASE WHEN p_scope = 'session' THEN sid::text END,
                                             'context', CASE WHEN p_scope = 'context' THEN p_target END,
                                             'reason_code', CASE WHEN p_reason ~ '^[a-z0-9_.:-]{1,40}$' THEN p_reason END)));
    END IF;
    PERFORM set_config('zb.erase', erase_was, true);
    PERFORM set_config('zb.tenant_id', was, true);
    RETURN counts || jsonb_build_object('scope', p_scope);
END
$$;

COMMENT ON FUNCTION zb.erase(text, text, text, text, timestamptz, text, bigint, boolean, bigint[]) IS
    'Erases a memory, session, context or tenant with every derivative (GDPR Art. 17); returns counts per table; audited without content.';

-- forget erases one memory through zb.erase (true when the tenant had it not yet erased).
CREATE OR REPLACE FUNCTION zb.forget(p_tenant text, p_memory_id bigint, p_now timestamptz DEFAULT now())
RETURNS boolean
LANGUAGE sql
AS $$
    SELECT coalesce((zb.erase(p_tenant, 'memory', p_memory_id::text, 'sql', p_now, 'zb.forget') ->> 'memory')::bigint, 0) > 0
$$;

COMMENT ON FUNCTION zb.forget(text, bigint, timestamptz) IS
    'Erases a memory with every derivative (zb.erase scope memory); true if the tenant had it not yet erased.';

-- apply_retention erases, for tenant p_tenant, the memories of every context with a retention
-- policy that were created more than max_age before p_now (at most p_limit, oldest first) through
-- zb.erase (actor and reason 'retention'), and returns its counts with "more" when the limit was
-- reached. The worker's decay job calls it for each tenant.
CREATE FUNCTION zb.apply_retention(p_tenant text, p_now timestamptz DEFAULT now(), p_limit integer DEFAULT 1000)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    ids bigint[];
BEGIN
    IF p_limit IS NULL OR p_limit < 1 OR p_limit > 100000 THEN
        RAISE EXCEPTION 'zb.apply_retention: limit must be in [1, 100000], got %', p_limit USING ERRCODE = '22023';
    END IF;
    SELECT coalesce(array_agg(x.id ORDER BY x.created_at, x.id), '{}') INTO ids
    FROM (
        SELECT m.id, m.created_at
        FROM zb.retention_policy r
        CROSS JOIN LATERAL (
            SELECT m.id, m.created_at FROM zb.memory m
            WHERE m.tenant_id = p_tenant AND m.context = r.context AND m.status <> 'erased'
              AND m.created_at < p_now - r.max_age
            ORDER BY m.created_at, m.id
            LIMIT p_limit
        ) m
        WHERE r.tenant_id = p_tenant
        ORDER BY m.created_at, m.id
        LIMIT p_limit
    ) x;
    IF cardinality(ids) = 0 THEN
        RETURN jsonb_build_object('memory', 0, 'more', false);
    END IF;
    RETURN zb.erase(p_tenant, 'memory', NULL, 'retention', p_now, 'retention', NULL, false, ids)
           || jsonb_build_object('more', cardinality(ids) = p_limit);
END
$$;

COMMENT ON FUNCTION zb.apply_retention(text, timestamptz, integer) IS
    'Erases the tenant''s memories older than their context''s retention window (zb.retention_policy); the worker runs it.';

-- memory_consent_check refuses new memories (not AI-generated) of tenants whose settings say
-- "consent_required": true and that have no active consent (not revoked) for the purpose
-- 'memory' in the memory's context or in every context (consent.context NULL). Overwrites of a
-- core memory's content are checked the same way.
CREATE FUNCTION zb.memory_consent_check() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    bad record;
BEGIN
    SELECT n.tenant_id, n.context INTO bad
    FROM (SELECT DISTINCT i.tenant_id, i.context FROM inserted i WHERE NOT i.ai_generated AND i.status = 'active') n
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
    RETURN NULL;
END
$$;

CREATE TRIGGER memory_consent_insert AFTER INSERT ON zb.memory
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION zb.memory_consent_check();

CREATE FUNCTION zb.memory_consent_core_check() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF coalesce(current_setting('zb.erase', true), '') <> 'on'
       AND EXISTS (SELECT 1 FROM zb.tenant t WHERE t.id = NEW.tenant_id AND t.settings -> 'consent_required' = 'true'::jsonb)
       AND NOT EXISTS (SELECT 1 FROM zb.consent c
                       WHERE c.tenant_id = NEW.tenant_id AND c.purpose = 'memory' AND c.revoked_at IS NULL
                         AND (c.context IS NULL OR c.context = NEW.context)) THEN
        RAISE EXCEPTION 'tenant % requires consent to store memories (context %) and has none', NEW.tenant_id, NEW.context
            USING ERRCODE = 'ZB001', HINT = 'record the data subject''s consent for the purpose ''memory'' first';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER memory_consent_core_update BEFORE UPDATE OF content ON zb.memory
    FOR EACH ROW WHEN (NEW.layer = 'core' AND NEW.status = 'active' AND NOT NEW.ai_generated
                       AND OLD.content IS DISTINCT FROM NEW.content)
    EXECUTE FUNCTION zb.memory_consent_core_check();

-- Metadata is bounded like content (1 MiB; the Go API's limit is 64 KiB). NOT VALID: existing
-- rows are not scanned, new and changed rows are checked.
ALTER TABLE zb.memory ADD CONSTRAINT memory_metadata_size CHECK (octet_length(metadata::text) <= 1048576) NOT VALID;

-- Retention sweep: a tenant's memories of a context by creation time. On a large existing table,
-- build it CONCURRENTLY instead.
CREATE INDEX IF NOT EXISTS memory_retention_idx ON zb.memory (tenant_id, context, created_at) WHERE status <> 'erased';

-- Consent records by purpose (the gate's lookup).
CREATE INDEX IF NOT EXISTS consent_active_idx ON zb.consent (tenant_id, purpose) WHERE revoked_at IS NULL;

DO $$
DECLARE
    app name := zb.role_name('app');
    wrk name := zb.role_name('worker');
    adm name := zb.role_name('admin');
    def name := zb.role_name('definer');
BEGIN
    -- The erase functions run as zb_definer: subject to the forced row-level security of 0011,
    -- never a superuser. Only zenbrain's roles may call them.
    -- (A new owner needs CREATE on the schema for the transfer, not afterwards.)
    EXECUTE format('GRANT CREATE ON SCHEMA zb TO %I', def);
    EXECUTE format('ALTER FUNCTION zb.erase_memories(text, bigint[], timestamptz) OWNER TO %I', def);
    EXECUTE format('ALTER FUNCTION zb.erase(text, text, text, text, timestamptz, text, bigint, boolean, bigint[]) OWNER TO %I', def);
    EXECUTE format('REVOKE CREATE ON SCHEMA zb FROM %I', def);
    REVOKE EXECUTE ON FUNCTION zb.erase_memories(text, bigint[], timestamptz) FROM PUBLIC;
    REVOKE EXECUTE ON FUNCTION zb.erase(text, text, text, text, timestamptz, text, bigint, boolean, bigint[]) FROM PUBLIC;
    EXECUTE format('GRANT EXECUTE ON FUNCTION zb.erase(text, text, text, text, timestamptz, text, bigint, boolean, bigint[]) TO %I, %I, %I',
                   app, wrk, adm);
    EXECUTE format('GRANT EXECUTE ON FUNCTION zb.erase_memories(text, bigint[], timestamptz) TO %I', def);
    -- A tenant erase removes the tenant's bindings.
    EXECUTE format('GRANT DELETE ON zb.tenant_binding TO %I', def);
    -- (The raw setting, not zb.current_tenant(), which reads this table: the erase checked the
    -- binding before it got here.)
    EXECUTE format('CREATE POLICY zb_erase ON zb.tenant_binding FOR ALL TO %I USING (tenant_id = (SELECT zb.tenant_setting()))', def);
    REVOKE EXECUTE ON FUNCTION zb.erase_bind(text) FROM PUBLIC;
    EXECUTE format('GRANT EXECUTE ON FUNCTION zb.erase_bind(text) TO %I', def);
END
$$;

-- approval_no_self_approval refuses to approve a request in the name of the actor who made it
-- (a rejection — withdrawing one's own request — stays allowed).
CREATE FUNCTION zb.approval_no_self_approval() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF NEW.status = 'approved' AND OLD.status = 'pending' AND NEW.decided_by = OLD.requested_by THEN
        RAISE EXCEPTION 'approval request % was made by %, who cannot approve it', OLD.id, OLD.requested_by
            USING ERRCODE = 'ZB003', HINT = 'another operator must approve it (zbctl approve ID --actor NAME)';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER approval_request_no_self_approval BEFORE UPDATE OF status ON zb.approval_request
    FOR EACH ROW EXECUTE FUNCTION zb.approval_no_self_approval();

-- retrievability of 0009, total over infinite timestamps: with last_access = '-infinity' or
-- p_now = 'infinity' (and p_now after last_access) the elapsed time is infinite and R = 0 (0009
-- failed with "cannot subtract infinite timestamps"); p_now <= last_access still gives 1.
CREATE OR REPLACE FUNCTION zb.retrievability(stability_days double precision, m_emo double precision,
                                             last_access timestamptz, p_now timestamptz)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE
        WHEN stability_days IS NULL OR NOT (stability_days > 0)
             OR stability_days * 86400e9 > 9223372036854775807::double precision / 3
             OR m_emo IS NULL OR NOT (m_emo BETWEEN 1 AND 3) THEN 1
        WHEN p_now <= last_access THEN 1
        WHEN NOT isfinite(p_now) OR NOT isfinite(last_access) THEN 0
        ELSE zb.exp_or_zero(-(extract(epoch FROM p_now - last_access)::double precision)
                 / (stability_days * 86400 * m_emo))
    END::double precision
$$;
