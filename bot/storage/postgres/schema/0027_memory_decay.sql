-- The forgetting curve's decay (FSRS-6's last weight) of the weights a memory state was
-- scheduled under: the learner's fitted weights once a fit exists (memory_params), so that
-- its recall is read on the same curve. NULL: FSRS-6's default decay (states written before).
ALTER TABLE memory_states ADD COLUMN decay DOUBLE PRECISION;

-- The study queue's mode now comes from the fitted weights (bot.learning.forgetting): the
-- probes of the old bank-wide forgetting check and their tally go, with the per-sitting fields
-- that relearning in the sitting (removed before) kept.
ALTER TABLE memory_states DROP COLUMN run_right;
ALTER TABLE memory_states DROP COLUMN sitting_misses;
ALTER TABLE memory_states DROP COLUMN last_in_exam;
ALTER TABLE memory_states DROP COLUMN probe_recall;
ALTER TABLE memory_states DROP COLUMN probe_right;
DROP TABLE forgetting_tallies;
