-- The question most recently sent to a learner in a bank (the study queue never repeats it
-- straight away): one seek at the end of the learner's deliveries instead of a walk over them.
CREATE INDEX deliveries_by_user_latest ON deliveries (user_id, bank_id, id);
