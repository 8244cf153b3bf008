-- Daily push: who subscribed (one row per chat) and what was pushed (one row per chat and
-- local date). A private chat's id equals its user's id; groups and channels subscribe too.

CREATE TABLE subscriptions (
    chat_id         INTEGER PRIMARY KEY,      -- where the question goes
    user_id         INTEGER,                  -- private chats: the learner; groups: NULL
    kind            TEXT    NOT NULL DEFAULT 'private',  -- private | group | channel: the sender
    local_time      TEXT    NOT NULL,         -- 'HH:MM' on the subscriber's wall clock
    timezone        TEXT    NOT NULL,         -- IANA zone, e.g. Europe/Berlin
    active          INTEGER NOT NULL DEFAULT 1,  -- 0: /daily off, blocked us, or gone
    bank_id         TEXT,                     -- NULL: follow the learner's (or chat's) choice
    topic           TEXT,
    next_local_date TEXT,                     -- the next push's day key (ISO date)
    next_due_at     REAL,                     -- and its instant (Unix s): what a tick scans
    created_at      REAL    NOT NULL,
    updated_at      REAL    NOT NULL
);
CREATE INDEX subscriptions_due ON subscriptions (next_due_at) WHERE active = 1;

-- The delivery log: claimed (state 'sending', committed) before the API call, outcome after.
CREATE TABLE push_log (
    id          INTEGER PRIMARY KEY,
    chat_id     INTEGER NOT NULL,
    local_date  TEXT    NOT NULL,             -- the subscriber's date when it fell due
    due_at      REAL    NOT NULL,
    state       TEXT    NOT NULL DEFAULT 'pending'
                CHECK (state IN ('pending', 'sending', 'sent', 'failed', 'blocked', 'skipped')),
    attempts    INTEGER NOT NULL DEFAULT 0,   -- claims so far (a crash or timeout retries)
    delivery_id INTEGER REFERENCES deliveries (id),  -- chosen at the first claim, kept on retry
    claimed_at  REAL,
    finished_at REAL,
    error       TEXT,
    UNIQUE (chat_id, local_date)              -- never two pushes to one chat for one day
);
CREATE INDEX push_log_open ON push_log (due_at) WHERE state IN ('pending', 'sending');
CREATE INDEX push_log_by_due ON push_log (due_at, state);
