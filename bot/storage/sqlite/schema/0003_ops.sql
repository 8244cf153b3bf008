-- What the running bot tells the operator's tools (`quizbot health`): a few named timestamps.
-- Keys: started_at, stopped_at, heartbeat_at, last_update_at, mode. Values are text; times are
-- Unix seconds written by the bot's clock.

CREATE TABLE bot_status (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at REAL NOT NULL
);
