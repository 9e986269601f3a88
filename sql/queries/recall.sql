-- name: RecallCandidates :many
-- RecallCandidates runs zb.recall_candidates (per layer the top k by cosine and by BM25, with
-- both signals, the strongest edge and the corpus statistics) and joins the memory rows, in one
-- round trip and without row locks. model is the query embedding's model: vectors are compared
-- only when it is the active model (zb.config embedding_model, when recorded).
SELECT m.id, m.layer, m.kind, m.context, m.content, m.source_ids, m.external_id, m.metadata, m.session_id,
       m.occurred_at, m.created_at, m.valid_from, m.valid_to, m.event_from, m.event_to, m.status,
       m.valence, m.arousal, m.significance, m.stability, m.last_accessed_at, m.access_count,
       m.conf_alpha, m.conf_beta, m.confidence, m.core_label, m.ai_generated,
       c.cosine::double precision AS cosine, c.bm25::double precision AS bm25,
       c.by_vector::boolean AS by_vector, c.by_lexical::boolean AS by_lexical, c.by_context::boolean AS by_context,
       coalesce(c.prev_id, 0)::bigint AS prev_id, coalesce(c.next_id, 0)::bigint AS next_id,
       c.session_bm25::double precision AS session_bm25, c.session_speakers::text[] AS session_speakers,
       c.edge_weight::double precision AS edge_weight, c.edge_variance::double precision AS edge_variance,
       c.edge_activated_at::timestamptz AS edge_activated_at,
       c.doc_count::bigint AS doc_count, c.avgdl::double precision AS avgdl, c.disabled::text[] AS disabled
FROM zb.recall_candidates(
    @tenant_id::text, sqlc.narg('query')::vector, @terms::text[], (@layers::text[])::zb.memory_layer[], @k::int,
    @now::timestamptz, sqlc.narg('from_time')::timestamptz, sqlc.narg('to_time')::timestamptz,
    sqlc.narg('as_of')::timestamptz, sqlc.narg('contexts')::text[], @deep::boolean, sqlc.narg('model')::text
) c
JOIN zb.memory m ON m.tenant_id = @tenant_id::text AND m.id = c.id
ORDER BY m.id;

-- name: RecallEventInsert :exec
-- RecallEventInsert records one recall for the metacognitive monitor, with the query's index
-- terms when the curiosity engine logs them (NULL otherwise).
INSERT INTO zb.recall_event (tenant_id, query_hash, query_class, result_ids, top_score, created_at, query_terms)
VALUES (@tenant_id::text, @query_hash::bytea, @query_class::text, @result_ids::bigint[],
        sqlc.narg('top_score')::double precision, @now::timestamptz, sqlc.narg('query_terms')::text[]);

-- name: LexicalStatCompact :one
-- LexicalStatCompact folds a tenant's BM25 statistic deltas into one row.
SELECT zb.lexical_stat_compact(@tenant_id::text)::bigint AS removed;

-- name: LexicalStatGet :one
-- LexicalStatGet returns a tenant's BM25 corpus statistics: active documents and total terms.
SELECT coalesce(sum(docs), 0)::bigint AS docs, coalesce(sum(terms), 0)::bigint AS terms
FROM zb.lexical_stat_delta WHERE tenant_id = @tenant_id::text;

-- name: RecallLexicalHalf :one
-- RecallLexicalHalf runs zb.recall_lexical_half: the tenant's BM25 statistics, the query's
-- distinct sorted terms with their idf and session idf, and per layer the top k by BM25. With
-- RecallVectorHalf on another connection at the same time, then RecallCandidatesJoin, it gives
-- RecallCandidates's rows in less time for a large tenant (0026).
SELECT h.n::bigint AS n, h.avgdl::double precision AS avgdl, h.total::double precision AS total,
       h.sn::double precision AS sn, h.terms::text[] AS terms, h.idf::double precision[] AS idf,
       h.sidf::double precision[] AS sidf, h.ids::bigint[] AS ids
FROM zb.recall_lexical_half(
    @tenant_id::text, @terms::text[], (@layers::text[])::zb.memory_layer[], @k::int, @now::timestamptz,
    sqlc.narg('from_time')::timestamptz, sqlc.narg('to_time')::timestamptz, sqlc.narg('as_of')::timestamptz,
    sqlc.narg('contexts')::text[], @deep::boolean
) h;

-- name: RecallVectorHalf :one
-- RecallVectorHalf runs zb.recall_vector_half: per layer the top k by cosine, the query vector
-- compared only when its model is the active one (as zb.recall_candidates does).
SELECT coalesce(zb.recall_vector_half(
    @tenant_id::text,
    CASE WHEN a.model IS NULL OR sqlc.narg('model')::text IS NULL OR sqlc.narg('model')::text = a.model
         THEN sqlc.narg('query')::vector END,
    (@layers::text[])::zb.memory_layer[], @k::int, @now::timestamptz,
    sqlc.narg('from_time')::timestamptz, sqlc.narg('to_time')::timestamptz, sqlc.narg('as_of')::timestamptz,
    sqlc.narg('contexts')::text[], @deep::boolean, a.model
), '{}')::bigint[] AS ids
FROM (SELECT (SELECT c.value FROM zb.config c WHERE c.key = 'embedding_model') AS model) a;

-- name: RecallCandidatesJoin :many
-- RecallCandidatesJoin runs zb.recall_candidates_join on the halves' results (with the recheck:
-- the halves ran on other connections) and joins the memory rows: RecallCandidates's columns.
SELECT m.id, m.layer, m.kind, m.context, m.content, m.source_ids, m.external_id, m.metadata, m.session_id,
       m.occurred_at, m.created_at, m.valid_from, m.valid_to, m.event_from, m.event_to, m.status,
       m.valence, m.arousal, m.significance, m.stability, m.last_accessed_at, m.access_count,
       m.conf_alpha, m.conf_beta, m.confidence, m.core_label, m.ai_generated,
       c.cosine::double precision AS cosine, c.bm25::double precision AS bm25,
       c.by_vector::boolean AS by_vector, c.by_lexical::boolean AS by_lexical, c.by_context::boolean AS by_context,
       coalesce(c.prev_id, 0)::bigint AS prev_id, coalesce(c.next_id, 0)::bigint AS next_id,
       c.session_bm25::double precision AS session_bm25, c.session_speakers::text[] AS session_speakers,
       c.edge_weight::double precision AS edge_weight, c.edge_variance::double precision AS edge_variance,
       c.edge_activated_at::timestamptz AS edge_activated_at,
       c.doc_count::bigint AS doc_count, c.avgdl::double precision AS avgdl, c.disabled::text[] AS disabled
FROM (SELECT (SELECT cf.value FROM zb.config cf WHERE cf.key = 'embedding_model') AS model) a
CROSS JOIN LATERAL zb.recall_candidates_join(
    @tenant_id::text,
    CASE WHEN a.model IS NULL OR sqlc.narg('model')::text IS NULL OR sqlc.narg('model')::text = a.model
         THEN sqlc.narg('query')::vector END,
    sqlc.narg('lex_terms')::text[], @idf::double precision[], @sidf::double precision[],
    (@layers::text[])::zb.memory_layer[], @now::timestamptz,
    sqlc.narg('from_time')::timestamptz, sqlc.narg('to_time')::timestamptz, sqlc.narg('as_of')::timestamptz,
    sqlc.narg('contexts')::text[], @deep::boolean, a.model, @vec_ids::bigint[], @lex_ids::bigint[],
    @n::bigint, @avgdl::double precision, @total::double precision, @sn::double precision, true
) c
JOIN zb.memory m ON m.tenant_id = @tenant_id::text AND m.id = c.id
ORDER BY m.id;
