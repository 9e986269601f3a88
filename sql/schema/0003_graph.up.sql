-- 0003_graph: the knowledge graph. Entities are nodes; mentions join memories to entities;
-- edges are Two-Factor synaptic connections between entities (weight w, variance sigma^2,
-- activation count k; importance I = 1/sigma^2); memory_link relates memories to memories
-- (supports, contradicts, ... for Bayesian propagation; provenance of edits); confidence_evidence
-- is the Beta(alpha, beta) evidence log.

CREATE TABLE zb.entity (
    tenant_id       text        NOT NULL REFERENCES zb.tenant (id) ON DELETE CASCADE,
    id              bigint      GENERATED ALWAYS AS IDENTITY,
    context         text        NOT NULL DEFAULT 'default' CHECK (context ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'),
    name            text        NOT NULL CHECK (length(name) BETWEEN 1 AND 500),
    normalized_name text        NOT NULL CHECK (length(normalized_name) BETWEEN 1 AND 500),
    type            text        NOT NULL DEFAULT 'thing' CHECK (type ~ '^[a-z][a-z_]{0,31}$'),
    embedding       vector(768),
    embedding_model text,
    mention_count   integer     NOT NULL DEFAULT 0 CHECK (mention_count >= 0),
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, context, normalized_name, type),
    CHECK (embedding IS NULL OR embedding_model IS NOT NULL)
);

SELECT zb.apply_embedding_dim('zb.entity', 'embedding');

CREATE INDEX IF NOT EXISTS entity_embedding_hnsw_idx ON zb.entity
    USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64);

CREATE TABLE zb.mention (
    tenant_id  text    NOT NULL,
    memory_id  bigint  NOT NULL,
    entity_id  bigint  NOT NULL,
    span_start integer CHECK (span_start >= 0),
    span_end   integer,
    PRIMARY KEY (tenant_id, memory_id, entity_id),
    FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, entity_id) REFERENCES zb.entity (tenant_id, id) ON DELETE CASCADE,
    CHECK (span_end IS NULL OR span_end > span_start)
);

CREATE INDEX mention_entity_idx ON zb.mention (tenant_id, entity_id);

CREATE TABLE zb.edge (
    tenant_id         text             NOT NULL,
    id                bigint           GENERATED ALWAYS AS IDENTITY,
    source_id         bigint           NOT NULL,
    target_id         bigint           NOT NULL,
    relation          zb.edge_relation NOT NULL DEFAULT 'co_occurs',
    -- weight w in [0, 10]; the decay job prunes edges below 0.05.
    weight            double precision NOT NULL DEFAULT 0.5 CHECK (weight >= 0 AND weight <= 10),
    -- variance sigma^2 >= 0.01; importance I = 1 / variance.
    variance          double precision NOT NULL DEFAULT 1 CHECK (variance >= 0.01 AND variance <= 100),
    activation_count  integer          NOT NULL DEFAULT 0 CHECK (activation_count >= 0),
    origin            text             NOT NULL DEFAULT 'hebbian'
        CHECK (origin IN ('hebbian', 'extraction', 'sleep', 'user', 'consolidation')),
    created_at        timestamptz      NOT NULL,
    last_activated_at timestamptz      NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, source_id, target_id, relation),
    FOREIGN KEY (tenant_id, source_id) REFERENCES zb.entity (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, target_id) REFERENCES zb.entity (tenant_id, id) ON DELETE CASCADE,
    CHECK (source_id <> target_id)
);

CREATE INDEX edge_target_idx ON zb.edge (tenant_id, target_id);
CREATE INDEX edge_weak_idx ON zb.edge (tenant_id, weight) WHERE weight < 0.1;

CREATE TABLE zb.memory_link (
    tenant_id  text             NOT NULL,
    source_id  bigint           NOT NULL,
    target_id  bigint           NOT NULL,
    relation   zb.edge_relation NOT NULL,
    weight     double precision NOT NULL DEFAULT 1 CHECK (weight >= 0 AND weight <= 10),
    origin     text             NOT NULL DEFAULT 'derive'
        CHECK (origin IN ('derive', 'reconsolidation', 'debate', 'sleep', 'consolidation', 'user')),
    created_at timestamptz      NOT NULL,
    PRIMARY KEY (tenant_id, source_id, target_id, relation),
    FOREIGN KEY (tenant_id, source_id) REFERENCES zb.memory (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, target_id) REFERENCES zb.memory (tenant_id, id) ON DELETE CASCADE,
    CHECK (source_id <> target_id)
);

CREATE INDEX memory_link_target_idx ON zb.memory_link (tenant_id, target_id);

CREATE TABLE zb.confidence_evidence (
    tenant_id        text             NOT NULL,
    id               bigint           GENERATED ALWAYS AS IDENTITY,
    memory_id        bigint           NOT NULL,
    kind             text             NOT NULL CHECK (kind IN ('confirm', 'contradict', 'prior', 'propagated')),
    weight           double precision NOT NULL CHECK (weight > 0 AND weight <= 100),
    source           text             NOT NULL DEFAULT 'system' CHECK (length(source) BETWEEN 1 AND 100),
    source_memory_id bigint,
    created_at       timestamptz      NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, memory_id) REFERENCES zb.memory (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, source_memory_id) REFERENCES zb.memory (tenant_id, id) ON DELETE SET NULL (source_memory_id)
);

CREATE INDEX confidence_evidence_memory_idx ON zb.confidence_evidence (tenant_id, memory_id, created_at);
