-- name: CuriosityQueries :many
-- CuriosityQueries returns the tenant's @k most recent logged queries with index terms, newest
-- first: the terms, the feedback flag, and the coverage of the query's distinct terms by the
-- best of its first three results (the share of them that the result's index terms contain; 0
-- without results).
SELECT e.id, e.query_terms::text[] AS terms, e.success, e.created_at,
       coalesce((
           SELECT max(cov.c) FROM (
               SELECT (SELECT count(DISTINCT q) FROM unnest(e.query_terms) q WHERE q = ANY (m.terms))::double precision
                      / greatest(1, (SELECT count(DISTINCT q) FROM unnest(e.query_terms) q))::double precision AS c
               FROM zb.memory m
               WHERE m.tenant_id = e.tenant_id AND m.id = ANY (e.result_ids[1:3]) AND m.status <> 'erased'
           ) cov), 0)::double precision AS coverage
FROM zb.recall_event e
WHERE e.tenant_id = @tenant_id::text AND e.query_terms IS NOT NULL AND cardinality(e.query_terms) > 0
ORDER BY e.created_at DESC, e.id DESC
LIMIT @k::integer;

-- name: CuriosityTopicFacts :many
-- CuriosityTopicFacts counts, per topic, the tenant's active knowledge (every layer but working
-- and short-term) about it and its mean confidence. A memory is about a topic when its index
-- terms contain at least need of the topic's terms; topics come as parallel arrays (topic index,
-- term) and (topic index, need).
WITH tt AS (
    SELECT unnest(@term_topics::integer[]) AS topic, unnest(@terms::text[]) AS term
), need AS (
    SELECT unnest(@topics::integer[]) AS topic, unnest(@needs::integer[]) AS k
)
SELECT n.topic::integer AS topic, count(f.id)::integer AS facts, coalesce(avg(f.confidence), 0)::double precision AS mean_confidence
FROM need n
LEFT JOIN LATERAL (
    SELECT m.id, m.confidence FROM zb.memory m
    WHERE m.tenant_id = @tenant_id::text AND m.status = 'active' AND m.layer NOT IN ('working', 'short_term')
      AND m.terms && ARRAY (SELECT tt.term FROM tt WHERE tt.topic = n.topic)
      AND (SELECT count(DISTINCT u) FROM unnest(m.terms) u WHERE u IN (SELECT tt.term FROM tt WHERE tt.topic = n.topic)) >= n.k
) f ON true
GROUP BY n.topic
ORDER BY n.topic;
