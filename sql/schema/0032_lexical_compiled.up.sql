-- 0032_lexical_compiled: the lexical half scored by a compiled function when the server has it
-- (issue 10).
--
-- In a large tenant the lexical half reads every posting of the query terms and sums each
-- memory's BM25 in SQL: one tenant of 1M memories spends ≈ 229 ms on it, of which reading the
-- postings is about a quarter and the Merge Append, grouping, top-k sort and per-posting
-- arithmetic the rest (docs/performance.md). The optional extension zb_lexical (ext/zb_lexical,
-- built and installed by `make deps`) does the same work in C from one read of each term's
-- postings through the postings' primary key: the same counts, the same idf and sidf, the same
-- per-layer top k, the same values to the bit.
--
-- zb.recall_lexical_postings becomes a dispatcher: live recall of the transaction's own tenant
-- (or by a role without row-level security) takes the compiled function when
-- zb.lexical_scorer() says so — a filtered one (time range, as-of, contexts) too: it reads the
-- scored memories' zb.memory rows best first until k pass, as the SQL does; every server without
-- the extension takes 0024's SQL function, renamed zb.recall_lexical_postings_sql. (Deep recall
-- keeps the GIN path.) The setting zb.lexical_scorer chooses: auto (default: compiled
-- when installed and executable), sql (never), compiled (an error when it cannot be used).
--
-- The compiled function reads the postings without row-level security: the extension grants
-- EXECUTE to the owner of schema zb only, and recall reaches it through
-- zb.lexical_topk_definer (SECURITY DEFINER, executable by <prefix>_search, the owner of recall's
-- tenant-checked lexical half). The extension is created here when the server has it and the
-- migrating role is a superuser (a C function needs one); otherwise a superuser may run
-- CREATE EXTENSION zb_lexical SCHEMA zb at any time, and recall takes it from its next call.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'zb_lexical') THEN
        RETURN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'zb_lexical') THEN
        RAISE NOTICE 'zb_lexical is not installed on this server: recall scores BM25 in SQL (make deps builds and installs it)';
        RETURN;
    END IF;
    IF NOT coalesce((SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user), false) THEN
        RAISE NOTICE 'zb_lexical is available but % is not a superuser: recall scores BM25 in SQL until a superuser runs CREATE EXTENSION zb_lexical SCHEMA zb',
            current_user;
        RETURN;
    END IF;
    CREATE EXTENSION zb_lexical SCHEMA zb;
END
$$;

ALTER FUNCTION zb.recall_lexical_postings(text, text[], bigint, double precision, double precision, zb.memory_layer[],
                                          integer, timestamptz, timestamptz, timestamptz, timestamptz, text[])
    RENAME TO recall_lexical_postings_sql;
COMMENT ON FUNCTION zb.recall_lexical_postings_sql(text, text[], bigint, double precision, double precision,
    zb.memory_layer[], integer, timestamptz, timestamptz, timestamptz, timestamptz, text[]) IS
    'The lexical half from the postings in SQL (0019 hash grouping, 0024 merge): recall''s when zb_lexical is not installed or zb.lexical_scorer is sql.';

-- zb.lexical_topk_definer runs the compiled function as the owner of schema zb (the extension
-- grants it EXECUTE; nobody else has it): recall's SECURITY DEFINER lexical half (owned by
-- <prefix>_search, 0014) may call it, no other role. A server without zb_lexical can hold it
-- (PL/pgSQL resolves the call when it runs).
CREATE FUNCTION zb.lexical_topk_definer(
    p_tenant text, p_terms text[], p_n bigint, p_sn double precision, p_avgdl double precision,
    p_layers zb.memory_layer[], p_k integer, p_now timestamptz, p_from timestamptz, p_to timestamptz,
    p_as_of timestamptz, p_contexts text[],
    OUT idf double precision[], OUT sidf double precision[], OUT ids bigint[]
)
LANGUAGE plpgsql STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    SELECT c.idf, c.sidf, c.ids INTO idf, sidf, ids
    FROM zb.lexical_topk(p_tenant, p_terms, p_n, p_sn, p_avgdl, p_layers, p_k, p_now, p_from, p_to, p_as_of, p_contexts) c;
END
$$;
COMMENT ON FUNCTION zb.lexical_topk_definer(text, text[], bigint, double precision, double precision, zb.memory_layer[],
    integer, timestamptz, timestamptz, timestamptz, timestamptz, text[]) IS
    'zb.lexical_topk (the zb_lexical extension) as the owner of schema zb, for recall''s lexical half; executable by that owner and <prefix>_search only.';
REVOKE ALL ON FUNCTION zb.lexical_topk_definer(text, text[], bigint, double precision, double precision, zb.memory_layer[],
    integer, timestamptz, timestamptz, timestamptz, timestamptz, text[]) FROM PUBLIC;
DO $$
DECLARE
    search name := (coalesce((SELECT c.value FROM zb.config c WHERE c.key = 'role_prefix'), 'zb') || '_search')::name;
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = search) THEN
        EXECUTE format('GRANT EXECUTE ON FUNCTION zb.lexical_topk_definer(text, text[], bigint, double precision, '
                       'double precision, zb.memory_layer[], integer, timestamptz, timestamptz, timestamptz, timestamptz, '
                       'text[]) TO %I', search);
    END IF;
END
$$;

-- zb.lexical_scorer: 'compiled' when recall's live lexical half runs in zb_lexical, 'sql'
-- otherwise; the setting zb.lexical_scorer (auto | sql | compiled) decides.
CREATE FUNCTION zb.lexical_scorer() RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_mode text := coalesce(nullif(current_setting('zb.lexical_scorer', true), ''), 'auto');
    v_fn   regprocedure;
    v_def  regprocedure := 'zb.lexical_topk_definer(text, text[], bigint, double precision, double precision, zb.memory_layer[], integer, timestamptz, timestamptz, timestamptz, timestamptz, text[])'::regprocedure;
    v_why  text;
BEGIN
    IF v_mode NOT IN ('auto', 'sql', 'compiled') THEN
        RAISE EXCEPTION 'zb.lexical_scorer must be auto, sql or compiled, got "%"', left(v_mode, 40) USING ERRCODE = '22023';
    END IF;
    IF v_mode = 'sql' THEN
        RETURN 'sql';
    END IF;
    v_fn := to_regprocedure('zb.lexical_topk(text, text[], bigint, double precision, double precision, anyarray, integer, timestamptz, timestamptz, timestamptz, timestamptz, text[])');
    IF v_fn IS NULL THEN
        v_why := 'the zb_lexical extension is not installed in this database';
    ELSIF NOT has_function_privilege((SELECT p.proowner FROM pg_proc p WHERE p.oid = v_def), v_fn, 'EXECUTE') THEN
        v_why := format('%s (the owner of zb.lexical_topk_definer) may not execute zb.lexical_topk',
                        (SELECT pg_get_userbyid(p.proowner) FROM pg_proc p WHERE p.oid = v_def));
    ELSIF NOT has_function_privilege(v_def, 'EXECUTE') THEN
        v_why := format('%s may not execute zb.lexical_topk_definer', current_user);
    END IF;
    IF v_why IS NOT NULL THEN
        IF v_mode = 'compiled' THEN
            RAISE EXCEPTION 'zb.lexical_scorer is compiled, but %', v_why
                USING ERRCODE = '55000',
                      HINT = 'make deps builds and installs zb_lexical; then CREATE EXTENSION zb_lexical SCHEMA zb as a superuser';
        END IF;
        RETURN 'sql';
    END IF;
    RETURN 'compiled';
END
$$;
COMMENT ON FUNCTION zb.lexical_scorer() IS
    'Which lexical scorer recall''s live lexical half uses for the current role: compiled (the zb_lexical extension) or sql; the setting zb.lexical_scorer (auto, sql, compiled) decides.';

CREATE FUNCTION zb.recall_lexical_postings(
    p_tenant text, p_terms text[], p_n bigint, p_sn double precision, p_avgdl double precision,
    p_layers zb.memory_layer[], p_k integer, p_now timestamptz, p_from timestamptz, p_to timestamptz,
    p_as_of timestamptz, p_contexts text[],
    OUT idf double precision[], OUT sidf double precision[], OUT ids bigint[]
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
DECLARE
    v_min text := coalesce(nullif(current_setting('zb.lexical_merge_min_docs', true), ''), '1000');
BEGIN
    -- The SQL function's setting is refused here too, whichever scorer runs.
    IF v_min !~ '^[0-9]{1,18}$' THEN
        RAISE EXCEPTION 'zb.lexical_merge_min_docs must be a whole number of memories (0 to 999999999999999999), got "%"',
            left(v_min, 40) USING ERRCODE = '22023';
    END IF;
    -- zb.lexical_topk reads the postings without row-level security: only for the
    -- transaction's own tenant, or for a role that row-level security does not restrict.
    IF zb.lexical_scorer() = 'compiled'
       AND (NOT row_security_active('zb.memory_posting'::regclass) OR p_tenant = zb.current_tenant()) THEN
        SELECT c.idf, c.sidf, c.ids INTO idf, sidf, ids
        FROM zb.lexical_topk_definer(p_tenant, p_terms, p_n, p_sn, p_avgdl, p_layers, p_k, p_now, p_from, p_to, p_as_of,
                                     p_contexts) c;
        IF ids IS NOT NULL THEN
            RETURN;
        END IF;
    END IF;
    SELECT s.idf, s.sidf, s.ids INTO idf, sidf, ids
    FROM zb.recall_lexical_postings_sql(p_tenant, p_terms, p_n, p_sn, p_avgdl, p_layers, p_k, p_now, p_from, p_to,
                                        p_as_of, p_contexts) s;
END
$$;
COMMENT ON FUNCTION zb.recall_lexical_postings(text, text[], bigint, double precision, double precision,
    zb.memory_layer[], integer, timestamptz, timestamptz, timestamptz, timestamptz, text[]) IS
    'Recall''s live lexical half: the compiled zb.lexical_topk when zb.lexical_scorer() is compiled, else zb.recall_lexical_postings_sql; the same values either way.';
