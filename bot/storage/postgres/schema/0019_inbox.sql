-- Updates from Telegram, stored before Telegram is told they arrived (the webhook's 200, the
-- next getUpdates offset): what a crash interrupts is handled after the restart, and an
-- update delivered twice is handled once. Several bot processes share this table later:
-- owner and lease_until are for claims.
CREATE TABLE inbox (
    update_id   BIGINT PRIMARY KEY,
    payload     TEXT    NOT NULL,             -- the update's JSON as Telegram sent it
    received_at DOUBLE PRECISION    NOT NULL,
    state       TEXT    NOT NULL DEFAULT 'new' CHECK (state IN ('new', 'done')),
    owner       TEXT,
    lease_until DOUBLE PRECISION,
    done_at     DOUBLE PRECISION
);
CREATE INDEX inbox_open ON inbox (update_id) WHERE state = 'new';
CREATE INDEX inbox_done ON inbox (done_at) WHERE state = 'done';
