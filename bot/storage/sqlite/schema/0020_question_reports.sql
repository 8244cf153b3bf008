-- Learners' reports of a bad question (wrong key, unclear, typo, outdated, other). One per
-- learner and question counts (the unique key); the delivery it was made under, with the
-- option order and version shown, is copied so the report still reads right after the
-- delivery is pruned. The comment is a reply to the prompt message; digested_at is set when
-- the admins' daily digest listed it.
CREATE TABLE question_reports (
    id                INTEGER PRIMARY KEY,
    delivery_id       INTEGER NOT NULL,
    user_id           INTEGER NOT NULL,
    bank_id           TEXT    NOT NULL,
    question_id       TEXT    NOT NULL,
    option_order      TEXT,                  -- file indices in display order; NULL: file order
    version           TEXT,
    reason            TEXT    NOT NULL
                      CHECK (reason IN ('key', 'unclear', 'typo', 'outdated', 'other')),
    comment           TEXT,
    prompt_message_id INTEGER,               -- the ForceReply prompt; a reply to it is the comment
    reported_at       REAL    NOT NULL,
    digested_at       REAL,
    UNIQUE (user_id, bank_id, question_id)
);
CREATE INDEX question_reports_by_question ON question_reports (bank_id, question_id);
CREATE INDEX question_reports_new ON question_reports (reported_at) WHERE digested_at IS NULL;
