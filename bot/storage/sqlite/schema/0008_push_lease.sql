-- Push claims carry an owner and a lease. A `sending` row belongs to the process that claimed
-- it (`owner`: host, pid and a per-run token) until `lease_until`; the owner renews the lease
-- while the send is in flight. Only an expired lease (or an owner known to be dead: a pid of
-- this host that no longer runs) is recovered, so a second process on the same database never
-- resends the first one's in-flight rows, and a process whose database write failed gets its
-- own unrecorded claims back without a restart. Rows claimed before this migration have no
-- lease: they count as expired.
-- The partial index keeps recovery and renewal off a scan of the whole log.

ALTER TABLE push_log ADD COLUMN owner TEXT;
ALTER TABLE push_log ADD COLUMN lease_until REAL;
CREATE INDEX push_log_sending ON push_log (lease_until) WHERE state = 'sending';
