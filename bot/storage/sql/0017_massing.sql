-- Whether a re-test in the same sitting strengthens a learner's memory: per question, a right
-- answer within the sitting before any spaced review (massed), and FSRS's predicted recall at
-- the first spaced review and whether it was right (0: no spaced review recorded yet).
ALTER TABLE memory_states ADD COLUMN massed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memory_states ADD COLUMN spaced_predicted REAL NOT NULL DEFAULT 0;
ALTER TABLE memory_states ADD COLUMN spaced_right INTEGER NOT NULL DEFAULT 0;
