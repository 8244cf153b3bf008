-- A version of each learner's memory states in a bank, changed by a trigger whenever one of
-- them is inserted, updated or deleted, as on SQLite: a random 64-bit number, so a rolled back
-- transaction cannot leave a version a later change would give again.
CREATE TABLE memory_versions (
    user_id BIGINT NOT NULL,
    bank_id TEXT   NOT NULL,
    version BIGINT NOT NULL,
    PRIMARY KEY (user_id, bank_id)
);

CREATE FUNCTION memory_states_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed RECORD;
BEGIN
    IF TG_OP = 'DELETE' THEN changed := OLD; ELSE changed := NEW; END IF;
    INSERT INTO memory_versions (user_id, bank_id, version)
    VALUES (changed.user_id, changed.bank_id, (random() * 9.2e18 - 4.6e18)::BIGINT)
    ON CONFLICT (user_id, bank_id) DO UPDATE SET version = excluded.version;
    RETURN NULL;
END $$;

CREATE TRIGGER memory_states_version AFTER INSERT OR UPDATE OR DELETE ON memory_states
    FOR EACH ROW EXECUTE FUNCTION memory_states_version();

INSERT INTO memory_versions (user_id, bank_id, version)
SELECT user_id, bank_id, (random() * 9.2e18 - 4.6e18)::BIGINT FROM memory_states
GROUP BY user_id, bank_id;
