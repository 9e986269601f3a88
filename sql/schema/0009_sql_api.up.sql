-- 0009_sql_api: the SQL API for applications that live in PostgreSQL (docs/sql.md).
--
--  * Formula functions, twins of the Go code (integration/sqlapi_test.go checks each against
--    its twin on 10,000+ random inputs, |Δ| ≤ 1e-9): zb.emotional_multiplier,
--    zb.retrievability, zb.copy_strength, zb.triple_copy_strength, zb.priority,
--    zb.stability_lock, zb.edge_weight_at, zb.beta_quantile and zb.beta_interval95.
--  * zb.memory_live(now) (and the view zb.memory_live_now), zb.due_review, zb.kg_edge_importance.
--  * zb.remember, zb.forget and zb.recall.
--
-- Every time-dependent function takes the time as a parameter; none reads now() inside a formula.

-- exp_or_zero is exp(x), or 0 when x < −745 (where exp underflows: PostgreSQL raises an error,
-- Go's math.Exp returns 0).
CREATE FUNCTION zb.exp_or_zero(x double precision)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN x < -745 THEN 0 ELSE exp(x) END
$$;

COMMENT ON FUNCTION zb.exp_or_zero(double precision) IS 'exp(x), 0 below −745 instead of an underflow error (like Go''s math.Exp).';

-- emotional_multiplier is m_emo = clamp(1 + 2·max(|valence|, arousal, significance), 1, 3)
-- (forgetting.EmotionalMultiplier). Inputs are clamped to their ranges first (valence [−1, 1],
-- arousal and significance [0, 1]) as the coordinator does; NULL inputs count as 0.
CREATE FUNCTION zb.emotional_multiplier(valence double precision, arousal double precision,
                                        significance double precision)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT least(3, greatest(1, 1 + 2 * greatest(
        abs(greatest(-1, least(1, coalesce(valence, 0)))),
        greatest(0, least(1, coalesce(arousal, 0))),
        greatest(0, least(1, coalesce(significance, 0))))))::double precision
$$;

COMMENT ON FUNCTION zb.emotional_multiplier(double precision, double precision, double precision) IS
    'm_emo = clamp(1 + 2·max(|valence|, arousal, significance), 1, 3); twin of forgetting.EmotionalMultiplier.';

-- retrievability is R = exp(−Δt/S_eff) with S_eff = stability_days·m_emo days and
-- Δt = p_now − last_access (forgetting.Trace.Retrievability). A NULL stability (core memories)
-- gives 1, as does Δt ≤ 0 (clock skew) and a stability outside (0, 35583 days], the range Go's
-- time.Duration can hold (the coordinator then treats the trace as not decaying).
CREATE FUNCTION zb.retrievability(stability_days double precision, m_emo double precision,
                                  last_access timestamptz, p_now timestamptz)
RETURNS double precision
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

COMMENT ON FUNCTION zb.retrievability(double precision, double precision, timestamptz, timestamptz) IS
    'R = exp(−(now − last_access)/(stability_days·m_emo days)); 1 for NULL stability (core) or now ≤ last_access; twin of forgetting.Trace.Retrievability.';

-- copy_strength is the strength at p_now of one row of zb.triple_copy (pma.TripleCopyMemory):
-- fast and medium copies decay, S0·exp(−age/τ); the deep copy grows after its promotion
-- (created_at), S_d·(1 − exp(−age/τ)). The result is clamped to [0, 1]; before created_at it is 0.
CREATE FUNCTION zb.copy_strength(copy text, initial_strength double precision, tau_seconds double precision,
                                 created_at timestamptz, p_now timestamptz)
RETURNS double precision
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

COMMENT ON FUNCTION zb.copy_strength(text, double precision, double precision, timestamptz, timestamptz) IS
    'Strength at now of one triple copy: fast/medium S0·exp(−age/τ), deep S_d·(1 − exp(−age/τ)) since promotion, clamped to [0, 1].';

-- triple_copy_strength is the strength of a memory's triple copy at p_now
-- (pma.TripleCopyMemory.Strengths): max(fast, medium, deep) with
-- fast = S_f·exp(−age/τ_f), medium = S_m·exp(−age/τ_m) (age since stored_at) and
-- deep = S_d·(1 − exp(−g/τ_d)) (g since promoted_at; 0 when promoted_at is NULL), each clamped
-- to [0, 1]. Defaults τ_f 4 h, τ_m 14 d, τ_d 7 d. Before stored_at the strength is 0.
CREATE FUNCTION zb.triple_copy_strength(fast double precision, medium double precision, deep double precision,
                                        stored_at timestamptz, promoted_at timestamptz, p_now timestamptz,
                                        tau_fast_seconds double precision DEFAULT 14400,
                                        tau_medium_seconds double precision DEFAULT 1209600,
                                        tau_deep_seconds double precision DEFAULT 604800)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN p_now < stored_at THEN 0 ELSE greatest(
        zb.copy_strength('fast', fast, tau_fast_seconds, stored_at, p_now),
        zb.copy_strength('medium', medium, tau_medium_seconds, stored_at, p_now),
        CASE WHEN promoted_at IS NULL THEN 0
             ELSE zb.copy_strength('deep', deep, tau_deep_seconds, promoted_at, p_now) END)
    END::double precision
$$;

COMMENT ON FUNCTION zb.triple_copy_strength(double precision, double precision, double precision, timestamptz,
                                            timestamptz, timestamptz, double precision, double precision, double precision) IS
    'max(S_f·e^{−age/4h}, S_m·e^{−age/14d}, S_d·(1 − e^{−Δt/7d})); twin of pma.TripleCopyMemory.Strengths(...).Strength.';

-- priority is the priority-map score (pma.PriorityMap.Score at baseline neuromodulator levels):
-- weighted = clamp01(0.2·salience + 0.25·|valence| + 0.25·relevance + 0.3·goal); when
-- |valence| > 0.6 the amygdala fast path lifts it to at least 0.5. Inputs outside their ranges
-- (valence [−1, 1], the others [0, 1]) or NULL give NULL.
CREATE FUNCTION zb.priority(salience double precision, valence double precision, relevance double precision,
                            goal double precision)
RETURNS double precision
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

COMMENT ON FUNCTION zb.priority(double precision, double precision, double precision, double precision) IS
    'clamp01(0.2 s + 0.25 |v| + 0.25 r + 0.3 g), at least 0.5 when |v| > 0.6 (amygdala fast path); twin of pma.PriorityMap.Score at baseline levels.';

-- stability_lock is the StabilityProtector's lock (pma.StabilityProtector.Evaluate):
-- L = clamp01(0.3·log2(1 + min(accesses, 10))/log2(11) + 0.3·confidence + 0.2·min(age/365, 1)
-- + 0.2·[core]), ρ = 1 + 0.1·log2(1 + min(age, 365000)), the overwrite threshold 0.5 + 0.3·L·ρ,
-- and locked = L ≥ 0.5. Invalid input (negative accesses or age, confidence outside [0, 1]) gives
-- a row of NULLs.
CREATE FUNCTION zb.stability_lock(accesses integer, confidence double precision, age_days double precision,
                                  is_core boolean,
                                  OUT lock_level double precision, OUT rho double precision,
                                  OUT threshold double precision, OUT locked boolean)
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

COMMENT ON FUNCTION zb.stability_lock(integer, double precision, double precision, boolean) IS
    'Lock level L, rigidity ρ, overwrite threshold 0.5 + 0.3·L·ρ and locked (L ≥ 0.5); twin of pma.StabilityProtector.Evaluate.';

-- edge_weight_at is the Two-Factor edge weight decayed to p_now (hebbian.Model.WeightAt):
-- w·exp(−r/(1 + g·I)·days) with r 0.02/day, g 0.1 and I = 1/variance; w unchanged when p_now is
-- not after last_activated_at.
CREATE FUNCTION zb.edge_weight_at(weight double precision, variance double precision,
                                  last_activated_at timestamptz, p_now timestamptz)
RETURNS double precision
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

COMMENT ON FUNCTION zb.edge_weight_at(double precision, double precision, timestamptz, timestamptz) IS
    'w·exp(−0.02/(1 + 0.1·I)·Δdays), I = 1/variance; twin of hebbian.Model.WeightAt.';

-- lgamma is ln Γ(x) for x > 0 (Lanczos approximation, g = 7, 9 coefficients; relative error
-- about 1e-15), with the reflection formula below 0.5. PostgreSQL 15 has no lgamma.
CREATE FUNCTION zb.lgamma(x double precision)
RETURNS double precision
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

COMMENT ON FUNCTION zb.lgamma(double precision) IS 'ln Γ(x) for x > 0 (Lanczos approximation).';

-- reg_inc_beta is the regularized incomplete beta function I_x(a, b) (the Beta(a, b) CDF at x),
-- by the continued fraction of Numerical Recipes §6.4 evaluated with the modified Lentz method.
CREATE FUNCTION zb.reg_inc_beta(x double precision, a double precision, b double precision)
RETURNS double precision
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

COMMENT ON FUNCTION zb.reg_inc_beta(double precision, double precision, double precision) IS
    'Regularized incomplete beta I_x(a, b), the Beta(a, b) CDF (continued fraction).';

-- beta_quantile is the p-quantile of Beta(a, b): the x with I_x(a, b) = p, in closed form when a
-- or b is 1 and otherwise by Newton steps safeguarded with bisection (about 1 ms per call).
-- Invalid parameters give NULL.
CREATE FUNCTION zb.beta_quantile(p double precision, a double precision, b double precision)
RETURNS double precision
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

COMMENT ON FUNCTION zb.beta_quantile(double precision, double precision, double precision) IS
    'p-quantile of Beta(a, b) (Newton with bisection on the regularized incomplete beta); twin of gonum distuv.Beta.Quantile.';

-- beta_interval95 is the central 95 % interval of Beta(alpha, beta): its 0.025 and 0.975
-- quantiles (bayes.Belief.Interval95). Invalid parameters (not positive and finite) give [0, 1].
CREATE FUNCTION zb.beta_interval95(alpha double precision, beta double precision,
                                   OUT lower double precision, OUT upper double precision)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN v.ok THEN zb.beta_quantile(0.025, alpha, beta) ELSE 0 END,
           CASE WHEN v.ok THEN zb.beta_quantile(0.975, alpha, beta) ELSE 1 END
    FROM (SELECT coalesce(alpha > 0 AND beta > 0 AND alpha < 'Infinity'::double precision
                          AND beta < 'Infinity'::double precision, false) AS ok) v
$$;

COMMENT ON FUNCTION zb.beta_interval95(double precision, double precision) IS
    'Central 95 % interval of Beta(α, β) (exact quantiles); [0, 1] for invalid parameters; twin of bayes.Belief.Interval95.';

-- memory_live returns every active memory of every tenant as it stands at p_now: its forgetting
-- state (m_emo, retrievability), the strength of its triple copy (0 without copies), its
-- confidence (the Beta mean α/(α+β), the propagated confidence and the exact 95 %
-- interval of zb.beta_interval95, about 2 ms per memory whose α and β both differ from 1) and its stability lock (NULL when none was computed).
CREATE FUNCTION zb.memory_live(p_now timestamptz)
RETURNS TABLE (
    tenant_id text, id bigint, layer zb.memory_layer, kind text, context text, content text,
    created_at timestamptz, last_accessed_at timestamptz, access_count integer, stability_days double precision,
    m_emo double precision, retrievability double precision, triple_copy_strength double precision,
    conf_alpha double precision, conf_beta double precision, confidence_mean double precision,
    confidence_low double precision, confidence_high double precision, confidence double precision,
    lock_level double precision, overwrite_threshold double precision, source_ids bigint[]
)
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

COMMENT ON FUNCTION zb.memory_live(timestamptz) IS
    'Active memories at a given time with retrievability, triple-copy strength, confidence mean and 95 % interval, and stability lock.';

-- The same query as zb.memory_live with now() (spelled out so that sqlc sees the columns'
-- types and nullability; integration/sqlapi_test.go checks the two agree).
CREATE VIEW zb.memory_live_now AS
    SELECT m.tenant_id, m.id, m.layer, m.kind, m.context, m.content, m.created_at, m.last_accessed_at,
           m.access_count, m.stability AS stability_days, e.m AS m_emo,
           zb.retrievability(m.stability, e.m, m.last_accessed_at, now()) AS retrievability,
           coalesce(tc.s, 0)::double precision AS triple_copy_strength, m.conf_alpha, m.conf_beta,
           (m.conf_alpha / (m.conf_alpha + m.conf_beta))::double precision AS confidence_mean, iv.lower AS confidence_low,
           iv.upper AS confidence_high, m.confidence, sl.lock_level, sl.threshold AS overwrite_threshold, m.source_ids
    FROM zb.memory m
    CROSS JOIN LATERAL (SELECT zb.emotional_multiplier(m.valence, m.arousal, m.significance) AS m) e
    CROSS JOIN LATERAL zb.beta_interval95(m.conf_alpha, m.conf_beta) iv
    LEFT JOIN LATERAL (
        SELECT max(zb.copy_strength(t.copy, t.initial_strength, t.tau_seconds, t.created_at, now())) AS s
        FROM zb.triple_copy t WHERE t.tenant_id = m.tenant_id AND t.memory_id = m.id
    ) tc ON true
    LEFT JOIN zb.stability_lock sl ON sl.tenant_id = m.tenant_id AND sl.memory_id = m.id
    WHERE m.status = 'active';

COMMENT ON VIEW zb.memory_live_now IS
    'zb.memory_live(now()): active memories at the current transaction time. Use zb.memory_live(t) for a fixed time.';

-- due_review: FSRS review cards that are due (due ≤ now()), with their memory. Filter on due
-- yourself (zb.review_state) for another time.
CREATE VIEW zb.due_review AS
    SELECT r.tenant_id, r.memory_id, m.layer, m.content, r.due, r.stability, r.difficulty, r.reps, r.lapses,
           r.state, r.last_review
    FROM zb.review_state r
    JOIN zb.memory m ON m.tenant_id = r.tenant_id AND m.id = r.memory_id
    WHERE r.due <= now() AND m.status = 'active';

COMMENT ON VIEW zb.due_review IS
    'FSRS review cards due at now() (review_state.due ≤ now()) of active memories, with the memory''s layer and content.';

-- kg_edge_importance: the knowledge graph's edges with their entities' names, importance
-- I = 1/σ² and strength w·I (the stored weight; zb.edge_weight_at decays it to a time).
CREATE VIEW zb.kg_edge_importance AS
    SELECT e.tenant_id, e.id, e.source_id, s.name AS source_name, e.target_id, t.name AS target_name,
           e.relation, e.weight, e.variance, (1 / e.variance)::double precision AS importance,
           (e.weight / e.variance)::double precision AS strength,
           e.activation_count, e.last_activated_at
    FROM zb.edge e
    JOIN zb.entity s ON s.tenant_id = e.tenant_id AND s.id = e.source_id
    JOIN zb.entity t ON t.tenant_id = e.tenant_id AND t.id = e.target_id;

COMMENT ON VIEW zb.kg_edge_importance IS
    'Knowledge-graph edges with importance 1/variance and strength weight·importance (weights as stored, not decayed).';

-- remember stores a memory and returns its id. It creates the tenant if needed; a NULL layer
-- routes to semantic (the Go router's content-based routing is not replicated); the stability is
-- the layer's initial one (1 day for working, short_term and episodic, 7 days for semantic,
-- procedural and cross_context, none for core, which needs a core_label). The row is stored
-- underived with provisional lexical terms (zb.text_terms), so zb.recall finds it at once; the
-- worker (notified by the 0008 trigger) computes the exact terms, the embedding, emotional tags,
-- entities and the rest within seconds.
CREATE FUNCTION zb.remember(p_tenant text, p_content text, p_layer zb.memory_layer DEFAULT NULL,
                            p_context text DEFAULT 'default', p_metadata jsonb DEFAULT '{}',
                            p_session_id uuid DEFAULT NULL, p_occurred_at timestamptz DEFAULT NULL,
                            p_external_id text DEFAULT NULL, p_core_label text DEFAULT NULL,
                            p_now timestamptz DEFAULT now())
RETURNS bigint
LANGUAGE plpgsql
AS $$
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
$$;

COMMENT ON FUNCTION zb.remember(text, text, zb.memory_layer, text, jsonb, uuid, timestamptz, text, text, timestamptz) IS
    'Stores a raw memory (layer NULL → semantic) for a tenant (created if needed) and returns its id; the worker derives the rest.';

-- forget erases a memory of a tenant: status erased; content, metadata, embedding and terms
-- removed; its mentions, working-memory slots, review card and triple copies deleted; an audit
-- event memory.erase (actor 'sql') recorded. (The Go API's Forget deletes the row instead.) It
-- returns true when the tenant had that memory not yet erased, and false otherwise, also for
-- another tenant's id, which is left alone.
CREATE FUNCTION zb.forget(p_tenant text, p_memory_id bigint, p_now timestamptz DEFAULT now())
RETURNS boolean
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

COMMENT ON FUNCTION zb.forget(text, bigint, timestamptz) IS
    'Erases a memory (status erased, content and embedding removed); true if the tenant had it.';

-- query_terms approximates the Go query terms (textproc.Terms: stop words removed,
-- Snowball-stemmed) with PostgreSQL's Snowball configuration (english by default). The stemmers
-- are the same algorithm; the stop-word lists differ slightly.
CREATE FUNCTION zb.query_terms(p_text text, p_config regconfig DEFAULT 'english')
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT coalesce(array_agg(t ORDER BY t), '{}') FROM unnest(tsvector_to_array(to_tsvector(p_config, p_text))) t
$$;

COMMENT ON FUNCTION zb.query_terms(text, regconfig) IS
    'Approximate BM25 query terms of a text (PostgreSQL Snowball stems); Go''s textproc.Terms is exact.';

-- tokens approximates textproc.Tokens: the text lower-cased and NFKC-normalized, then maximal
-- runs of letters and digits, with inner apostrophes (' ’ ʼ) kept as ASCII '.
CREATE FUNCTION zb.tokens(p_text text)
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT coalesce(array_agg(m[1] ORDER BY n), '{}')
    FROM regexp_matches(regexp_replace(lower(normalize(coalesce(p_text, ''), NFKC)), '[’ʼ]', '''', 'g'),
                        '([[:alnum:]]+(''[[:alnum:]]+)*)', 'g') WITH ORDINALITY AS x(m, n)
$$;

COMMENT ON FUNCTION zb.tokens(text) IS 'Word tokens of a text (approximates textproc.Tokens).';

-- token_jaccard is the set Jaccard similarity |A ∩ B| / |A ∪ B| of the distinct tokens of a and
-- b (textproc.Jaccard): 1 for two empty sets, 0 when exactly one is empty.
CREATE FUNCTION zb.token_jaccard(a text[], b text[])
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE
        WHEN coalesce(cardinality(a), 0) = 0 AND coalesce(cardinality(b), 0) = 0 THEN 1
        WHEN coalesce(cardinality(a), 0) = 0 OR coalesce(cardinality(b), 0) = 0 THEN 0
        ELSE (SELECT count(*) FROM (SELECT unnest(a) INTERSECT SELECT unnest(b)) i)::double precision
             / (SELECT count(*) FROM (SELECT unnest(a) UNION SELECT unnest(b)) u)
    END::double precision
$$;

COMMENT ON FUNCTION zb.token_jaccard(text[], text[]) IS 'Set Jaccard similarity of two token arrays (twin of textproc.Jaccard).';

-- named_in approximates retrieval.NamedIn: the first word of p_name (lower-cased, NFKC), at
-- least 2 characters and not an English or German stop word, is among the words of p_query.
CREATE FUNCTION zb.named_in(p_query text, p_name text)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT coalesce(n.w IS NOT NULL AND char_length(n.w) >= 2
                    AND ts_lexize('english_stem', n.w) <> '{}' AND ts_lexize('german_stem', n.w) <> '{}'
                    AND n.w = ANY (zb.tokens(p_query)), false)
    FROM (SELECT (zb.tokens(p_name))[1] AS w) n
$$;

COMMENT ON FUNCTION zb.named_in(text, text) IS
    'Whether the first word of a name appears among the words of a query (approximates retrieval.NamedIn).';

-- text_terms approximates the BM25 index terms of a text with repetitions, in text order
-- (PostgreSQL's Snowball configuration, english by default), for rows stored with zb.remember
-- before the worker derives the exact terms (textproc.Terms).
CREATE FUNCTION zb.text_terms(p_text text, p_config regconfig DEFAULT 'english')
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT coalesce(array_agg(l.lexeme ORDER BY p.pos, l.lexeme), '{}')
    FROM unnest(to_tsvector(p_config, p_text)) l
    CROSS JOIN LATERAL unnest(l.positions) p(pos)
$$;

COMMENT ON FUNCTION zb.text_terms(text, regconfig) IS
    'Approximate BM25 index terms of a text, with repetitions (PostgreSQL Snowball stems); the worker replaces them with textproc.Terms.';

-- recall_check raises an error naming the fix when zb.recall's arguments are invalid (an empty
-- query, k or the candidate count outside [1, 1000], an unknown query class) and returns true
-- otherwise.
CREATE FUNCTION zb.recall_check(p_query text, p_k integer, p_class text, p_candidates integer)
RETURNS boolean
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

COMMENT ON FUNCTION zb.recall_check(text, integer, text, integer) IS
    'Validates zb.recall''s arguments: raises a clear error, or returns true.';

-- recall answers a query for a tenant like coordinator.Recall with ReadOnly (no side effects):
-- candidates from zb.recall_candidates (top p_candidates per layer and signal, at least p_k),
-- per-query min-max normalization of cosine and BM25, hybrid 0.3·vector + 0.7·bm25, the
-- conversational context (hybrid + 0.5·best neighbour + 0.5·session)/1.5, the speaker and
-- participant multiplier 1 + 0.3·[speaker named] + 0.2·[participant named], the class's layer
-- weight (temporal → episodic 2, factual → semantic 1.8, procedural → procedural 1.8), the
-- Two-Factor boost 1 + 0.2·w·I^0.1, the retention 0.9 + 0.1·R, dedup and the top p_k.
-- Differences from Go, by design: the query class is a parameter (default 'general'; Go
-- classifies the text), no time range is derived from dates in the query (pass p_from/p_to),
-- query terms default to zb.query_terms (pass Go's terms for exact BM25), the query embedding
-- must be supplied (NULL: lexical only), zb.tokens and zb.named_in approximate Go's tokenizer
-- and stop-word list.
CREATE FUNCTION zb.recall(p_tenant text, p_query text, p_query_embedding vector DEFAULT NULL,
                          p_k integer DEFAULT 5, p_now timestamptz DEFAULT now(),
                          p_class text DEFAULT 'general', p_terms text[] DEFAULT NULL,
                          p_layers zb.memory_layer[] DEFAULT NULL, p_candidates integer DEFAULT 8,
                          p_from timestamptz DEFAULT NULL, p_to timestamptz DEFAULT NULL,
                          p_as_of timestamptz DEFAULT NULL, p_contexts text[] DEFAULT NULL,
                          p_deep boolean DEFAULT false)
RETURNS TABLE (
    rank integer, memory_id bigint, layer zb.memory_layer, kind text, content text, score double precision,
    confidence double precision, confidence_low double precision, confidence_high double precision,
    retrievability double precision, cosine double precision, bm25 double precision,
    vector_norm double precision, bm25_norm double precision, hybrid double precision,
    neighbour double precision, session double precision, context_score double precision,
    entity double precision, layer_weight double precision, fused double precision, boost double precision,
    retention double precision, by_vector boolean, by_lexical boolean, source_ids bigint[], external_id text,
    session_id uuid, context text, occurred_at timestamptz, created_at timestamptz, metadata jsonb
)
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

COMMENT ON FUNCTION zb.recall(text, text, vector, integer, timestamptz, text, text[], zb.memory_layer[], integer,
                              timestamptz, timestamptz, timestamptz, text[], boolean) IS
    'Ranked recall like coordinator.Recall (read-only): fused score, signals, confidence and provenance per row. See docs/sql.md for the differences.';
