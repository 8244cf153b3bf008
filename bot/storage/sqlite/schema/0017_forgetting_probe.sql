-- What the study queue's bank-wide forgetting check needs of each memory state: per sitting
-- (answers less than three hours apart), right answers in a row and wrong answers; how many
-- answers came later than that after the one before (the learner's forgetting calibration
-- counts only those); whether the last answer was given in a mock exam (relearning leaves those
-- alone); and the probe: when a question missed at its first meeting is answered
-- again 20 hours to 4 days later, the recall FSRS predicted and whether it was right (NULL
-- until then). Existing states get them from their answers in the Python step
-- (bot/storage/forgetting_sql.py: backfill); until then the calibration keeps its old count.
ALTER TABLE memory_states ADD COLUMN spaced_reviews INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memory_states ADD COLUMN run_right INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memory_states ADD COLUMN sitting_misses INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memory_states ADD COLUMN last_in_exam INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memory_states ADD COLUMN probe_recall REAL;
ALTER TABLE memory_states ADD COLUMN probe_right INTEGER NOT NULL DEFAULT 0;
UPDATE memory_states SET spaced_reviews = reps - 1;

-- Each bank's probes summed over its learners, kept by the answer that records a probe, so
-- that every pick reads the check as one row. An aggregate: a learner who leaves takes their
-- memory states, not their share of it.
CREATE TABLE forgetting_tallies (
    bank_id        TEXT    PRIMARY KEY,
    probes         INTEGER NOT NULL,
    recall         REAL    NOT NULL,   -- sum of FSRS's predicted recall
    recall_squared REAL    NOT NULL,   -- sum of its squares
    right          INTEGER NOT NULL
) WITHOUT ROWID;
