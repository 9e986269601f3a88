-- 0025_recall_nojit down: recall's candidate functions follow the session's jit setting again.
DO $$
DECLARE
    f regprocedure;
BEGIN
    FOR f IN
        SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'zb' AND p.proname IN ('recall_candidates_model', 'recall_lexical', 'recall_lexical_scan',
              'recall_lexical_postings', 'recall_lexical_merge', 'recall_lexical_gin', 'recall_vector',
              'recall_vector_scan', 'similar_semantic')
        ORDER BY 1::text
    LOOP
        EXECUTE format('ALTER FUNCTION %s RESET jit', f);
    END LOOP;
END
$$;
