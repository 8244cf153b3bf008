"""SQL of the fitted memory model: the answers a fit reads and the weights it stores
(`memory_params`; bot.learning.fit fits them, bot.practice.fitting runs the fits)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from functools import lru_cache

from bot.learning.fit import Graded
from bot.learning.memory import DEFAULT_WEIGHTS, Weights, check_weights, settle_weights
from bot.storage.port import Connection

log = logging.getLogger(__name__)

BANK_SCOPE = 0  # the user_id of a bank's pooled fit


@dataclass(frozen=True, slots=True)
class StoredParams:
    """One stored fit: whose it is (user_id 0: the bank's pooled one) and what it rests on."""

    bank_id: str
    user_id: int
    version: int
    weights: tuple[float, ...]
    reviews: int
    fitted_at: float

    @property
    def pooled(self) -> bool:
        """The bank's learners' fit, not one learner's own."""
        return self.user_id == BANK_SCOPE


def answers_by_learner(conn: Connection, bank_id: str) -> dict[int, list[Graded]]:
    """Every learner's answers in a bank, oldest first."""
    rows = conn.execute(
        "SELECT user_id, question_id, answered_at, correct FROM answers"
        " WHERE bank_id = ? ORDER BY user_id, answered_at, id",
        (bank_id,),
    )
    found: dict[int, list[Graded]] = {}
    for r in rows:
        found.setdefault(int(r[0]), []).append(Graded(str(r[1]), float(r[2]), bool(r[3])))
    return found


# The weights a learner's answer is scheduled under, as one value of the answer's own query
# (bot.storage.answer_sql): their own fit, else the bank's pooled one; NULL: FSRS's defaults.
WEIGHTS_OF_LEARNER = (
    "(SELECT p.weights FROM memory_params p WHERE p.bank_id = {bank} AND p.user_id IN ({user}, 0)"
    " ORDER BY p.user_id DESC LIMIT 1)"
)


@lru_cache(maxsize=256)
def weights_of(text: str | None) -> Weights:
    """Stored weights (a JSON array) as a tuple; None: FSRS's defaults. Weights FSRS-6 cannot
    schedule with (stored by an older version, or edited by hand) are FSRS's defaults too,
    with one log line: an answer must not fail on them. Memoised: a bank's learners share a
    few fits, and every answer reads one."""
    if text is None:
        return DEFAULT_WEIGHTS
    try:
        weights = settle_weights(json.loads(text))
        check_weights(weights)
    except (ValueError, TypeError) as err:
        why = "; ".join(str(err).splitlines())
        log.warning("stored memory weights unusable, FSRS-6's defaults instead: %s", why)
        return DEFAULT_WEIGHTS
    return weights


def _stored(row: tuple[object, ...]) -> StoredParams:
    bank_id, user_id, version, weights, reviews, fitted_at = row
    return StoredParams(
        str(bank_id),
        int(str(user_id)),
        int(str(version)),
        weights_of(str(weights)),
        int(str(reviews)),
        float(str(fitted_at)),
    )


_SELECT = "SELECT bank_id, user_id, version, weights, reviews, fitted_at FROM memory_params"


def params_for(conn: Connection, user_id: int, bank_id: str) -> StoredParams | None:
    """The weights a learner is on: their own fit, else the bank's pooled one, else None
    (FSRS's defaults). One indexed read of at most two rows."""
    rows = conn.execute(
        f"{_SELECT} WHERE bank_id = ? AND user_id IN (?, ?) ORDER BY user_id DESC",
        (bank_id, user_id, BANK_SCOPE),
    ).fetchall()
    return _stored(tuple(rows[0])) if rows else None


def weights_for(conn: Connection, user_id: int, bank_id: str) -> Weights:
    """The weights a learner's memory is scheduled under (FSRS's defaults without a fit)."""
    found = params_for(conn, user_id, bank_id)
    return DEFAULT_WEIGHTS if found is None else found.weights


def bank_params(conn: Connection, bank_id: str) -> list[StoredParams]:
    """Every fit stored for a bank, the pooled one first."""
    rows = conn.execute(f"{_SELECT} WHERE bank_id = ? ORDER BY user_id", (bank_id,))
    return [_stored(tuple(r)) for r in rows]


def save_params(
    conn: Connection,
    bank_id: str,
    user_id: int,
    weights: tuple[float, ...],
    reviews: int,
    now: float,
) -> int:
    """Store a fit as the scope's next version; returns the version."""
    row = conn.execute(
        "SELECT version FROM memory_params WHERE bank_id = ? AND user_id = ?",
        (bank_id, user_id),
    ).fetchone()
    version = 1 if row is None else int(row[0]) + 1
    conn.execute(
        "INSERT INTO memory_params (bank_id, user_id, version, weights, reviews, fitted_at)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (bank_id, user_id) DO UPDATE SET"
        " version = excluded.version, weights = excluded.weights,"
        " reviews = excluded.reviews, fitted_at = excluded.fitted_at",
        (bank_id, user_id, version, json.dumps(list(weights)), reviews, now),
    )
    return version
