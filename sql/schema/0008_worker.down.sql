DROP FUNCTION zb.job_counts();
DROP TRIGGER memory_notify_underived ON zb.memory;
DROP FUNCTION zb.notify_underived();
