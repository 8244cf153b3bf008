-- A running mock exam can be paused: its clock stops at paused_at (NULL: not paused) and the
-- deadline moves on by the pause when it resumes; paused_s is the time spent paused so far,
-- so the time the exam used is (finished or now) - started_at - paused_s.
ALTER TABLE mock_exams ADD COLUMN paused_at DOUBLE PRECISION;
ALTER TABLE mock_exams ADD COLUMN paused_s DOUBLE PRECISION NOT NULL DEFAULT 0;
