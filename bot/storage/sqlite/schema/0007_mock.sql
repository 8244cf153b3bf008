-- Mock exams: one row per exam, one row per drawn question with the learner's answer.
-- Times are Unix seconds (REAL); option indices are 0-based FILE indices, comma-separated.

CREATE TABLE mock_exams (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: old buttons stay stale
    user_id       INTEGER NOT NULL,
    bank_id       TEXT    NOT NULL,
    kind          TEXT    NOT NULL,             -- full | short | reduced
    status        TEXT    NOT NULL DEFAULT 'running'
                  CHECK (status IN ('running', 'finished', 'abandoned', 'expired')),
    size          INTEGER NOT NULL,
    seed          INTEGER NOT NULL,             -- the option shuffles were drawn with it
    passing_score REAL    NOT NULL,             -- as the bank said when the exam started
    topics        TEXT    NOT NULL,             -- blueprint then: JSON [{id, name, weight}]
    current       INTEGER NOT NULL DEFAULT 0,   -- the question on screen
    rev           INTEGER NOT NULL DEFAULT 0,   -- +1 on every change: a cached copy is current
                                                -- while its rev matches
    started_at    REAL    NOT NULL,
    deadline      REAL    NOT NULL,             -- the server's clock decides, not the chat's
    finished_at   REAL,
    correct       INTEGER,                      -- score, once finished or expired
    percent       REAL,
    passed        INTEGER,
    chat_id       INTEGER,                      -- the one message edited in place
    message_id    INTEGER
);
-- One running exam per learner: a second start is refused even if two arrive at once.
CREATE UNIQUE INDEX mock_exams_one_running ON mock_exams (user_id) WHERE status = 'running';
-- Exams to submit automatically (a job, and at start-up after downtime).
CREATE INDEX mock_exams_due ON mock_exams (deadline) WHERE status = 'running';
CREATE INDEX mock_exams_by_user ON mock_exams (user_id, bank_id, started_at);

CREATE TABLE mock_items (
    exam_id      INTEGER NOT NULL REFERENCES mock_exams (id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,              -- 0-based place in the exam
    question_id  TEXT    NOT NULL,
    topic        TEXT    NOT NULL,
    option_order TEXT    NOT NULL,              -- display order as file indices, e.g. 2,0,3,1
    correct      TEXT    NOT NULL,              -- file indices of the correct options
    chosen       TEXT    NOT NULL DEFAULT '',
    flagged      INTEGER NOT NULL DEFAULT 0,
    answered_at  REAL,                          -- last change of the choice
    snapshot     TEXT    NOT NULL,              -- the question (JSON) as it was at the start
    PRIMARY KEY (exam_id, position)
) WITHOUT ROWID;
