"""Recorded answers replayed into memory states: the Python steps of the migrations that
introduced memory states and later fields of them."""

from __future__ import annotations

from collections.abc import Iterator

from bot.learning.memory import Answer, Confidence, MemoryState, from_timestamp
from bot.learning.memory import replay_all as replay_answers
from bot.storage.dialect import of
from bot.storage.learning_sql import MEMORY_COLUMNS, upsert_sql
from bot.storage.port import Connection


def _answers(conn: Connection) -> Iterator[tuple[int, str, Answer]]:
    rows = conn.execute(
        "SELECT user_id, bank_id, question_id, answered_at, correct, confidence,"
        " time_to_answer_ms FROM answers ORDER BY user_id, bank_id, answered_at, id"
    )
    for user_id, bank_id, qid, at, correct, conf, ms in rows:
        answer = Answer(
            question_id=qid,
            at=from_timestamp(at),
            correct=bool(correct),
            confidence=Confidence(conf) if conf else None,
            seconds=None if ms is None else ms / 1000,
        )
        yield user_id, bank_id, answer


def replayed(conn: Connection) -> Iterator[tuple[int, str, dict[str, MemoryState]]]:
    """Every learner's recorded answers in each bank, replayed into memory states."""
    key: tuple[int, str] | None = None
    batch: list[Answer] = []
    for user_id, bank_id, answer in _answers(conn):
        if (user_id, bank_id) != key:
            if key is not None:
                yield (*key, replay_answers(batch))
            key, batch = (user_id, bank_id), []
        batch.append(answer)
    if key is not None:
        yield (*key, replay_answers(batch))


def backfill_memory(conn: Connection) -> int:
    """Replay every recorded answer into memory states (the migration's Python step);
    returns how many states were written. Learners keep what they have practised."""
    # Run by an early migration, before later ones added columns: write the ones there are.
    present = set(of(conn).columns(conn, "memory_states"))
    columns = tuple(c for c in MEMORY_COLUMNS if c in present)
    upsert = upsert_sql(columns)
    written = 0
    for user_id, bank_id, states in replayed(conn):
        for qid, state in states.items():
            row = state.to_row()
            conn.execute(upsert, (user_id, bank_id, qid, *(row[c] for c in columns)))
        written += len(states)
    return written
