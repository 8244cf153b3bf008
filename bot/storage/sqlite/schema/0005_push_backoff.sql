-- Daily push retries back off (issue: a one-second outage used to burn every attempt at the
-- pacer's rate). `not_before` is the instant a pending row may be claimed again; NULL: at once.
-- A row is ready when COALESCE(not_before, due_at) has passed (rows are created only once
-- due), and claims take ready rows in that order: a retry queues behind pushes that fell due
-- before its retry time. The partial expression index keeps that a range scan even when many
-- rows wait in backoff after an outage, and answers next_wake's MIN() from its first entry.

ALTER TABLE push_log ADD COLUMN not_before REAL;
CREATE INDEX push_log_ready ON push_log (COALESCE(not_before, due_at), id)
    WHERE state = 'pending';
