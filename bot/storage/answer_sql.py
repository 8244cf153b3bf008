"""What recording one answer reads first, in one query: the delivery behind the button, and the
learner's confidence setting, timezone, memory of that question and fitted memory model.

Four primary-key lookups as one statement: every statement is a trip through the sqlite3 module
on the writer's thread (bind, step with the GIL released, take the GIL back), and concurrent
answers queue behind that thread.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.learning.memory import MemoryState, Weights
from bot.storage.fit_sql import WEIGHTS_OF_LEARNER, weights_of
from bot.storage.learning_sql import MEMORY_COLUMNS, state_of
from bot.storage.port import Connection
from bot.storage.practice_sql import DELIVERY_COLUMNS, DeliveryRecord, delivery_of_row

_SELECT = (
    "SELECT "
    + ", ".join(f"d.{c}" for c in DELIVERY_COLUMNS)
    + ", u.confidence, u.timezone, "
    + WEIGHTS_OF_LEARNER.format(bank="d.bank_id", user=":user")
    + ", "
    + ", ".join(f"m.{c}" for c in MEMORY_COLUMNS)
    + " FROM deliveries d"
    " LEFT JOIN users u ON u.id = :user"
    " LEFT JOIN memory_states m"
    " ON m.user_id = :user AND m.bank_id = d.bank_id AND m.question_id = d.question_id"
    " WHERE d.id = :delivery"
)


@dataclass(frozen=True, slots=True)
class AnswerContext:
    """A delivery, and what its answer by one learner needs of that learner."""

    delivery: DeliveryRecord
    confidence: bool  # Sure/Unsure is asked before an answer counts (off for a stranger)
    timezone: str | None  # the learner's own zone (None: unset, or a stranger)
    memory: MemoryState | None  # of this question, before this answer (None: never answered)
    weights: Weights  # the memory model the learner is on (their fit, the bank's, or FSRS's)


def answer_context(conn: Connection, delivery_id: int, user_id: int) -> AnswerContext | None:
    """The delivery with its learner's setting, zone and memory; None if no such delivery."""
    row = conn.execute(_SELECT, {"user": user_id, "delivery": delivery_id}).fetchone()
    if row is None:
        return None
    values = tuple(row)
    n = len(DELIVERY_COLUMNS)
    confidence, timezone, weights = values[n : n + 3]
    memory = values[n + 3 :]
    return AnswerContext(
        delivery=delivery_of_row(values[:n]),
        confidence=bool(confidence),
        timezone=None if timezone is None else str(timezone),
        memory=None if memory[0] is None else state_of(memory),
        weights=weights_of(None if weights is None else str(weights)),
    )
