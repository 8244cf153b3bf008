-- Groups and channels: when a question's reveal was done, the group's own timezone (weeks of
-- the leaderboard), and the indexes the group views read by.

-- Set once, before the reveal edit is sent: a reveal is claimed, so a job and /reveal racing
-- each other (or a restart) never edit the same message twice.
ALTER TABLE deliveries ADD COLUMN revealed_at REAL;
-- NULL: the configured default timezone.
ALTER TABLE chats ADD COLUMN tz TEXT;

-- Windows still waiting for their reveal (the sweep at start and after each window).
CREATE INDEX deliveries_unrevealed ON deliveries (closes_at)
    WHERE revealed_at IS NULL AND closes_at IS NOT NULL;
-- Which questions a chat has been asked (the group chooser), and native quiz polls by id.
CREATE INDEX deliveries_by_chat_question ON deliveries (chat_id, bank_id, question_id);
CREATE INDEX deliveries_by_poll ON deliveries (poll_id) WHERE poll_id IS NOT NULL;
-- Leaderboards: one chat's answers over a week or all time, per member.
CREATE INDEX answers_by_chat_user ON answers (chat_id, user_id, answered_at);
