-- The learner's latest run of consecutive local days (the run holding their newest day in
-- learner_days), so the current streak is one primary-key read instead of a walk back over the
-- days. Kept by triggers on learner_days: a day is inserted once per learner and local day (the
-- answer's UPSERT that finds the day already there fires UPDATE triggers, not these), so an
-- answer costs nothing more unless it starts a new day. learner_days rows never change their
-- user_id or local_date; they are only inserted, counted up, or deleted.
CREATE TABLE learner_runs (
    user_id   INTEGER PRIMARY KEY,
    run_start TEXT NOT NULL,  -- ISO dates, as in learner_days.local_date
    run_end   TEXT NOT NULL   -- the learner's newest day
) WITHOUT ROWID;

-- A new day: the day after the run extends it; a later one starts a new run; an earlier one
-- (a learner whose zone moved back) changes the run only when it closes the gap just before
-- it, and then the run's start is found by walking back from it to the next gap.
CREATE TRIGGER learner_days_run_insert AFTER INSERT ON learner_days
BEGIN
    INSERT INTO learner_runs (user_id, run_start, run_end)
    VALUES (new.user_id, new.local_date, new.local_date)
    ON CONFLICT (user_id) DO UPDATE SET
        run_start = CASE
            WHEN excluded.run_end = date(run_end, '+1 day') THEN run_start
            WHEN excluded.run_end > run_end THEN excluded.run_end
            WHEN excluded.run_end = date(run_start, '-1 day') THEN (
                SELECT a.local_date FROM learner_days a
                WHERE a.user_id = new.user_id AND a.local_date <= new.local_date
                  AND NOT EXISTS (
                      SELECT 1 FROM learner_days b
                      WHERE b.user_id = new.user_id AND b.local_date = date(a.local_date, '-1 day'))
                ORDER BY a.local_date DESC LIMIT 1)
            ELSE run_start
        END,
        run_end = MAX(run_end, excluded.run_end);
END;

-- A day deleted from the run (no path deletes days today; this keeps the run true if one
-- does): inside it, the run now starts the day after; its last day, the run ends the day
-- before; its only day, the run is found again from the newest day left, if any.
CREATE TRIGGER learner_days_run_delete AFTER DELETE ON learner_days
WHEN old.local_date >= (SELECT run_start FROM learner_runs WHERE user_id = old.user_id)
BEGIN
    UPDATE learner_runs SET run_start = date(old.local_date, '+1 day')
    WHERE user_id = old.user_id AND old.local_date < run_end;
    UPDATE learner_runs SET run_end = date(old.local_date, '-1 day')
    WHERE user_id = old.user_id AND old.local_date = run_end AND run_start < run_end;
    DELETE FROM learner_runs
    WHERE user_id = old.user_id AND run_start = old.local_date AND run_end = old.local_date;
    INSERT INTO learner_runs (user_id, run_start, run_end)
    SELECT old.user_id, (
        SELECT a.local_date FROM learner_days a
        WHERE a.user_id = old.user_id AND a.local_date <= newest.day
          AND NOT EXISTS (
              SELECT 1 FROM learner_days b
              WHERE b.user_id = old.user_id AND b.local_date = date(a.local_date, '-1 day'))
        ORDER BY a.local_date DESC LIMIT 1), newest.day
    FROM (SELECT MAX(local_date) AS day FROM learner_days WHERE user_id = old.user_id) newest
    WHERE newest.day IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM learner_runs WHERE user_id = old.user_id);
END;

-- Backfill: consecutive days share julianday(day) - their rank among the learner's days; the
-- latest run is the days with the largest such value.
INSERT INTO learner_runs (user_id, run_start, run_end)
WITH ranked AS (
    SELECT user_id, local_date,
           julianday(local_date) - ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY local_date)
               AS island
    FROM learner_days
), latest AS (
    SELECT user_id, MAX(island) AS island FROM ranked GROUP BY user_id
)
SELECT r.user_id, MIN(r.local_date), MAX(r.local_date)
FROM ranked r JOIN latest l ON l.user_id = r.user_id AND l.island = r.island
GROUP BY r.user_id;

-- Nothing reads answers by chat any more: leaderboards read member_totals since
-- 0010_summaries, and moving a group's answers to its supergroup id finds them through their
-- deliveries (bot/storage/chat_migration.py). Two indexes less to update, and up to two pages
-- less to write, per answer.
DROP INDEX answers_by_chat_user;
DROP INDEX answers_by_chat;
