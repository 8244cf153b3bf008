-- Roles that one bot process holds at a time among several on one database (the poller of
-- getUpdates): the holder renews its row before lease_until; a standby takes the row over
-- once the lease lapsed.
CREATE TABLE leases (
    name        TEXT PRIMARY KEY,
    owner       TEXT NOT NULL,                -- host:pid:token of the holder
    lease_until REAL NOT NULL
);
