-- A learner's recent answers in a bank (the /stats chart's last 30 days) as one range seek,
-- whatever the length of their history.
CREATE INDEX answers_by_user_time ON answers (user_id, bank_id, answered_at);
