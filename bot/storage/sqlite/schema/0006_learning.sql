-- The learning engine: memory per learner x question, misconceptions, exam dates, confidence,
-- and per delivery the option order shown, the question version and a restore-safe token.
-- Times are Unix seconds (REAL). Existing answers are replayed into memory_states by the
-- Python step of this migration (bot/storage/learning_sql.py: backfill_memory).

CREATE TABLE memory_states (
    user_id          INTEGER NOT NULL,
    bank_id          TEXT    NOT NULL,
    question_id      TEXT    NOT NULL,
    stability        REAL    NOT NULL,   -- FSRS stability, days
    difficulty       REAL    NOT NULL,   -- FSRS difficulty, 1..10
    due              REAL    NOT NULL,
    last_review      REAL    NOT NULL,
    reps             INTEGER NOT NULL,
    lapses           INTEGER NOT NULL,
    last_correct     INTEGER NOT NULL,
    last_confidence  TEXT,               -- sure | unsure | NULL (not asked)
    first_correct    INTEGER NOT NULL,
    predicted_recall REAL    NOT NULL,
    review_right     INTEGER NOT NULL,
    PRIMARY KEY (user_id, bank_id, question_id)
) WITHOUT ROWID;

CREATE TABLE misconception_states (
    user_id          INTEGER NOT NULL,
    bank_id          TEXT    NOT NULL,
    misconception_id TEXT    NOT NULL,
    active           INTEGER NOT NULL,
    activated_at     REAL    NOT NULL,
    activated_by     TEXT    NOT NULL,   -- question id of the answer that activated it
    last_event_at    REAL    NOT NULL,
    avoidances       INTEGER NOT NULL,
    resolved_at      REAL,
    PRIMARY KEY (user_id, bank_id, misconception_id)
) WITHOUT ROWID;

CREATE TABLE exam_dates (
    user_id   INTEGER NOT NULL,
    bank_id   TEXT    NOT NULL,
    exam_date TEXT    NOT NULL,          -- ISO date, the learner's local calendar
    set_at    REAL    NOT NULL,
    PRIMARY KEY (user_id, bank_id)
) WITHOUT ROWID;

ALTER TABLE users ADD COLUMN confidence INTEGER NOT NULL DEFAULT 0;    -- ask Sure/Unsure
ALTER TABLE users ADD COLUMN exam_offered INTEGER NOT NULL DEFAULT 0;  -- /start offered a date

ALTER TABLE deliveries ADD COLUMN option_order TEXT;  -- file indices in display order; NULL: file order
ALTER TABLE deliveries ADD COLUMN version TEXT;       -- content hash of stem, options and keys
ALTER TABLE deliveries ADD COLUMN token TEXT;         -- random, in the buttons' callback data

ALTER TABLE answers ADD COLUMN confidence TEXT;       -- sure | unsure | NULL (not asked)
