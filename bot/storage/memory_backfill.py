"""Recorded answers replayed into memory states: the Python steps of the migrations that
introduced memory states and later fields of them, and a learner's states restated under newly
fitted weights (bot.practice.fitting)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby

from bot.learning.memory import (
    DEFAULT_WEIGHTS,
    Answer,
    Confidence,
    MemoryState,
    from_timestamp,
)
from bot.learning.memory import replay_all as replay_answers
from bot.storage import fit_sql
from bot.storage.dialect import of
from bot.storage.learner_lock import lock_learner
from bot.storage.learning_sql import MEMORY_COLUMNS, memory_states, save_memory, upsert_sql
from bot.storage.port import Connection

_ANSWERS = (
    "SELECT user_id, bank_id, question_id, answered_at, correct, confidence,"
    " time_to_answer_ms FROM answers"
)


def _answers(
    conn: Connection, where: str = "", args: tuple[object, ...] = ()
) -> Iterator[tuple[int, str, Answer]]:
    rows = conn.execute(f"{_ANSWERS}{where} ORDER BY user_id, bank_id, answered_at, id", args)
    for user_id, bank_id, qid, at, correct, conf, ms in rows:
        answer = Answer(
            question_id=qid,
            at=from_timestamp(at),
            correct=bool(correct),
            confidence=Confidence(conf) if conf else None,
            seconds=None if ms is None else ms / 1000,
        )
        yield user_id, bank_id, answer


def replayed(
    conn: Connection, *, fitted: bool = False
) -> Iterator[tuple[int, str, dict[str, MemoryState]]]:
    """Every learner's recorded answers in each bank, replayed into memory states (under the
    weights each learner is on when `fitted`, else FSRS-6's defaults)."""
    batches: Iterator[tuple[tuple[int, str], Iterator[tuple[int, str, Answer]]]] = groupby(
        _answers(conn), key=lambda row: (row[0], row[1])
    )
    for (user_id, bank_id), rows in batches:
        answers = [answer for _, _, answer in rows]
        weights = fit_sql.weights_for(conn, user_id, bank_id) if fitted else DEFAULT_WEIGHTS
        yield user_id, bank_id, replay_answers(answers, weights)


def restate(conn: Connection, user_id: int, bank_id: str) -> int:
    """Replay a learner's answers in a bank under the weights they are on (their own fit, else
    the bank's, else FSRS-6's defaults) and store the states; returns how many. Only states
    whose answers are all still there (as many replayed as the state counts): after answers
    were pruned, a replay would forget what the learner practised. The learner's lock first:
    an answer in flight must not write a state read before."""
    lock_learner(conn, user_id)
    weights = fit_sql.weights_for(conn, user_id, bank_id)
    stored = memory_states(conn, user_id, bank_id)
    where = " WHERE user_id = ? AND bank_id = ?"
    answers = [a for _, _, a in _answers(conn, where, (user_id, bank_id))]
    changed = 0
    for qid, state in replay_answers(answers, weights).items():
        before = stored.get(qid)
        if before is not None and before.reps == state.reps and before != state:
            save_memory(conn, user_id, bank_id, qid, state)
            changed += 1
    return changed


def backfill_reviews(conn: Connection) -> int:
    """A migration's Python step: give stored states the spaced-review fields their answers
    imply (where all their answers are still there); returns how many were updated."""
    changed = 0
    for user_id, bank_id, states in replayed(conn):
        for qid, s in states.items():
            changed += conn.execute(
                "UPDATE memory_states SET predicted_recall = ?, review_right = ?,"
                " spaced_reviews = ? WHERE user_id = ? AND bank_id = ? AND question_id = ?"
                " AND reps = ?",
                (s.predicted_recall, s.review_right, s.spaced_reviews, user_id, bank_id, qid,
                 s.reps),
            ).rowcount  # fmt: skip
    return changed


def backfill_after_miss(conn: Connection) -> int:
    """A migration's Python step: give stored states the after-a-miss fields their answers
    imply, under the weights each learner is on (where all their answers are still there);
    returns how many were updated."""
    changed = 0
    for user_id, bank_id, states in replayed(conn, fitted=True):
        for qid, s in states.items():
            changed += conn.execute(
                "UPDATE memory_states SET miss_predicted = ?, miss_right = ?, miss_reviews = ?"
                " WHERE user_id = ? AND bank_id = ? AND question_id = ? AND reps = ?",
                (s.miss_predicted, s.miss_right, s.miss_reviews, user_id, bank_id, qid, s.reps),
            ).rowcount
    return changed


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
