-- Per learner, bank and local day (ISO date in the learner's zone when they answered): the
-- answers and right answers the /stats chart and /ready show for their last days, read as at
-- most one row a day instead of every answer of those days. Kept by the answer transaction
-- (bot/storage/summaries.py) beside learner_days; a count of the `answers` rows, which a
-- retention prune leaves as it was. Filled from the existing answers by the migration's
-- Python step (each learner's zone: bot/storage/summaries.py, backfill_bank_days).
CREATE TABLE learner_bank_days (
    user_id    INTEGER NOT NULL,
    bank_id    TEXT    NOT NULL,
    local_date TEXT    NOT NULL,
    answered   INTEGER NOT NULL,
    correct    INTEGER NOT NULL,
    PRIMARY KEY (user_id, bank_id, local_date)
) WITHOUT ROWID;
