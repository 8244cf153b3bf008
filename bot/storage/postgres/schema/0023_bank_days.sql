-- Per learner, bank and local day (ISO date in the learner's zone when they answered): the
-- answers and right answers the /stats chart and /ready show for their last days, as on
-- SQLite (kept by the answer transaction, bot/storage/summaries.py).
CREATE TABLE learner_bank_days (
    user_id    BIGINT NOT NULL,
    bank_id    TEXT   NOT NULL,
    local_date TEXT   NOT NULL,
    answered   BIGINT NOT NULL,
    correct    BIGINT NOT NULL,
    PRIMARY KEY (user_id, bank_id, local_date)
);

-- The backfill in SQL: PostgreSQL knows the zones. A learner without a valid zone of their
-- own counts in the bot's default zone (quizbot.default_timezone, set by the migrating
-- session; UTC when unset).
INSERT INTO learner_bank_days (user_id, bank_id, local_date, answered, correct)
SELECT a.user_id, a.bank_id,
       to_char(to_timestamp(a.answered_at) AT TIME ZONE COALESCE(z.name,
           NULLIF(current_setting('quizbot.default_timezone', true), ''), 'UTC'), 'YYYY-MM-DD'),
       COUNT(*), SUM(a.correct)
FROM answers a
LEFT JOIN users u ON u.id = a.user_id
LEFT JOIN (SELECT name FROM pg_timezone_names) z ON z.name = u.timezone
GROUP BY 1, 2, 3;
