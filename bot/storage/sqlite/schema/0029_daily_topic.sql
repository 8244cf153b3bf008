-- The topic of a forum group that its daily question goes to: where an admin last set /daily
-- (NULL: the chat itself, or a forum's General topic).
ALTER TABLE subscriptions ADD COLUMN thread_id INTEGER;
