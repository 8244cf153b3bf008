-- One result per button: the first press of "Next question" or "All options explained" under
-- a delivery claims it here; repeated presses (double taps, a forged replay) find it taken.
CREATE TABLE button_uses (
    delivery_id INTEGER NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    button      TEXT    NOT NULL,             -- 'next' | 'explain'
    used_at     REAL    NOT NULL,
    PRIMARY KEY (delivery_id, button)
);
