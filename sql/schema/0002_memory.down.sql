DROP TABLE zb.review_log;
DROP TABLE zb.review_state;
DROP TABLE zb.procedure;
DROP TABLE zb.working_slot;
DROP TABLE zb.memory;
DROP TABLE zb.session;
