-- FSRS-6 weights fitted to answers (bot/learning/fit.py), one row per scope: a bank's learners
-- pooled (user_id 0) or one learner in a bank. A learner with no row of their own is on the
-- bank's, and without that on FSRS's defaults. version counts the fits stored for the scope;
-- reviews is how many spaced reviews the weights were fitted on. Kept by /reset: the weights
-- describe how the learner's memory works, not what they have practised.
CREATE TABLE memory_params (
    bank_id   TEXT    NOT NULL,
    user_id   BIGINT  NOT NULL,      -- 0: the bank's pooled fit
    version   BIGINT  NOT NULL,
    weights   TEXT    NOT NULL,      -- the 21 weights as a JSON array
    reviews   BIGINT  NOT NULL,
    fitted_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (bank_id, user_id)
);
