DROP TABLE zb.confidence_evidence;
DROP TABLE zb.memory_link;
DROP TABLE zb.edge;
DROP TABLE zb.mention;
DROP TABLE zb.entity;
