-- What the study queue's bank-wide forgetting check needs of each memory state: right answers
-- in a row within the current sitting, and the question's first spaced review (the recall FSRS
-- predicted for it and whether it was right; NULL until there is one). Existing states get
-- them from their answers in the Python step (bot/storage/learning_sql.py: backfill_probes).
ALTER TABLE memory_states ADD COLUMN run_right INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memory_states ADD COLUMN probe_recall REAL;
ALTER TABLE memory_states ADD COLUMN probe_right INTEGER NOT NULL DEFAULT 0;

-- The check sums a bank's probes: one covering range scan over the few rows that have one.
CREATE INDEX memory_probes ON memory_states (bank_id, probe_recall, probe_right)
    WHERE probe_recall IS NOT NULL;
