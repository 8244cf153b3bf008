-- A version of each learner's memory states in a bank, changed by triggers whenever one of
-- them is inserted, updated or deleted: a pick (and /ready) reads this one row and reuses the
-- states it parsed before while it is unchanged, instead of reading them all again. A new
-- version is a random 64-bit number, never a count: a transaction rolled back cannot leave a
-- version that a later change would give again. Kept on /reset (abuse_sql.NOT_HISTORY): a
-- version only ever changes.
CREATE TABLE memory_versions (
    user_id INTEGER NOT NULL,
    bank_id TEXT    NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (user_id, bank_id)
) WITHOUT ROWID;

CREATE TRIGGER memory_states_version_insert AFTER INSERT ON memory_states
BEGIN
    INSERT INTO memory_versions (user_id, bank_id, version)
    VALUES (new.user_id, new.bank_id, random())
    ON CONFLICT (user_id, bank_id) DO UPDATE SET version = excluded.version;
END;

CREATE TRIGGER memory_states_version_update AFTER UPDATE ON memory_states
BEGIN
    INSERT INTO memory_versions (user_id, bank_id, version)
    VALUES (new.user_id, new.bank_id, random())
    ON CONFLICT (user_id, bank_id) DO UPDATE SET version = excluded.version;
END;

CREATE TRIGGER memory_states_version_delete AFTER DELETE ON memory_states
BEGIN
    INSERT INTO memory_versions (user_id, bank_id, version)
    VALUES (old.user_id, old.bank_id, random())
    ON CONFLICT (user_id, bank_id) DO UPDATE SET version = excluded.version;
END;

-- Backfill: every learner and bank with states has a version (no row: no state yet).
INSERT INTO memory_versions (user_id, bank_id, version)
SELECT user_id, bank_id, random() FROM memory_states GROUP BY user_id, bank_id;
