-- 0004_mechanisms: the persistent state of every mechanism. Nothing important lives only in
-- process memory: triple copies, neuromodulator levels, lability windows, reconsolidation
-- snapshots, stability locks, metacognitive events, HyperAgent adjustments, prospective
-- intentions, synaptic tags, sleep runs, debates, the recall log and the ablation registry.

-- triple_copy: fast (tau 4 h) and medium (0.8 S0, tau 14 d) copies written at store; the deep
-- copy only by sleep promotion. Strength = max over copies.
CREATE TABLE zb.triple_copy (
    tenant_id        text             NOT NULL,
    memory_id        bigint           NOT NULL,
    copy             text             NOT NULL CHECK (copy IN ('fast', 'medium', 'deep')),
    initial_strength double precision NOT NULL CHECK (initial_strength >= 0 AND initial_strength <= 10),
    tau_seconds      double precision NOT NULL CHECK (tau_seconds > 0),
    created_at       timestamptz      NOT NULL,
    PRIMARY KEY (tenant_id, memory_id, copy),
    FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory (tenant_id, id) ON DELETE CASCADE
);

-- neuromodulator_state: one row per tenant; tonic levels and phasic components of DA, NE, 5-HT
-- and ACh in [0, 1].
CREATE TABLE zb.neuromodulator_state (
    tenant_id    text        PRIMARY KEY REFERENCES zb.tenant (id) ON DELETE CASCADE,
    da_tonic     real        NOT NULL DEFAULT 0.5 CHECK (da_tonic BETWEEN 0 AND 1),
    ne_tonic     real        NOT NULL DEFAULT 0.5 CHECK (ne_tonic BETWEEN 0 AND 1),
    ht_tonic     real        NOT NULL DEFAULT 0.5 CHECK (ht_tonic BETWEEN 0 AND 1),
    ach_tonic    real        NOT NULL DEFAULT 0.5 CHECK (ach_tonic BETWEEN 0 AND 1),
    da_phasic    real        NOT NULL DEFAULT 0 CHECK (da_phasic BETWEEN -1 AND 1),
    ne_phasic    real        NOT NULL DEFAULT 0 CHECK (ne_phasic BETWEEN -1 AND 1),
    ht_phasic    real        NOT NULL DEFAULT 0 CHECK (ht_phasic BETWEEN -1 AND 1),
    ach_phasic   real        NOT NULL DEFAULT 0 CHECK (ach_phasic BETWEEN -1 AND 1),
    phasic_at    timestamptz,
    last_tick_at timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL
);

CREATE TABLE zb.neuromodulator_event (
    tenant_id  text        NOT NULL REFERENCES zb.tenant (id) ON DELETE CASCADE,
    id         bigint      GENERATED ALWAYS AS IDENTITY,
    event      text        NOT NULL CHECK (event IN ('novelty', 'prediction_error', 'reward', 'rejection', 'routine',
                                                     'confirmation', 'stable_focus', 'exploration', 'context_switch')),
    magnitude  real        NOT NULL DEFAULT 1 CHECK (magnitude BETWEEN 0 AND 1),
    memory_id  bigint,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

CREATE INDEX neuromodulator_event_time_idx ON zb.neuromodulator_event (tenant_id, created_at);

-- lability_window: a recalled memory is labile (open to reconsolidation) until closes_at.
CREATE TABLE zb.lability_window (
    tenant_id text        NOT NULL,
    memory_id bigint      NOT NULL,
    opened_at timestamptz NOT NULL,
    closes_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, memory_id),
    FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory (tenant_id, id) ON DELETE CASCADE,
    CHECK (closes_at > opened_at)
);

CREATE INDEX lability_window_closes_idx ON zb.lability_window (tenant_id, closes_at);

CREATE TYPE zb.reconsolidation_mode AS ENUM ('confirmed', 'selective_edit', 'integration', 'new_episode');

-- reconsolidation_event: every reconsolidation with a snapshot of the original; rollback
-- restores the snapshot.
CREATE TABLE zb.reconsolidation_event (
    tenant_id       text                    NOT NULL,
    id              bigint                  GENERATED ALWAYS AS IDENTITY,
    memory_id       bigint                  NOT NULL,
    trigger_id      bigint,
    result_id       bigint,
    mode            zb.reconsolidation_mode NOT NULL,
    raw_pe          double precision        NOT NULL CHECK (raw_pe BETWEEN 0 AND 1.2),
    effective_pe    double precision        NOT NULL CHECK (effective_pe >= 0 AND effective_pe <= 3),
    contradiction   boolean                 NOT NULL DEFAULT false,
    blocked         boolean                 NOT NULL DEFAULT false,
    snapshot        jsonb                   NOT NULL CHECK (jsonb_typeof(snapshot) = 'object'),
    new_content     text,
    applied_at      timestamptz             NOT NULL,
    rolled_back_at  timestamptz,
    rollback_reason text,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, trigger_id) REFERENCES zb.memory (tenant_id, id) ON DELETE SET NULL (trigger_id),
    FOREIGN KEY (tenant_id, result_id) REFERENCES zb.memory (tenant_id, id) ON DELETE SET NULL (result_id),
    CHECK (rolled_back_at IS NULL OR rolled_back_at >= applied_at),
    CHECK ((rolled_back_at IS NULL) = (rollback_reason IS NULL))
);

CREATE INDEX reconsolidation_event_memory_idx ON zb.reconsolidation_event (tenant_id, memory_id, applied_at);

-- stability_lock: the StabilityProtector's lock level L in [0, 1] and age factor rho >= 1; an
-- overwrite needs PE >= 0.5 + 0.3 L rho.
CREATE TABLE zb.stability_lock (
    tenant_id   text             NOT NULL,
    memory_id   bigint           NOT NULL,
    lock_level  double precision NOT NULL CHECK (lock_level BETWEEN 0 AND 1),
    rho         double precision NOT NULL CHECK (rho >= 1),
    threshold   double precision NOT NULL CHECK (threshold >= 0.5),
    computed_at timestamptz      NOT NULL,
    PRIMARY KEY (tenant_id, memory_id),
    FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE zb.metacog_event (
    tenant_id  text             NOT NULL REFERENCES zb.tenant (id) ON DELETE CASCADE,
    id         bigint           GENERATED ALWAYS AS IDENTITY,
    kind       text             NOT NULL CHECK (kind ~ '^[a-z][a-z_]{0,63}$'),
    value      double precision NOT NULL,
    alert      boolean          NOT NULL DEFAULT false,
    detail     jsonb            NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(detail) = 'object'),
    created_at timestamptz      NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

CREATE INDEX metacog_event_time_idx ON zb.metacog_event (tenant_id, created_at);

-- tenant_parameter: parameters the HyperAgent may tune, within [min_value, max_value].
CREATE TABLE zb.tenant_parameter (
    tenant_id  text             NOT NULL REFERENCES zb.tenant (id) ON DELETE CASCADE,
    name       text             NOT NULL CHECK (name ~ '^[a-z][a-z0-9_]{0,63}$'),
    value      double precision NOT NULL,
    min_value  double precision NOT NULL,
    max_value  double precision NOT NULL,
    updated_at timestamptz      NOT NULL,
    PRIMARY KEY (tenant_id, name),
    CHECK (min_value <= max_value AND value BETWEEN min_value AND max_value)
);

CREATE TABLE zb.hyperagent_adjustment (
    tenant_id   text             NOT NULL,
    id          bigint           GENERATED ALWAYS AS IDENTITY,
    parameter   text             NOT NULL,
    old_value   double precision NOT NULL,
    new_value   double precision NOT NULL,
    reason      text             NOT NULL,
    signals     jsonb            NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(signals) = 'object'),
    applied_at  timestamptz      NOT NULL,
    reverted_at timestamptz,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, parameter) REFERENCES zb.tenant_parameter (tenant_id, name) ON DELETE CASCADE,
    CHECK (reverted_at IS NULL OR reverted_at >= applied_at)
);

CREATE TABLE zb.prospective_intention (
    tenant_id     text        NOT NULL REFERENCES zb.tenant (id) ON DELETE CASCADE,
    id            bigint      GENERATED ALWAYS AS IDENTITY,
    context       text        NOT NULL DEFAULT 'default' CHECK (context ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'),
    content       text        NOT NULL CHECK (content <> ''),
    trigger_kind  text        NOT NULL CHECK (trigger_kind IN ('time', 'cue')),
    due_at        timestamptz,
    cue           text,
    cue_embedding vector(768),
    status        text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'fired', 'dismissed', 'expired')),
    memory_id     bigint,
    fired_at      timestamptz,
    fired_by      bigint,
    expires_at    timestamptz,
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory (tenant_id, id) ON DELETE SET NULL (memory_id),
    CHECK (trigger_kind <> 'time' OR due_at IS NOT NULL),
    CHECK (trigger_kind <> 'cue' OR (cue IS NOT NULL AND cue <> '')),
    CHECK ((status = 'fired') = (fired_at IS NOT NULL))
);

SELECT zb.apply_embedding_dim('zb.prospective_intention', 'cue_embedding');

CREATE INDEX prospective_due_idx ON zb.prospective_intention (tenant_id, due_at) WHERE status = 'pending';

-- stc_tag: synaptic tagging and capture; a weak memory is tagged and may be rescued by a strong
-- related memory activated before expires_at.
CREATE TABLE zb.stc_tag (
    tenant_id       text             NOT NULL,
    memory_id       bigint           NOT NULL,
    tagged_at       timestamptz      NOT NULL,
    expires_at      timestamptz      NOT NULL,
    strength_before double precision NOT NULL CHECK (strength_before BETWEEN 0 AND 1),
    rescued_at      timestamptz,
    rescued_by      bigint,
    PRIMARY KEY (tenant_id, memory_id),
    FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, rescued_by) REFERENCES zb.memory (tenant_id, id) ON DELETE SET NULL (rescued_by),
    CHECK (expires_at > tagged_at)
);

-- sleep_run: the statistics of each Simulation-Selection sleep; the figures must match the
-- changes made in the same transaction.
CREATE TABLE zb.sleep_run (
    tenant_id             text             NOT NULL REFERENCES zb.tenant (id) ON DELETE CASCADE,
    id                    bigint           GENERATED ALWAYS AS IDENTITY,
    trigger               text             NOT NULL DEFAULT 'schedule' CHECK (trigger IN ('schedule', 'manual', 'benchmark')),
    seed                  bigint           NOT NULL,
    started_at            timestamptz      NOT NULL,
    finished_at           timestamptz,
    episodes_considered   integer          NOT NULL DEFAULT 0 CHECK (episodes_considered >= 0),
    counterfactuals       integer          NOT NULL DEFAULT 0 CHECK (counterfactuals >= 0),
    selected              integer          NOT NULL DEFAULT 0 CHECK (selected >= 0),
    ltp_count             integer          NOT NULL DEFAULT 0 CHECK (ltp_count >= 0),
    ltd_count             integer          NOT NULL DEFAULT 0 CHECK (ltd_count >= 0),
    new_associations      integer          NOT NULL DEFAULT 0 CHECK (new_associations >= 0),
    pruned_edges          integer          NOT NULL DEFAULT 0 CHECK (pruned_edges >= 0),
    archived              integer          NOT NULL DEFAULT 0 CHECK (archived >= 0),
    promotions            integer          NOT NULL DEFAULT 0 CHECK (promotions >= 0),
    schemas_created       integer          NOT NULL DEFAULT 0 CHECK (schemas_created >= 0),
    mean_stability_before double precision,
    mean_stability_after  double precision,
    storage_before        integer          CHECK (storage_before >= 0),
    storage_after         integer          CHECK (storage_after >= 0),
    edges_before          integer          CHECK (edges_before >= 0),
    edges_after           integer          CHECK (edges_after >= 0),
    fiedler_before        double precision CHECK (fiedler_before >= 0),
    fiedler_after         double precision CHECK (fiedler_after >= 0),
    details               jsonb            NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(details) = 'object'),
    PRIMARY KEY (tenant_id, id),
    CHECK (finished_at IS NULL OR finished_at >= started_at)
);

CREATE INDEX sleep_run_time_idx ON zb.sleep_run (tenant_id, started_at);

-- debate: iMAD selective debate outcomes, auditable.
CREATE TABLE zb.debate (
    tenant_id       text        NOT NULL,
    id              bigint      GENERATED ALWAYS AS IDENTITY,
    memory_id       bigint      NOT NULL,
    contradicted    bigint[]    NOT NULL CHECK (cardinality(contradicted) >= 2),
    positions       jsonb       NOT NULL CHECK (jsonb_typeof(positions) = 'array'),
    outcome         text        NOT NULL CHECK (outcome IN ('keep_both', 'supersede', 'reject')),
    reason          text        NOT NULL,
    judge           text        NOT NULL DEFAULT 'offline',
    decided_at      timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory (tenant_id, id) ON DELETE CASCADE
);

-- recall_event: the recall log the metacognitive monitor and the curiosity engine read.
CREATE TABLE zb.recall_event (
    tenant_id    text             NOT NULL REFERENCES zb.tenant (id) ON DELETE CASCADE,
    id           bigint           GENERATED ALWAYS AS IDENTITY,
    query_hash   bytea            NOT NULL,
    query_class  text             NOT NULL CHECK (query_class IN ('temporal', 'procedural', 'factual', 'general')),
    result_ids   bigint[]         NOT NULL DEFAULT '{}',
    top_score    double precision,
    success      boolean,
    created_at   timestamptz      NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

CREATE INDEX recall_event_time_idx ON zb.recall_event (tenant_id, created_at);

-- algorithm_switch: the ablation registry; a missing row means the mechanism is enabled.
CREATE TABLE zb.algorithm_switch (
    tenant_id  text        NOT NULL REFERENCES zb.tenant (id) ON DELETE CASCADE,
    algorithm  text        NOT NULL CHECK (algorithm IN (
        'decay', 'two_factor_hebbian', 'vmpfc_fsrs', 'sim_selection_sleep', 'bayesian_confidence',
        'query_routing', 'imad_debate', 'spectral_health', 'compositional_context', 'ib_budget',
        'dual_process', 'hyperagent', 'neuromodulator', 'reconsolidation', 'triple_copy', 'priority_map',
        'stability_protector', 'metacog_monitor', 'stc_rescue', 'gwt', 'prospective', 'curiosity')),
    enabled    boolean     NOT NULL,
    updated_at timestamptz NOT NULL,
    updated_by text        NOT NULL DEFAULT 'system',
    PRIMARY KEY (tenant_id, algorithm)
);
