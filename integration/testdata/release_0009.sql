-- zenbrain test fixture: a database at migration 0009 (the released schema) with
-- representative data, written by go test ./integration/reliability -run TestWriteReleaseFixture -write-fixture.
-- Embedding dimension 32. Restore into an empty database with psql -f; see integration/reliability/upgrade_test.go.
--
-- PostgreSQL database dump
--

\restrict KUrvEgUuDrafTm0HF8iGjk3aoPuoSdvpsz3fcdrD9ymIIyUQLzQ3dotD4GGjJwA

-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: river; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA river;


--
-- Name: zb; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA zb;


--
-- Name: zb_meta; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA zb_meta;


--
-- Name: vector; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;


--
-- Name: river_job_state; Type: TYPE; Schema: river; Owner: -
--

CREATE TYPE river.river_job_state AS ENUM (
    'available',
    'cancelled',
    'completed',
    'discarded',
    'pending',
    'retryable',
    'running',
    'scheduled'
);


--
-- Name: edge_relation; Type: TYPE; Schema: zb; Owner: -
--

CREATE TYPE zb.edge_relation AS ENUM (
    'supports',
    'contradicts',
    'causes',
    'requires',
    'part_of',
    'similar_to',
    'co_occurs',
    'associated',
    'derived_from',
    'same_as'
);


--
-- Name: memory_layer; Type: TYPE; Schema: zb; Owner: -
--

CREATE TYPE zb.memory_layer AS ENUM (
    'working',
    'short_term',
    'episodic',
    'semantic',
    'procedural',
    'core',
    'cross_context'
);


--
-- Name: memory_status; Type: TYPE; Schema: zb; Owner: -
--

CREATE TYPE zb.memory_status AS ENUM (
    'active',
    'consolidated',
    'archived',
    'erased'
);


--
-- Name: reconsolidation_mode; Type: TYPE; Schema: zb; Owner: -
--

CREATE TYPE zb.reconsolidation_mode AS ENUM (
    'confirmed',
    'selective_edit',
    'integration',
    'new_episode'
);


--
-- Name: river_job_state_in_bitmask(bit, river.river_job_state); Type: FUNCTION; Schema: river; Owner: -
--

CREATE FUNCTION river.river_job_state_in_bitmask(bitmask bit, state river.river_job_state) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $$
    SELECT CASE state
        WHEN 'available' THEN get_bit(bitmask, 7)
        WHEN 'cancelled' THEN get_bit(bitmask, 6)
        WHEN 'completed' THEN get_bit(bitmask, 5)
        WHEN 'discarded' THEN get_bit(bitmask, 4)
        WHEN 'pending'   THEN get_bit(bitmask, 3)
        WHEN 'retryable' THEN get_bit(bitmask, 2)
        WHEN 'running'   THEN get_bit(bitmask, 1)
        WHEN 'scheduled' THEN get_bit(bitmask, 0)
        ELSE 0
    END = 1;
$$;


--
-- Name: apply_embedding_dim(regclass, name); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.apply_embedding_dim(tbl regclass, col name) RETURNS void
    LANGUAGE plpgsql
    AS $$
DECLARE
    dim int := zb.embedding_dim();
BEGIN
    EXECUTE format('ALTER TABLE %s ALTER COLUMN %I TYPE vector(%s)', tbl, col, dim);
END
$$;


--
-- Name: audit_event_append_only(); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.audit_event_append_only() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF coalesce(current_setting('zb.erase', true), '') = 'on' THEN
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    RAISE EXCEPTION 'zb.audit_event is append-only (% refused)', TG_OP
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'audit events change only through an erase';
END
$$;


--
-- Name: beta_interval95(double precision, double precision); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.beta_interval95(alpha double precision, beta double precision, OUT lower double precision, OUT upper double precision) RETURNS record
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT CASE WHEN v.ok THEN zb.beta_quantile(0.025, alpha, beta) ELSE 0 END,
           CASE WHEN v.ok THEN zb.beta_quantile(0.975, alpha, beta) ELSE 1 END
    FROM (SELECT coalesce(alpha > 0 AND beta > 0 AND alpha < 'Infinity'::double precision
                          AND beta < 'Infinity'::double precision, false) AS ok) v
$$;


--
-- Name: beta_quantile(double precision, double precision, double precision); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.beta_quantile(p double precision, a double precision, b double precision) RETURNS double precision
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
DECLARE
    lo double precision := 0;
    hi double precision := 1;
    x double precision;
    fx double precision;
    pdf double precision;
    lb double precision;
    nx double precision;
BEGIN
    IF NOT (a > 0 AND b > 0) OR NOT (p >= 0 AND p <= 1) THEN RETURN NULL; END IF;
    IF p = 0 THEN RETURN 0; END IF;
    IF p = 1 THEN RETURN 1; END IF;
    -- Closed forms: I_x(1, b) = 1 − (1 − x)^b and I_x(a, 1) = x^a.
    IF a = 1 THEN RETURN 1 - power(1 - p, 1 / b); END IF;
    IF b = 1 THEN RETURN power(p, 1 / a); END IF;
    lb := zb.lgamma(a) + zb.lgamma(b) - zb.lgamma(a + b);
    x := least(1 - 1e-9, greatest(1e-9, a / (a + b)));
    FOR i IN 1..200 LOOP
        fx := zb.reg_inc_beta(x, a, b) - p;
        IF fx = 0 THEN RETURN x; END IF;
        IF fx < 0 THEN lo := x; ELSE hi := x; END IF;
        pdf := zb.exp_or_zero((a - 1) * ln(x) + (b - 1) * ln(1 - x) - lb);
        nx := CASE WHEN pdf > 0 THEN x - fx / pdf END;
        IF nx IS NULL OR nx <= lo OR nx >= hi THEN
            nx := (lo + hi) / 2;
        END IF;
        IF abs(nx - x) <= 1e-15 * greatest(x, 1e-300) OR hi - lo <= 1e-15 * greatest(x, 1e-300) THEN
            RETURN nx;
        END IF;
        x := nx;
    END LOOP;
    RETURN x;
END
$$;


--
-- Name: bm25_doc(text[], integer, text[], double precision[], double precision, double precision, double precision); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.bm25_doc(doc_terms text[], doc_len integer, q_terms text[], q_idf double precision[], avgdl double precision, k1 double precision DEFAULT 1.2, b double precision DEFAULT 0.75) RETURNS double precision
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT coalesce(sum(q.idf * tf.c * (k1 + 1)
                        / (tf.c + k1 * (1 - b + b * doc_len / greatest(avgdl, 1e-9)))), 0)::double precision
    FROM (SELECT u AS t, count(*)::double precision AS c FROM unnest(doc_terms) u WHERE u = ANY (q_terms) GROUP BY u) tf
    JOIN unnest(q_terms, q_idf) AS q(t, idf) ON q.t = tf.t
$$;


--
-- Name: copy_strength(text, double precision, double precision, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.copy_strength(copy text, initial_strength double precision, tau_seconds double precision, created_at timestamp with time zone, p_now timestamp with time zone) RETURNS double precision
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT CASE
        WHEN p_now < created_at OR NOT (tau_seconds > 0) OR NOT (initial_strength > 0) THEN 0
        WHEN copy = 'deep' THEN least(1, greatest(0, initial_strength
             * (1 - zb.exp_or_zero(-extract(epoch FROM p_now - created_at)::double precision / tau_seconds))))
        ELSE least(1, greatest(0, initial_strength
             * zb.exp_or_zero(-extract(epoch FROM p_now - created_at)::double precision / tau_seconds)))
    END::double precision
$$;


--
-- Name: edge_weight_at(double precision, double precision, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.edge_weight_at(weight double precision, variance double precision, last_activated_at timestamp with time zone, p_now timestamp with time zone) RETURNS double precision
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT CASE
        WHEN NOT (weight >= 0) OR weight = 'Infinity'::double precision THEN 0
        WHEN p_now <= last_activated_at THEN weight
        ELSE weight * zb.exp_or_zero(-(0.02 / (1 + 0.1 * (CASE WHEN variance > 0 AND variance < 'Infinity'::double precision
                                                    THEN 1 / variance ELSE 1 END)))
                          * (extract(epoch FROM p_now - last_activated_at)::double precision / 86400))
    END::double precision
$$;


--
-- Name: embedding_dim(); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.embedding_dim() RETURNS integer
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT value::int FROM zb.config WHERE key = 'embedding_dim' $$;


--
-- Name: emotional_multiplier(double precision, double precision, double precision); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.emotional_multiplier(valence double precision, arousal double precision, significance double precision) RETURNS double precision
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT least(3, greatest(1, 1 + 2 * greatest(
        abs(greatest(-1, least(1, coalesce(valence, 0)))),
        greatest(0, least(1, coalesce(arousal, 0))),
        greatest(0, least(1, coalesce(significance, 0))))))::double precision
$$;


--
-- Name: exp_or_zero(double precision); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.exp_or_zero(x double precision) RETURNS double precision
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT CASE WHEN x < -745 THEN 0 ELSE exp(x) END
$$;


--
-- Name: forget(text, bigint, timestamp with time zone); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.forget(p_tenant text, p_memory_id bigint, p_now timestamp with time zone DEFAULT now()) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
DECLARE
    l zb.memory_layer;
BEGIN
    UPDATE zb.memory m
    SET status = 'erased', content = '', metadata = '{}', embedding = NULL, embedding_model = NULL,
        terms = '{}', term_count = 0, updated_at = greatest(m.updated_at, p_now)
    WHERE m.tenant_id = p_tenant AND m.id = p_memory_id AND m.status <> 'erased'
    RETURNING m.layer INTO l;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    DELETE FROM zb.mention WHERE tenant_id = p_tenant AND memory_id = p_memory_id;
    DELETE FROM zb.working_slot WHERE tenant_id = p_tenant AND memory_id = p_memory_id;
    DELETE FROM zb.review_state WHERE tenant_id = p_tenant AND memory_id = p_memory_id;
    DELETE FROM zb.triple_copy WHERE tenant_id = p_tenant AND memory_id = p_memory_id;
    INSERT INTO zb.audit_event (tenant_id, at, actor, action, memory_id, detail)
    VALUES (p_tenant, p_now, 'sql', 'memory.erase', p_memory_id, jsonb_build_object('layer', l, 'via', 'zb.forget'));
    RETURN true;
END
$$;


--
-- Name: job_counts(); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.job_counts() RETURNS TABLE(queue text, state text, n bigint)
    LANGUAGE plpgsql STABLE
    AS $$
BEGIN
    RETURN QUERY
    SELECT j.queue::text, j.state::text, count(*)::bigint FROM river.river_job j GROUP BY j.queue, j.state ORDER BY 1, 2;
END
$$;


--
-- Name: lexical_stat_compact(text); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.lexical_stat_compact(p_tenant text) RETURNS bigint
    LANGUAGE sql
    AS $$
    WITH gone AS (
        DELETE FROM zb.lexical_stat_delta WHERE tenant_id = p_tenant RETURNING docs, terms
    ), folded AS (
        INSERT INTO zb.lexical_stat_delta (tenant_id, docs, terms)
        SELECT p_tenant, sum(docs), sum(terms) FROM gone HAVING count(*) > 0
        RETURNING 1
    )
    SELECT count(*) FROM gone
$$;


--
-- Name: lexical_stat_on_delete(); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.lexical_stat_on_delete() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO zb.lexical_stat_delta (tenant_id, docs, terms)
    SELECT o.tenant_id, -count(*), -sum(o.term_count)
    FROM old_rows o
    WHERE o.status = 'active'
    GROUP BY o.tenant_id;
    RETURN NULL;
END
$$;


--
-- Name: lexical_stat_on_insert(); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.lexical_stat_on_insert() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO zb.lexical_stat_delta (tenant_id, docs, terms)
    SELECT n.tenant_id, count(*), sum(n.term_count)
    FROM new_rows n
    WHERE n.status = 'active'
    GROUP BY n.tenant_id;
    RETURN NULL;
END
$$;


--
-- Name: lexical_stat_on_update(); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.lexical_stat_on_update() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO zb.lexical_stat_delta (tenant_id, docs, terms)
    SELECT d.tenant_id, sum(d.docs), sum(d.terms)
    FROM (
        SELECT n.tenant_id, 1 AS docs, n.term_count AS terms FROM new_rows n WHERE n.status = 'active'
        UNION ALL
        SELECT o.tenant_id, -1, -o.term_count FROM old_rows o WHERE o.status = 'active'
    ) d
    GROUP BY d.tenant_id
    HAVING sum(d.docs) <> 0 OR sum(d.terms) <> 0;
    RETURN NULL;
END
$$;


--
-- Name: lgamma(double precision); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.lgamma(x double precision) RETURNS double precision
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
DECLARE
    c double precision[] := ARRAY[0.99999999999980993, 676.5203681218851, -1259.1392167224028,
        771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
        9.9843695780195716e-6, 1.5056327351493116e-7];
    a double precision;
    t double precision;
    z double precision;
BEGIN
    IF x < 0.5 THEN
        RETURN ln(pi() / sin(pi() * x)) - zb.lgamma(1 - x);
    END IF;
    z := x - 1;
    a := c[1];
    t := z + 7.5;
    FOR i IN 1..8 LOOP
        a := a + c[i + 1] / (z + i);
    END LOOP;
    RETURN 0.5 * ln(2 * pi()) + (z + 0.5) * ln(t) - t + ln(a);
END
$$;


--
-- Name: memory_live(timestamp with time zone); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.memory_live(p_now timestamp with time zone) RETURNS TABLE(tenant_id text, id bigint, layer zb.memory_layer, kind text, context text, content text, created_at timestamp with time zone, last_accessed_at timestamp with time zone, access_count integer, stability_days double precision, m_emo double precision, retrievability double precision, triple_copy_strength double precision, conf_alpha double precision, conf_beta double precision, confidence_mean double precision, confidence_low double precision, confidence_high double precision, confidence double precision, lock_level double precision, overwrite_threshold double precision, source_ids bigint[])
    LANGUAGE sql STABLE
    AS $$
    SELECT m.tenant_id, m.id, m.layer, m.kind, m.context, m.content, m.created_at, m.last_accessed_at,
           m.access_count, m.stability, e.m, zb.retrievability(m.stability, e.m, m.last_accessed_at, p_now),
           coalesce(tc.s, 0), m.conf_alpha, m.conf_beta, m.conf_alpha / (m.conf_alpha + m.conf_beta), iv.lower, iv.upper,
           m.confidence, sl.lock_level, sl.threshold, m.source_ids
    FROM zb.memory m
    CROSS JOIN LATERAL (SELECT zb.emotional_multiplier(m.valence, m.arousal, m.significance) AS m) e
    CROSS JOIN LATERAL zb.beta_interval95(m.conf_alpha, m.conf_beta) iv
    LEFT JOIN LATERAL (
        SELECT max(zb.copy_strength(t.copy, t.initial_strength, t.tau_seconds, t.created_at, p_now)) AS s
        FROM zb.triple_copy t WHERE t.tenant_id = m.tenant_id AND t.memory_id = m.id
    ) tc ON true
    LEFT JOIN zb.stability_lock sl ON sl.tenant_id = m.tenant_id AND sl.memory_id = m.id
    WHERE m.status = 'active'
$$;


--
-- Name: named_in(text, text); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.named_in(p_query text, p_name text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT coalesce(n.w IS NOT NULL AND char_length(n.w) >= 2
                    AND ts_lexize('english_stem', n.w) <> '{}' AND ts_lexize('german_stem', n.w) <> '{}'
                    AND n.w = ANY (zb.tokens(p_query)), false)
    FROM (SELECT (zb.tokens(p_name))[1] AS w) n
$$;


--
-- Name: notify_underived(); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.notify_underived() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
    t text;
BEGIN
    FOR t IN SELECT DISTINCT tenant_id FROM inserted WHERE derived_at IS NULL LOOP
        PERFORM pg_notify('zb_memory_inserted', t);
    END LOOP;
    RETURN NULL;
END
$$;


--
-- Name: priority(double precision, double precision, double precision, double precision); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.priority(salience double precision, valence double precision, relevance double precision, goal double precision) RETURNS double precision
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT CASE
        WHEN NOT (salience BETWEEN 0 AND 1 AND valence BETWEEN -1 AND 1 AND relevance BETWEEN 0 AND 1
                  AND goal BETWEEN 0 AND 1) THEN NULL
        WHEN abs(valence) > 0.6 THEN greatest(w.x, 0.5)
        ELSE w.x
    END::double precision
    FROM (SELECT least(1, greatest(0, 0.2::double precision * salience + 0.25::double precision * abs(valence)
                 + 0.25::double precision * relevance + 0.3::double precision * goal)) AS x) w
$$;


--
-- Name: query_terms(text, regconfig); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.query_terms(p_text text, p_config regconfig DEFAULT 'english'::regconfig) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT coalesce(array_agg(t ORDER BY t), '{}') FROM unnest(tsvector_to_array(to_tsvector(p_config, p_text))) t
$$;


--
-- Name: recall(text, text, public.vector, integer, timestamp with time zone, text, text[], zb.memory_layer[], integer, timestamp with time zone, timestamp with time zone, timestamp with time zone, text[], boolean); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.recall(p_tenant text, p_query text, p_query_embedding public.vector DEFAULT NULL::public.vector, p_k integer DEFAULT 5, p_now timestamp with time zone DEFAULT now(), p_class text DEFAULT 'general'::text, p_terms text[] DEFAULT NULL::text[], p_layers zb.memory_layer[] DEFAULT NULL::zb.memory_layer[], p_candidates integer DEFAULT 8, p_from timestamp with time zone DEFAULT NULL::timestamp with time zone, p_to timestamp with time zone DEFAULT NULL::timestamp with time zone, p_as_of timestamp with time zone DEFAULT NULL::timestamp with time zone, p_contexts text[] DEFAULT NULL::text[], p_deep boolean DEFAULT false) RETURNS TABLE(rank integer, memory_id bigint, layer zb.memory_layer, kind text, content text, score double precision, confidence double precision, confidence_low double precision, confidence_high double precision, retrievability double precision, cosine double precision, bm25 double precision, vector_norm double precision, bm25_norm double precision, hybrid double precision, neighbour double precision, session double precision, context_score double precision, entity double precision, layer_weight double precision, fused double precision, boost double precision, retention double precision, by_vector boolean, by_lexical boolean, source_ids bigint[], external_id text, session_id uuid, context text, occurred_at timestamp with time zone, created_at timestamp with time zone, metadata jsonb)
    LANGUAGE sql STABLE
    AS $$
    WITH c AS MATERIALIZED (
        SELECT rc.*, m.layer, m.kind, m.content, m.session_id, m.metadata, m.stability, m.valence, m.arousal,
               m.significance, m.last_accessed_at, m.conf_alpha, m.conf_beta, m.source_ids, m.external_id,
               m.context, m.occurred_at, m.created_at,
               greatest(-1, least(1, coalesce(rc.cosine, 0))) AS cos,
               greatest(0, coalesce(rc.bm25, 0)) AS bm,
               'decay' = ANY (rc.disabled) AS no_decay,
               'query_routing' = ANY (rc.disabled) AS no_routing,
               'two_factor_hebbian' = ANY (rc.disabled) AS no_boost
        FROM zb.recall_candidates(
                 p_tenant, p_query_embedding, coalesce(p_terms, zb.query_terms(p_query)),
                 coalesce(p_layers, enum_range(NULL::zb.memory_layer)),
                 CASE WHEN zb.recall_check(p_query, p_k, p_class, p_candidates) THEN greatest(p_candidates, p_k) END,
                 p_now, p_from, p_to, p_as_of, p_contexts, p_deep) rc
        JOIN zb.memory m ON m.tenant_id = p_tenant AND m.id = rc.id
    ), bounds AS (
        SELECT min(cos) AS clo, max(cos) AS chi, min(bm) AS blo, max(bm) AS bhi,
               coalesce(max(session_bm25) FILTER (WHERE session_id IS NOT NULL), 0) AS smax
        FROM c
    ), h AS MATERIALIZED (
        SELECT c.*, n.vn, n.bn, 0.3 * n.vn + 0.7 * n.bn AS hyb, b.smax
        FROM c CROSS JOIN bounds b
        CROSS JOIN LATERAL (
            SELECT CASE WHEN b.chi > b.clo THEN (c.cos - b.clo) / (b.chi - b.clo) WHEN c.cos > 0 THEN 1 ELSE 0 END AS vn,
                   CASE WHEN b.bhi > b.blo THEN (c.bm - b.blo) / (b.bhi - b.blo) WHEN c.bm > 0 THEN 1 ELSE 0 END AS bn
        ) n
    ), s AS (
        SELECT h.*,
               CASE WHEN h.session_id IS NULL THEN 0 ELSE greatest(0,
                   coalesce((SELECT max(o.hyb) FROM h o WHERE o.id IN (h.prev_id, h.next_id) AND o.id <> h.id), 0)) END AS nb,
               CASE WHEN h.session_id IS NULL THEN h.hyb WHEN h.smax > 0 THEN h.session_bm25 / h.smax ELSE 0 END AS sess,
               1 + CASE WHEN zb.named_in(p_query, h.metadata ->> 'speaker') THEN 0.3 ELSE 0 END
                 + CASE WHEN EXISTS (SELECT 1 FROM unnest(h.session_speakers) sp WHERE zb.named_in(p_query, sp))
                        THEN 0.2 ELSE 0 END AS ent,
               CASE WHEN h.no_routing THEN 1
                    WHEN p_class = 'temporal' AND h.layer = 'episodic' THEN 2.0
                    WHEN p_class = 'factual' AND h.layer = 'semantic' THEN 1.8
                    WHEN p_class = 'procedural' AND h.layer = 'procedural' THEN 1.8
                    ELSE 1 END AS lw,
               CASE WHEN h.no_decay THEN 1
                    ELSE zb.retrievability(h.stability, zb.emotional_multiplier(h.valence, h.arousal, h.significance),
                                           h.last_accessed_at, p_now) END AS ret
        FROM h
    ), f AS (
        SELECT s.*, (s.hyb + 0.5 * s.nb + 0.5 * s.sess) / 1.5 AS ctx,
               CASE WHEN s.no_boost OR NOT (s.edge_weight > 0) THEN 1
                    ELSE 1 + 0.2 * zb.edge_weight_at(s.edge_weight, s.edge_variance, s.edge_activated_at, p_now)
                             * power(1 / s.edge_variance, 0.1) END AS bst,
               CASE WHEN s.no_decay THEN 1 ELSE 0.9 + 0.1 * least(1, greatest(0, s.ret)) END AS rtn
        FROM s
    ), scored AS (
        SELECT f.*, f.lw * f.ctx * f.ent AS fsd, f.lw * f.ctx * f.ent * f.bst * f.rtn AS sc, zb.tokens(f.content) AS toks
        FROM f
    ), ordered AS MATERIALIZED (
        SELECT scored.*, row_number() OVER (ORDER BY sc DESC, id::text COLLATE "C") AS ord FROM scored
    ), walk AS (
        -- Greedy deduplication in score order (retrieval.Dedup): a result is dropped when its
        -- token Jaccard with a result kept before it exceeds 0.9; stops once p_k are kept.
        WITH RECURSIVE w(ord, kept) AS (
            SELECT 0::bigint, '{}'::bigint[]
            UNION ALL
            SELECT o.ord,
                   CASE WHEN EXISTS (SELECT 1 FROM ordered k WHERE k.id = ANY (w.kept)
                                     AND zb.token_jaccard(o.toks, k.toks) > 0.9)
                        THEN w.kept ELSE w.kept || o.id END
            FROM w JOIN ordered o ON o.ord = w.ord + 1
            WHERE cardinality(w.kept) < p_k
        )
        SELECT kept FROM w ORDER BY ord DESC LIMIT 1
    ), ranked AS (
        SELECT o.*, row_number() OVER (ORDER BY o.ord) AS rk
        FROM ordered o, walk WHERE o.id = ANY (walk.kept)
    )
    SELECT r.rk::integer, r.id, r.layer, r.kind, r.content, r.sc, r.conf_alpha / (r.conf_alpha + r.conf_beta),
           iv.lower, iv.upper, r.ret, r.cos, r.bm, r.vn, r.bn, r.hyb, r.nb, r.sess, r.ctx, r.ent, r.lw, r.fsd,
           r.bst, r.rtn, r.by_vector, r.by_lexical, r.source_ids, r.external_id, r.session_id, r.context,
           r.occurred_at, r.created_at, r.metadata
    FROM ranked r CROSS JOIN LATERAL zb.beta_interval95(r.conf_alpha, r.conf_beta) iv
    ORDER BY r.rk
$$;


--
-- Name: recall_candidates(text, public.vector, text[], zb.memory_layer[], integer, timestamp with time zone, timestamp with time zone, timestamp with time zone, timestamp with time zone, text[], boolean); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.recall_candidates(p_tenant text, p_query public.vector, p_terms text[], p_layers zb.memory_layer[], p_k integer, p_now timestamp with time zone, p_from timestamp with time zone, p_to timestamp with time zone, p_as_of timestamp with time zone, p_contexts text[], p_deep boolean) RETURNS TABLE(id bigint, cosine double precision, bm25 double precision, by_vector boolean, by_lexical boolean, by_context boolean, prev_id bigint, next_id bigint, session_bm25 double precision, session_speakers text[], edge_weight double precision, edge_variance double precision, edge_activated_at timestamp with time zone, doc_count bigint, avgdl double precision, disabled text[])
    LANGUAGE sql STABLE
    SET "hnsw.iterative_scan" TO 'relaxed_order'
    SET "hnsw.ef_search" TO '100'
    AS $$
    WITH stats AS (
        SELECT greatest(coalesce(sum(d.docs), 0), 0)::bigint AS n,
               CASE WHEN coalesce(sum(d.docs), 0) > 0 THEN sum(d.terms)::double precision / sum(d.docs) ELSE 0 END AS avgdl,
               greatest(coalesce(sum(d.terms), 0), 0)::double precision AS total
        FROM zb.lexical_stat_delta d WHERE d.tenant_id = p_tenant
    ), sess_stats AS (
        SELECT greatest(count(*), 1)::double precision AS n FROM zb.session se WHERE se.tenant_id = p_tenant
    ), qt AS (
        SELECT array_agg(t ORDER BY t) AS terms FROM (SELECT DISTINCT t FROM unnest(p_terms) t WHERE t <> '') x
    ), df AS (
        SELECT q.t, x.df, x.sdf
        FROM unnest((SELECT terms FROM qt)) q(t)
        CROSS JOIN LATERAL (
            SELECT count(*) AS df, count(DISTINCT m.session_id) AS sdf FROM zb.memory m
            WHERE m.tenant_id = p_tenant AND m.status = 'active' AND m.terms @> ARRAY[q.t]
        ) x
    ), idf AS (
        SELECT coalesce(array_agg(ln(1 + (s.n - df.df + 0.5) / (df.df + 0.5)) ORDER BY df.t), '{}') AS idf,
               coalesce(array_agg(ln(1 + (greatest(ss.n, df.sdf) - df.sdf + 0.5) / (df.sdf + 0.5)) ORDER BY df.t), '{}') AS sidf
        FROM stats s, sess_stats ss, df
    ), live AS NOT MATERIALIZED (
        SELECT m.*, coalesce(m.occurred_at, m.created_at) AS ord
        FROM zb.memory m
        WHERE m.tenant_id = p_tenant
          AND (m.status = 'active' OR (p_deep AND m.status IN ('consolidated', 'archived')))
          AND (m.valid_to IS NULL OR m.valid_to > coalesce(p_as_of, p_now))
          AND (p_as_of IS NULL OR m.valid_from IS NULL OR m.valid_from <= p_as_of)
          AND (p_as_of IS NULL OR m.created_at <= p_as_of)
          AND (p_contexts IS NULL OR m.context = ANY (p_contexts))
          AND (m.layer = 'core' OR p_from IS NULL
               OR coalesce(m.event_to, m.occurred_at + interval '1 microsecond', m.created_at + interval '1 microsecond') > p_from)
          AND (m.layer = 'core' OR p_to IS NULL OR coalesce(m.event_from, m.occurred_at, m.created_at) < p_to)
    ), vec AS (
        -- Layers without a live embedded memory are skipped: a filtered HNSW scan for them would
        -- walk the whole index of every tenant before giving up.
        SELECT v.id
        FROM (SELECT u.layer FROM unnest(p_layers) AS u(layer)
              WHERE p_query IS NOT NULL
                AND EXISTS (SELECT 1 FROM live e WHERE e.layer = u.layer AND e.embedding IS NOT NULL)) AS l
        CROSS JOIN LATERAL (
            SELECT m.id FROM live m
            WHERE p_query IS NOT NULL AND m.layer = l.layer AND m.embedding IS NOT NULL
            ORDER BY m.embedding <=> p_query
            LIMIT p_k
        ) v
    ), lex AS (
        SELECT r.id FROM (
            SELECT m.id, row_number() OVER (
                PARTITION BY m.layer
                ORDER BY zb.bm25_doc(m.terms, m.term_count, qt.terms, idf.idf, s.avgdl) DESC, m.id) AS rn
            FROM live m, qt, idf, stats s
            WHERE m.layer = ANY (p_layers) AND qt.terms IS NOT NULL AND m.terms && qt.terms
        ) r
        WHERE r.rn <= p_k
    ), base AS (
        SELECT c.id, bool_or(c.v) AS by_vector, bool_or(NOT c.v) AS by_lexical
        FROM (SELECT vec.id, true AS v FROM vec UNION ALL SELECT lex.id, false FROM lex) c
        GROUP BY c.id
    ), nbr AS MATERIALIZED (
        SELECT b.id,
               (SELECT p.id FROM live p
                WHERE p.session_id = m.session_id AND p.layer = ANY (p_layers)
                  AND (p.ord, p.id) < (coalesce(m.occurred_at, m.created_at), m.id)
                ORDER BY p.ord DESC, p.id DESC LIMIT 1) AS prev_id,
               (SELECT p.id FROM live p
                WHERE p.session_id = m.session_id AND p.layer = ANY (p_layers)
                  AND (p.ord, p.id) > (coalesce(m.occurred_at, m.created_at), m.id)
                ORDER BY p.ord, p.id LIMIT 1) AS next_id
        FROM base b
        JOIN zb.memory m ON m.tenant_id = p_tenant AND m.id = b.id
        WHERE m.session_id IS NOT NULL
    ), cand AS MATERIALIZED (
        SELECT x.id, bool_or(x.by_vector) AS by_vector, bool_or(x.by_lexical) AS by_lexical,
               bool_and(x.ctx) AS by_context
        FROM (
            SELECT base.id, base.by_vector, base.by_lexical, false AS ctx FROM base
            UNION ALL SELECT nbr.prev_id, false, false, true FROM nbr WHERE nbr.prev_id IS NOT NULL
            UNION ALL SELECT nbr.next_id, false, false, true FROM nbr WHERE nbr.next_id IS NOT NULL
        ) x
        GROUP BY x.id
    ), cand_nbr AS (
        SELECT c.id, n.prev_id, n.next_id FROM cand c LEFT JOIN nbr n ON n.id = c.id
    ), sessions AS (
        SELECT DISTINCT m.session_id FROM cand c JOIN zb.memory m ON m.tenant_id = p_tenant AND m.id = c.id
        WHERE m.session_id IS NOT NULL
    ), sess_doc AS (
        SELECT se.session_id,
               (SELECT sum(m.term_count) FROM live m WHERE m.session_id = se.session_id)::integer AS len,
               (SELECT array_agg(DISTINCT m.metadata ->> 'speaker') FROM live m
                WHERE m.session_id = se.session_id AND m.metadata ->> 'speaker' IS NOT NULL) AS speakers,
               (SELECT array_agg(u) FROM live m CROSS JOIN LATERAL unnest(m.terms) u
                WHERE m.session_id = se.session_id AND u = ANY (qt.terms)) AS terms
        FROM sessions se CROSS JOIN qt
    ), sess_score AS (
        SELECT d.session_id, d.speakers,
               CASE WHEN qt.terms IS NULL OR d.terms IS NULL THEN 0
                    ELSE zb.bm25_doc(d.terms, coalesce(d.len, 0), qt.terms, idf.sidf,
                                     s.total / ss.n) END AS score
        FROM sess_doc d CROSS JOIN qt CROSS JOIN idf CROSS JOIN stats s CROSS JOIN sess_stats ss
    )
    SELECT m.id,
           CASE WHEN p_query IS NULL OR m.embedding IS NULL THEN 0
                ELSE greatest(-1, least(1, 1 - (m.embedding <=> p_query))) END::double precision,
           CASE WHEN qt.terms IS NULL THEN 0
                ELSE zb.bm25_doc(m.terms, m.term_count, qt.terms, idf.idf, s.avgdl) END,
           c.by_vector, c.by_lexical, c.by_context, cn.prev_id, cn.next_id,
           coalesce(sc.score, 0)::double precision, coalesce(sc.speakers, '{}'),
           coalesce(e.weight, 0), coalesce(e.variance, 1), coalesce(e.last_activated_at, p_now),
           s.n, s.avgdl,
           ARRAY(SELECT a.algorithm FROM zb.algorithm_switch a WHERE a.tenant_id = p_tenant AND NOT a.enabled ORDER BY 1)
    FROM cand c
    JOIN cand_nbr cn ON cn.id = c.id
    JOIN zb.memory m ON m.tenant_id = p_tenant AND m.id = c.id
    LEFT JOIN sess_score sc ON sc.session_id = m.session_id
    CROSS JOIN qt CROSS JOIN idf CROSS JOIN stats s
    LEFT JOIN LATERAL (
        SELECT x.weight, x.variance, x.last_activated_at
        FROM zb.mention mn
        CROSS JOIN LATERAL (
            SELECT ed.weight, ed.variance, ed.last_activated_at FROM zb.edge ed
            WHERE ed.tenant_id = p_tenant AND ed.source_id = mn.entity_id
            UNION ALL
            SELECT ed.weight, ed.variance, ed.last_activated_at FROM zb.edge ed
            WHERE ed.tenant_id = p_tenant AND ed.target_id = mn.entity_id
        ) x
        WHERE mn.tenant_id = p_tenant AND mn.memory_id = m.id
        ORDER BY x.weight / x.variance DESC
        LIMIT 1
    ) e ON true
    ORDER BY m.id
$$;


--
-- Name: recall_check(text, integer, text, integer); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.recall_check(p_query text, p_k integer, p_class text, p_candidates integer) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE
    AS $$
BEGIN
    IF p_query IS NULL OR btrim(p_query) = '' THEN
        RAISE EXCEPTION 'zb.recall: the query is empty' USING ERRCODE = '22023', HINT = 'pass the question as text';
    END IF;
    IF p_k IS NULL OR p_k < 1 OR p_k > 1000 THEN
        RAISE EXCEPTION 'zb.recall: k must be in [1, 1000], got %', p_k USING ERRCODE = '22023';
    END IF;
    IF p_candidates IS NULL OR p_candidates < 1 OR p_candidates > 1000 THEN
        RAISE EXCEPTION 'zb.recall: p_candidates must be in [1, 1000], got %', p_candidates USING ERRCODE = '22023';
    END IF;
    IF p_class IS NULL OR p_class NOT IN ('general', 'temporal', 'factual', 'procedural') THEN
        RAISE EXCEPTION 'zb.recall: unknown query class %', coalesce(p_class, 'NULL') USING ERRCODE = '22023',
            HINT = 'use general, temporal, factual or procedural';
    END IF;
    RETURN true;
END
$$;


--
-- Name: reg_inc_beta(double precision, double precision, double precision); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.reg_inc_beta(x double precision, a double precision, b double precision) RETURNS double precision
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
DECLARE
    front double precision;
    swap boolean := x > (a + 1) / (a + b + 2);
    xx double precision := CASE WHEN x > (a + 1) / (a + b + 2) THEN 1 - x ELSE x END;
    aa double precision := CASE WHEN x > (a + 1) / (a + b + 2) THEN b ELSE a END;
    bb double precision := CASE WHEN x > (a + 1) / (a + b + 2) THEN a ELSE b END;
    f double precision := 1;
    cc double precision := 1;
    d double precision := 0;
    num double precision;
    m integer;
    delta double precision;
BEGIN
    IF x <= 0 THEN RETURN 0; END IF;
    IF x >= 1 THEN RETURN 1; END IF;
    front := zb.exp_or_zero(ln(xx) * aa + ln(1 - xx) * bb
                            - (zb.lgamma(aa) + zb.lgamma(bb) - zb.lgamma(aa + bb))) / aa;
    -- f = 1/(1 + d1/(1 + d2/(1 + ...))), Lentz.
    FOR i IN 0..400 LOOP
        m := i / 2;
        IF i = 0 THEN
            num := 1;
        ELSIF i % 2 = 0 THEN
            num := (m * (bb - m) * xx) / ((aa + 2 * m - 1) * (aa + 2 * m));
        ELSE
            num := -((aa + m) * (aa + bb + m) * xx) / ((aa + 2 * m) * (aa + 2 * m + 1));
        END IF;
        d := 1 + num * d;
        IF abs(d) < 1e-300 THEN d := 1e-300; END IF;
        d := 1 / d;
        cc := 1 + num / cc;
        IF abs(cc) < 1e-300 THEN cc := 1e-300; END IF;
        delta := cc * d;
        f := f * delta;
        IF abs(1 - delta) < 1e-16 THEN EXIT; END IF;
    END LOOP;
    IF swap THEN
        RETURN 1 - front * (f - 1);
    END IF;
    RETURN front * (f - 1);
END
$$;


--
-- Name: remember(text, text, zb.memory_layer, text, jsonb, uuid, timestamp with time zone, text, text, timestamp with time zone); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.remember(p_tenant text, p_content text, p_layer zb.memory_layer DEFAULT NULL::zb.memory_layer, p_context text DEFAULT 'default'::text, p_metadata jsonb DEFAULT '{}'::jsonb, p_session_id uuid DEFAULT NULL::uuid, p_occurred_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_external_id text DEFAULT NULL::text, p_core_label text DEFAULT NULL::text, p_now timestamp with time zone DEFAULT now()) RETURNS bigint
    LANGUAGE plpgsql
    AS $_$
DECLARE
    l  zb.memory_layer := coalesce(p_layer, 'semantic');
    id bigint;
BEGIN
    IF p_tenant IS NULL OR p_tenant !~ '^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$' THEN
        RAISE EXCEPTION 'zb.remember: invalid tenant id %', coalesce(quote_literal(left(p_tenant, 40)), 'NULL')
            USING ERRCODE = '22023', HINT = 'a tenant id is 1-128 letters, digits and _ . : @ -, starting with a letter or digit';
    END IF;
    IF p_content IS NULL OR btrim(p_content) = '' THEN
        RAISE EXCEPTION 'zb.remember: content is empty' USING ERRCODE = '22023';
    END IF;
    IF (l = 'core') <> (p_core_label IS NOT NULL) THEN
        RAISE EXCEPTION 'zb.remember: a core memory needs a core_label, and only a core memory takes one'
            USING ERRCODE = '22023';
    END IF;
    INSERT INTO zb.tenant (id) VALUES (p_tenant) ON CONFLICT DO NOTHING;
    IF p_session_id IS NOT NULL THEN
        INSERT INTO zb.session (tenant_id, id, context, started_at, last_activity_at)
        VALUES (p_tenant, p_session_id, coalesce(p_context, 'default'), p_now, p_now)
        ON CONFLICT (tenant_id, id) DO UPDATE SET last_activity_at = greatest(zb.session.last_activity_at, p_now);
    END IF;
    INSERT INTO zb.memory (tenant_id, context, layer, content, session_id, external_id, core_label, occurred_at,
                           created_at, updated_at, last_accessed_at, metadata, stability, terms, term_count)
    SELECT p_tenant, coalesce(p_context, 'default'), l, p_content, p_session_id, p_external_id, p_core_label,
           p_occurred_at, p_now, p_now, p_now, coalesce(p_metadata, '{}'),
           CASE WHEN l IN ('working', 'short_term', 'episodic') THEN 1
                WHEN l = 'core' THEN NULL ELSE 7 END,
           t.terms, cardinality(t.terms)
    FROM (SELECT zb.text_terms(p_content) AS terms) t
    RETURNING zb.memory.id INTO id;
    RETURN id;
END
$_$;


--
-- Name: retrievability(double precision, double precision, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.retrievability(stability_days double precision, m_emo double precision, last_access timestamp with time zone, p_now timestamp with time zone) RETURNS double precision
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT CASE
        WHEN stability_days IS NULL OR NOT (stability_days > 0)
             OR stability_days * 86400e9 > 9223372036854775807::double precision / 3
             OR m_emo IS NULL OR NOT (m_emo BETWEEN 1 AND 3) THEN 1
        WHEN p_now <= last_access THEN 1
        ELSE zb.exp_or_zero(-(extract(epoch FROM p_now - last_access)::double precision)
                 / (stability_days * 86400 * m_emo))
    END::double precision
$$;


--
-- Name: stability_lock(integer, double precision, double precision, boolean); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.stability_lock(accesses integer, confidence double precision, age_days double precision, is_core boolean, OUT lock_level double precision, OUT rho double precision, OUT threshold double precision, OUT locked boolean) RETURNS record
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT l.l, r.r, 0.5 + 0.3 * l.l * r.r, l.l >= 0.5
    FROM (SELECT CASE WHEN accesses >= 0 AND confidence BETWEEN 0 AND 1 AND age_days >= 0
                           AND age_days < 'Infinity'::double precision
                      THEN least(1, greatest(0,
                           0.3 * ln(1 + least(accesses, 10)::double precision) / ln(11::double precision)
                           + 0.3 * confidence + 0.2 * least(age_days / 365, 1)
                           + CASE WHEN is_core THEN 0.2 ELSE 0 END)) END AS l) l,
         (SELECT CASE WHEN age_days >= 0 AND age_days < 'Infinity'::double precision
                      THEN 1 + 0.1 * ln(1 + least(age_days, 365000)) / ln(2::double precision) END AS r) r
$$;


--
-- Name: text_terms(text, regconfig); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.text_terms(p_text text, p_config regconfig DEFAULT 'english'::regconfig) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT coalesce(array_agg(l.lexeme ORDER BY p.pos, l.lexeme), '{}')
    FROM unnest(to_tsvector(p_config, p_text)) l
    CROSS JOIN LATERAL unnest(l.positions) p(pos)
$$;


--
-- Name: token_jaccard(text[], text[]); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.token_jaccard(a text[], b text[]) RETURNS double precision
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT CASE
        WHEN coalesce(cardinality(a), 0) = 0 AND coalesce(cardinality(b), 0) = 0 THEN 1
        WHEN coalesce(cardinality(a), 0) = 0 OR coalesce(cardinality(b), 0) = 0 THEN 0
        ELSE (SELECT count(*) FROM (SELECT unnest(a) INTERSECT SELECT unnest(b)) i)::double precision
             / (SELECT count(*) FROM (SELECT unnest(a) UNION SELECT unnest(b)) u)
    END::double precision
$$;


--
-- Name: tokens(text); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.tokens(p_text text) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT coalesce(array_agg(m[1] ORDER BY n), '{}')
    FROM regexp_matches(regexp_replace(lower(normalize(coalesce(p_text, ''), NFKC)), '[’ʼ]', '''', 'g'),
                        '([[:alnum:]]+(''[[:alnum:]]+)*)', 'g') WITH ORDINALITY AS x(m, n)
$$;


--
-- Name: triple_copy_strength(double precision, double precision, double precision, timestamp with time zone, timestamp with time zone, timestamp with time zone, double precision, double precision, double precision); Type: FUNCTION; Schema: zb; Owner: -
--

CREATE FUNCTION zb.triple_copy_strength(fast double precision, medium double precision, deep double precision, stored_at timestamp with time zone, promoted_at timestamp with time zone, p_now timestamp with time zone, tau_fast_seconds double precision DEFAULT 14400, tau_medium_seconds double precision DEFAULT 1209600, tau_deep_seconds double precision DEFAULT 604800) RETURNS double precision
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT CASE WHEN p_now < stored_at THEN 0 ELSE greatest(
        zb.copy_strength('fast', fast, tau_fast_seconds, stored_at, p_now),
        zb.copy_strength('medium', medium, tau_medium_seconds, stored_at, p_now),
        CASE WHEN promoted_at IS NULL THEN 0
             ELSE zb.copy_strength('deep', deep, tau_deep_seconds, promoted_at, p_now) END)
    END::double precision
$$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: river_job; Type: TABLE; Schema: river; Owner: -
--

CREATE TABLE river.river_job (
    id bigint NOT NULL,
    state river.river_job_state DEFAULT 'available'::river.river_job_state NOT NULL,
    attempt smallint DEFAULT 0 NOT NULL,
    max_attempts smallint DEFAULT 25 NOT NULL,
    attempted_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    finalized_at timestamp with time zone,
    scheduled_at timestamp with time zone DEFAULT now() NOT NULL,
    priority smallint DEFAULT 1 NOT NULL,
    args jsonb NOT NULL,
    attempted_by text[],
    errors jsonb[],
    kind text NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    queue text DEFAULT 'default'::text NOT NULL,
    tags character varying(255)[] DEFAULT '{}'::character varying[] NOT NULL,
    unique_key bytea,
    unique_states bit(8),
    CONSTRAINT finalized_or_finalized_at_null CHECK ((((finalized_at IS NULL) AND (state <> ALL (ARRAY['cancelled'::river.river_job_state, 'completed'::river.river_job_state, 'discarded'::river.river_job_state]))) OR ((finalized_at IS NOT NULL) AND (state = ANY (ARRAY['cancelled'::river.river_job_state, 'completed'::river.river_job_state, 'discarded'::river.river_job_state]))))),
    CONSTRAINT kind_length CHECK (((char_length(kind) > 0) AND (char_length(kind) < 128))),
    CONSTRAINT max_attempts_is_positive CHECK ((max_attempts > 0)),
    CONSTRAINT priority_in_range CHECK (((priority >= 1) AND (priority <= 4))),
    CONSTRAINT queue_length CHECK (((char_length(queue) > 0) AND (char_length(queue) < 128)))
);


--
-- Name: river_job_id_seq; Type: SEQUENCE; Schema: river; Owner: -
--

CREATE SEQUENCE river.river_job_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: river_job_id_seq; Type: SEQUENCE OWNED BY; Schema: river; Owner: -
--

ALTER SEQUENCE river.river_job_id_seq OWNED BY river.river_job.id;


--
-- Name: river_leader; Type: TABLE; Schema: river; Owner: -
--

CREATE UNLOGGED TABLE river.river_leader (
    elected_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    leader_id text NOT NULL,
    name text DEFAULT 'default'::text NOT NULL,
    CONSTRAINT leader_id_length CHECK (((char_length(leader_id) > 0) AND (char_length(leader_id) < 128))),
    CONSTRAINT name_length CHECK ((name = 'default'::text))
);


--
-- Name: river_migration; Type: TABLE; Schema: river; Owner: -
--

CREATE TABLE river.river_migration (
    line text NOT NULL,
    version bigint NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT line_length CHECK (((char_length(line) > 0) AND (char_length(line) < 128))),
    CONSTRAINT version_gte_1 CHECK ((version >= 1))
);


--
-- Name: river_notification; Type: TABLE; Schema: river; Owner: -
--

CREATE TABLE river.river_notification (
    id bigint NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    payload text NOT NULL,
    topic text NOT NULL,
    CONSTRAINT topic_length CHECK (((length(topic) > 0) AND (length(topic) < 128)))
);


--
-- Name: river_notification_id_seq; Type: SEQUENCE; Schema: river; Owner: -
--

CREATE SEQUENCE river.river_notification_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: river_notification_id_seq; Type: SEQUENCE OWNED BY; Schema: river; Owner: -
--

ALTER SEQUENCE river.river_notification_id_seq OWNED BY river.river_notification.id;


--
-- Name: river_queue; Type: TABLE; Schema: river; Owner: -
--

CREATE TABLE river.river_queue (
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    paused_at timestamp with time zone,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: algorithm_switch; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.algorithm_switch (
    tenant_id text NOT NULL,
    algorithm text NOT NULL,
    enabled boolean NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    updated_by text DEFAULT 'system'::text NOT NULL,
    CONSTRAINT algorithm_switch_algorithm_check CHECK ((algorithm = ANY (ARRAY['decay'::text, 'two_factor_hebbian'::text, 'vmpfc_fsrs'::text, 'sim_selection_sleep'::text, 'bayesian_confidence'::text, 'query_routing'::text, 'imad_debate'::text, 'spectral_health'::text, 'compositional_context'::text, 'ib_budget'::text, 'dual_process'::text, 'hyperagent'::text, 'neuromodulator'::text, 'reconsolidation'::text, 'triple_copy'::text, 'priority_map'::text, 'stability_protector'::text, 'metacog_monitor'::text, 'stc_rescue'::text, 'gwt'::text, 'prospective'::text, 'curiosity'::text])))
);


--
-- Name: approval_request; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.approval_request (
    tenant_id text NOT NULL,
    id bigint NOT NULL,
    operation text NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    requested_by text NOT NULL,
    requested_at timestamp with time zone NOT NULL,
    decided_by text,
    decided_at timestamp with time zone,
    reason text,
    CONSTRAINT approval_request_check CHECK (((status = 'pending'::text) = (decided_at IS NULL))),
    CONSTRAINT approval_request_check1 CHECK (((decided_at IS NULL) OR (decided_at >= requested_at))),
    CONSTRAINT approval_request_operation_check CHECK ((operation = ANY (ARRAY['tenant_erase'::text, 'context_erase'::text, 'core_overwrite'::text, 'algorithm_switch'::text, 'export'::text, 'rollback'::text]))),
    CONSTRAINT approval_request_payload_check CHECK ((jsonb_typeof(payload) = 'object'::text)),
    CONSTRAINT approval_request_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'approved'::text, 'rejected'::text, 'expired'::text, 'executed'::text])))
);


--
-- Name: approval_request_id_seq; Type: SEQUENCE; Schema: zb; Owner: -
--

ALTER TABLE zb.approval_request ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME zb.approval_request_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: audit_event; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.audit_event (
    tenant_id text NOT NULL,
    id bigint NOT NULL,
    at timestamp with time zone NOT NULL,
    actor text NOT NULL,
    action text NOT NULL,
    memory_id bigint,
    detail jsonb DEFAULT '{}'::jsonb NOT NULL,
    CONSTRAINT audit_event_action_check CHECK ((action ~ '^[a-z_]+\.[a-z_]+$'::text)),
    CONSTRAINT audit_event_actor_check CHECK (((length(actor) >= 1) AND (length(actor) <= 200))),
    CONSTRAINT audit_event_detail_check CHECK ((jsonb_typeof(detail) = 'object'::text))
);


--
-- Name: audit_event_id_seq; Type: SEQUENCE; Schema: zb; Owner: -
--

ALTER TABLE zb.audit_event ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME zb.audit_event_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: confidence_evidence; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.confidence_evidence (
    tenant_id text NOT NULL,
    id bigint NOT NULL,
    memory_id bigint NOT NULL,
    kind text NOT NULL,
    weight double precision NOT NULL,
    source text DEFAULT 'system'::text NOT NULL,
    source_memory_id bigint,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT confidence_evidence_kind_check CHECK ((kind = ANY (ARRAY['confirm'::text, 'contradict'::text, 'prior'::text, 'propagated'::text]))),
    CONSTRAINT confidence_evidence_source_check CHECK (((length(source) >= 1) AND (length(source) <= 100))),
    CONSTRAINT confidence_evidence_weight_check CHECK (((weight > (0)::double precision) AND (weight <= (100)::double precision)))
);


--
-- Name: confidence_evidence_id_seq; Type: SEQUENCE; Schema: zb; Owner: -
--

ALTER TABLE zb.confidence_evidence ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME zb.confidence_evidence_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: config; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.config (
    key text NOT NULL,
    value text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT config_embedding_dim_valid CHECK (((key <> 'embedding_dim'::text) OR ((value ~ '^[0-9]{1,5}$'::text) AND (((value)::integer >= 1) AND ((value)::integer <= 16000))))),
    CONSTRAINT config_key_check CHECK ((key ~ '^[a-z][a-z0-9_]*$'::text))
);


--
-- Name: consent; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.consent (
    tenant_id text NOT NULL,
    id bigint NOT NULL,
    subject text NOT NULL,
    purpose text NOT NULL,
    context text,
    granted_at timestamp with time zone NOT NULL,
    revoked_at timestamp with time zone,
    evidence text DEFAULT ''::text NOT NULL,
    CONSTRAINT consent_check CHECK (((revoked_at IS NULL) OR (revoked_at >= granted_at))),
    CONSTRAINT consent_context_check CHECK (((context IS NULL) OR (context ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'::text))),
    CONSTRAINT consent_purpose_check CHECK (((length(purpose) >= 1) AND (length(purpose) <= 200))),
    CONSTRAINT consent_subject_check CHECK (((length(subject) >= 1) AND (length(subject) <= 200)))
);


--
-- Name: consent_id_seq; Type: SEQUENCE; Schema: zb; Owner: -
--

ALTER TABLE zb.consent ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME zb.consent_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: context_policy; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.context_policy (
    tenant_id text NOT NULL,
    reader_context text NOT NULL,
    source_context text NOT NULL,
    allowed boolean NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT context_policy_check CHECK ((reader_context <> source_context)),
    CONSTRAINT context_policy_reader_context_check CHECK ((reader_context ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'::text)),
    CONSTRAINT context_policy_source_context_check CHECK ((source_context ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'::text))
);


--
-- Name: debate; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.debate (
    tenant_id text NOT NULL,
    id bigint NOT NULL,
    memory_id bigint NOT NULL,
    contradicted bigint[] NOT NULL,
    positions jsonb NOT NULL,
    outcome text NOT NULL,
    reason text NOT NULL,
    judge text DEFAULT 'offline'::text NOT NULL,
    decided_at timestamp with time zone NOT NULL,
    CONSTRAINT debate_contradicted_check CHECK ((cardinality(contradicted) >= 2)),
    CONSTRAINT debate_outcome_check CHECK ((outcome = ANY (ARRAY['keep_both'::text, 'supersede'::text, 'reject'::text]))),
    CONSTRAINT debate_positions_check CHECK ((jsonb_typeof(positions) = 'array'::text))
);


--
-- Name: debate_id_seq; Type: SEQUENCE; Schema: zb; Owner: -
--

ALTER TABLE zb.debate ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME zb.debate_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: memory; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.memory (
    tenant_id text NOT NULL,
    id bigint NOT NULL,
    context text DEFAULT 'default'::text NOT NULL,
    layer zb.memory_layer NOT NULL,
    kind text DEFAULT 'fact'::text NOT NULL,
    content text NOT NULL,
    ts_config regconfig DEFAULT 'simple'::regconfig NOT NULL,
    content_tsv tsvector GENERATED ALWAYS AS (to_tsvector(ts_config, content)) STORED,
    embedding public.vector(32),
    embedding_model text,
    session_id uuid,
    external_id text,
    core_label text,
    subject text,
    attribute text,
    occurred_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    derived_at timestamp with time zone,
    source_ids bigint[] DEFAULT '{}'::bigint[] NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    status zb.memory_status DEFAULT 'active'::zb.memory_status NOT NULL,
    superseded_by bigint,
    valid_from timestamp with time zone,
    valid_to timestamp with time zone,
    valence real DEFAULT 0 NOT NULL,
    arousal real DEFAULT 0 NOT NULL,
    significance real DEFAULT 0 NOT NULL,
    importance real DEFAULT 0.5 NOT NULL,
    priority real DEFAULT 0.5 NOT NULL,
    access_count integer DEFAULT 0 NOT NULL,
    last_accessed_at timestamp with time zone NOT NULL,
    stability double precision,
    difficulty double precision DEFAULT 5 NOT NULL,
    fade_at timestamp with time zone,
    value_estimate double precision DEFAULT 0 NOT NULL,
    conf_alpha double precision DEFAULT 1 NOT NULL,
    conf_beta double precision DEFAULT 1 NOT NULL,
    confidence double precision DEFAULT 0.5 NOT NULL,
    ai_generated boolean DEFAULT false NOT NULL,
    terms text[] DEFAULT '{}'::text[] NOT NULL,
    term_count integer DEFAULT 0 NOT NULL,
    event_from timestamp with time zone,
    event_to timestamp with time zone,
    CONSTRAINT memory_access_count_check CHECK ((access_count >= 0)),
    CONSTRAINT memory_arousal_check CHECK (((arousal >= (0)::double precision) AND (arousal <= (1)::double precision))),
    CONSTRAINT memory_check CHECK (((content <> ''::text) OR (status = 'erased'::zb.memory_status))),
    CONSTRAINT memory_check1 CHECK (((valid_to IS NULL) OR (valid_from IS NULL) OR (valid_to > valid_from))),
    CONSTRAINT memory_check2 CHECK (((layer = 'core'::zb.memory_layer) = (core_label IS NOT NULL))),
    CONSTRAINT memory_check3 CHECK (((layer = 'core'::zb.memory_layer) OR (stability IS NOT NULL))),
    CONSTRAINT memory_check4 CHECK (((superseded_by IS NULL) OR (superseded_by <> id))),
    CONSTRAINT memory_check5 CHECK (((embedding IS NULL) OR (embedding_model IS NOT NULL))),
    CONSTRAINT memory_conf_alpha_check CHECK ((conf_alpha > (0)::double precision)),
    CONSTRAINT memory_conf_beta_check CHECK ((conf_beta > (0)::double precision)),
    CONSTRAINT memory_confidence_check CHECK (((confidence >= (0)::double precision) AND (confidence <= (1)::double precision))),
    CONSTRAINT memory_content_check CHECK ((octet_length(content) <= 1048576)),
    CONSTRAINT memory_context_check CHECK ((context ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'::text)),
    CONSTRAINT memory_core_label_check CHECK (((core_label IS NULL) OR ((length(core_label) >= 1) AND (length(core_label) <= 200)))),
    CONSTRAINT memory_difficulty_check CHECK (((difficulty >= (1)::double precision) AND (difficulty <= (10)::double precision))),
    CONSTRAINT memory_event_span_valid CHECK (((event_to IS NULL) OR (event_from IS NULL) OR (event_to > event_from))),
    CONSTRAINT memory_external_id_check CHECK (((external_id IS NULL) OR ((length(external_id) >= 1) AND (length(external_id) <= 512)))),
    CONSTRAINT memory_importance_check CHECK (((importance >= (0)::double precision) AND (importance <= (1)::double precision))),
    CONSTRAINT memory_kind_check CHECK ((kind = ANY (ARRAY['fact'::text, 'episode'::text, 'interaction'::text, 'skill'::text, 'identity'::text, 'schema'::text, 'hypothesis'::text, 'focus'::text, 'entity_link'::text, 'counterfactual'::text]))),
    CONSTRAINT memory_metadata_check CHECK ((jsonb_typeof(metadata) = 'object'::text)),
    CONSTRAINT memory_occurred_at_check CHECK (((occurred_at IS NULL) OR ((occurred_at >= '0001-01-01 00:00:00+00'::timestamp with time zone) AND (occurred_at <= '9999-12-31 00:00:00+00'::timestamp with time zone)))),
    CONSTRAINT memory_priority_check CHECK (((priority >= (0)::double precision) AND (priority <= (1)::double precision))),
    CONSTRAINT memory_significance_check CHECK (((significance >= (0)::double precision) AND (significance <= (1)::double precision))),
    CONSTRAINT memory_stability_check CHECK (((stability > (0)::double precision) AND (stability < ('1000000'::numeric)::double precision))),
    CONSTRAINT memory_term_count_check CHECK ((term_count >= 0)),
    CONSTRAINT memory_valence_check CHECK (((valence >= ('-1'::integer)::double precision) AND (valence <= (1)::double precision))),
    CONSTRAINT memory_value_estimate_check CHECK (((value_estimate >= ('-1000000'::numeric)::double precision) AND (value_estimate <= ('1000000'::numeric)::double precision)))
);


--
-- Name: review_state; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.review_state (
    tenant_id text NOT NULL,
    memory_id bigint NOT NULL,
    stability double precision DEFAULT 0 NOT NULL,
    difficulty double precision DEFAULT 0 NOT NULL,
    due timestamp with time zone NOT NULL,
    reps integer DEFAULT 0 NOT NULL,
    lapses integer DEFAULT 0 NOT NULL,
    state smallint DEFAULT 0 NOT NULL,
    elapsed_days integer DEFAULT 0 NOT NULL,
    scheduled_days integer DEFAULT 0 NOT NULL,
    last_review timestamp with time zone,
    context_embedding public.vector(32),
    accesses_at_review integer DEFAULT 0 NOT NULL,
    CONSTRAINT review_state_accesses_at_review_check CHECK ((accesses_at_review >= 0)),
    CONSTRAINT review_state_difficulty_check CHECK (((difficulty >= (0)::double precision) AND (difficulty <= (10)::double precision))),
    CONSTRAINT review_state_elapsed_days_check CHECK ((elapsed_days >= 0)),
    CONSTRAINT review_state_lapses_check CHECK ((lapses >= 0)),
    CONSTRAINT review_state_reps_check CHECK ((reps >= 0)),
    CONSTRAINT review_state_scheduled_days_check CHECK ((scheduled_days >= 0)),
    CONSTRAINT review_state_stability_check CHECK ((stability >= (0)::double precision)),
    CONSTRAINT review_state_state_check CHECK (((state >= 0) AND (state <= 3)))
);


--
-- Name: due_review; Type: VIEW; Schema: zb; Owner: -
--

CREATE VIEW zb.due_review AS
 SELECT r.tenant_id,
    r.memory_id,
    m.layer,
    m.content,
    r.due,
    r.stability,
    r.difficulty,
    r.reps,
    r.lapses,
    r.state,
    r.last_review
   FROM (zb.review_state r
     JOIN zb.memory m ON (((m.tenant_id = r.tenant_id) AND (m.id = r.memory_id))))
  WHERE ((r.due <= now()) AND (m.status = 'active'::zb.memory_status));


--
-- Name: edge; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.edge (
    tenant_id text NOT NULL,
    id bigint NOT NULL,
    source_id bigint NOT NULL,
    target_id bigint NOT NULL,
    relation zb.edge_relation DEFAULT 'co_occurs'::zb.edge_relation NOT NULL,
    weight double precision DEFAULT 0.5 NOT NULL,
    variance double precision DEFAULT 1 NOT NULL,
    activation_count integer DEFAULT 0 NOT NULL,
    origin text DEFAULT 'hebbian'::text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    last_activated_at timestamp with time zone NOT NULL,
    CONSTRAINT edge_activation_count_check CHECK ((activation_count >= 0)),
    CONSTRAINT edge_check CHECK ((source_id <> target_id)),
    CONSTRAINT edge_origin_check CHECK ((origin = ANY (ARRAY['hebbian'::text, 'extraction'::text, 'sleep'::text, 'user'::text, 'consolidation'::text]))),
    CONSTRAINT edge_variance_check CHECK (((variance >= (0.01)::double precision) AND (variance <= (100)::double precision))),
    CONSTRAINT edge_weight_check CHECK (((weight >= (0)::double precision) AND (weight <= (10)::double precision)))
);


--
-- Name: edge_id_seq; Type: SEQUENCE; Schema: zb; Owner: -
--

ALTER TABLE zb.edge ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME zb.edge_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: entity; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.entity (
    tenant_id text NOT NULL,
    id bigint NOT NULL,
    context text DEFAULT 'default'::text NOT NULL,
    name text NOT NULL,
    normalized_name text NOT NULL,
    type text DEFAULT 'thing'::text NOT NULL,
    embedding public.vector(32),
    embedding_model text,
    mention_count integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT entity_check CHECK (((embedding IS NULL) OR (embedding_model IS NOT NULL))),
    CONSTRAINT entity_context_check CHECK ((context ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'::text)),
    CONSTRAINT entity_mention_count_check CHECK ((mention_count >= 0)),
    CONSTRAINT entity_name_check CHECK (((length(name) >= 1) AND (length(name) <= 500))),
    CONSTRAINT entity_normalized_name_check CHECK (((length(normalized_name) >= 1) AND (length(normalized_name) <= 500))),
    CONSTRAINT entity_type_check CHECK ((type ~ '^[a-z][a-z_]{0,31}$'::text))
);


--
-- Name: entity_id_seq; Type: SEQUENCE; Schema: zb; Owner: -
--

ALTER TABLE zb.entity ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME zb.entity_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: hyperagent_adjustment; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.hyperagent_adjustment (
    tenant_id text NOT NULL,
    id bigint NOT NULL,
    parameter text NOT NULL,
    old_value double precision NOT NULL,
    new_value double precision NOT NULL,
    reason text NOT NULL,
    signals jsonb DEFAULT '{}'::jsonb NOT NULL,
    applied_at timestamp with time zone NOT NULL,
    reverted_at timestamp with time zone,
    CONSTRAINT hyperagent_adjustment_check CHECK (((reverted_at IS NULL) OR (reverted_at >= applied_at))),
    CONSTRAINT hyperagent_adjustment_signals_check CHECK ((jsonb_typeof(signals) = 'object'::text))
);


--
-- Name: hyperagent_adjustment_id_seq; Type: SEQUENCE; Schema: zb; Owner: -
--

ALTER TABLE zb.hyperagent_adjustment ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME zb.hyperagent_adjustment_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: kg_edge_importance; Type: VIEW; Schema: zb; Owner: -
--

CREATE VIEW zb.kg_edge_importance AS
 SELECT e.tenant_id,
    e.id,
    e.source_id,
    s.name AS source_name,
    e.target_id,
    t.name AS target_name,
    e.relation,
    e.weight,
    e.variance,
    ((1)::double precision / e.variance) AS importance,
    (e.weight / e.variance) AS strength,
    e.activation_count,
    e.last_activated_at
   FROM ((zb.edge e
     JOIN zb.entity s ON (((s.tenant_id = e.tenant_id) AND (s.id = e.source_id))))
     JOIN zb.entity t ON (((t.tenant_id = e.tenant_id) AND (t.id = e.target_id))));


--
-- Name: lability_window; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.lability_window (
    tenant_id text NOT NULL,
    memory_id bigint NOT NULL,
    opened_at timestamp with time zone NOT NULL,
    closes_at timestamp with time zone NOT NULL,
    CONSTRAINT lability_window_check CHECK ((closes_at > opened_at))
);


--
-- Name: lexical_stat_delta; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.lexical_stat_delta (
    tenant_id text NOT NULL,
    id bigint NOT NULL,
    docs bigint NOT NULL,
    terms bigint NOT NULL
);


--
-- Name: lexical_stat_delta_id_seq; Type: SEQUENCE; Schema: zb; Owner: -
--

ALTER TABLE zb.lexical_stat_delta ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME zb.lexical_stat_delta_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: memory_id_seq; Type: SEQUENCE; Schema: zb; Owner: -
--

ALTER TABLE zb.memory ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME zb.memory_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: memory_link; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.memory_link (
    tenant_id text NOT NULL,
    source_id bigint NOT NULL,
    target_id bigint NOT NULL,
    relation zb.edge_relation NOT NULL,
    weight double precision DEFAULT 1 NOT NULL,
    origin text DEFAULT 'derive'::text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT memory_link_check CHECK ((source_id <> target_id)),
    CONSTRAINT memory_link_origin_check CHECK ((origin = ANY (ARRAY['derive'::text, 'reconsolidation'::text, 'debate'::text, 'sleep'::text, 'consolidation'::text, 'user'::text]))),
    CONSTRAINT memory_link_weight_check CHECK (((weight >= (0)::double precision) AND (weight <= (10)::double precision)))
);


--
-- Name: stability_lock; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.stability_lock (
    tenant_id text NOT NULL,
    memory_id bigint NOT NULL,
    lock_level double precision NOT NULL,
    rho double precision NOT NULL,
    threshold double precision NOT NULL,
    computed_at timestamp with time zone NOT NULL,
    CONSTRAINT stability_lock_lock_level_check CHECK (((lock_level >= (0)::double precision) AND (lock_level <= (1)::double precision))),
    CONSTRAINT stability_lock_rho_check CHECK ((rho >= (1)::double precision)),
    CONSTRAINT stability_lock_threshold_check CHECK ((threshold >= (0.5)::double precision))
);


--
-- Name: triple_copy; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.triple_copy (
    tenant_id text NOT NULL,
    memory_id bigint NOT NULL,
    copy text NOT NULL,
    initial_strength double precision NOT NULL,
    tau_seconds double precision NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT triple_copy_copy_check CHECK ((copy = ANY (ARRAY['fast'::text, 'medium'::text, 'deep'::text]))),
    CONSTRAINT triple_copy_initial_strength_check CHECK (((initial_strength >= (0)::double precision) AND (initial_strength <= (10)::double precision))),
    CONSTRAINT triple_copy_tau_seconds_check CHECK ((tau_seconds > (0)::double precision))
);


--
-- Name: memory_live_now; Type: VIEW; Schema: zb; Owner: -
--

CREATE VIEW zb.memory_live_now AS
 SELECT m.tenant_id,
    m.id,
    m.layer,
    m.kind,
    m.context,
    m.content,
    m.created_at,
    m.last_accessed_at,
    m.access_count,
    m.stability AS stability_days,
    e.m AS m_emo,
    zb.retrievability(m.stability, e.m, m.last_accessed_at, now()) AS retrievability,
    COALESCE(tc.s, (0)::double precision) AS triple_copy_strength,
    m.conf_alpha,
    m.conf_beta,
    (m.conf_alpha / (m.conf_alpha + m.conf_beta)) AS confidence_mean,
    iv.lower AS confidence_low,
    iv.upper AS confidence_high,
    m.confidence,
    sl.lock_level,
    sl.threshold AS overwrite_threshold,
    m.source_ids
   FROM ((((zb.memory m
     CROSS JOIN LATERAL ( SELECT zb.emotional_multiplier((m.valence)::double precision, (m.arousal)::double precision, (m.significance)::double precision) AS m) e)
     CROSS JOIN LATERAL zb.beta_interval95(m.conf_alpha, m.conf_beta) iv(lower, upper))
     LEFT JOIN LATERAL ( SELECT max(zb.copy_strength(t.copy, t.initial_strength, t.tau_seconds, t.created_at, now())) AS s
           FROM zb.triple_copy t
          WHERE ((t.tenant_id = m.tenant_id) AND (t.memory_id = m.id))) tc ON (true))
     LEFT JOIN zb.stability_lock sl ON (((sl.tenant_id = m.tenant_id) AND (sl.memory_id = m.id))))
  WHERE (m.status = 'active'::zb.memory_status);


--
-- Name: mention; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.mention (
    tenant_id text NOT NULL,
    memory_id bigint NOT NULL,
    entity_id bigint NOT NULL,
    span_start integer,
    span_end integer,
    CONSTRAINT mention_check CHECK (((span_end IS NULL) OR (span_end > span_start))),
    CONSTRAINT mention_span_start_check CHECK ((span_start >= 0))
);


--
-- Name: metacog_event; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.metacog_event (
    tenant_id text NOT NULL,
    id bigint NOT NULL,
    kind text NOT NULL,
    value double precision NOT NULL,
    alert boolean DEFAULT false NOT NULL,
    detail jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT metacog_event_detail_check CHECK ((jsonb_typeof(detail) = 'object'::text)),
    CONSTRAINT metacog_event_kind_check CHECK ((kind ~ '^[a-z][a-z_]{0,63}$'::text))
);


--
-- Name: metacog_event_id_seq; Type: SEQUENCE; Schema: zb; Owner: -
--

ALTER TABLE zb.metacog_event ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME zb.metacog_event_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: neuromodulator_event; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.neuromodulator_event (
    tenant_id text NOT NULL,
    id bigint NOT NULL,
    event text NOT NULL,
    magnitude real DEFAULT 1 NOT NULL,
    memory_id bigint,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT neuromodulator_event_event_check CHECK ((event = ANY (ARRAY['novelty'::text, 'prediction_error'::text, 'reward'::text, 'rejection'::text, 'routine'::text, 'confirmation'::text, 'stable_focus'::text, 'exploration'::text, 'context_switch'::text]))),
    CONSTRAINT neuromodulator_event_magnitude_check CHECK (((magnitude >= (0)::double precision) AND (magnitude <= (1)::double precision)))
);


--
-- Name: neuromodulator_event_id_seq; Type: SEQUENCE; Schema: zb; Owner: -
--

ALTER TABLE zb.neuromodulator_event ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME zb.neuromodulator_event_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: neuromodulator_state; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.neuromodulator_state (
    tenant_id text NOT NULL,
    da_tonic real DEFAULT 0.5 NOT NULL,
    ne_tonic real DEFAULT 0.5 NOT NULL,
    ht_tonic real DEFAULT 0.5 NOT NULL,
    ach_tonic real DEFAULT 0.5 NOT NULL,
    da_phasic real DEFAULT 0 NOT NULL,
    ne_phasic real DEFAULT 0 NOT NULL,
    ht_phasic real DEFAULT 0 NOT NULL,
    ach_phasic real DEFAULT 0 NOT NULL,
    phasic_at timestamp with time zone,
    last_tick_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT neuromodulator_state_ach_phasic_check CHECK (((ach_phasic >= ('-1'::integer)::double precision) AND (ach_phasic <= (1)::double precision))),
    CONSTRAINT neuromodulator_state_ach_tonic_check CHECK (((ach_tonic >= (0)::double precision) AND (ach_tonic <= (1)::double precision))),
    CONSTRAINT neuromodulator_state_da_phasic_check CHECK (((da_phasic >= ('-1'::integer)::double precision) AND (da_phasic <= (1)::double precision))),
    CONSTRAINT neuromodulator_state_da_tonic_check CHECK (((da_tonic >= (0)::double precision) AND (da_tonic <= (1)::double precision))),
    CONSTRAINT neuromodulator_state_ht_phasic_check CHECK (((ht_phasic >= ('-1'::integer)::double precision) AND (ht_phasic <= (1)::double precision))),
    CONSTRAINT neuromodulator_state_ht_tonic_check CHECK (((ht_tonic >= (0)::double precision) AND (ht_tonic <= (1)::double precision))),
    CONSTRAINT neuromodulator_state_ne_phasic_check CHECK (((ne_phasic >= ('-1'::integer)::double precision) AND (ne_phasic <= (1)::double precision))),
    CONSTRAINT neuromodulator_state_ne_tonic_check CHECK (((ne_tonic >= (0)::double precision) AND (ne_tonic <= (1)::double precision)))
);


--
-- Name: procedure; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.procedure (
    tenant_id text NOT NULL,
    memory_id bigint NOT NULL,
    trigger_text text DEFAULT ''::text NOT NULL,
    steps text[] DEFAULT '{}'::text[] NOT NULL,
    tools text[] DEFAULT '{}'::text[] NOT NULL,
    success_count integer DEFAULT 0 NOT NULL,
    failure_count integer DEFAULT 0 NOT NULL,
    last_outcome text,
    last_used_at timestamp with time zone,
    CONSTRAINT procedure_failure_count_check CHECK ((failure_count >= 0)),
    CONSTRAINT procedure_last_outcome_check CHECK ((last_outcome = ANY (ARRAY['success'::text, 'failure'::text]))),
    CONSTRAINT procedure_success_count_check CHECK ((success_count >= 0))
);


--
-- Name: prospective_intention; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.prospective_intention (
    tenant_id text NOT NULL,
    id bigint NOT NULL,
    context text DEFAULT 'default'::text NOT NULL,
    content text NOT NULL,
    trigger_kind text NOT NULL,
    due_at timestamp with time zone,
    cue text,
    cue_embedding public.vector(32),
    status text DEFAULT 'pending'::text NOT NULL,
    memory_id bigint,
    fired_at timestamp with time zone,
    fired_by bigint,
    expires_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT prospective_intention_check CHECK (((trigger_kind <> 'time'::text) OR (due_at IS NOT NULL))),
    CONSTRAINT prospective_intention_check1 CHECK (((trigger_kind <> 'cue'::text) OR ((cue IS NOT NULL) AND (cue <> ''::text)))),
    CONSTRAINT prospective_intention_check2 CHECK (((status = 'fired'::text) = (fired_at IS NOT NULL))),
    CONSTRAINT prospective_intention_content_check CHECK ((content <> ''::text)),
    CONSTRAINT prospective_intention_context_check CHECK ((context ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'::text)),
    CONSTRAINT prospective_intention_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'fired'::text, 'dismissed'::text, 'expired'::text]))),
    CONSTRAINT prospective_intention_trigger_kind_check CHECK ((trigger_kind = ANY (ARRAY['time'::text, 'cue'::text])))
);


--
-- Name: prospective_intention_id_seq; Type: SEQUENCE; Schema: zb; Owner: -
--

ALTER TABLE zb.prospective_intention ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME zb.prospective_intention_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: recall_event; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.recall_event (
    tenant_id text NOT NULL,
    id bigint NOT NULL,
    query_hash bytea NOT NULL,
    query_class text NOT NULL,
    result_ids bigint[] DEFAULT '{}'::bigint[] NOT NULL,
    top_score double precision,
    success boolean,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT recall_event_query_class_check CHECK ((query_class = ANY (ARRAY['temporal'::text, 'procedural'::text, 'factual'::text, 'general'::text])))
);


--
-- Name: recall_event_id_seq; Type: SEQUENCE; Schema: zb; Owner: -
--

ALTER TABLE zb.recall_event ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME zb.recall_event_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: reconsolidation_event; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.reconsolidation_event (
    tenant_id text NOT NULL,
    id bigint NOT NULL,
    memory_id bigint NOT NULL,
    trigger_id bigint,
    result_id bigint,
    mode zb.reconsolidation_mode NOT NULL,
    raw_pe double precision NOT NULL,
    effective_pe double precision NOT NULL,
    contradiction boolean DEFAULT false NOT NULL,
    blocked boolean DEFAULT false NOT NULL,
    snapshot jsonb NOT NULL,
    new_content text,
    applied_at timestamp with time zone NOT NULL,
    rolled_back_at timestamp with time zone,
    rollback_reason text,
    CONSTRAINT reconsolidation_event_check CHECK (((rolled_back_at IS NULL) OR (rolled_back_at >= applied_at))),
    CONSTRAINT reconsolidation_event_check1 CHECK (((rolled_back_at IS NULL) = (rollback_reason IS NULL))),
    CONSTRAINT reconsolidation_event_effective_pe_check CHECK (((effective_pe >= (0)::double precision) AND (effective_pe <= (3)::double precision))),
    CONSTRAINT reconsolidation_event_raw_pe_check CHECK (((raw_pe >= (0)::double precision) AND (raw_pe <= (1.2)::double precision))),
    CONSTRAINT reconsolidation_event_snapshot_check CHECK ((jsonb_typeof(snapshot) = 'object'::text))
);


--
-- Name: reconsolidation_event_id_seq; Type: SEQUENCE; Schema: zb; Owner: -
--

ALTER TABLE zb.reconsolidation_event ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME zb.reconsolidation_event_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: retention_policy; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.retention_policy (
    tenant_id text NOT NULL,
    context text NOT NULL,
    max_age interval NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT retention_policy_context_check CHECK ((context ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'::text)),
    CONSTRAINT retention_policy_max_age_check CHECK ((max_age > '00:00:00'::interval))
);


--
-- Name: review_log; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.review_log (
    tenant_id text NOT NULL,
    id bigint NOT NULL,
    memory_id bigint NOT NULL,
    grade smallint NOT NULL,
    reviewed_at timestamp with time zone NOT NULL,
    state_before smallint NOT NULL,
    interval_days double precision NOT NULL,
    vmpfc_pe double precision,
    multiplier double precision,
    CONSTRAINT review_log_grade_check CHECK (((grade >= 1) AND (grade <= 4))),
    CONSTRAINT review_log_interval_days_check CHECK ((interval_days >= (0)::double precision)),
    CONSTRAINT review_log_multiplier_check CHECK (((multiplier >= (0.3)::double precision) AND (multiplier <= (2.0)::double precision))),
    CONSTRAINT review_log_state_before_check CHECK (((state_before >= 0) AND (state_before <= 3))),
    CONSTRAINT review_log_vmpfc_pe_check CHECK (((vmpfc_pe >= (0)::double precision) AND (vmpfc_pe <= (2)::double precision)))
);


--
-- Name: review_log_id_seq; Type: SEQUENCE; Schema: zb; Owner: -
--

ALTER TABLE zb.review_log ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME zb.review_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: session; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.session (
    tenant_id text NOT NULL,
    id uuid NOT NULL,
    context text DEFAULT 'default'::text NOT NULL,
    started_at timestamp with time zone NOT NULL,
    last_activity_at timestamp with time zone NOT NULL,
    ended_at timestamp with time zone,
    consolidated_at timestamp with time zone,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    CONSTRAINT session_check CHECK ((last_activity_at >= started_at)),
    CONSTRAINT session_check1 CHECK (((ended_at IS NULL) OR (ended_at >= started_at))),
    CONSTRAINT session_context_check CHECK ((context ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'::text)),
    CONSTRAINT session_metadata_check CHECK ((jsonb_typeof(metadata) = 'object'::text))
);


--
-- Name: sleep_run; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.sleep_run (
    tenant_id text NOT NULL,
    id bigint NOT NULL,
    trigger text DEFAULT 'schedule'::text NOT NULL,
    seed bigint NOT NULL,
    started_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone,
    episodes_considered integer DEFAULT 0 NOT NULL,
    counterfactuals integer DEFAULT 0 NOT NULL,
    selected integer DEFAULT 0 NOT NULL,
    ltp_count integer DEFAULT 0 NOT NULL,
    ltd_count integer DEFAULT 0 NOT NULL,
    new_associations integer DEFAULT 0 NOT NULL,
    pruned_edges integer DEFAULT 0 NOT NULL,
    archived integer DEFAULT 0 NOT NULL,
    promotions integer DEFAULT 0 NOT NULL,
    schemas_created integer DEFAULT 0 NOT NULL,
    mean_stability_before double precision,
    mean_stability_after double precision,
    storage_before integer,
    storage_after integer,
    edges_before integer,
    edges_after integer,
    fiedler_before double precision,
    fiedler_after double precision,
    details jsonb DEFAULT '{}'::jsonb NOT NULL,
    CONSTRAINT sleep_run_archived_check CHECK ((archived >= 0)),
    CONSTRAINT sleep_run_check CHECK (((finished_at IS NULL) OR (finished_at >= started_at))),
    CONSTRAINT sleep_run_counterfactuals_check CHECK ((counterfactuals >= 0)),
    CONSTRAINT sleep_run_details_check CHECK ((jsonb_typeof(details) = 'object'::text)),
    CONSTRAINT sleep_run_edges_after_check CHECK ((edges_after >= 0)),
    CONSTRAINT sleep_run_edges_before_check CHECK ((edges_before >= 0)),
    CONSTRAINT sleep_run_episodes_considered_check CHECK ((episodes_considered >= 0)),
    CONSTRAINT sleep_run_fiedler_after_check CHECK ((fiedler_after >= (0)::double precision)),
    CONSTRAINT sleep_run_fiedler_before_check CHECK ((fiedler_before >= (0)::double precision)),
    CONSTRAINT sleep_run_ltd_count_check CHECK ((ltd_count >= 0)),
    CONSTRAINT sleep_run_ltp_count_check CHECK ((ltp_count >= 0)),
    CONSTRAINT sleep_run_new_associations_check CHECK ((new_associations >= 0)),
    CONSTRAINT sleep_run_promotions_check CHECK ((promotions >= 0)),
    CONSTRAINT sleep_run_pruned_edges_check CHECK ((pruned_edges >= 0)),
    CONSTRAINT sleep_run_schemas_created_check CHECK ((schemas_created >= 0)),
    CONSTRAINT sleep_run_selected_check CHECK ((selected >= 0)),
    CONSTRAINT sleep_run_storage_after_check CHECK ((storage_after >= 0)),
    CONSTRAINT sleep_run_storage_before_check CHECK ((storage_before >= 0)),
    CONSTRAINT sleep_run_trigger_check CHECK ((trigger = ANY (ARRAY['schedule'::text, 'manual'::text, 'benchmark'::text])))
);


--
-- Name: sleep_run_id_seq; Type: SEQUENCE; Schema: zb; Owner: -
--

ALTER TABLE zb.sleep_run ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME zb.sleep_run_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: stc_tag; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.stc_tag (
    tenant_id text NOT NULL,
    memory_id bigint NOT NULL,
    tagged_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    strength_before double precision NOT NULL,
    rescued_at timestamp with time zone,
    rescued_by bigint,
    CONSTRAINT stc_tag_check CHECK ((expires_at > tagged_at)),
    CONSTRAINT stc_tag_strength_before_check CHECK (((strength_before >= (0)::double precision) AND (strength_before <= (1)::double precision)))
);


--
-- Name: tenant; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.tenant (
    id text NOT NULL,
    name text DEFAULT ''::text NOT NULL,
    settings jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT tenant_id_check CHECK ((id ~ '^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$'::text)),
    CONSTRAINT tenant_settings_check CHECK ((jsonb_typeof(settings) = 'object'::text))
);


--
-- Name: tenant_parameter; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.tenant_parameter (
    tenant_id text NOT NULL,
    name text NOT NULL,
    value double precision NOT NULL,
    min_value double precision NOT NULL,
    max_value double precision NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT tenant_parameter_check CHECK (((min_value <= max_value) AND ((value >= min_value) AND (value <= max_value)))),
    CONSTRAINT tenant_parameter_name_check CHECK ((name ~ '^[a-z][a-z0-9_]{0,63}$'::text))
);


--
-- Name: worker_heartbeat; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.worker_heartbeat (
    worker_id text NOT NULL,
    hostname text NOT NULL,
    pid integer NOT NULL,
    queues text[] DEFAULT '{}'::text[] NOT NULL,
    version text DEFAULT ''::text NOT NULL,
    started_at timestamp with time zone NOT NULL,
    heartbeat_at timestamp with time zone NOT NULL,
    CONSTRAINT worker_heartbeat_check CHECK ((heartbeat_at >= started_at)),
    CONSTRAINT worker_heartbeat_pid_check CHECK ((pid > 0))
);


--
-- Name: working_slot; Type: TABLE; Schema: zb; Owner: -
--

CREATE TABLE zb.working_slot (
    tenant_id text NOT NULL,
    session_id uuid NOT NULL,
    slot smallint NOT NULL,
    memory_id bigint NOT NULL,
    relevance double precision NOT NULL,
    entered_at timestamp with time zone NOT NULL,
    touched_at timestamp with time zone NOT NULL,
    CONSTRAINT working_slot_relevance_check CHECK (((relevance >= (0)::double precision) AND (relevance <= (1)::double precision))),
    CONSTRAINT working_slot_slot_check CHECK (((slot >= 1) AND (slot <= 7)))
);


--
-- Name: migration; Type: TABLE; Schema: zb_meta; Owner: -
--

CREATE TABLE zb_meta.migration (
    version integer NOT NULL,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: river_job id; Type: DEFAULT; Schema: river; Owner: -
--

ALTER TABLE ONLY river.river_job ALTER COLUMN id SET DEFAULT nextval('river.river_job_id_seq'::regclass);


--
-- Name: river_notification id; Type: DEFAULT; Schema: river; Owner: -
--

ALTER TABLE ONLY river.river_notification ALTER COLUMN id SET DEFAULT nextval('river.river_notification_id_seq'::regclass);


--
-- Data for Name: river_job; Type: TABLE DATA; Schema: river; Owner: -
--

COPY river.river_job (id, state, attempt, max_attempts, attempted_at, created_at, finalized_at, scheduled_at, priority, args, attempted_by, errors, kind, metadata, queue, tags, unique_key, unique_states) FROM stdin;
1	available	0	25	\N	2026-12-02 16:16:27.58223+00	\N	2026-12-02 16:16:27.58223+00	1	{"tenant_id": "acme", "memory_ids": [1]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
2	available	0	25	\N	2026-12-02 16:16:27.606217+00	\N	2026-12-02 16:16:27.606217+00	1	{"tenant_id": "acme", "memory_ids": [2]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
3	available	0	25	\N	2026-12-02 16:16:27.616599+00	\N	2026-12-02 16:16:27.616599+00	1	{"tenant_id": "acme", "memory_ids": [3]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
4	available	0	25	\N	2026-12-02 16:16:27.626131+00	\N	2026-12-02 16:16:27.626131+00	1	{"tenant_id": "acme", "memory_ids": [4]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
5	available	0	25	\N	2026-12-02 16:16:27.639324+00	\N	2026-12-02 16:16:27.639324+00	1	{"tenant_id": "acme", "memory_ids": [5]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
6	available	0	25	\N	2026-12-02 16:16:27.646771+00	\N	2026-12-02 16:16:27.646771+00	1	{"tenant_id": "acme", "memory_ids": [6]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
7	available	0	25	\N	2026-12-02 16:16:27.663359+00	\N	2026-12-02 16:16:27.663359+00	1	{"tenant_id": "acme", "memory_ids": [7]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
8	available	0	25	\N	2026-12-02 16:16:27.670527+00	\N	2026-12-02 16:16:27.670527+00	1	{"tenant_id": "acme", "memory_ids": [8]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
9	available	0	25	\N	2026-12-02 16:16:27.676012+00	\N	2026-12-02 16:16:27.676012+00	1	{"tenant_id": "acme", "memory_ids": [9]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
10	available	0	25	\N	2026-12-02 16:16:27.68259+00	\N	2026-12-02 16:16:27.68259+00	1	{"tenant_id": "acme", "memory_ids": [10]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
11	available	0	25	\N	2026-12-02 16:16:27.691796+00	\N	2026-12-02 16:16:27.691796+00	1	{"tenant_id": "acme", "memory_ids": [11]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
12	available	0	25	\N	2026-12-02 16:16:27.698924+00	\N	2026-12-02 16:16:27.698924+00	1	{"tenant_id": "acme", "memory_ids": [12]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
13	available	0	25	\N	2026-12-02 16:16:27.706498+00	\N	2026-12-02 16:16:27.706498+00	1	{"tenant_id": "acme", "memory_ids": [13]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
14	available	0	25	\N	2026-12-02 16:16:27.714943+00	\N	2026-12-02 16:16:27.714943+00	1	{"tenant_id": "acme", "memory_ids": [14]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
15	available	0	25	\N	2026-12-02 16:16:27.722944+00	\N	2026-12-02 16:16:27.722944+00	1	{"tenant_id": "acme", "memory_ids": [15]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
16	available	0	25	\N	2026-12-02 16:16:27.750303+00	\N	2026-12-02 16:16:27.750303+00	1	{"tenant_id": "acme", "memory_ids": [16]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
17	available	0	25	\N	2026-12-02 16:16:27.757369+00	\N	2026-12-02 16:16:27.757369+00	1	{"tenant_id": "acme", "memory_ids": [17]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
18	available	0	25	\N	2026-12-02 16:16:27.782118+00	\N	2026-12-02 16:16:27.782118+00	1	{"tenant_id": "acme", "memory_ids": [18]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
19	available	0	25	\N	2026-12-02 16:16:27.787349+00	\N	2026-12-02 16:16:27.787349+00	1	{"tenant_id": "acme", "memory_ids": [19]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
20	available	0	25	\N	2026-12-02 16:16:27.798611+00	\N	2026-12-02 16:16:27.798611+00	1	{"tenant_id": "acme", "memory_ids": [20]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
21	available	0	25	\N	2026-12-02 16:16:27.807502+00	\N	2026-12-02 16:16:27.807502+00	1	{"tenant_id": "acme", "memory_ids": [21]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
22	available	0	25	\N	2026-12-02 16:16:27.816436+00	\N	2026-12-02 16:16:27.816436+00	1	{"tenant_id": "acme", "memory_ids": [22]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
23	available	0	25	\N	2026-12-02 16:16:27.841638+00	\N	2026-12-02 16:16:27.841638+00	1	{"tenant_id": "acme", "memory_ids": [23]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
24	available	0	25	\N	2026-12-02 16:16:27.855479+00	\N	2026-12-02 16:16:27.855479+00	1	{"tenant_id": "acme", "memory_ids": [24]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
25	available	0	25	\N	2026-12-02 16:16:27.876118+00	\N	2026-12-02 16:16:27.876118+00	1	{"tenant_id": "acme", "memory_ids": [25]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
26	available	0	25	\N	2026-12-02 16:16:27.891519+00	\N	2026-12-02 16:16:27.891519+00	1	{"tenant_id": "acme", "memory_ids": [26]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
27	available	0	25	\N	2026-12-02 16:16:27.904098+00	\N	2026-12-02 16:16:27.904098+00	1	{"tenant_id": "acme", "memory_ids": [27]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
28	available	0	25	\N	2026-12-02 16:16:27.905873+00	\N	2026-12-02 16:16:27.905873+00	1	{"tenant_id": "acme", "session_id": "12d625fc-1b31-4329-8b7a-c9095be3ad9d"}	\N	\N	zb_consolidate	{}	lifecycle	{}	\\xc3d5a36b8bf5d79bea03957e403296d29ff89a2604b7423d467cd93ab4c8db2f	11110001
29	available	0	25	\N	2026-12-02 16:16:27.97742+00	\N	2026-12-02 16:16:27.97742+00	1	{"pending": true, "tenant_id": "globex", "recheck_supersede": true}	\N	\N	zb_derive	{}	derive	{}	\N	\N
30	available	0	25	\N	2026-12-02 16:16:28.379382+00	\N	2026-12-02 16:16:28.379382+00	1	{"tenant_id": "globex", "memory_ids": [35, 43]}	\N	\N	zb_propagate	{}	lifecycle	{}	\\x7a1632dccd1422c7e7a0b10d8db24ee6aac1d8b85335a039b33a7ac6b7f85efc	11110001
31	available	0	25	\N	2026-12-02 16:16:28.398639+00	\N	2026-12-02 16:16:28.398639+00	1	{"tenant_id": "acme", "memory_ids": [48]}	\N	\N	zb_derive	{}	derive	{}	\N	\N
\.


--
-- Data for Name: river_leader; Type: TABLE DATA; Schema: river; Owner: -
--

COPY river.river_leader (elected_at, expires_at, leader_id, name) FROM stdin;
\.


--
-- Data for Name: river_migration; Type: TABLE DATA; Schema: river; Owner: -
--

COPY river.river_migration (line, version, created_at) FROM stdin;
main	1	2026-12-02 16:16:26.933611+00
main	2	2026-12-02 16:16:26.981898+00
main	3	2026-12-02 16:16:27.079833+00
main	4	2026-12-02 16:16:27.090346+00
main	5	2026-12-02 16:16:27.126626+00
main	6	2026-12-02 16:16:27.199359+00
main	7	2026-12-02 16:16:27.211674+00
main	8	2026-12-02 16:16:27.239334+00
\.


--
-- Data for Name: river_notification; Type: TABLE DATA; Schema: river; Owner: -
--

COPY river.river_notification (id, created_at, payload, topic) FROM stdin;
\.


--
-- Data for Name: river_queue; Type: TABLE DATA; Schema: river; Owner: -
--

COPY river.river_queue (name, created_at, metadata, paused_at, updated_at) FROM stdin;
\.


--
-- Data for Name: algorithm_switch; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.algorithm_switch (tenant_id, algorithm, enabled, updated_at, updated_by) FROM stdin;
globex	decay	f	2025-06-02 12:16:00+00	coordinator
\.


--
-- Data for Name: approval_request; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.approval_request (tenant_id, id, operation, payload, status, requested_by, requested_at, decided_by, decided_at, reason) FROM stdin;
\.


--
-- Data for Name: audit_event; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.audit_event (tenant_id, id, at, actor, action, memory_id, detail) FROM stdin;
acme	1	2025-06-02 09:00:00+00	coordinator	memory.store	1	{"kind": "fact", "bytes": 33, "layer": "semantic", "route": "default_fact", "evicted": 0, "superseded": null}
acme	2	2025-06-02 09:07:00+00	coordinator	memory.store	2	{"kind": "fact", "bytes": 20, "layer": "semantic", "route": "default_fact", "evicted": 0, "superseded": null}
acme	3	2025-06-02 09:14:00+00	coordinator	memory.store	3	{"kind": "fact", "bytes": 36, "layer": "semantic", "route": "default_fact", "evicted": 0, "superseded": null}
acme	4	2025-06-02 09:21:00+00	coordinator	memory.store	4	{"kind": "episode", "bytes": 28, "layer": "episodic", "route": "strong_emotion", "evicted": 0, "superseded": null}
acme	5	2025-06-02 09:28:00+00	coordinator	memory.store	5	{"kind": "episode", "bytes": 37, "layer": "episodic", "route": "temporal_anchor", "evicted": 0, "superseded": null}
acme	6	2025-06-02 09:35:00+00	coordinator	memory.store	6	{"kind": "fact", "bytes": 37, "layer": "semantic", "route": "default_fact", "evicted": 0, "superseded": null}
acme	7	2025-06-02 09:42:00+00	coordinator	memory.store	7	{"kind": "fact", "bytes": 21, "layer": "semantic", "route": "default_fact", "evicted": 0, "superseded": [2]}
acme	8	2025-06-02 09:49:00+00	coordinator	memory.store	8	{"kind": "episode", "bytes": 48, "layer": "episodic", "route": "temporal_anchor", "evicted": 0, "superseded": null}
acme	9	2025-06-02 09:56:00+00	coordinator	memory.store	9	{"kind": "episode", "bytes": 49, "layer": "episodic", "route": "temporal_anchor", "evicted": 0, "superseded": null}
acme	10	2025-06-02 10:03:00+00	coordinator	memory.store	10	{"kind": "episode", "bytes": 49, "layer": "episodic", "route": "strong_emotion", "evicted": 0, "superseded": null}
acme	11	2025-06-02 10:10:00+00	coordinator	memory.store	11	{"kind": "skill", "bytes": 85, "layer": "procedural", "route": "explicit", "evicted": 0, "superseded": null}
acme	12	2025-06-02 10:17:00+00	coordinator	memory.store	12	{"kind": "identity", "bytes": 14, "label": "name", "layer": "core", "route": "explicit"}
acme	13	2025-06-02 10:24:00+00	coordinator	memory.store	13	{"kind": "identity", "bytes": 16, "label": "language", "layer": "core", "route": "explicit"}
acme	14	2025-06-02 10:31:00+00	coordinator	memory.store	14	{"kind": "fact", "bytes": 53, "layer": "semantic", "route": "default_fact", "evicted": 0, "superseded": null}
acme	15	2025-06-02 10:38:00+00	coordinator	memory.store	15	{"kind": "fact", "bytes": 62, "layer": "semantic", "route": "default_fact", "evicted": 0, "superseded": null}
acme	16	2025-06-02 10:45:00+00	coordinator	memory.store	16	{"kind": "focus", "bytes": 56, "layer": "working", "route": "explicit", "evicted": 0, "superseded": null}
acme	17	2025-06-02 10:52:00+00	coordinator	memory.store	17	{"kind": "focus", "bytes": 56, "layer": "working", "route": "explicit", "evicted": 0, "superseded": null}
acme	18	2025-06-02 10:59:00+00	coordinator	memory.store	18	{"kind": "focus", "bytes": 56, "layer": "working", "route": "explicit", "evicted": 0, "superseded": null}
acme	19	2025-06-02 11:06:00+00	coordinator	memory.store	19	{"kind": "focus", "bytes": 56, "layer": "working", "route": "explicit", "evicted": 0, "superseded": null}
acme	20	2025-06-02 11:13:00+00	coordinator	memory.store	20	{"kind": "focus", "bytes": 56, "layer": "working", "route": "explicit", "evicted": 0, "superseded": null}
acme	21	2025-06-02 11:20:00+00	coordinator	memory.store	21	{"kind": "focus", "bytes": 56, "layer": "working", "route": "explicit", "evicted": 0, "superseded": null}
acme	22	2025-06-02 11:27:00+00	coordinator	memory.store	22	{"kind": "focus", "bytes": 56, "layer": "working", "route": "explicit", "evicted": 0, "superseded": null}
acme	23	2025-06-02 11:34:00+00	coordinator	memory.store	23	{"kind": "focus", "bytes": 56, "layer": "working", "route": "explicit", "evicted": 16, "superseded": null}
acme	24	2025-06-02 11:41:00+00	coordinator	memory.store	24	{"kind": "focus", "bytes": 56, "layer": "working", "route": "explicit", "evicted": 17, "superseded": null}
acme	25	2025-06-02 11:48:00+00	coordinator	memory.store	25	{"kind": "interaction", "bytes": 46, "layer": "short_term", "route": "session", "evicted": 0, "superseded": null}
acme	26	2025-06-02 11:55:00+00	coordinator	memory.store	26	{"kind": "interaction", "bytes": 37, "layer": "short_term", "route": "session", "evicted": 0, "superseded": null}
acme	27	2025-06-02 12:02:00+00	coordinator	memory.store	27	{"kind": "interaction", "bytes": 41, "layer": "short_term", "route": "session", "evicted": 0, "superseded": null}
globex	28	2025-06-02 12:09:00+00	coordinator	memory.store	\N	{"batch": 20}
globex	29	2025-06-02 12:16:00+00	coordinator	algorithm.switch	\N	{"enabled": false, "algorithm": "decay"}
acme	30	2025-06-02 12:16:00+00	coordinator	session.consolidate	\N	{"facts": [], "turns": 3, "schemas": [], "episodes": [48], "session_id": "12d625fc-1b31-4329-8b7a-c9095be3ad9d"}
acme	31	2025-06-02 14:16:00+00	coordinator	memory.recall	\N	{"class": "factual", "touched": [1, 6, 7, 14, 15], "result_ids": [1, 7, 15, 14, 6], "query_sha256": "16ba554bbe543b7bbdeeb0246c308b13641c909522d4a7abffcec093969d2064"}
acme	32	2025-06-02 14:16:00+00	coordinator	memory.feedback	1	{"used": true}
acme	33	2025-06-02 14:23:00+00	coordinator	memory.recall	\N	{"class": "factual", "touched": [1, 3, 6, 7, 15], "result_ids": [7, 1, 15, 6, 3], "query_sha256": "d008b2ae4328b53208dc63e368baebafd42c88cb49e9e10a78cc7c920f516a4c"}
acme	34	2025-06-02 14:23:00+00	coordinator	memory.feedback	7	{"used": true}
acme	35	2025-06-02 14:30:00+00	coordinator	memory.recall	\N	{"class": "procedural", "touched": [5, 8, 11, 12, 13], "result_ids": [11, 13, 8, 12, 5], "query_sha256": "e9784bbac6abbc23a0d65fef3d2803d7a544a3765029f1009e2ff8771304f351"}
acme	36	2025-06-02 14:30:00+00	coordinator	memory.feedback	11	{"used": true}
acme	37	2025-06-02 14:37:00+00	coordinator	memory.recall	\N	{"class": "factual", "touched": [1, 6, 8, 14, 15], "result_ids": [8, 1, 6, 15, 14], "query_sha256": "e90299c430a379e6b768e835f9c0fd5010bc49bdd70ba0d939064d20a7d97613"}
acme	38	2025-06-02 14:37:00+00	coordinator	memory.feedback	8	{"used": true}
globex	39	2025-06-02 14:44:00+00	coordinator	memory.recall	\N	{"class": "factual", "touched": [33, 35, 36, 38, 43], "result_ids": [33, 43, 35, 36, 38], "query_sha256": "957a929796281b24826595b3573953009d8b3e6e6beb51017df677aaac01b5d2"}
acme	40	2025-06-03 10:51:00+00	coordinator	memory.sleep	\N	{"ltd": 3, "ltp": 2, "seed": 42, "pruned": 1, "run_id": 1, "archived": 0, "episodes": 16, "selected": 6, "fragmented": true, "promotions": 5, "edges_after": 32, "consolidated": 0, "edges_before": 32, "fiedler_after": 0.000000000000000008537245075376093, "storage_after": 25, "fiedler_before": 0.0000000000000014244519192657679, "storage_before": 25, "counterfactuals": 1, "schemas_created": 0, "stability_grown": 5, "new_associations": 1, "mean_stability_after": 6.0458453207006935, "mean_stability_before": 4.5076637592337665}
\.


--
-- Data for Name: confidence_evidence; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.confidence_evidence (tenant_id, id, memory_id, kind, weight, source, source_memory_id, created_at) FROM stdin;
globex	1	43	contradict	1	derive	35	2025-06-02 12:16:00+00
globex	2	35	contradict	1	derive	43	2025-06-02 12:16:00+00
\.


--
-- Data for Name: config; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.config (key, value, updated_at) FROM stdin;
embedding_dim	32	2026-12-02 16:16:25.988232+00
\.


--
-- Data for Name: consent; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.consent (tenant_id, id, subject, purpose, context, granted_at, revoked_at, evidence) FROM stdin;
\.


--
-- Data for Name: context_policy; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.context_policy (tenant_id, reader_context, source_context, allowed, updated_at) FROM stdin;
\.


--
-- Data for Name: debate; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.debate (tenant_id, id, memory_id, contradicted, positions, outcome, reason, judge, decided_at) FROM stdin;
\.


--
-- Data for Name: edge; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.edge (tenant_id, id, source_id, target_id, relation, weight, variance, activation_count, origin, created_at, last_activated_at) FROM stdin;
acme	6	14	15	co_occurs	0.13	0.7556818181818182	2	extraction	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
acme	11	5	10	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:16:00+00	2025-06-02 14:16:00+00
acme	12	5	11	co_occurs	0.1299941913781527	0.7556818181818182	2	hebbian	2025-06-02 14:16:00+00	2025-06-02 14:23:00+00
acme	13	5	12	co_occurs	0.1299941913781527	0.7556818181818182	2	hebbian	2025-06-02 14:16:00+00	2025-06-02 14:23:00+00
acme	17	1	4	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:23:00+00	2025-06-02 14:23:00+00
acme	18	3	5	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:23:00+00	2025-06-02 14:23:00+00
acme	21	4	5	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:23:00+00	2025-06-02 14:23:00+00
acme	22	4	11	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:23:00+00	2025-06-02 14:23:00+00
acme	23	4	12	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:23:00+00	2025-06-02 14:23:00+00
acme	24	3	8	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:30:00+00	2025-06-02 14:30:00+00
acme	25	3	9	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:30:00+00	2025-06-02 14:30:00+00
acme	26	6	8	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:30:00+00	2025-06-02 14:30:00+00
acme	27	6	9	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:30:00+00	2025-06-02 14:30:00+00
acme	28	8	9	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:30:00+00	2025-06-02 14:30:00+00
acme	8	1	10	co_occurs	0.12998257565271798	0.7556818181818182	2	hebbian	2025-06-02 14:16:00+00	2025-06-02 14:37:00+00
acme	14	10	11	co_occurs	0.12998257565271798	0.7556818181818182	2	hebbian	2025-06-02 14:16:00+00	2025-06-02 14:37:00+00
acme	15	10	12	co_occurs	0.12998257565271798	0.7556818181818182	2	hebbian	2025-06-02 14:16:00+00	2025-06-02 14:37:00+00
acme	9	1	11	co_occurs	0.19015286609895632	0.6684877622377623	3	hebbian	2025-06-02 14:16:00+00	2025-06-02 14:37:00+00
acme	10	1	12	co_occurs	0.19015286609895632	0.6684877622377623	3	hebbian	2025-06-02 14:16:00+00	2025-06-02 14:37:00+00
acme	16	1	3	co_occurs	0.12998838326240675	0.7556818181818182	2	hebbian	2025-06-02 14:23:00+00	2025-06-02 14:37:00+00
acme	19	3	11	co_occurs	0.12998838326240675	0.7556818181818182	2	hebbian	2025-06-02 14:23:00+00	2025-06-02 14:37:00+00
acme	20	3	12	co_occurs	0.12998838326240675	0.7556818181818182	2	hebbian	2025-06-02 14:23:00+00	2025-06-02 14:37:00+00
acme	29	1	6	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:37:00+00	2025-06-02 14:37:00+00
acme	30	3	10	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:37:00+00	2025-06-02 14:37:00+00
acme	31	6	10	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:37:00+00	2025-06-02 14:37:00+00
acme	32	6	11	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:37:00+00	2025-06-02 14:37:00+00
acme	33	6	12	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:37:00+00	2025-06-02 14:37:00+00
globex	34	17	19	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:44:00+00	2025-06-02 14:44:00+00
globex	35	17	21	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:44:00+00	2025-06-02 14:44:00+00
globex	36	19	21	co_occurs	0.06666666666666667	0.8636363636363636	1	hebbian	2025-06-02 14:44:00+00	2025-06-02 14:44:00+00
acme	2	3	4	co_occurs	0.09786233864803984	0.7556818181818182	2	extraction	2025-06-02 12:16:00+00	2025-06-03 10:51:00+00
acme	3	1	5	co_occurs	0.24448088236868404	0.6684877622377623	3	extraction	2025-06-02 12:16:00+00	2025-06-03 10:51:00+00
acme	5	11	12	co_occurs	0.2981183598289583	0.5968640734265735	4	extraction	2025-06-02 12:16:00+00	2025-06-03 10:51:00+00
acme	4	3	6	co_occurs	0.1586866555843936	0.6684877622377623	3	extraction	2025-06-02 12:16:00+00	2025-06-03 10:51:00+00
\.


--
-- Data for Name: entity; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.entity (tenant_id, id, context, name, normalized_name, type, embedding, embedding_model, mention_count, created_at, updated_at) FROM stdin;
acme	2	default	Paris	paris	place	\N	\N	1	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
acme	4	default	Oslo	oslo	place	\N	\N	1	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
acme	1	default	Alice	alice	thing	\N	\N	3	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
acme	5	default	Berlin	berlin	place	\N	\N	1	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
acme	3	default	Bob	bob	person	\N	\N	2	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
acme	6	default	Carol	carol	thing	\N	\N	1	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
acme	7	default	Erin	erin	thing	\N	\N	1	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
acme	8	default	Sam	sam	thing	\N	\N	1	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
acme	9	default	English	english	thing	\N	\N	1	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
acme	10	default	Grace	grace	thing	\N	\N	1	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
acme	11	personal	Layla	layla	person	\N	\N	1	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
acme	12	personal	Cairo	cairo	place	\N	\N	1	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
acme	13	work	Erin	erin	person	\N	\N	9	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
acme	14	work	Frank	frank	person	\N	\N	3	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
acme	15	work	Oslo	oslo	thing	\N	\N	2	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
globex	22	default	Prague	prague	place	\N	\N	2	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
globex	16	default	Paris	paris	place	\N	\N	2	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
globex	17	default	Lisbon	lisbon	place	\N	\N	4	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
globex	18	default	Berlin	berlin	place	\N	\N	3	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
globex	19	default	Oslo	oslo	place	\N	\N	3	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
globex	20	default	Madrid	madrid	place	\N	\N	3	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
globex	21	default	Vienna	vienna	place	\N	\N	3	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00
\.


--
-- Data for Name: hyperagent_adjustment; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.hyperagent_adjustment (tenant_id, id, parameter, old_value, new_value, reason, signals, applied_at, reverted_at) FROM stdin;
\.


--
-- Data for Name: lability_window; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.lability_window (tenant_id, memory_id, opened_at, closes_at) FROM stdin;
acme	3	2025-06-02 14:23:00+00	2025-06-02 14:33:00+00
acme	7	2025-06-02 14:23:00+00	2025-06-02 14:33:00+00
acme	5	2025-06-02 14:30:00+00	2025-06-02 14:40:00+00
acme	11	2025-06-02 14:30:00+00	2025-06-02 14:40:00+00
acme	12	2025-06-02 14:30:00+00	2025-06-02 14:40:00+00
acme	13	2025-06-02 14:30:00+00	2025-06-02 14:40:00+00
acme	1	2025-06-02 14:37:00+00	2025-06-02 14:47:00+00
acme	6	2025-06-02 14:37:00+00	2025-06-02 14:47:00+00
acme	8	2025-06-02 14:37:00+00	2025-06-02 14:47:00+00
acme	14	2025-06-02 14:37:00+00	2025-06-02 14:47:00+00
acme	15	2025-06-02 14:37:00+00	2025-06-02 14:47:00+00
globex	33	2025-06-02 14:44:00+00	2025-06-02 14:54:00+00
globex	35	2025-06-02 14:44:00+00	2025-06-02 14:54:00+00
globex	36	2025-06-02 14:44:00+00	2025-06-02 14:54:00+00
globex	38	2025-06-02 14:44:00+00	2025-06-02 14:54:00+00
globex	43	2025-06-02 14:44:00+00	2025-06-02 14:54:00+00
\.


--
-- Data for Name: lexical_stat_delta; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.lexical_stat_delta (tenant_id, id, docs, terms) FROM stdin;
acme	1	1	4
acme	2	1	3
acme	3	1	4
acme	4	1	3
acme	5	1	4
acme	6	1	4
acme	7	1	3
acme	8	1	5
acme	9	1	7
acme	10	1	4
acme	11	1	8
acme	12	1	2
acme	13	1	2
acme	14	1	4
acme	15	1	7
acme	16	1	7
acme	17	1	7
acme	18	1	7
acme	19	1	7
acme	20	1	7
acme	21	1	7
acme	22	1	7
acme	23	1	7
acme	24	1	7
acme	25	1	5
acme	26	1	5
acme	27	1	5
globex	28	20	101
acme	29	1	15
acme	30	-3	-15
\.


--
-- Data for Name: memory; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.memory (tenant_id, id, context, layer, kind, content, ts_config, embedding, embedding_model, session_id, external_id, core_label, subject, attribute, occurred_at, created_at, updated_at, derived_at, source_ids, metadata, status, superseded_by, valid_from, valid_to, valence, arousal, significance, importance, priority, access_count, last_accessed_at, stability, difficulty, fade_at, value_estimate, conf_alpha, conf_beta, confidence, ai_generated, terms, term_count, event_from, event_to) FROM stdin;
acme	14	default	semantic	fact	🧠 Grace's notes 👩‍🔬 on the bee colony 🐝	simple	[0,0.45509347,-0.26079452,0.11573557,-0.22754675,-0.107886784,0.11339723,0,0.21872312,0.2291328,0,-0.07564359,0,0,0.11339723,0.12678196,0.20703408,-0.40460157,-0.22362235,0.22679448,0.12444361,-0.038078927,-0.11339723,-0.12678196,0.11339723,-0.09577438,-0.040091977,-0.11339723,-0.11573557,0,0.21382387,-0.2252084]	hash-v1-32	\N	\N	\N	\N	\N	\N	2025-06-02 10:31:00+00	2025-06-02 10:31:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 10:31:00+00	\N	0	0	0	0.5	0.125	2	2025-06-02 14:37:00+00	12.282209681348657	5	2025-06-30 21:21:23.9644+00	0.13333333333333333	1	1	0.5	f	{grace,note,bee,coloni}	4	\N	\N
globex	28	default	semantic	fact	Supplier 0 ships apple from Paris	simple	[-0.12706427,0,0,0.009687331,0.13123141,-0.21042514,0.19684711,0.248561,0.25412855,0.12149668,0.24497929,0,0.24299335,-0.24856095,0,0.24856095,-0.24856095,-0.12149668,-0.12149668,0.0055676023,0.12706427,0.25412855,0.36593792,0.11737696,0.36593792,-0.12706427,-0.117376946,-0.0055676023,0,0,0,-0.12706427]	hash-v1-32	\N	gx-00	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	0	2025-06-02 12:09:00+00	7	5	2025-06-18 14:59:03.464242+00	0	1	1	0.5	f	{supplier,0,ship,appl,pari}	5	\N	\N
globex	29	default	semantic	fact	Supplier 1 ships river from Lisbon	simple	[0,0,0,0.0020376358,0,0.0056889243,-0.100852385,0.32934192,-0.09881475,-0.49246624,0.062386658,0.096777126,0.19286662,-0.13986062,0,0.1972857,0.0023814344,-0.09643331,-0.2904491,0.0023814344,0,0.10289002,0.3969528,-0.12343227,0.3913015,0,0,-0.0023814274,-0.100852385,0,0.1976295,-0.20170477]	hash-v1-32	\N	gx-01	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	0	2025-06-02 12:09:00+00	7	5	2025-06-18 14:59:03.464242+00	0	1	1	0.5	f	{supplier,1,ship,river,lisbon}	5	\N	\N
globex	30	default	semantic	fact	Supplier 2 ships stone from Berlin	simple	[-0.056408636,-0.096923895,0.15325011,0.096923895,0.098922536,-0.42196238,0,0.41442055,-0.09138072,-0.093716584,-0.037729662,0,0.09025352,-0.19351056,0.098922536,0.376272,-0.09458803,-0.09458803,-0.19151191,-0.39260122,0.096923895,0.19784507,0.19351056,-0.098922536,0.19351058,-0.096923895,0.001998645,0.09458803,-0.098922536,-0.096923895,0,0]	hash-v1-32	\N	gx-02	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	0	2025-06-02 12:09:00+00	7	5	2025-06-18 14:59:03.464242+00	0	1	1	0.5	f	{supplier,2,ship,stone,berlin}	5	\N	\N
acme	1	default	semantic	fact	Alice's favourite colour is green	simple	[-0.47250238,0.21612766,0.32408983,0,-0.21038753,0.0015328979,0.33105016,0.23697858,-0.1118567,0.10611657,-0.0015328979,-0.21797326,0.0037928666,0.10611657,0.0034801573,-0.09605577,-0.0027877842,0,-0.10806383,-0.0022599841,0.06736828,-0.10611657,-0.39833048,0.116591744,-0.107649475,0,0,-0.0034801573,0,-0.25911096,-0.21139263,0]	hash-v1-32	\N	fact:Alice's favo	\N	alice	favourite colour	\N	2025-06-02 09:00:00+00	2025-06-02 14:16:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 09:00:00+00	\N	0.49656352	0.4	0	0.5	0.32914087	4	2025-06-02 14:37:00+00	13.511859725409343	5	2025-08-03 14:52:14.186421+00	0.36000000000000004	1	1	0.5	f	{alic,favourit,colour,green}	4	\N	\N
acme	2	default	semantic	fact	Alice lives in Paris	simple	[-0.2975327,0,0.05153418,-0.14876635,-0.2975327,0,-0.14876635,-0.20613672,0.011341888,0.14876635,0.14876635,0.14876635,0.14876635,0,0,0.14876635,-0.14876635,-0.14876635,0.34356117,0.14876635,0,0,-0.13742447,0.2975327,0.14876635,0.14876635,0,-0.14876635,0,-0.49232754,-0.14876635,0]	hash-v1-32	\N	fact:Alice lives 	\N	alice	residence	\N	2025-06-02 09:07:00+00	2025-06-02 09:42:00+00	2025-06-02 12:16:00+00	{}	{}	active	7	2025-06-02 09:07:00+00	2025-06-02 09:42:00+00	0	0	0	0.5	0.125	0	2025-06-02 09:07:00+00	7	5	2025-06-18 11:57:03.464242+00	0	1	1	0.5	f	{alic,live,pari}	3	\N	\N
acme	18	work	working	focus	Focus 2: review the telescope mirror alignment with Erin	simple	[-0.050022442,0.07151556,0.11291594,0.21689206,-0.06963678,-0.1395024,-0.3074298,-0.07386095,0.22076052,-0.29709372,0.0042241784,-0.03718227,-0.024253495,0,0.06963678,0.1620533,-0.07620635,0.4353072,0.36626393,-0.08020168,-0.34008002,-0.30343446,0.06917016,-0.14127919,-0.07538402,-0.004690792,-0.0039953208,0.024590712,-0.07785627,0.07151555,-0.21735868,0.07151556]	hash-v1-32	8c9246f5-81c6-4c5b-bc0e-01b4b0e55668	\N	\N	\N	\N	\N	2025-06-02 10:59:00+00	2025-06-02 10:59:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	\N	\N	0	0	0	0.5	0.125	0	2025-06-02 10:59:00+00	1	5	2025-06-04 18:14:43.352034+00	0	1	1	0.5	f	{focus,2,review,telescop,mirror,align,erin}	7	\N	\N
acme	12	default	core	identity	My name is Sam	simple	[0,-0.26128766,-0.30296353,-0.24634436,0.26128766,-0.22033711,0,0,0,-0.24634436,0,0,0,0,-0.22033711,0,0,0,0.24634436,0.014943302,-0.08262642,0,0.24634436,-0.24634436,0,0,0,0,0.1952799,0.26128766,0,0.507632]	hash-v1-32	\N	\N	name	\N	\N	\N	2025-06-02 10:17:00+00	2025-06-02 10:17:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	\N	\N	0	0	0.6	0.5	0.305	1	2025-06-02 14:30:00+00	\N	5	\N	0	1	1	0.5	f	{name,sam}	2	\N	\N
acme	10	default	episodic	episode	I was thrilled when the launch finally succeeded!	simple	[0.17783654,-0.28775817,0,-0.0039520147,0.45148093,-0.12381337,0.08856819,0.17713504,0.08856819,0.41529784,-0.17771426,-0.08016187,0.027463429,-0.23819484,0.0016252432,-0.01584086,0.09275224,0.18166627,-0.0863637,-0.17946178,-0.0022045008,-0.08926834,0.08856819,-0.08856819,0.09147284,0.08624142,0.26860923,-0.18004103,0,-0.34367374,0.08764311,-0.0012794043]	hash-v1-32	\N	\N	\N	\N	\N	2025-06-01 09:00:00+00	2025-06-02 10:03:00+00	2025-06-02 10:03:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	\N	\N	0.61951447	0.915	0	0.5	0.5	0	2025-06-02 10:03:00+00	1	5	2025-06-08 22:26:29.686258+00	0	1	1	0.5	f	{thrill,launch,final,succeed}	4	\N	\N
acme	11	default	procedural	skill	How to deploy the billing service: build the image, run the migrations, then roll out	simple	[0.09685288,0.181511,0.50729775,0.08589769,-0.16551256,0.028547391,-0.02558919,-0.18246824,-0.094446294,-0.07490179,0.100496344,-0.06703023,-0.07219914,-0.23343736,-0.13627103,0.16673711,-0.07420765,0.08712228,0.16202407,0.28407916,0.085457265,0.13491006,-0.15731099,0.23021995,0.16035905,0,0.19117202,0.3278801,0.16472669,-0.08678627,-0.07883093,0.24826525]	hash-v1-32	\N	\N	\N	\N	\N	\N	2025-06-02 10:10:00+00	2025-06-02 14:30:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	\N	\N	0	0	0	0.5	0.125	2	2025-06-02 14:30:00+00	7.617370281924618	5	2025-06-20 03:27:05.177575+00	0.22666666666666668	1	1	0.5	f	{deploy,bill,servic,build,imag,run,migrat,roll}	8	\N	\N
acme	16	work	short_term	interaction	Focus 0: review the telescope mirror alignment with Erin	simple	[-0.05338202,0.15063232,-0.0041282773,0.23145883,0.008771543,-0.14887159,-0.2034494,-0.078821555,0.2355871,-0.31704694,0.00450788,-0.039679486,-0.10019606,0,0.07431368,0.17293702,-0.08132447,0.46454304,0.3908627,-0.0025029161,-0.36292025,-0.24949987,0.073815726,-0.1507677,-0.08044692,-0.0050058323,-0.004263652,0.026242258,-0.08308521,0.07631864,-0.15764311,0.076318644]	hash-v1-32	8c9246f5-81c6-4c5b-bc0e-01b4b0e55668	\N	\N	\N	\N	\N	2025-06-02 10:45:00+00	2025-06-02 11:34:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	\N	\N	0	0	0	0.5	0.125	0	2025-06-02 10:45:00+00	1	5	2025-06-04 18:00:43.352034+00	0	1	1	0.5	f	{focus,0,review,telescop,mirror,align,erin}	7	\N	\N
acme	17	work	short_term	interaction	Focus 1: review the telescope mirror alignment with Erin	simple	[-0.04858471,0.06946008,-0.0037572791,0.21065821,-0.06763529,-0.059874307,-0.29859373,-0.071738064,0.21441549,-0.35619003,0.0041027684,-0.03611359,-0.091191694,0.113427825,0.06763529,0.1573956,-0.07401605,0.4227957,0.35573685,-0.0022779852,-0.3979408,-0.29471323,0.067182094,-0.13721858,-0.073217355,-0.0045559704,-0.0038804882,0.023883931,-0.07561855,0.06946007,-0.14347613,0.06946008]	hash-v1-32	8c9246f5-81c6-4c5b-bc0e-01b4b0e55668	\N	\N	\N	\N	\N	2025-06-02 10:52:00+00	2025-06-02 11:41:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	\N	\N	0	0	0	0.5	0.125	0	2025-06-02 10:52:00+00	1	5	2025-06-04 18:07:43.352034+00	0	1	1	0.5	f	{focus,1,review,telescop,mirror,align,erin}	7	\N	\N
acme	19	work	working	focus	Focus 3: review the telescope mirror alignment with Erin	simple	[-0.05082112,0.0726574,-0.003930231,0.22035503,-0.07074862,-0.14172976,-0.31233835,-0.07504024,0.22428527,-0.30183724,0.0042916234,-0.10852456,-0.09538935,0,0.07074862,0.1646407,-0.07742309,0.51300615,0.29301247,-0.0023828435,-0.34550986,-0.30827922,0.07027456,-0.024885856,-0.07658763,-0.004765687,-0.0040591112,0.024983335,-0.07909936,0.0726574,-0.15008049,0.0726574]	hash-v1-32	8c9246f5-81c6-4c5b-bc0e-01b4b0e55668	\N	\N	\N	\N	\N	2025-06-02 11:06:00+00	2025-06-02 11:06:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	\N	\N	0	0	0	0.5	0.125	0	2025-06-02 11:06:00+00	1	5	2025-06-04 18:21:43.352034+00	0	1	1	0.5	f	{focus,3,review,telescop,mirror,align,erin}	7	\N	\N
acme	20	work	working	focus	Focus 4: review the telescope mirror alignment with Erin	simple	[-0.054221254,0.07751846,-0.004193179,0.23509765,-0.07548198,-0.15121204,-0.333235,-0.080060735,0.23929083,-0.32203132,0.0045787496,-0.040303297,-0.10177127,0,0.07548198,0.17565581,-0.082603,0.3874548,0.24604362,-0.0025422652,-0.36862582,-0.3289043,0.0749762,-0.15313795,-0.08171164,-0.0050845305,-0.0043306816,0.026654819,-0.21097854,0.07751846,-0.16012147,0.07751846]	hash-v1-32	8c9246f5-81c6-4c5b-bc0e-01b4b0e55668	\N	\N	\N	\N	\N	2025-06-02 11:13:00+00	2025-06-02 11:13:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	\N	\N	0	0	0	0.5	0.125	0	2025-06-02 11:13:00+00	1	5	2025-06-04 18:28:43.352034+00	0	1	1	0.5	f	{focus,4,review,telescop,mirror,align,erin}	7	\N	\N
acme	21	work	working	focus	Focus 5: review the telescope mirror alignment with Erin	simple	[-0.051073615,0.07301839,-0.0039497577,0.1503497,-0.07110012,-0.21353403,-0.31389013,-0.07541307,0.2253996,-0.30333686,0.0043129455,-0.03796362,-0.095863275,0.119238526,0.07110012,0.16545868,-0.07780775,0.44445476,0.37396058,-0.0023946823,-0.34722644,-0.30981085,0.0706237,-0.14424802,-0.07696814,-0.0047893645,-0.004079278,0.02510746,-0.079492345,0.07301838,-0.07133378,0.07301839]	hash-v1-32	8c9246f5-81c6-4c5b-bc0e-01b4b0e55668	\N	\N	\N	\N	\N	2025-06-02 11:20:00+00	2025-06-02 11:20:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	\N	\N	0	0	0	0.5	0.125	0	2025-06-02 11:20:00+00	1	5	2025-06-04 18:35:43.352034+00	0	1	1	0.5	f	{focus,5,review,telescop,mirror,align,erin}	7	\N	\N
acme	22	work	working	focus	Focus 6: review the telescope mirror alignment with Erin	simple	[-0.050361864,0.07200082,-0.0038947144,0.14825447,-0.070109285,-0.14044899,-0.30951583,-0.07436213,0.22225846,-0.2991096,0.0042528408,-0.037434567,-0.09452734,-0.070109285,0.070109285,0.16315289,-0.076723434,0.4382609,0.36874914,-0.0023613104,-0.34238756,-0.30549338,-0.008745057,-0.14223781,-0.07589553,-0.004722621,-0.00402243,0.024757568,-0.078384556,0.07200081,-0.2663011,0.07200082]	hash-v1-32	8c9246f5-81c6-4c5b-bc0e-01b4b0e55668	\N	\N	\N	\N	\N	2025-06-02 11:27:00+00	2025-06-02 11:27:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	\N	\N	0	0	0	0.5	0.125	0	2025-06-02 11:27:00+00	1	5	2025-06-04 18:42:43.352034+00	0	1	1	0.5	f	{focus,6,review,telescop,mirror,align,erin}	7	\N	\N
acme	23	work	working	focus	Focus 7: review the telescope mirror alignment with Erin	simple	[-0.04901366,0.07007333,-0.0037904517,0.21251808,-0.06823244,-0.13668911,-0.30122998,-0.14060386,0.3307378,-0.29110235,0.0041389912,-0.03643243,-0.09199681,0,0.13646488,0.15878522,-0.074669525,0.4265285,0.3588776,-0.0022980974,-0.33322173,-0.2973152,0.067775235,-0.13843006,-0.07386378,-0.0045961947,-0.0039147483,0.0240948,-0.076286174,0.07007332,-0.068456665,0.07007333]	hash-v1-32	8c9246f5-81c6-4c5b-bc0e-01b4b0e55668	\N	\N	\N	\N	\N	2025-06-02 11:34:00+00	2025-06-02 11:34:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	\N	\N	0	0	0	0.5	0.125	0	2025-06-02 11:34:00+00	1	5	2025-06-04 18:49:43.352034+00	0	1	1	0.5	f	{focus,7,review,telescop,mirror,align,erin}	7	\N	\N
acme	24	work	working	focus	Focus 8: review the telescope mirror alignment with Erin	simple	[-0.13185875,0.07374137,-0.0039888658,0.2236425,-0.07180411,-0.1438442,-0.3169981,-0.07615976,0.22763136,-0.3063403,0.0043556495,-0.038339514,-0.09681246,0,0.07180411,0.23890106,-0.07857816,0.4488555,0.3776633,-0.002418393,-0.2302453,-0.3128784,0.07132298,-0.14567629,-0.07773024,-0.004836786,-0.0041196686,-0.046448052,-0.08027943,0.07374136,-0.15231952,0.07374137]	hash-v1-32	8c9246f5-81c6-4c5b-bc0e-01b4b0e55668	\N	\N	\N	\N	\N	2025-06-02 11:41:00+00	2025-06-02 11:41:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	\N	\N	0	0	0	0.5	0.125	0	2025-06-02 11:41:00+00	1	5	2025-06-04 18:56:43.352034+00	0	1	1	0.5	f	{focus,8,review,telescop,mirror,align,erin}	7	\N	\N
globex	31	default	semantic	fact	Supplier 3 ships cloud from Oslo	simple	[0,-0.10452656,0.3505927,0.22630665,0.10452656,-0.22134858,-0.0037109114,0.36951166,0,0.0036687013,0.18314926,0,0.1032372,-0.10819526,-0.039925598,0.3382128,-0.10819526,0.004958063,-0.2250595,0.004958063,0,0.22630665,0.3419237,0.062143017,0.10819526,0,0,0.2250595,-0.22630665,0,-0.21767987,-0.22630665]	hash-v1-32	\N	gx-03	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	0	2025-06-02 12:09:00+00	7	5	2025-06-18 14:59:03.464242+00	0	1	1	0.5	f	{supplier,3,ship,cloud,oslo}	5	\N	\N
globex	32	default	semantic	fact	Supplier 4 ships maple from Madrid	simple	[0.0022146509,0.107399054,0,0.21701276,0,-0.21442445,0.10961371,0.17423551,0,0.10481074,-0.041807342,0.107399054,-0.007391283,-0.003553946,0.0061422545,0.21442443,-0.10481074,-0.42888978,-0.21220979,-0.10481074,-0.16768947,0.21922742,0.24833904,-0.10961371,0.10481074,0,-0.107399054,0.4314372,-0.38682556,-0.0022146509,0.107399054,-0.10961371]	hash-v1-32	\N	gx-04	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	0	2025-06-02 12:09:00+00	7	5	2025-06-18 14:59:03.464242+00	0	1	1	0.5	f	{supplier,4,ship,mapl,madrid}	5	\N	\N
globex	33	default	semantic	fact	Supplier 5 ships copper from Vienna	simple	[0,0,0,0.22450985,0,-0.11394791,-0.22215195,0.49545127,0.11434575,0.11159002,0.072192155,0,0.115373835,0.069206476,0,0.2217541,0.2979952,-0.11159002,-0.22593577,-0.105050474,0,0.34775305,0.29248375,-0.03702241,0.11394791,0,0.11434575,0.22593577,-0.116703644,-0.11434575,0.23487675,-0.116703644]	hash-v1-32	\N	gx-05	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	1	2025-06-02 14:44:00+00	7.510223300681563	5	2025-06-19 21:45:48.997966+00	0	1	1	0.5	f	{supplier,5,ship,copper,vienna}	5	\N	\N
globex	34	default	semantic	fact	Supplier 6 ships violin from Prague	simple	[0.10249946,0.10249946,0,0.10461308,-0.10249946,-0.20464231,0,0.3416228,0.20499893,-0.002470236,0.16721247,0,0.30255792,0.002470236,0.10249946,0.30127972,0.002470236,-0.46718118,-0.36468172,-0.10002923,0,0.1067267,-0.11051416,-0.007975653,0.10214285,0.10249946,0,0.10002923,-0.0021136175,0,-0.15620382,-0.309612]	hash-v1-32	\N	gx-06	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	0	2025-06-02 12:09:00+00	7	5	2025-06-18 14:59:03.464242+00	0	1	1	0.5	f	{supplier,6,ship,violin,pragu}	5	\N	\N
globex	37	default	semantic	fact	Supplier 9 ships harbor from Berlin	simple	[0.047204778,-0.11292711,0,0.008787053,0,0.059560798,0.11292711,0.37637734,0.2193958,-0.0027215423,0.1842236,0,0.22041114,-0.11020557,0.11292711,0.33803853,-0.11020557,-0.22313268,-0.22313268,-0.22313268,0.11292711,0.34343863,0.11020557,-0.11525576,-0.17904234,-0.33878133,0,0.11020557,-0.11525576,-0.23231263,0,-0.11525576]	hash-v1-32	\N	gx-09	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	0	2025-06-02 12:09:00+00	7	5	2025-06-18 14:59:03.464242+00	0	1	1	0.5	f	{supplier,9,ship,harbor,berlin}	5	\N	\N
globex	39	default	semantic	fact	Supplier 11 ships river from Madrid	simple	[-0.10471702,0.10471702,0,0.21159339,0.13518909,-0.20906971,0.049226552,0.24429674,0,-0.2515034,0.06611306,0.09656882,0.099669665,0.024847507,0.10471702,0.07388061,-0.10219335,-0.10219335,-0.4125149,-0.10219335,-0.2703782,0.11502458,0.3159461,-0.03207682,0.3159461,0,-0.10471702,0.30563852,-0.21159339,0.10471702,0.10471702,-0.21375273]	hash-v1-32	\N	gx-11	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	0	2025-06-02 12:09:00+00	7	5	2025-06-18 14:59:03.464242+00	0	1	1	0.5	f	{supplier,11,ship,river,madrid}	5	\N	\N
globex	40	default	semantic	fact	Supplier 12 ships stone from Vienna	simple	[0,-0.13290663,0,0.09706128,0.105071925,-0.4481931,0,0.3431212,0.005887754,0.25393534,0.06287395,0,0.10175177,-0.2055399,0.105071925,0.30260116,0.16534531,-0.100467965,-0.203417,-0.2055399,-0.005887754,0.3130929,0.23549747,-0.105071925,0.20553991,0,0.105071925,0.203417,-0.105071925,0.13290663,0.10294904,0]	hash-v1-32	\N	gx-12	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	0	2025-06-02 12:09:00+00	7	5	2025-06-18 14:59:03.464242+00	0	1	1	0.5	f	{supplier,12,ship,stone,vienna}	5	\N	\N
globex	41	default	semantic	fact	Supplier 13 ships cloud from Prague	simple	[0.0944579,0,0,0.1928114,0.2110004,-0.28304505,0.0964057,0.43676552,0.0944579,-0.0913322,0.1560417,-0.08905577,0.18241514,0.0022764346,-0.1281815,0.18858717,-0.09218147,-0.090233676,-0.33607075,-0.090233676,0,0.1928114,0.232991,-0.0964057,-0.12422106,0.0944579,0.0944579,0.18123724,-0.09835349,0,-0.18546146,-0.3817272]	hash-v1-32	\N	gx-13	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	0	2025-06-02 12:09:00+00	7	5	2025-06-18 14:59:03.464242+00	0	1	1	0.5	f	{supplier,13,ship,cloud,pragu}	5	\N	\N
globex	42	default	semantic	fact	Supplier 14 ships maple from Paris	simple	[0,0,0,0.12150771,-0.15369643,-0.2376913,-0.032188717,-0.0053240955,0.12150771,-0.17353378,-0.04634379,0.12150771,0.11085945,-0.2376913,0,0.2376913,-0.2376913,-0.47144303,-0.11618358,0.005324129,0.23375171,0.24301542,0.42898235,0.11224402,0.11618358,-0.0092637,0,0.23769131,-0.12150771,-0.12150771,0,-0.12150771]	hash-v1-32	\N	gx-14	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	0	2025-06-02 12:09:00+00	7	5	2025-06-18 14:59:03.464242+00	0	1	1	0.5	f	{supplier,14,ship,mapl,pari}	5	\N	\N
globex	44	default	semantic	fact	Supplier 16 ships violin from Berlin	simple	[-0.17383423,0.03498268,0,0.23036039,-0.11400477,-0.113608114,0,0.37996906,-0.033174742,0.16720076,0.18598163,0,0.22251451,-0.111257255,0.14717951,0.33509758,-0.032235168,-0.4056163,-0.33274674,0.035922255,0.11400477,0.118706495,-0.0027475136,-0.11635563,0.22761288,-0.11400477,-0.19302686,0.111257255,-0.11635563,-0.11400477,0.11400477,-0.11635563]	hash-v1-32	\N	gx-16	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	0	2025-06-02 12:09:00+00	7	5	2025-06-18 14:59:03.464242+00	0	1	1	0.5	f	{supplier,16,ship,violin,berlin}	5	\N	\N
globex	45	default	semantic	fact	Supplier 17 ships garden from Oslo	simple	[0.10230367,0,0.22705977,0.10441325,0,0.0003559372,-0.10198668,0.47304368,0,0.003385327,-0.08791593,0,0.10322347,0.0024655173,0.20429035,0.3120889,-0.09983815,-0.09983815,-0.09983815,0.0024655173,0,0.2088265,0.21320952,-0.10441325,0.2042514,0.20460734,0.13207345,0.33974913,-0.20671691,0,0.10230367,-0.3685602]	hash-v1-32	\N	gx-17	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	0	2025-06-02 12:09:00+00	7	5	2025-06-18 14:59:03.464242+00	0	1	1	0.5	f	{supplier,17,ship,garden,oslo}	5	\N	\N
globex	35	default	semantic	fact	Supplier 7 ships copper wire from Lisbon	simple	[0.1006656,0,0.3019968,-0.19936192,-0.19070366,0.00033226496,-0.095499784,0.41379315,0.05549862,-0.15338114,-0.03520602,0.19099957,0.0008586363,-0.18869802,0.09003805,0.09516752,0.09780132,-0.1832363,-0.09319824,0.18783937,-0.005165818,0.09943834,0.535943,-0.030920539,0.09516752,0,0.095499784,-0.0923396,-0.09746906,-0.095499784,0.29166517,-0.09746906]	hash-v1-32	\N	gx-07	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	1	2025-06-02 14:44:00+00	7.510223300681563	5	2025-06-19 21:45:48.997966+00	0	1	2	0.3333333333333333	f	{supplier,7,ship,copper,wire,lisbon}	6	\N	\N
globex	36	default	semantic	fact	Supplier 8 ships ladder from Lisbon	simple	[-0.108056314,0,0,0.00211386,0,-0.10215457,-0.10251123,0.43831047,-0.10251123,-0.16464214,0.058857705,0.20502247,0.30259264,-0.30506316,-0.10251123,0.10215457,0.10498174,-0.19668922,-0.20255193,0.0024705194,0.16208446,0.10673895,0.46723476,0.06932054,0.2046658,-0.10251123,0.0966485,-0.09911903,-0.00211386,-0.10251123,0.20502245,-0.10462508]	hash-v1-32	\N	gx-08	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	1	2025-06-02 14:44:00+00	7.510223300681563	5	2025-06-19 21:45:48.997966+00	0	1	1	0.5	f	{supplier,8,ship,ladder,lisbon}	5	\N	\N
globex	46	default	semantic	fact	Supplier 18 ships ladder from Madrid	simple	[-0.10341656,0.10341656,0,0.34247583,0,-0.20647332,-0.10341656,0.24126287,0.1335102,0.10092422,-0.038124543,0.20091864,0.20184845,-0.106838726,0.09750207,-0.030453458,0.0024923382,-0.1984263,-0.30775738,-0.10092422,-0.26702043,0.3652625,0.36794466,0.069932744,0.20647332,-0.10341656,-0.005914492,0.20434079,-0.10554909,0,0.10341656,-0.10554909]	hash-v1-32	\N	gx-18	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	0	2025-06-02 12:09:00+00	7	5	2025-06-18 14:59:03.464242+00	0	1	1	0.5	f	{supplier,18,ship,ladder,madrid}	5	\N	\N
globex	47	default	semantic	fact	Supplier 19 ships harbor from Vienna	simple	[0.10280961,0,0,0.0021200057,0,-0.20526151,0.10280961,0.34265646,0.33834586,0.100331895,0.270528,0,0.30347338,-0.100331895,0.10280961,0.102451906,0.16512138,-0.2031415,-0.2031415,-0.23305851,0.050449904,0.41547844,-0.0024777104,-0.10492962,-0.16300136,-0.20561922,0.0058797793,0.2031415,-0.10492962,-0.07289258,0.10280961,-0.10492962]	hash-v1-32	\N	gx-19	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	0	2025-06-02 12:09:00+00	7	5	2025-06-18 14:59:03.464242+00	0	1	1	0.5	f	{supplier,19,ship,harbor,vienna}	5	\N	\N
acme	25	work	short_term	interaction	Frank asked about the budget for the Oslo trip	simple	[-0.014240174,0.25388533,0.53525674,-0.301612,0.060659543,0,-0.0042831427,0,0.12796313,-0.13324052,0.1098664,0.072317876,0,-0.25124663,0.2654868,0.39041474,0,0.13488497,-0.25816846,-0.0069218674,-0.13060182,-0.12796313,0.13488498,0,0.17320493,-0.13488497,-0.17320493,0.0069218315,0,0,-0.04304703,-0.009957041]	hash-v1-32	12d625fc-1b31-4329-8b7a-c9095be3ad9d	\N	\N	\N	\N	\N	2025-06-02 11:48:00+00	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00	{}	{"speaker": "Frank"}	consolidated	\N	\N	\N	0	0	0	0.5	0.125	0	2025-06-02 11:48:00+00	1	5	2025-06-04 19:03:43.352034+00	0	1	1	0.5	f	{frank,ask,budget,oslo,trip}	5	\N	\N
acme	26	work	short_term	interaction	I told Frank the budget is 4000 euros	simple	[0,0.006596847,0.120387785,-0.15889888,0.19003879,-0.16758743,0.124469824,0,0.016464254,-0.006596847,0.13552658,0.17166948,0.124469824,0,0.38157356,-0.004082041,0.2530217,0,-0.12157714,0.5035286,-0.16758743,-0.121955015,0.12855187,0.119062334,0.25050688,-0.004082041,-0.2808539,-0.112465486,-0.124469824,0.25710374,0.121955015,-0.12038779]	hash-v1-32	12d625fc-1b31-4329-8b7a-c9095be3ad9d	\N	\N	\N	\N	\N	2025-06-02 11:55:00+00	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00	{}	{"speaker": "Sam"}	consolidated	\N	\N	\N	0	0	0	0.5	0.125	0	2025-06-02 11:55:00+00	1	5	2025-06-04 19:10:43.352034+00	0	1	1	0.5	f	{told,frank,budget,4000,euro}	5	\N	\N
acme	27	work	short_term	interaction	Frank said he will book the train to Oslo	simple	[0,-0.12929522,0.14294526,-0.15981771,0,-0.4047581,-0.2626961,0,0.04336694,-0.12929522,0,0.28830734,0.107842796,0,0.4134969,0,-0.24904604,-0.12518957,0.12518957,0.12929522,-0.12518957,0,0.12929524,0.12929522,-0.07227823,-0.12518957,-0.12518957,-0.12929524,-0.11564517,-0.25448477,0.25448477,-0.25448477]	hash-v1-32	12d625fc-1b31-4329-8b7a-c9095be3ad9d	\N	\N	\N	\N	\N	2025-06-02 12:02:00+00	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00	{}	{"speaker": "Frank"}	consolidated	\N	\N	\N	0	0	0	0.5	0.125	0	2025-06-02 12:02:00+00	1	5	2025-06-04 19:17:43.352034+00	0	1	1	0.5	f	{frank,said,book,train,oslo}	5	\N	\N
acme	13	default	core	identity	I prefer English	simple	[-0.1251175,-0.12336752,0,0,0,-0.044235718,0,-0.1251175,0,0,-0.12336752,-0.12336752,0.22381854,0.12336752,0,-0.1305231,0.1251175,-0.573287,0,0.1251175,0.003655624,0,-0.1251175,0.3736025,0.12336752,0,0,0.12336752,0.1251175,0.49697006,0.12336752,0.12336752]	hash-v1-32	\N	\N	language	\N	\N	\N	2025-06-02 10:24:00+00	2025-06-02 10:24:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	\N	\N	0	0	0	0.5	0.125	1	2025-06-02 14:30:00+00	\N	5	\N	0	1	1	0.5	f	{prefer,english}	2	\N	\N
globex	38	default	semantic	fact	Supplier 10 ships apple from Oslo	simple	[0,0,0.29104742,0.09393516,0,-0.15556157,-0.097015806,0.40068832,0.18070874,0.089819185,0.1811065,-0.09393516,0.17963837,-0.089819185,0.302609,0.28077012,0.047381893,0.004115977,-0.089819185,-0.089819185,0.09393516,0.18787032,0.46455956,-0.09393516,0.27052793,0,0.032046027,0.18683498,0,0,0.11881961,-0.09393516]	hash-v1-32	\N	gx-10	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	1	2025-06-02 14:44:00+00	7.510223300681563	5	2025-06-19 21:45:48.997966+00	0	1	1	0.5	f	{supplier,10,ship,appl,oslo}	5	\N	\N
globex	43	default	semantic	fact	Supplier 15 ships copper from Lisbon	simple	[0.109528996,0,0,0.0023955773,0,0.00040419184,-0.22570203,0.5033688,-0.116173044,-0.18658425,-0.042827222,0.2323461,0.17422505,-0.22954632,0,0.11576885,-0.03100593,-0.11337327,-0.11337327,0.118972816,0.116173044,-0.029014545,0.5295038,-0.037614048,0.11576885,0,0.15662281,-0.11232877,-0.11856862,-0.116173044,0.23234609,-0.11856862]	hash-v1-32	\N	gx-15	\N	\N	\N	\N	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 12:09:00+00	\N	0	0	0	0.5	0.125	1	2025-06-02 14:44:00+00	7.510223300681563	5	2025-06-19 21:45:48.997966+00	0	1	2	0.3333333333333333	f	{supplier,15,ship,copper,lisbon}	5	\N	\N
acme	3	default	semantic	fact	Bob works at the observatory in Oslo	simple	[0,-0.1581326,0.34324205,-0.29386118,0,-0.16410325,-0.24498588,0,-0.011686739,-0.0048489803,0.25432435,0.02712886,-0.14693059,0.072343625,0.080882624,0.1666716,-0.072343625,-0.073465295,0.073465295,-0.02712886,0,-0.073465295,0.07259944,0.0011216685,-0.15925427,-0.15177956,-0.3417226,0.54257435,0.2203959,0,0.14693059,0]	hash-v1-32	\N	fact:Bob works at	\N	bob	employer	\N	2025-06-02 09:14:00+00	2025-06-02 09:14:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 09:14:00+00	\N	0	0	0	0.5	0.125	1	2025-06-02 14:23:00+00	7.666991527035937	5	2025-06-20 06:04:36.99441+00	0.06666666666666667	1	1	0.5	f	{bob,work,observatori,oslo}	4	\N	\N
acme	4	default	episodic	episode	Carol is allergic to peanuts	simple	[-0.1068376,0.10794476,0.0011071607,0.10794476,-0.11046027,0.103214934,0.0075773746,-0.10794476,0,0.111733444,-0.111733444,-0.10794476,-0.111733444,-0.10794476,-0.43900993,0.43224624,-0.21857105,-0.008518506,0.21967821,-0.10304891,-0.14665037,0,-0.32639426,0.2136752,-0.21478236,-0.3053139,0,0.1068376,0.21857105,0,0.0047298265,0.1068376]	hash-v1-32	\N	fact:Carol is all	\N	\N	\N	\N	2025-06-02 09:21:00+00	2025-06-02 09:21:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	\N	\N	0	0	0.8	0.5	0.365	0	2025-06-02 09:21:00+00	1	5	2025-06-08 09:01:52.71529+00	0	1	1	0.5	f	{carol,allerg,peanut}	3	\N	\N
acme	48	work	episodic	episode	Frank asked about the budget for the Oslo trip\nI told Frank the budget is 4000 euros\nFrank said he will book the train to Oslo	simple	[-0.006300563,0.058043655,0.35333595,-0.2744643,0.11092144,-0.2532342,-0.063053265,0,0.083089575,-0.119077675,0.10857409,0.23551372,0.10278669,-0.11116404,0.46924344,0.17093286,0.0017590235,0.0042897267,-0.11262828,0.27693024,-0.18732391,-0.11057625,0.17376427,0.10988577,0.15549174,-0.11687604,-0.25628838,-0.10390444,-0.10623885,0.0011587623,0.14750959,-0.1702678]	hash-v1-32	12d625fc-1b31-4329-8b7a-c9095be3ad9d	\N	\N	\N	\N	2025-06-02 11:48:00+00	2025-06-02 12:16:00+00	2025-06-02 12:16:00+00	\N	{25,26,27}	{"turns": 3, "consolidated_from_session": "12d625fc-1b31-4329-8b7a-c9095be3ad9d"}	active	\N	\N	\N	0	0	0	0.5	0.125	0	2025-06-02 12:16:00+00	1	5	2025-06-04 19:31:43.352034+00	0	1	1	0.5	t	{frank,ask,budget,oslo,trip,told,frank,budget,4000,euro,frank,said,book,train,oslo}	15	2025-06-02 11:48:00+00	2025-06-02 12:02:00+00
acme	5	default	episodic	episode	The quarterly report is due on Friday	simple	[0.10835596,0.09958174,0.30201107,0,0,-0.20242934,0.09958175,-0.26881722,0,-0.19654739,0.01540535,-0.06648548,-0.5198458,0.0026161082,-0.21456884,0,-0.1028476,-0.10284759,0.20569518,0.10611344,-0.15134922,0.42808026,0.04771666,-0.10284759,-0.003265844,0,-0.22665194,-0.09958175,0.19981323,0.005881952,0,-0.09696564]	hash-v1-32	\N	fact:The quarterl	\N	\N	\N	\N	2025-06-02 09:28:00+00	2025-06-02 09:28:00+00	2025-06-02 12:16:00+00	{}	{"resolved_dates": [{"to": "2025-05-31T00:00:00Z", "from": "2025-05-30T00:00:00Z", "text": "on friday"}]}	active	\N	\N	\N	0	0	0	0.5	0.125	1	2025-06-02 14:30:00+00	1.3337858406957406	5	2025-06-05 16:12:27.826044+00	0.06666666666666667	1	1	0.5	f	{quarter,report,due,friday}	4	2025-05-30 00:00:00+00	2025-05-31 00:00:00+00
acme	8	default	episodic	episode	Yesterday we swam in the lake with Bob and Carol	simple	[0,-0.18642384,0.12578312,-0.08651961,0,-0.18642384,0.26320538,0.17303921,0.25733355,0.0046800743,0.002990945,-0.05492711,-0.17544633,0.08651962,-0.49019754,0.15951143,-0.0046800743,-0.2719099,0.09119968,0.0046800743,0.09419061,0.08651961,-0.34607843,-0.1181121,-0.09990424,-0.08424666,0,0.05761413,0.004680068,-0.36909148,-0.18071023,0.11407855]	hash-v1-32	\N	\N	\N	\N	\N	2025-05-30 09:00:00+00	2025-06-02 09:49:00+00	2025-06-02 14:37:00+00	2025-06-02 12:16:00+00	{}	{"resolved_dates": [{"to": "2025-05-30T00:00:00Z", "from": "2025-05-29T00:00:00Z", "text": "yesterday"}]}	active	\N	\N	\N	0	0	0	0.5	0.125	3	2025-06-02 14:37:00+00	1.3889936113808796	5	2025-06-05 19:22:31.045002+00	0.29333333333333333	1	1	0.5	f	{yesterday,swam,lake,bob,carol}	5	2025-05-29 00:00:00+00	2025-05-30 00:00:00+00
acme	9	default	episodic	episode	Last week Erin presented the new telescope design	simple	[0.0027176638,0.082866706,0.5211164,0,-0.10085637,0.2761139,-0.4415451,-0.25131777,0.17308055,-0.011976608,-0.07823724,0.052602284,0.010064791,0.09756099,0.090213835,-0.17308055,0.16627409,0.08041422,0.16088441,0.2209779,0.092931494,-0.08286672,0.070047185,-0.090213835,-0.082866706,0.070047185,0.0809549,-0.004894652,0.07551957,0.082866706,0.33935463,0.082866706]	hash-v1-32	\N	\N	\N	\N	\N	2025-05-23 09:00:00+00	2025-06-02 09:56:00+00	2025-06-02 09:56:00+00	2025-06-02 12:16:00+00	{}	{"resolved_dates": [{"to": "2025-05-19T00:00:00Z", "from": "2025-05-12T00:00:00Z", "text": "last week"}]}	active	\N	\N	\N	0	0	0	0.5	0.125	0	2025-06-02 09:56:00+00	1	5	2025-06-04 17:11:43.352034+00	0	1	1	0.5	f	{last,week,erin,present,new,telescop,design}	7	2025-05-12 00:00:00+00	2025-05-19 00:00:00+00
acme	6	default	semantic	fact	Dave plays the violin in an orchestra	simple	[0,0.10867934,0.03842395,0.0065653105,0.01884622,-0.23135722,0,-0.21978639,0.11437142,-0.005692078,0.10867934,-0.064039916,0.3270691,0.10246386,0.22911616,-0.22547846,0.2111432,-0.49675757,0.10522831,0.0034510265,0,-0.10867934,-0.21390764,-0.098826185,-0.0036376815,0,-0.32482806,0,0.11455808,-0.31692418,0.21390764,0.005692078]	hash-v1-32	\N	fact:Dave plays t	\N	\N	\N	\N	2025-06-02 09:35:00+00	2025-06-02 09:35:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 09:35:00+00	\N	0	0	0	0.5	0.125	3	2025-06-02 14:37:00+00	13.607225893162687	5	2025-07-03 22:34:47.131078+00	0.2	1	1	0.5	f	{dave,play,violin,orchestra}	4	\N	\N
acme	7	default	semantic	fact	Alice lives in Berlin	simple	[-0.24721205,-0.15425593,0.054537706,-0.0031808754,-0.3148736,0,-0.1574368,0.14543389,0,0.0031808754,0.1574368,0,0.1574368,0.1574368,0,0.1574368,0,0,0.20932877,-0.15425593,0.15425593,0,-0.14543389,0.012002919,0.1574368,0.16061768,-0.15425593,0,0,-0.6752774,-0.1574368,0]	hash-v1-32	\N	fact:alice-berlin	\N	alice	residence	\N	2025-06-02 09:42:00+00	2025-06-02 14:23:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 09:42:00+00	\N	0	0	0	0.5	0.125	3	2025-06-02 14:23:00+00	12.130163992270743	5	2025-06-30 12:43:15.485352+00	0.29333333333333333	1	1	0.5	f	{alic,live,berlin}	3	\N	\N
acme	15	personal	semantic	fact	ليلى تعيش في القاهرة — Layla lives in Cairo	simple	[0.16800079,0.10651614,0.20180964,0,0.26960415,0,-0.08889625,0,-0.38007528,-0.09181165,0,0,-0.19926846,0.13661872,-0.25764582,-0.0059297085,0.0059297206,-0.08889625,0.29117906,0,-0.17393048,-0.112445846,-0.35463837,0.3613169,0.0030143177,0.1785413,0.005929702,-0.08889625,-0.11536124,-0.33180705,0.07920345,0]	hash-v1-32	\N	\N	\N	\N	\N	\N	2025-06-02 10:38:00+00	2025-06-02 10:38:00+00	2025-06-02 12:16:00+00	{}	{}	active	\N	2025-06-02 10:38:00+00	\N	0	0	0	0.5	0.125	3	2025-06-02 14:37:00+00	14.194924577982501	5	2025-07-05 07:03:25.877423+00	0.2	1	1	0.5	f	{ليلى,تعيش,في,القاهرة,layla,live,cairo}	7	\N	\N
\.


--
-- Data for Name: memory_link; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.memory_link (tenant_id, source_id, target_id, relation, weight, origin, created_at) FROM stdin;
globex	35	43	contradicts	1	derive	2025-06-02 12:16:00+00
globex	43	35	contradicts	1	derive	2025-06-02 12:16:00+00
acme	1	2	associated	0.1	sleep	2025-06-03 10:51:00+00
\.


--
-- Data for Name: mention; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.mention (tenant_id, memory_id, entity_id, span_start, span_end) FROM stdin;
acme	1	1	0	7
acme	2	1	0	5
acme	2	2	15	20
acme	3	3	0	3
acme	3	4	32	36
acme	7	1	0	5
acme	7	5	15	21
acme	8	3	35	38
acme	8	6	43	48
acme	9	7	10	14
acme	12	8	11	14
acme	13	9	9	16
acme	14	10	5	12
acme	15	11	42	47
acme	15	12	57	62
acme	16	13	52	56
acme	17	13	52	56
acme	18	13	52	56
acme	19	13	52	56
acme	20	13	52	56
acme	21	13	52	56
acme	22	13	52	56
acme	23	13	52	56
acme	24	13	52	56
acme	25	14	0	5
acme	25	15	37	41
acme	26	14	7	12
acme	27	14	0	5
acme	27	15	37	41
globex	28	16	28	33
globex	29	17	28	34
globex	30	18	28	34
globex	31	19	28	32
globex	32	20	28	34
globex	33	21	29	35
globex	34	22	29	35
globex	35	17	34	40
globex	36	17	29	35
globex	37	18	29	35
globex	38	19	29	33
globex	39	20	29	35
globex	40	21	29	35
globex	41	22	29	35
globex	42	16	29	34
globex	43	17	30	36
globex	44	18	30	36
globex	45	19	30	34
globex	46	20	30	36
globex	47	21	30	36
\.


--
-- Data for Name: metacog_event; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.metacog_event (tenant_id, id, kind, value, alert, detail, created_at) FROM stdin;
\.


--
-- Data for Name: neuromodulator_event; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.neuromodulator_event (tenant_id, id, event, magnitude, memory_id, created_at) FROM stdin;
\.


--
-- Data for Name: neuromodulator_state; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.neuromodulator_state (tenant_id, da_tonic, ne_tonic, ht_tonic, ach_tonic, da_phasic, ne_phasic, ht_phasic, ach_phasic, phasic_at, last_tick_at, updated_at) FROM stdin;
\.


--
-- Data for Name: procedure; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.procedure (tenant_id, memory_id, trigger_text, steps, tools, success_count, failure_count, last_outcome, last_used_at) FROM stdin;
acme	11	deploy billing	{"build the image","run the migrations","roll out"}	{docker,kubectl}	0	0	\N	\N
\.


--
-- Data for Name: prospective_intention; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.prospective_intention (tenant_id, id, context, content, trigger_kind, due_at, cue, cue_embedding, status, memory_id, fired_at, fired_by, expires_at, created_at) FROM stdin;
\.


--
-- Data for Name: recall_event; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.recall_event (tenant_id, id, query_hash, query_class, result_ids, top_score, success, created_at) FROM stdin;
acme	1	\\x16ba554bbe543b7bbdeeb0246c308b13641c909522d4a7abffcec093969d2064	factual	{1,7,15,14,6}	1.8214711300147508	t	2025-06-02 14:16:00+00
acme	2	\\xd008b2ae4328b53208dc63e368baebafd42c88cb49e9e10a78cc7c920f516a4c	factual	{7,1,15,6,3}	1.8479709171621628	t	2025-06-02 14:23:00+00
acme	3	\\xe9784bbac6abbc23a0d65fef3d2803d7a544a3765029f1009e2ff8771304f351	procedural	{11,13,8,12,5}	1.7954165094527208	t	2025-06-02 14:30:00+00
acme	4	\\xe90299c430a379e6b768e835f9c0fd5010bc49bdd70ba0d939064d20a7d97613	factual	{8,1,6,15,14}	1.026333825280886	t	2025-06-02 14:37:00+00
globex	5	\\x957a929796281b24826595b3573953009d8b3e6e6beb51017df677aaac01b5d2	factual	{33,43,35,36,38}	1.8	\N	2025-06-02 14:44:00+00
\.


--
-- Data for Name: reconsolidation_event; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.reconsolidation_event (tenant_id, id, memory_id, trigger_id, result_id, mode, raw_pe, effective_pe, contradiction, blocked, snapshot, new_content, applied_at, rolled_back_at, rollback_reason) FROM stdin;
\.


--
-- Data for Name: retention_policy; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.retention_policy (tenant_id, context, max_age, updated_at) FROM stdin;
\.


--
-- Data for Name: review_log; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.review_log (tenant_id, id, memory_id, grade, reviewed_at, state_before, interval_days, vmpfc_pe, multiplier) FROM stdin;
\.


--
-- Data for Name: review_state; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.review_state (tenant_id, memory_id, stability, difficulty, due, reps, lapses, state, elapsed_days, scheduled_days, last_review, context_embedding, accesses_at_review) FROM stdin;
acme	1	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
acme	2	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
acme	3	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
acme	6	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
acme	7	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
acme	11	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
acme	14	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
acme	15	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	28	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	29	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	30	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	31	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	32	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	33	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	34	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	35	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	36	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	37	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	38	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	39	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	40	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	41	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	42	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	43	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	44	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	45	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	46	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
globex	47	0	0	2025-06-05 12:16:00+00	0	0	0	0	0	\N	\N	0
\.


--
-- Data for Name: session; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.session (tenant_id, id, context, started_at, last_activity_at, ended_at, consolidated_at, metadata) FROM stdin;
acme	8c9246f5-81c6-4c5b-bc0e-01b4b0e55668	work	2025-06-02 10:45:00+00	2025-06-02 11:41:00+00	\N	\N	{}
acme	12d625fc-1b31-4329-8b7a-c9095be3ad9d	work	2025-06-02 11:48:00+00	2025-06-02 12:09:00+00	2025-06-02 12:09:00+00	2025-06-02 12:16:00+00	{}
\.


--
-- Data for Name: sleep_run; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.sleep_run (tenant_id, id, trigger, seed, started_at, finished_at, episodes_considered, counterfactuals, selected, ltp_count, ltd_count, new_associations, pruned_edges, archived, promotions, schemas_created, mean_stability_before, mean_stability_after, storage_before, storage_after, edges_before, edges_after, fiedler_before, fiedler_after, details) FROM stdin;
acme	1	manual	42	2025-06-03 10:51:00+00	2025-06-03 10:51:00+00	16	1	6	2	3	1	1	0	5	0	4.5076637592337665	6.0458453207006935	25	25	32	32	1.4244519192657679e-15	8.537245075376093e-18	{"seed": 42, "since": "2025-05-27T10:51:00Z", "schemas": null, "fragmented": true, "archived_ids": null, "consolidated": 0, "stability_grown": 5}
\.


--
-- Data for Name: stability_lock; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.stability_lock (tenant_id, memory_id, lock_level, rho, threshold, computed_at) FROM stdin;
\.


--
-- Data for Name: stc_tag; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.stc_tag (tenant_id, memory_id, tagged_at, expires_at, strength_before, rescued_at, rescued_by) FROM stdin;
\.


--
-- Data for Name: tenant; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.tenant (id, name, settings, created_at) FROM stdin;
acme		{}	2026-12-02 16:16:27.466084+00
globex		{}	2026-12-02 16:16:27.923656+00
\.


--
-- Data for Name: tenant_parameter; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.tenant_parameter (tenant_id, name, value, min_value, max_value, updated_at) FROM stdin;
\.


--
-- Data for Name: triple_copy; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.triple_copy (tenant_id, memory_id, copy, initial_strength, tau_seconds, created_at) FROM stdin;
acme	1	fast	0.3291408832903552	14400	2025-06-02 09:00:00+00
acme	1	medium	0.2633127066322842	1209600	2025-06-02 09:00:00+00
acme	2	fast	0.125	14400	2025-06-02 09:07:00+00
acme	2	medium	0.1	1209600	2025-06-02 09:07:00+00
acme	3	fast	0.125	14400	2025-06-02 09:14:00+00
acme	3	medium	0.1	1209600	2025-06-02 09:14:00+00
acme	4	fast	0.365	14400	2025-06-02 09:21:00+00
acme	4	medium	0.292	1209600	2025-06-02 09:21:00+00
acme	5	fast	0.125	14400	2025-06-02 09:28:00+00
acme	5	medium	0.1	1209600	2025-06-02 09:28:00+00
acme	6	fast	0.125	14400	2025-06-02 09:35:00+00
acme	6	medium	0.1	1209600	2025-06-02 09:35:00+00
acme	7	fast	0.125	14400	2025-06-02 09:42:00+00
acme	7	medium	0.1	1209600	2025-06-02 09:42:00+00
acme	8	fast	0.125	14400	2025-06-02 09:49:00+00
acme	8	medium	0.1	1209600	2025-06-02 09:49:00+00
acme	9	fast	0.125	14400	2025-06-02 09:56:00+00
acme	9	medium	0.1	1209600	2025-06-02 09:56:00+00
acme	10	fast	0.5	14400	2025-06-02 10:03:00+00
acme	10	medium	0.4	1209600	2025-06-02 10:03:00+00
acme	11	fast	0.125	14400	2025-06-02 10:10:00+00
acme	11	medium	0.1	1209600	2025-06-02 10:10:00+00
acme	14	fast	0.125	14400	2025-06-02 10:31:00+00
acme	14	medium	0.1	1209600	2025-06-02 10:31:00+00
acme	15	fast	0.125	14400	2025-06-02 10:38:00+00
acme	15	medium	0.1	1209600	2025-06-02 10:38:00+00
acme	16	fast	0.125	14400	2025-06-02 10:45:00+00
acme	16	medium	0.1	1209600	2025-06-02 10:45:00+00
acme	17	fast	0.125	14400	2025-06-02 10:52:00+00
acme	17	medium	0.1	1209600	2025-06-02 10:52:00+00
acme	18	fast	0.125	14400	2025-06-02 10:59:00+00
acme	18	medium	0.1	1209600	2025-06-02 10:59:00+00
acme	19	fast	0.125	14400	2025-06-02 11:06:00+00
acme	19	medium	0.1	1209600	2025-06-02 11:06:00+00
acme	20	fast	0.125	14400	2025-06-02 11:13:00+00
acme	20	medium	0.1	1209600	2025-06-02 11:13:00+00
acme	21	fast	0.125	14400	2025-06-02 11:20:00+00
acme	21	medium	0.1	1209600	2025-06-02 11:20:00+00
acme	22	fast	0.125	14400	2025-06-02 11:27:00+00
acme	22	medium	0.1	1209600	2025-06-02 11:27:00+00
acme	23	fast	0.125	14400	2025-06-02 11:34:00+00
acme	23	medium	0.1	1209600	2025-06-02 11:34:00+00
acme	24	fast	0.125	14400	2025-06-02 11:41:00+00
acme	24	medium	0.1	1209600	2025-06-02 11:41:00+00
acme	25	fast	0.125	14400	2025-06-02 11:48:00+00
acme	25	medium	0.1	1209600	2025-06-02 11:48:00+00
acme	26	fast	0.125	14400	2025-06-02 11:55:00+00
acme	26	medium	0.1	1209600	2025-06-02 11:55:00+00
acme	27	fast	0.125	14400	2025-06-02 12:02:00+00
acme	27	medium	0.1	1209600	2025-06-02 12:02:00+00
acme	12	fast	0.3050000071525574	14400	2025-06-02 10:17:00+00
acme	12	medium	0.24400000572204592	1209600	2025-06-02 10:17:00+00
acme	13	fast	0.125	14400	2025-06-02 10:24:00+00
acme	13	medium	0.1	1209600	2025-06-02 10:24:00+00
globex	28	fast	0.125	14400	2025-06-02 12:09:00+00
globex	28	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	29	fast	0.125	14400	2025-06-02 12:09:00+00
globex	29	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	30	fast	0.125	14400	2025-06-02 12:09:00+00
globex	30	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	31	fast	0.125	14400	2025-06-02 12:09:00+00
globex	31	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	32	fast	0.125	14400	2025-06-02 12:09:00+00
globex	32	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	33	fast	0.125	14400	2025-06-02 12:09:00+00
globex	33	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	34	fast	0.125	14400	2025-06-02 12:09:00+00
globex	34	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	35	fast	0.125	14400	2025-06-02 12:09:00+00
globex	35	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	36	fast	0.125	14400	2025-06-02 12:09:00+00
globex	36	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	37	fast	0.125	14400	2025-06-02 12:09:00+00
globex	37	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	38	fast	0.125	14400	2025-06-02 12:09:00+00
globex	38	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	39	fast	0.125	14400	2025-06-02 12:09:00+00
globex	39	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	40	fast	0.125	14400	2025-06-02 12:09:00+00
globex	40	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	41	fast	0.125	14400	2025-06-02 12:09:00+00
globex	41	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	42	fast	0.125	14400	2025-06-02 12:09:00+00
globex	42	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	43	fast	0.125	14400	2025-06-02 12:09:00+00
globex	43	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	44	fast	0.125	14400	2025-06-02 12:09:00+00
globex	44	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	45	fast	0.125	14400	2025-06-02 12:09:00+00
globex	45	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	46	fast	0.125	14400	2025-06-02 12:09:00+00
globex	46	medium	0.1	1209600	2025-06-02 12:09:00+00
globex	47	fast	0.125	14400	2025-06-02 12:09:00+00
globex	47	medium	0.1	1209600	2025-06-02 12:09:00+00
acme	1	deep	0.6288799243989074	604800	2025-06-03 10:51:00+00
acme	14	deep	0.538599302746953	604800	2025-06-03 10:51:00+00
acme	15	deep	0.6952655916262263	604800	2025-06-03 10:51:00+00
acme	6	deep	0.6114939920916742	604800	2025-06-03 10:51:00+00
acme	7	deep	0.5124062315838602	604800	2025-06-03 10:51:00+00
\.


--
-- Data for Name: worker_heartbeat; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.worker_heartbeat (worker_id, hostname, pid, queues, version, started_at, heartbeat_at) FROM stdin;
\.


--
-- Data for Name: working_slot; Type: TABLE DATA; Schema: zb; Owner: -
--

COPY zb.working_slot (tenant_id, session_id, slot, memory_id, relevance, entered_at, touched_at) FROM stdin;
acme	8c9246f5-81c6-4c5b-bc0e-01b4b0e55668	3	18	1	2025-06-02 10:59:00+00	2025-06-02 10:59:00+00
acme	8c9246f5-81c6-4c5b-bc0e-01b4b0e55668	4	19	1	2025-06-02 11:06:00+00	2025-06-02 11:06:00+00
acme	8c9246f5-81c6-4c5b-bc0e-01b4b0e55668	5	20	1	2025-06-02 11:13:00+00	2025-06-02 11:13:00+00
acme	8c9246f5-81c6-4c5b-bc0e-01b4b0e55668	6	21	1	2025-06-02 11:20:00+00	2025-06-02 11:20:00+00
acme	8c9246f5-81c6-4c5b-bc0e-01b4b0e55668	7	22	1	2025-06-02 11:27:00+00	2025-06-02 11:27:00+00
acme	8c9246f5-81c6-4c5b-bc0e-01b4b0e55668	1	23	1	2025-06-02 11:34:00+00	2025-06-02 11:34:00+00
acme	8c9246f5-81c6-4c5b-bc0e-01b4b0e55668	2	24	1	2025-06-02 11:41:00+00	2025-06-02 11:41:00+00
\.


--
-- Data for Name: migration; Type: TABLE DATA; Schema: zb_meta; Owner: -
--

COPY zb_meta.migration (version, name, checksum, applied_at) FROM stdin;
1	foundation	e47bc529227535f30b32cfd0ef2a0f3038bc4af62821f81cdfa9f71c3759a96b	2026-12-02 16:16:25.988232+00
2	memory	d19789e20e727a35acb1aa5c46924f1a08caf20ed36aa0f8a04361d4b1626b14	2026-12-02 16:16:25.988232+00
3	graph	9eda06c312f58ed84c306430f8935b6f751e98d0cf1ceb51dcbe864d124789e0	2026-12-02 16:16:25.988232+00
4	mechanisms	84e59aea0c6c7198f96f847e7a557922e002dffb11c5210c6ca5fb3dfcdfa88b	2026-12-02 16:16:25.988232+00
5	governance	15a3fb85309e47b724669457ae9f2222c93a779756f43c1dba19694382fab98c	2026-12-02 16:16:25.988232+00
6	recall	5408ab2e675deaca9045517e9f582055733516366d33700d29c9518889d288ff	2026-12-02 16:16:25.988232+00
7	lifecycle	d815643ff2a6ebe59027ad19ef673d591f7bcb3b6d445b8ff5ed92370c0cd3eb	2026-12-02 16:16:25.988232+00
8	worker	043d90bacdc2ba6b7b94353d55feaa3aca5615fd99a7300d52309cd1e727276a	2026-12-02 16:16:25.988232+00
9	sql_api	8920a714ec3c2658fd2e239459b827734d6418f2da4fb12b0f80d3f65875d538	2026-12-02 16:16:25.988232+00
\.


--
-- Name: river_job_id_seq; Type: SEQUENCE SET; Schema: river; Owner: -
--

SELECT pg_catalog.setval('river.river_job_id_seq', 31, true);


--
-- Name: river_notification_id_seq; Type: SEQUENCE SET; Schema: river; Owner: -
--

SELECT pg_catalog.setval('river.river_notification_id_seq', 1, false);


--
-- Name: approval_request_id_seq; Type: SEQUENCE SET; Schema: zb; Owner: -
--

SELECT pg_catalog.setval('zb.approval_request_id_seq', 1, false);


--
-- Name: audit_event_id_seq; Type: SEQUENCE SET; Schema: zb; Owner: -
--

SELECT pg_catalog.setval('zb.audit_event_id_seq', 40, true);


--
-- Name: confidence_evidence_id_seq; Type: SEQUENCE SET; Schema: zb; Owner: -
--

SELECT pg_catalog.setval('zb.confidence_evidence_id_seq', 2, true);


--
-- Name: consent_id_seq; Type: SEQUENCE SET; Schema: zb; Owner: -
--

SELECT pg_catalog.setval('zb.consent_id_seq', 1, false);


--
-- Name: debate_id_seq; Type: SEQUENCE SET; Schema: zb; Owner: -
--

SELECT pg_catalog.setval('zb.debate_id_seq', 1, false);


--
-- Name: edge_id_seq; Type: SEQUENCE SET; Schema: zb; Owner: -
--

SELECT pg_catalog.setval('zb.edge_id_seq', 36, true);


--
-- Name: entity_id_seq; Type: SEQUENCE SET; Schema: zb; Owner: -
--

SELECT pg_catalog.setval('zb.entity_id_seq', 22, true);


--
-- Name: hyperagent_adjustment_id_seq; Type: SEQUENCE SET; Schema: zb; Owner: -
--

SELECT pg_catalog.setval('zb.hyperagent_adjustment_id_seq', 1, false);


--
-- Name: lexical_stat_delta_id_seq; Type: SEQUENCE SET; Schema: zb; Owner: -
--

SELECT pg_catalog.setval('zb.lexical_stat_delta_id_seq', 30, true);


--
-- Name: memory_id_seq; Type: SEQUENCE SET; Schema: zb; Owner: -
--

SELECT pg_catalog.setval('zb.memory_id_seq', 48, true);


--
-- Name: metacog_event_id_seq; Type: SEQUENCE SET; Schema: zb; Owner: -
--

SELECT pg_catalog.setval('zb.metacog_event_id_seq', 1, false);


--
-- Name: neuromodulator_event_id_seq; Type: SEQUENCE SET; Schema: zb; Owner: -
--

SELECT pg_catalog.setval('zb.neuromodulator_event_id_seq', 1, false);


--
-- Name: prospective_intention_id_seq; Type: SEQUENCE SET; Schema: zb; Owner: -
--

SELECT pg_catalog.setval('zb.prospective_intention_id_seq', 1, false);


--
-- Name: recall_event_id_seq; Type: SEQUENCE SET; Schema: zb; Owner: -
--

SELECT pg_catalog.setval('zb.recall_event_id_seq', 5, true);


--
-- Name: reconsolidation_event_id_seq; Type: SEQUENCE SET; Schema: zb; Owner: -
--

SELECT pg_catalog.setval('zb.reconsolidation_event_id_seq', 1, false);


--
-- Name: review_log_id_seq; Type: SEQUENCE SET; Schema: zb; Owner: -
--

SELECT pg_catalog.setval('zb.review_log_id_seq', 1, false);


--
-- Name: sleep_run_id_seq; Type: SEQUENCE SET; Schema: zb; Owner: -
--

SELECT pg_catalog.setval('zb.sleep_run_id_seq', 1, true);


--
-- Name: river_job river_job_pkey; Type: CONSTRAINT; Schema: river; Owner: -
--

ALTER TABLE ONLY river.river_job
    ADD CONSTRAINT river_job_pkey PRIMARY KEY (id);


--
-- Name: river_leader river_leader_pkey; Type: CONSTRAINT; Schema: river; Owner: -
--

ALTER TABLE ONLY river.river_leader
    ADD CONSTRAINT river_leader_pkey PRIMARY KEY (name);


--
-- Name: river_migration river_migration_pkey1; Type: CONSTRAINT; Schema: river; Owner: -
--

ALTER TABLE ONLY river.river_migration
    ADD CONSTRAINT river_migration_pkey1 PRIMARY KEY (line, version);


--
-- Name: river_notification river_notification_pkey; Type: CONSTRAINT; Schema: river; Owner: -
--

ALTER TABLE ONLY river.river_notification
    ADD CONSTRAINT river_notification_pkey PRIMARY KEY (id);


--
-- Name: river_queue river_queue_pkey; Type: CONSTRAINT; Schema: river; Owner: -
--

ALTER TABLE ONLY river.river_queue
    ADD CONSTRAINT river_queue_pkey PRIMARY KEY (name);


--
-- Name: algorithm_switch algorithm_switch_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.algorithm_switch
    ADD CONSTRAINT algorithm_switch_pkey PRIMARY KEY (tenant_id, algorithm);


--
-- Name: approval_request approval_request_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.approval_request
    ADD CONSTRAINT approval_request_pkey PRIMARY KEY (tenant_id, id);


--
-- Name: audit_event audit_event_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.audit_event
    ADD CONSTRAINT audit_event_pkey PRIMARY KEY (tenant_id, id);


--
-- Name: confidence_evidence confidence_evidence_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.confidence_evidence
    ADD CONSTRAINT confidence_evidence_pkey PRIMARY KEY (tenant_id, id);


--
-- Name: config config_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.config
    ADD CONSTRAINT config_pkey PRIMARY KEY (key);


--
-- Name: consent consent_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.consent
    ADD CONSTRAINT consent_pkey PRIMARY KEY (tenant_id, id);


--
-- Name: context_policy context_policy_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.context_policy
    ADD CONSTRAINT context_policy_pkey PRIMARY KEY (tenant_id, reader_context, source_context);


--
-- Name: debate debate_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.debate
    ADD CONSTRAINT debate_pkey PRIMARY KEY (tenant_id, id);


--
-- Name: edge edge_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.edge
    ADD CONSTRAINT edge_pkey PRIMARY KEY (tenant_id, id);


--
-- Name: edge edge_tenant_id_source_id_target_id_relation_key; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.edge
    ADD CONSTRAINT edge_tenant_id_source_id_target_id_relation_key UNIQUE (tenant_id, source_id, target_id, relation);


--
-- Name: entity entity_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.entity
    ADD CONSTRAINT entity_pkey PRIMARY KEY (tenant_id, id);


--
-- Name: entity entity_tenant_id_context_normalized_name_type_key; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.entity
    ADD CONSTRAINT entity_tenant_id_context_normalized_name_type_key UNIQUE (tenant_id, context, normalized_name, type);


--
-- Name: hyperagent_adjustment hyperagent_adjustment_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.hyperagent_adjustment
    ADD CONSTRAINT hyperagent_adjustment_pkey PRIMARY KEY (tenant_id, id);


--
-- Name: lability_window lability_window_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.lability_window
    ADD CONSTRAINT lability_window_pkey PRIMARY KEY (tenant_id, memory_id);


--
-- Name: lexical_stat_delta lexical_stat_delta_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.lexical_stat_delta
    ADD CONSTRAINT lexical_stat_delta_pkey PRIMARY KEY (tenant_id, id);


--
-- Name: memory_link memory_link_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.memory_link
    ADD CONSTRAINT memory_link_pkey PRIMARY KEY (tenant_id, source_id, target_id, relation);


--
-- Name: memory memory_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.memory
    ADD CONSTRAINT memory_pkey PRIMARY KEY (tenant_id, id);


--
-- Name: mention mention_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.mention
    ADD CONSTRAINT mention_pkey PRIMARY KEY (tenant_id, memory_id, entity_id);


--
-- Name: metacog_event metacog_event_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.metacog_event
    ADD CONSTRAINT metacog_event_pkey PRIMARY KEY (tenant_id, id);


--
-- Name: neuromodulator_event neuromodulator_event_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.neuromodulator_event
    ADD CONSTRAINT neuromodulator_event_pkey PRIMARY KEY (tenant_id, id);


--
-- Name: neuromodulator_state neuromodulator_state_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.neuromodulator_state
    ADD CONSTRAINT neuromodulator_state_pkey PRIMARY KEY (tenant_id);


--
-- Name: procedure procedure_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.procedure
    ADD CONSTRAINT procedure_pkey PRIMARY KEY (tenant_id, memory_id);


--
-- Name: prospective_intention prospective_intention_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.prospective_intention
    ADD CONSTRAINT prospective_intention_pkey PRIMARY KEY (tenant_id, id);


--
-- Name: recall_event recall_event_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.recall_event
    ADD CONSTRAINT recall_event_pkey PRIMARY KEY (tenant_id, id);


--
-- Name: reconsolidation_event reconsolidation_event_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.reconsolidation_event
    ADD CONSTRAINT reconsolidation_event_pkey PRIMARY KEY (tenant_id, id);


--
-- Name: retention_policy retention_policy_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.retention_policy
    ADD CONSTRAINT retention_policy_pkey PRIMARY KEY (tenant_id, context);


--
-- Name: review_log review_log_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.review_log
    ADD CONSTRAINT review_log_pkey PRIMARY KEY (tenant_id, id);


--
-- Name: review_state review_state_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.review_state
    ADD CONSTRAINT review_state_pkey PRIMARY KEY (tenant_id, memory_id);


--
-- Name: session session_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.session
    ADD CONSTRAINT session_pkey PRIMARY KEY (tenant_id, id);


--
-- Name: sleep_run sleep_run_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.sleep_run
    ADD CONSTRAINT sleep_run_pkey PRIMARY KEY (tenant_id, id);


--
-- Name: stability_lock stability_lock_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.stability_lock
    ADD CONSTRAINT stability_lock_pkey PRIMARY KEY (tenant_id, memory_id);


--
-- Name: stc_tag stc_tag_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.stc_tag
    ADD CONSTRAINT stc_tag_pkey PRIMARY KEY (tenant_id, memory_id);


--
-- Name: tenant_parameter tenant_parameter_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.tenant_parameter
    ADD CONSTRAINT tenant_parameter_pkey PRIMARY KEY (tenant_id, name);


--
-- Name: tenant tenant_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.tenant
    ADD CONSTRAINT tenant_pkey PRIMARY KEY (id);


--
-- Name: triple_copy triple_copy_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.triple_copy
    ADD CONSTRAINT triple_copy_pkey PRIMARY KEY (tenant_id, memory_id, copy);


--
-- Name: worker_heartbeat worker_heartbeat_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.worker_heartbeat
    ADD CONSTRAINT worker_heartbeat_pkey PRIMARY KEY (worker_id);


--
-- Name: working_slot working_slot_pkey; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.working_slot
    ADD CONSTRAINT working_slot_pkey PRIMARY KEY (tenant_id, session_id, slot);


--
-- Name: working_slot working_slot_tenant_id_session_id_memory_id_key; Type: CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.working_slot
    ADD CONSTRAINT working_slot_tenant_id_session_id_memory_id_key UNIQUE (tenant_id, session_id, memory_id);


--
-- Name: migration migration_pkey; Type: CONSTRAINT; Schema: zb_meta; Owner: -
--

ALTER TABLE ONLY zb_meta.migration
    ADD CONSTRAINT migration_pkey PRIMARY KEY (version);


--
-- Name: river_job_args_index; Type: INDEX; Schema: river; Owner: -
--

CREATE INDEX river_job_args_index ON river.river_job USING gin (args);


--
-- Name: river_job_kind; Type: INDEX; Schema: river; Owner: -
--

CREATE INDEX river_job_kind ON river.river_job USING btree (kind);


--
-- Name: river_job_metadata_index; Type: INDEX; Schema: river; Owner: -
--

CREATE INDEX river_job_metadata_index ON river.river_job USING gin (metadata);


--
-- Name: river_job_prioritized_fetching_index; Type: INDEX; Schema: river; Owner: -
--

CREATE INDEX river_job_prioritized_fetching_index ON river.river_job USING btree (state, queue, priority, scheduled_at, id);


--
-- Name: river_job_state_and_finalized_at_index; Type: INDEX; Schema: river; Owner: -
--

CREATE INDEX river_job_state_and_finalized_at_index ON river.river_job USING btree (state, finalized_at) WHERE (finalized_at IS NOT NULL);


--
-- Name: river_job_unique_idx; Type: INDEX; Schema: river; Owner: -
--

CREATE UNIQUE INDEX river_job_unique_idx ON river.river_job USING btree (unique_key) WHERE ((unique_key IS NOT NULL) AND (unique_states IS NOT NULL) AND river.river_job_state_in_bitmask(unique_states, state));


--
-- Name: river_notification_created_at_idx; Type: INDEX; Schema: river; Owner: -
--

CREATE INDEX river_notification_created_at_idx ON river.river_notification USING btree (created_at);


--
-- Name: river_notification_topic_id_idx; Type: INDEX; Schema: river; Owner: -
--

CREATE INDEX river_notification_topic_id_idx ON river.river_notification USING btree (topic, id);


--
-- Name: approval_request_pending_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX approval_request_pending_idx ON zb.approval_request USING btree (tenant_id, requested_at) WHERE (status = 'pending'::text);


--
-- Name: audit_event_memory_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX audit_event_memory_idx ON zb.audit_event USING btree (tenant_id, memory_id) WHERE (memory_id IS NOT NULL);


--
-- Name: audit_event_time_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX audit_event_time_idx ON zb.audit_event USING btree (tenant_id, at);


--
-- Name: confidence_evidence_memory_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX confidence_evidence_memory_idx ON zb.confidence_evidence USING btree (tenant_id, memory_id, created_at);


--
-- Name: consent_subject_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX consent_subject_idx ON zb.consent USING btree (tenant_id, subject, purpose);


--
-- Name: debate_memory_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX debate_memory_idx ON zb.debate USING btree (tenant_id, memory_id);


--
-- Name: edge_target_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX edge_target_idx ON zb.edge USING btree (tenant_id, target_id);


--
-- Name: edge_weak_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX edge_weak_idx ON zb.edge USING btree (tenant_id, weight) WHERE (weight < (0.1)::double precision);


--
-- Name: entity_embedding_hnsw_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX entity_embedding_hnsw_idx ON zb.entity USING hnsw (embedding public.vector_cosine_ops) WITH (m='16', ef_construction='64');


--
-- Name: lability_window_closes_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX lability_window_closes_idx ON zb.lability_window USING btree (tenant_id, closes_at);


--
-- Name: memory_activity_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX memory_activity_idx ON zb.memory USING btree (tenant_id, last_accessed_at) WHERE (status = 'active'::zb.memory_status);


--
-- Name: memory_content_tsv_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX memory_content_tsv_idx ON zb.memory USING gin (content_tsv);


--
-- Name: memory_core_label_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE UNIQUE INDEX memory_core_label_idx ON zb.memory USING btree (tenant_id, core_label) WHERE ((core_label IS NOT NULL) AND (status <> 'erased'::zb.memory_status));


--
-- Name: memory_embedding_hnsw_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX memory_embedding_hnsw_idx ON zb.memory USING hnsw (embedding public.vector_cosine_ops) WITH (m='16', ef_construction='64');


--
-- Name: memory_event_from_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX memory_event_from_idx ON zb.memory USING btree (tenant_id, event_from) WHERE (event_from IS NOT NULL);


--
-- Name: memory_external_id_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE UNIQUE INDEX memory_external_id_idx ON zb.memory USING btree (tenant_id, external_id) WHERE (external_id IS NOT NULL);


--
-- Name: memory_fade_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX memory_fade_idx ON zb.memory USING btree (tenant_id, fade_at) WHERE ((fade_at IS NOT NULL) AND (status = 'active'::zb.memory_status));


--
-- Name: memory_layer_status_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX memory_layer_status_idx ON zb.memory USING btree (tenant_id, layer, status);


--
-- Name: memory_link_target_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX memory_link_target_idx ON zb.memory_link USING btree (tenant_id, target_id);


--
-- Name: memory_occurred_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX memory_occurred_idx ON zb.memory USING btree (tenant_id, occurred_at) WHERE (occurred_at IS NOT NULL);


--
-- Name: memory_session_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX memory_session_idx ON zb.memory USING btree (tenant_id, session_id) WHERE (session_id IS NOT NULL);


--
-- Name: memory_session_order_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX memory_session_order_idx ON zb.memory USING btree (tenant_id, session_id, COALESCE(occurred_at, created_at), id) WHERE (session_id IS NOT NULL);


--
-- Name: memory_source_ids_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX memory_source_ids_idx ON zb.memory USING gin (source_ids);


--
-- Name: memory_subject_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX memory_subject_idx ON zb.memory USING btree (tenant_id, subject, attribute) WHERE (subject IS NOT NULL);


--
-- Name: memory_terms_gin_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX memory_terms_gin_idx ON zb.memory USING gin (terms);


--
-- Name: memory_underived_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX memory_underived_idx ON zb.memory USING btree (tenant_id, id) WHERE (derived_at IS NULL);


--
-- Name: mention_entity_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX mention_entity_idx ON zb.mention USING btree (tenant_id, entity_id);


--
-- Name: metacog_event_time_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX metacog_event_time_idx ON zb.metacog_event USING btree (tenant_id, created_at);


--
-- Name: neuromodulator_event_time_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX neuromodulator_event_time_idx ON zb.neuromodulator_event USING btree (tenant_id, created_at);


--
-- Name: prospective_due_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX prospective_due_idx ON zb.prospective_intention USING btree (tenant_id, due_at) WHERE (status = 'pending'::text);


--
-- Name: recall_event_time_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX recall_event_time_idx ON zb.recall_event USING btree (tenant_id, created_at);


--
-- Name: reconsolidation_event_memory_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX reconsolidation_event_memory_idx ON zb.reconsolidation_event USING btree (tenant_id, memory_id, applied_at);


--
-- Name: reconsolidation_event_trigger_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX reconsolidation_event_trigger_idx ON zb.reconsolidation_event USING btree (tenant_id, trigger_id) WHERE (trigger_id IS NOT NULL);


--
-- Name: review_log_memory_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX review_log_memory_idx ON zb.review_log USING btree (tenant_id, memory_id, reviewed_at);


--
-- Name: review_state_due_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX review_state_due_idx ON zb.review_state USING btree (tenant_id, due);


--
-- Name: session_open_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX session_open_idx ON zb.session USING btree (tenant_id, last_activity_at) WHERE (ended_at IS NULL);


--
-- Name: sleep_run_time_idx; Type: INDEX; Schema: zb; Owner: -
--

CREATE INDEX sleep_run_time_idx ON zb.sleep_run USING btree (tenant_id, started_at);


--
-- Name: audit_event audit_event_append_only; Type: TRIGGER; Schema: zb; Owner: -
--

CREATE TRIGGER audit_event_append_only BEFORE DELETE OR UPDATE ON zb.audit_event FOR EACH ROW EXECUTE FUNCTION zb.audit_event_append_only();


--
-- Name: audit_event audit_event_no_truncate; Type: TRIGGER; Schema: zb; Owner: -
--

CREATE TRIGGER audit_event_no_truncate BEFORE TRUNCATE ON zb.audit_event FOR EACH STATEMENT EXECUTE FUNCTION zb.audit_event_append_only();


--
-- Name: memory memory_lexical_stat_delete; Type: TRIGGER; Schema: zb; Owner: -
--

CREATE TRIGGER memory_lexical_stat_delete AFTER DELETE ON zb.memory REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION zb.lexical_stat_on_delete();


--
-- Name: memory memory_lexical_stat_insert; Type: TRIGGER; Schema: zb; Owner: -
--

CREATE TRIGGER memory_lexical_stat_insert AFTER INSERT ON zb.memory REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION zb.lexical_stat_on_insert();


--
-- Name: memory memory_lexical_stat_update; Type: TRIGGER; Schema: zb; Owner: -
--

CREATE TRIGGER memory_lexical_stat_update AFTER UPDATE ON zb.memory REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION zb.lexical_stat_on_update();


--
-- Name: memory memory_notify_underived; Type: TRIGGER; Schema: zb; Owner: -
--

CREATE TRIGGER memory_notify_underived AFTER INSERT ON zb.memory REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION zb.notify_underived();


--
-- Name: algorithm_switch algorithm_switch_tenant_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.algorithm_switch
    ADD CONSTRAINT algorithm_switch_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES zb.tenant(id) ON DELETE CASCADE;


--
-- Name: approval_request approval_request_tenant_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.approval_request
    ADD CONSTRAINT approval_request_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES zb.tenant(id) ON DELETE CASCADE;


--
-- Name: confidence_evidence confidence_evidence_tenant_id_memory_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.confidence_evidence
    ADD CONSTRAINT confidence_evidence_tenant_id_memory_id_fkey FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory(tenant_id, id) ON DELETE CASCADE;


--
-- Name: confidence_evidence confidence_evidence_tenant_id_source_memory_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.confidence_evidence
    ADD CONSTRAINT confidence_evidence_tenant_id_source_memory_id_fkey FOREIGN KEY (tenant_id, source_memory_id) REFERENCES zb.memory(tenant_id, id) ON DELETE SET NULL (source_memory_id);


--
-- Name: consent consent_tenant_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.consent
    ADD CONSTRAINT consent_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES zb.tenant(id) ON DELETE CASCADE;


--
-- Name: context_policy context_policy_tenant_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.context_policy
    ADD CONSTRAINT context_policy_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES zb.tenant(id) ON DELETE CASCADE;


--
-- Name: debate debate_tenant_id_memory_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.debate
    ADD CONSTRAINT debate_tenant_id_memory_id_fkey FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory(tenant_id, id) ON DELETE CASCADE;


--
-- Name: edge edge_tenant_id_source_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.edge
    ADD CONSTRAINT edge_tenant_id_source_id_fkey FOREIGN KEY (tenant_id, source_id) REFERENCES zb.entity(tenant_id, id) ON DELETE CASCADE;


--
-- Name: edge edge_tenant_id_target_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.edge
    ADD CONSTRAINT edge_tenant_id_target_id_fkey FOREIGN KEY (tenant_id, target_id) REFERENCES zb.entity(tenant_id, id) ON DELETE CASCADE;


--
-- Name: entity entity_tenant_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.entity
    ADD CONSTRAINT entity_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES zb.tenant(id) ON DELETE CASCADE;


--
-- Name: hyperagent_adjustment hyperagent_adjustment_tenant_id_parameter_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.hyperagent_adjustment
    ADD CONSTRAINT hyperagent_adjustment_tenant_id_parameter_fkey FOREIGN KEY (tenant_id, parameter) REFERENCES zb.tenant_parameter(tenant_id, name) ON DELETE CASCADE;


--
-- Name: lability_window lability_window_tenant_id_memory_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.lability_window
    ADD CONSTRAINT lability_window_tenant_id_memory_id_fkey FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory(tenant_id, id) ON DELETE CASCADE;


--
-- Name: memory_link memory_link_tenant_id_source_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.memory_link
    ADD CONSTRAINT memory_link_tenant_id_source_id_fkey FOREIGN KEY (tenant_id, source_id) REFERENCES zb.memory(tenant_id, id) ON DELETE CASCADE;


--
-- Name: memory_link memory_link_tenant_id_target_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.memory_link
    ADD CONSTRAINT memory_link_tenant_id_target_id_fkey FOREIGN KEY (tenant_id, target_id) REFERENCES zb.memory(tenant_id, id) ON DELETE CASCADE;


--
-- Name: memory memory_tenant_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.memory
    ADD CONSTRAINT memory_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES zb.tenant(id) ON DELETE CASCADE;


--
-- Name: memory memory_tenant_id_session_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.memory
    ADD CONSTRAINT memory_tenant_id_session_id_fkey FOREIGN KEY (tenant_id, session_id) REFERENCES zb.session(tenant_id, id) ON DELETE SET NULL (session_id);


--
-- Name: memory memory_tenant_id_superseded_by_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.memory
    ADD CONSTRAINT memory_tenant_id_superseded_by_fkey FOREIGN KEY (tenant_id, superseded_by) REFERENCES zb.memory(tenant_id, id) ON DELETE SET NULL (superseded_by);


--
-- Name: mention mention_tenant_id_entity_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.mention
    ADD CONSTRAINT mention_tenant_id_entity_id_fkey FOREIGN KEY (tenant_id, entity_id) REFERENCES zb.entity(tenant_id, id) ON DELETE CASCADE;


--
-- Name: mention mention_tenant_id_memory_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.mention
    ADD CONSTRAINT mention_tenant_id_memory_id_fkey FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory(tenant_id, id) ON DELETE CASCADE;


--
-- Name: metacog_event metacog_event_tenant_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.metacog_event
    ADD CONSTRAINT metacog_event_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES zb.tenant(id) ON DELETE CASCADE;


--
-- Name: neuromodulator_event neuromodulator_event_tenant_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.neuromodulator_event
    ADD CONSTRAINT neuromodulator_event_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES zb.tenant(id) ON DELETE CASCADE;


--
-- Name: neuromodulator_state neuromodulator_state_tenant_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.neuromodulator_state
    ADD CONSTRAINT neuromodulator_state_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES zb.tenant(id) ON DELETE CASCADE;


--
-- Name: procedure procedure_tenant_id_memory_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.procedure
    ADD CONSTRAINT procedure_tenant_id_memory_id_fkey FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory(tenant_id, id) ON DELETE CASCADE;


--
-- Name: prospective_intention prospective_intention_tenant_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.prospective_intention
    ADD CONSTRAINT prospective_intention_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES zb.tenant(id) ON DELETE CASCADE;


--
-- Name: prospective_intention prospective_intention_tenant_id_memory_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.prospective_intention
    ADD CONSTRAINT prospective_intention_tenant_id_memory_id_fkey FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory(tenant_id, id) ON DELETE SET NULL (memory_id);


--
-- Name: recall_event recall_event_tenant_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.recall_event
    ADD CONSTRAINT recall_event_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES zb.tenant(id) ON DELETE CASCADE;


--
-- Name: reconsolidation_event reconsolidation_event_tenant_id_memory_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.reconsolidation_event
    ADD CONSTRAINT reconsolidation_event_tenant_id_memory_id_fkey FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory(tenant_id, id) ON DELETE CASCADE;


--
-- Name: reconsolidation_event reconsolidation_event_tenant_id_result_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.reconsolidation_event
    ADD CONSTRAINT reconsolidation_event_tenant_id_result_id_fkey FOREIGN KEY (tenant_id, result_id) REFERENCES zb.memory(tenant_id, id) ON DELETE SET NULL (result_id);


--
-- Name: reconsolidation_event reconsolidation_event_tenant_id_trigger_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.reconsolidation_event
    ADD CONSTRAINT reconsolidation_event_tenant_id_trigger_id_fkey FOREIGN KEY (tenant_id, trigger_id) REFERENCES zb.memory(tenant_id, id) ON DELETE SET NULL (trigger_id);


--
-- Name: retention_policy retention_policy_tenant_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.retention_policy
    ADD CONSTRAINT retention_policy_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES zb.tenant(id) ON DELETE CASCADE;


--
-- Name: review_log review_log_tenant_id_memory_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.review_log
    ADD CONSTRAINT review_log_tenant_id_memory_id_fkey FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory(tenant_id, id) ON DELETE CASCADE;


--
-- Name: review_state review_state_tenant_id_memory_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.review_state
    ADD CONSTRAINT review_state_tenant_id_memory_id_fkey FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory(tenant_id, id) ON DELETE CASCADE;


--
-- Name: session session_tenant_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.session
    ADD CONSTRAINT session_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES zb.tenant(id) ON DELETE CASCADE;


--
-- Name: sleep_run sleep_run_tenant_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.sleep_run
    ADD CONSTRAINT sleep_run_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES zb.tenant(id) ON DELETE CASCADE;


--
-- Name: stability_lock stability_lock_tenant_id_memory_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.stability_lock
    ADD CONSTRAINT stability_lock_tenant_id_memory_id_fkey FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory(tenant_id, id) ON DELETE CASCADE;


--
-- Name: stc_tag stc_tag_tenant_id_memory_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.stc_tag
    ADD CONSTRAINT stc_tag_tenant_id_memory_id_fkey FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory(tenant_id, id) ON DELETE CASCADE;


--
-- Name: stc_tag stc_tag_tenant_id_rescued_by_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.stc_tag
    ADD CONSTRAINT stc_tag_tenant_id_rescued_by_fkey FOREIGN KEY (tenant_id, rescued_by) REFERENCES zb.memory(tenant_id, id) ON DELETE SET NULL (rescued_by);


--
-- Name: tenant_parameter tenant_parameter_tenant_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.tenant_parameter
    ADD CONSTRAINT tenant_parameter_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES zb.tenant(id) ON DELETE CASCADE;


--
-- Name: triple_copy triple_copy_tenant_id_memory_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.triple_copy
    ADD CONSTRAINT triple_copy_tenant_id_memory_id_fkey FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory(tenant_id, id) ON DELETE CASCADE;


--
-- Name: working_slot working_slot_tenant_id_memory_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.working_slot
    ADD CONSTRAINT working_slot_tenant_id_memory_id_fkey FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory(tenant_id, id) ON DELETE CASCADE;


--
-- Name: working_slot working_slot_tenant_id_session_id_fkey; Type: FK CONSTRAINT; Schema: zb; Owner: -
--

ALTER TABLE ONLY zb.working_slot
    ADD CONSTRAINT working_slot_tenant_id_session_id_fkey FOREIGN KEY (tenant_id, session_id) REFERENCES zb.session(tenant_id, id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--

\unrestrict KUrvEgUuDrafTm0HF8iGjk3aoPuoSdvpsz3fcdrD9ymIIyUQLzQ3dotD4GGjJwA

