-- Read-side summaries, kept by the answer transaction (bot/storage/summaries.py), so /stats,
-- streaks and leaderboards cost O(topics), O(days in the streak) and O(members), not the
-- number of answers ever given. They are counts of the `answers` rows, which stay the record:
-- a retention that prunes old answers leaves these totals as they were.

-- Per learner, bank and topic: /stats.
CREATE TABLE learner_topics (
    user_id  INTEGER NOT NULL,
    bank_id  TEXT    NOT NULL,
    topic    TEXT    NOT NULL,
    answered INTEGER NOT NULL,
    correct  INTEGER NOT NULL,
    PRIMARY KEY (user_id, bank_id, topic)
) WITHOUT ROWID;

-- Per learner and local day (ISO date in the learner's zone when they answered): streaks.
CREATE TABLE learner_days (
    user_id    INTEGER NOT NULL,
    local_date TEXT    NOT NULL,
    answered   INTEGER NOT NULL,
    PRIMARY KEY (user_id, local_date)
) WITHOUT ROWID;

-- Per group or channel member, all time (week '') and per ISO week (week: the ISO date of its
-- Monday in the chat's zone when they answered): leaderboards. The score was reached at the
-- last correct answer, or the first answer if none was correct (ties: who got there first).
CREATE TABLE member_totals (
    chat_id         INTEGER NOT NULL,
    week            TEXT    NOT NULL,
    user_id         INTEGER NOT NULL,
    answered        INTEGER NOT NULL,
    correct         INTEGER NOT NULL,
    first_at        REAL    NOT NULL,
    last_correct_at REAL,
    PRIMARY KEY (chat_id, week, user_id)
) WITHOUT ROWID;

-- Backfill what SQL alone can count (NOT INDEXED: one pass in table order is three times
-- faster than following an index to every row); the per-day and per-week rows need each zone and are
-- filled by the migration's Python step (bot/storage/summaries.py: backfill).
INSERT INTO learner_topics (user_id, bank_id, topic, answered, correct)
SELECT user_id, bank_id, topic, COUNT(*), SUM(correct) FROM answers NOT INDEXED
GROUP BY user_id, bank_id, topic;

-- A private chat's id is its user's id: every other answer was given in a group or channel.
INSERT INTO member_totals (chat_id, week, user_id, answered, correct, first_at, last_correct_at)
SELECT chat_id, '', user_id, COUNT(*), SUM(correct), MIN(answered_at),
       MAX(CASE WHEN correct THEN answered_at END)
FROM answers NOT INDEXED WHERE chat_id != user_id GROUP BY chat_id, user_id;

-- /admin's subscriber counts: a range count on an index instead of a scan of the table.
CREATE INDEX subscriptions_by_active ON subscriptions (active, next_due_at);
-- Retention: whether a delivery is still referenced by the push log (a lookup, not a scan).
CREATE INDEX push_log_by_delivery ON push_log (delivery_id) WHERE delivery_id IS NOT NULL;
