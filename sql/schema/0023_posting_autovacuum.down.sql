-- 0023_posting_autovacuum down: the server's autovacuum defaults for the postings.

ALTER TABLE zb.memory_posting RESET (autovacuum_vacuum_insert_scale_factor, autovacuum_analyze_scale_factor);
