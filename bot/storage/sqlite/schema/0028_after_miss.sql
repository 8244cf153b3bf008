-- Over the spaced answers that followed a wrong one: the recall FSRS predicted for them,
-- summed, how many were right, and how many there were. Readiness counts a question last
-- missed at the share of FSRS's recall this learner has kept after a miss. The migration's
-- Python step fills them from the recorded answers (memory_backfill.backfill_after_miss); a
-- state whose early answers were pruned keeps zero, as for the other spaced-review fields.
ALTER TABLE memory_states ADD COLUMN miss_predicted REAL NOT NULL DEFAULT 0;
ALTER TABLE memory_states ADD COLUMN miss_right INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memory_states ADD COLUMN miss_reviews INTEGER NOT NULL DEFAULT 0;
