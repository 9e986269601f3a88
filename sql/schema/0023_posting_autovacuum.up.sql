-- 0023_posting_autovacuum: autovacuum visits recall's postings sooner (issue 10).
--
-- Recall's lexical half reads zb.memory_posting index-only (0018). An index-only scan checks
-- the heap for every entry on a page the visibility map does not mark all-visible, and only
-- VACUUM sets those marks. The postings are insert-mostly (≈ 13 rows a memory), so with the
-- default insert trigger (1 000 rows plus 20 % of the table) a table of 1.3 million postings is
-- vacuumed again only after 260 000 new ones (20 000 memories). In one tenant of 10 000 freshly
-- stored memories the lexical half took 4.9 ms before VACUUM and 4.1 ms after (pgx, 100
-- queries each). 2 % keeps the recent postings all-visible within ≈ 2 000 memories at that size;
-- an insert-only VACUUM only visits the new pages.

ALTER TABLE zb.memory_posting SET (autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02);
