DROP FUNCTION IF EXISTS zb.recall(text, text, vector, integer, timestamptz, text, text[], zb.memory_layer[], integer,
                                  timestamptz, timestamptz, timestamptz, text[], boolean);
DROP FUNCTION IF EXISTS zb.recall_check(text, integer, text, integer);
DROP FUNCTION IF EXISTS zb.named_in(text, text);
DROP FUNCTION IF EXISTS zb.token_jaccard(text[], text[]);
DROP FUNCTION IF EXISTS zb.tokens(text);
DROP FUNCTION IF EXISTS zb.text_terms(text, regconfig);
DROP FUNCTION IF EXISTS zb.query_terms(text, regconfig);
DROP FUNCTION IF EXISTS zb.forget(text, bigint, timestamptz);
DROP FUNCTION IF EXISTS zb.remember(text, text, zb.memory_layer, text, jsonb, uuid, timestamptz, text, text, timestamptz);
DROP VIEW IF EXISTS zb.kg_edge_importance;
DROP VIEW IF EXISTS zb.due_review;
DROP VIEW IF EXISTS zb.memory_live_now;
DROP FUNCTION IF EXISTS zb.memory_live(timestamptz);
DROP FUNCTION IF EXISTS zb.beta_interval95(double precision, double precision);
DROP FUNCTION IF EXISTS zb.edge_weight_at(double precision, double precision, timestamptz, timestamptz);
DROP FUNCTION IF EXISTS zb.stability_lock(integer, double precision, double precision, boolean);
DROP FUNCTION IF EXISTS zb.priority(double precision, double precision, double precision, double precision);
DROP FUNCTION IF EXISTS zb.triple_copy_strength(double precision, double precision, double precision, timestamptz,
                                                timestamptz, timestamptz, double precision, double precision, double precision);
DROP FUNCTION IF EXISTS zb.copy_strength(text, double precision, double precision, timestamptz, timestamptz);
DROP FUNCTION IF EXISTS zb.retrievability(double precision, double precision, timestamptz, timestamptz);
DROP FUNCTION IF EXISTS zb.emotional_multiplier(double precision, double precision, double precision);
DROP FUNCTION IF EXISTS zb.exp_or_zero(double precision);
DROP FUNCTION IF EXISTS zb.beta_quantile(double precision, double precision, double precision);
DROP FUNCTION IF EXISTS zb.reg_inc_beta(double precision, double precision, double precision);
DROP FUNCTION IF EXISTS zb.lgamma(double precision);
