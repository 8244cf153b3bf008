-- Learners, chats, questions sent (deliveries) and the answers given to them.
-- Times are Unix seconds (REAL); option choices are comma-separated 0-based indices.

CREATE TABLE users (
    id          INTEGER PRIMARY KEY,          -- Telegram user id
    first_name  TEXT    NOT NULL DEFAULT '',
    username    TEXT,
    language    TEXT,
    bank_id     TEXT,                         -- chosen bank; NULL: the default bank
    topic       TEXT,                         -- chosen topic; NULL: all topics
    timezone    TEXT,                         -- IANA zone, for streaks and the daily push
    started     INTEGER NOT NULL DEFAULT 0,   -- opened a private chat with the bot
    created_at  REAL    NOT NULL,
    seen_at     REAL    NOT NULL
);

CREATE TABLE chats (
    id              INTEGER PRIMARY KEY,      -- Telegram chat id (users' private chats too)
    type            TEXT    NOT NULL,         -- private | group | supergroup | channel
    title           TEXT,
    active          INTEGER NOT NULL DEFAULT 1,  -- 0: blocked us, kicked us, or gone
    bank_id         TEXT,
    topic           TEXT,
    answer_window_s INTEGER,                  -- groups: NULL means the configured default
    leaderboard     INTEGER NOT NULL DEFAULT 1,
    poll_mode       TEXT    NOT NULL DEFAULT 'buttons',  -- buttons | quiz_poll (channels)
    migrated_to     INTEGER,                  -- set when a group became a supergroup
    created_at      REAL    NOT NULL,
    updated_at      REAL    NOT NULL
);

CREATE TABLE deliveries (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: stale buttons stay stale
    chat_id     INTEGER NOT NULL,
    message_id  INTEGER,                      -- NULL until Telegram accepted the message
    user_id     INTEGER,                      -- private practice: the learner; NULL in groups
    bank_id     TEXT    NOT NULL,
    question_id TEXT    NOT NULL,
    source      TEXT    NOT NULL DEFAULT 'quiz',  -- quiz | daily | group
    sent_at     REAL    NOT NULL,
    closes_at   REAL,                         -- groups and channels: end of the answer window
    closed_at   REAL,
    poll_id     TEXT                          -- native quiz polls
);
CREATE INDEX deliveries_by_message ON deliveries (chat_id, message_id);
CREATE INDEX deliveries_open ON deliveries (closes_at) WHERE closed_at IS NULL;
CREATE INDEX deliveries_by_user ON deliveries (user_id, bank_id, question_id);

CREATE TABLE answers (
    id                INTEGER PRIMARY KEY,
    delivery_id       INTEGER NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    user_id           INTEGER NOT NULL,
    chat_id           INTEGER NOT NULL,
    bank_id           TEXT    NOT NULL,
    question_id       TEXT    NOT NULL,
    topic             TEXT    NOT NULL,
    chosen            TEXT    NOT NULL,
    correct           INTEGER NOT NULL,
    answered_at       REAL    NOT NULL,
    time_to_answer_ms INTEGER,
    UNIQUE (delivery_id, user_id)             -- a double tap is recorded once
);
CREATE INDEX answers_by_user ON answers (user_id, bank_id, question_id, answered_at);
CREATE INDEX answers_by_chat ON answers (chat_id, answered_at);

-- Multiple-answer questions: the options a user has toggled but not yet submitted.
CREATE TABLE pending_choices (
    delivery_id INTEGER NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    user_id     INTEGER NOT NULL,
    chosen      TEXT    NOT NULL,
    PRIMARY KEY (delivery_id, user_id)
);
