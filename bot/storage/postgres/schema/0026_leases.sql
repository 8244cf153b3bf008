-- Roles that one bot process holds at a time among several on one database (the poller of
-- getUpdates): the holder renews its row before lease_until; a standby takes the row over
-- once the lease lapsed.
CREATE TABLE leases (
    name        TEXT PRIMARY KEY,
    owner       TEXT NOT NULL,                -- host:pid:token of the holder
    lease_until DOUBLE PRECISION NOT NULL
);

-- Never written: PostgreSQL's write transactions lock it first (LOCK TABLE, before any query,
-- so that their snapshot starts after the lock), which makes writers take turns as SQLite's
-- do. SQLite has the table only so that both schemas stay the same.
CREATE TABLE write_gate (id BIGINT PRIMARY KEY);
