-- 0025_recall_nojit: recall's candidate functions never JIT-compile (issue 10).
--
-- PostgreSQL compiles a statement with LLVM when its estimated cost exceeds jit_above_cost
-- (100 000 by default) — once per execution: a generic plan's compiled code is not kept. The
-- lexical half's estimate depends on the postings' statistics, not on the tenant at hand: in a
-- 20 000-memory tenant with a small vocabulary (BenchmarkLexicalHalf) the merge's generic plan
-- is estimated at ≈ 138 000, and each call spent ≈ 65 ms compiling for ≈ 15 ms of work (the hash
-- grouping ≈ 20 ms for 14 ms). Recall is many short statements, none long enough for compiled
-- expressions to pay back; sleep's capture transaction (StcOpenTags) and the lifecycle preamble
-- already switch JIT off for the same reason. A SET clause on each function of recall's
-- candidate path (and derive's nearest-fact search) turns it off while the function runs, for
-- every statement it and the functions it calls execute, and restores the caller's setting on
-- return.
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
        EXECUTE format('ALTER FUNCTION %s SET jit = off', f);
    END LOOP;
END
$$;
