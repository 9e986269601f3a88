-- 0002_memory: the seven layers. One memory table holds every layer (the layer column), with
-- the forgetting model's state, emotional tags, confidence, provenance and bi-temporal validity;
-- sessions, working-memory slots, procedures and FSRS review state hang off it.

CREATE TABLE zb.session (
    tenant_id        text        NOT NULL REFERENCES zb.tenant (id) ON DELETE CASCADE,
    id               uuid        NOT NULL,
    context          text        NOT NULL DEFAULT 'default' CHECK (context ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'),
    started_at       timestamptz NOT NULL,
    last_activity_at timestamptz NOT NULL,
    ended_at         timestamptz,
    consolidated_at  timestamptz,
    metadata         jsonb       NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
    PRIMARY KEY (tenant_id, id),
    CHECK (last_activity_at >= started_at),
    CHECK (ended_at IS NULL OR ended_at >= started_at)
);

-- Sessions still open, for the idle-timeout sweep.
CREATE INDEX session_open_idx ON zb.session (tenant_id, last_activity_at) WHERE ended_at IS NULL;

CREATE TABLE zb.memory (
    tenant_id        text             NOT NULL REFERENCES zb.tenant (id) ON DELETE CASCADE,
    id               bigint           GENERATED ALWAYS AS IDENTITY,
    context          text             NOT NULL DEFAULT 'default' CHECK (context ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'),
    layer            zb.memory_layer  NOT NULL,
    kind             text             NOT NULL DEFAULT 'fact'
        CHECK (kind IN ('fact', 'episode', 'interaction', 'skill', 'identity', 'schema', 'hypothesis',
                        'focus', 'entity_link', 'counterfactual')),
    content          text             NOT NULL CHECK (octet_length(content) <= 1048576),
    ts_config        regconfig        NOT NULL DEFAULT 'simple',
    content_tsv      tsvector         GENERATED ALWAYS AS (to_tsvector(ts_config, content)) STORED,
    embedding        vector(768),
    embedding_model  text,
    session_id       uuid,
    external_id      text             CHECK (external_id IS NULL OR length(external_id) BETWEEN 1 AND 512),
    core_label       text             CHECK (core_label IS NULL OR length(core_label) BETWEEN 1 AND 200),
    subject          text,
    attribute        text,
    occurred_at      timestamptz,
    created_at       timestamptz      NOT NULL,
    updated_at       timestamptz      NOT NULL,
    derived_at       timestamptz,
    source_ids       bigint[]         NOT NULL DEFAULT '{}',
    metadata         jsonb            NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
    status           zb.memory_status NOT NULL DEFAULT 'active',
    superseded_by    bigint,
    valid_from       timestamptz,
    valid_to         timestamptz,
    valence          real             NOT NULL DEFAULT 0 CHECK (valence BETWEEN -1 AND 1),
    arousal          real             NOT NULL DEFAULT 0 CHECK (arousal BETWEEN 0 AND 1),
    significance     real             NOT NULL DEFAULT 0 CHECK (significance BETWEEN 0 AND 1),
    importance       real             NOT NULL DEFAULT 0.5 CHECK (importance BETWEEN 0 AND 1),
    priority         real             NOT NULL DEFAULT 0.5 CHECK (priority BETWEEN 0 AND 1),
    access_count     integer          NOT NULL DEFAULT 0 CHECK (access_count >= 0),
    last_accessed_at timestamptz      NOT NULL,
    -- stability is S in days of the forgetting model R = exp(-dt / (S * m_emo)); NULL for core
    -- memories, which never decay.
    stability        double precision CHECK (stability > 0 AND stability < 1e6),
    difficulty       double precision NOT NULL DEFAULT 5 CHECK (difficulty BETWEEN 1 AND 10),
    -- fade_at is when R falls below the archive threshold; NULL means never.
    fade_at          timestamptz,
    value_estimate   double precision NOT NULL DEFAULT 0 CHECK (value_estimate BETWEEN -1e6 AND 1e6),
    conf_alpha       double precision NOT NULL DEFAULT 1 CHECK (conf_alpha > 0),
    conf_beta        double precision NOT NULL DEFAULT 1 CHECK (conf_beta > 0),
    -- confidence is the propagated confidence in [0, 1] (Bayesian propagation writes it).
    confidence       double precision NOT NULL DEFAULT 0.5 CHECK (confidence BETWEEN 0 AND 1),
    ai_generated     boolean          NOT NULL DEFAULT false,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, superseded_by) REFERENCES zb.memory (tenant_id, id) ON DELETE SET NULL (superseded_by),
    FOREIGN KEY (tenant_id, session_id) REFERENCES zb.session (tenant_id, id) ON DELETE SET NULL (session_id),
    CHECK (content <> '' OR status = 'erased'),
    CHECK (valid_to IS NULL OR valid_from IS NULL OR valid_to > valid_from),
    CHECK ((layer = 'core') = (core_label IS NOT NULL)),
    CHECK (layer = 'core' OR stability IS NOT NULL),
    CHECK (superseded_by IS NULL OR superseded_by <> id),
    CHECK (embedding IS NULL OR embedding_model IS NOT NULL),
    CHECK (occurred_at IS NULL OR occurred_at BETWEEN '0001-01-01' AND '9999-12-31')
);

SELECT zb.apply_embedding_dim('zb.memory', 'embedding');

-- Nearest-neighbour search (cosine). On a large existing table, build it CONCURRENTLY instead.
CREATE INDEX IF NOT EXISTS memory_embedding_hnsw_idx ON zb.memory
    USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64);
CREATE INDEX memory_content_tsv_idx ON zb.memory USING gin (content_tsv);
CREATE INDEX memory_layer_status_idx ON zb.memory (tenant_id, layer, status);
CREATE INDEX memory_fade_idx ON zb.memory (tenant_id, fade_at) WHERE fade_at IS NOT NULL AND status = 'active';
CREATE INDEX memory_occurred_idx ON zb.memory (tenant_id, occurred_at) WHERE occurred_at IS NOT NULL;
CREATE INDEX memory_session_idx ON zb.memory (tenant_id, session_id) WHERE session_id IS NOT NULL;
CREATE INDEX memory_subject_idx ON zb.memory (tenant_id, subject, attribute) WHERE subject IS NOT NULL;
CREATE INDEX memory_underived_idx ON zb.memory (tenant_id, id) WHERE derived_at IS NULL;
CREATE INDEX memory_source_ids_idx ON zb.memory USING gin (source_ids);
CREATE UNIQUE INDEX memory_external_id_idx ON zb.memory (tenant_id, external_id) WHERE external_id IS NOT NULL;
-- One live core memory per label: an upsert by label, never a silent collision.
CREATE UNIQUE INDEX memory_core_label_idx ON zb.memory (tenant_id, core_label)
    WHERE core_label IS NOT NULL AND status <> 'erased';

-- working_slot: at most 7 working-memory slots per (tenant, session).
CREATE TABLE zb.working_slot (
    tenant_id  text             NOT NULL,
    session_id uuid             NOT NULL,
    slot       smallint         NOT NULL CHECK (slot BETWEEN 1 AND 7),
    memory_id  bigint           NOT NULL,
    relevance  double precision NOT NULL CHECK (relevance BETWEEN 0 AND 1),
    entered_at timestamptz      NOT NULL,
    touched_at timestamptz      NOT NULL,
    PRIMARY KEY (tenant_id, session_id, slot),
    UNIQUE (tenant_id, session_id, memory_id),
    FOREIGN KEY (tenant_id, session_id) REFERENCES zb.session (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory (tenant_id, id) ON DELETE CASCADE
);

-- procedure: the procedural layer's structure (trigger, steps, tools) and its outcome record.
CREATE TABLE zb.procedure (
    tenant_id     text        NOT NULL,
    memory_id     bigint      NOT NULL,
    trigger_text  text        NOT NULL DEFAULT '',
    steps         text[]      NOT NULL DEFAULT '{}',
    tools         text[]      NOT NULL DEFAULT '{}',
    success_count integer     NOT NULL DEFAULT 0 CHECK (success_count >= 0),
    failure_count integer     NOT NULL DEFAULT 0 CHECK (failure_count >= 0),
    last_outcome  text        CHECK (last_outcome IN ('success', 'failure')),
    last_used_at  timestamptz,
    PRIMARY KEY (tenant_id, memory_id),
    FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory (tenant_id, id) ON DELETE CASCADE
);

-- review_state: FSRS card per reviewable memory, with the context embedding at the last review
-- (for the vmPFC prediction error).
CREATE TABLE zb.review_state (
    tenant_id         text             NOT NULL,
    memory_id         bigint           NOT NULL,
    stability         double precision NOT NULL DEFAULT 0 CHECK (stability >= 0),
    difficulty        double precision NOT NULL DEFAULT 0 CHECK (difficulty >= 0 AND difficulty <= 10),
    due               timestamptz      NOT NULL,
    reps              integer          NOT NULL DEFAULT 0 CHECK (reps >= 0),
    lapses            integer          NOT NULL DEFAULT 0 CHECK (lapses >= 0),
    state             smallint         NOT NULL DEFAULT 0 CHECK (state BETWEEN 0 AND 3),
    elapsed_days      integer          NOT NULL DEFAULT 0 CHECK (elapsed_days >= 0),
    scheduled_days    integer          NOT NULL DEFAULT 0 CHECK (scheduled_days >= 0),
    last_review       timestamptz,
    context_embedding vector(768),
    PRIMARY KEY (tenant_id, memory_id),
    FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory (tenant_id, id) ON DELETE CASCADE
);

SELECT zb.apply_embedding_dim('zb.review_state', 'context_embedding');

CREATE INDEX review_state_due_idx ON zb.review_state (tenant_id, due);

CREATE TABLE zb.review_log (
    tenant_id      text             NOT NULL,
    id             bigint           GENERATED ALWAYS AS IDENTITY,
    memory_id      bigint           NOT NULL,
    grade          smallint         NOT NULL CHECK (grade BETWEEN 1 AND 4),
    reviewed_at    timestamptz      NOT NULL,
    state_before   smallint         NOT NULL CHECK (state_before BETWEEN 0 AND 3),
    interval_days  double precision NOT NULL CHECK (interval_days >= 0),
    vmpfc_pe       double precision CHECK (vmpfc_pe BETWEEN 0 AND 2),
    multiplier     double precision CHECK (multiplier BETWEEN 0.3 AND 2.0),
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory (tenant_id, id) ON DELETE CASCADE
);

CREATE INDEX review_log_memory_idx ON zb.review_log (tenant_id, memory_id, reviewed_at);
