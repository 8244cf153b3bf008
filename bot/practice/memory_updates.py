"""What an answer changes in a learner's model, inside the answer's transaction: the memory state
of its question (FSRS-6 under the learner's fitted weights) and the misconceptions its options
carry. The rules are bot.learning's; storage only loads and saves."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection

from bot.bank.models import Question
from bot.learning.memory import Answer, MemoryState, Weights, from_timestamp, review
from bot.learning.misconceptions import MisconceptionState, after_answer, tagged_options
from bot.mock.models import Exam
from bot.mock.scoring import GradedAnswer
from bot.storage import fit_sql, learning_sql, mock_sql
from bot.storage.learner_lock import lock_learner
from bot.storage.port import Connection


def take_answer(
    conn: Connection,
    user_id: int,
    bank_id: str,
    answer: Answer,
    before: MemoryState | None,
    weights: Weights,
) -> MemoryState:
    """Apply one answer to its question's memory state (`before`: the stored one, read in this
    transaction) under the learner's `weights`; returns the new state as a later read of its
    row would give it."""
    after = review(before, answer, weights)
    return learning_sql.save_memory(conn, user_id, bank_id, answer.question_id, after)


def take_stored(
    conn: Connection, user_id: int, bank_id: str, answer: Answer, weights: Weights
) -> MemoryState:
    """`take_answer` on the state stored for the answer's question."""
    before = learning_sql.memory_state(conn, user_id, bank_id, answer.question_id)
    return take_answer(conn, user_id, bank_id, answer, before, weights)


def take_misconceptions(
    conn: Connection,
    user_id: int,
    bank_id: str,
    question: Question,
    chosen_file: Collection[int],
    at: dt.datetime,
) -> dict[str, MisconceptionState]:
    """Apply one answer (FILE-order choice) to the misconceptions its question carries;
    returns the changed states as stored."""
    tags = tagged_options(question)
    if not tags:
        return {}  # most questions carry none: no read, no write
    states = learning_sql.misconception_states(conn, user_id, bank_id, list(tags))
    changed = after_answer(states, question, chosen_file, at)
    return learning_sql.save_misconceptions(conn, user_id, bank_id, changed)


def record_mock_answers(
    conn: Connection, exam: Exam, graded: tuple[GradedAnswer, ...], default_timezone: str
) -> int:
    """A submitted exam's graded answers as practice answers, taken in by the memory model and
    the misconceptions in the same transaction; returns how many were new. The learner's lock
    first: an answer of theirs in flight must not write back a memory state read before."""
    lock_learner(conn, exam.user_id)
    fresh = mock_sql.record_graded_answers(conn, exam, graded, default_timezone)
    weights = fit_sql.weights_for(conn, exam.user_id, exam.bank_id)
    for g, snapshot in fresh:
        at = from_timestamp(g.answered_at)
        answer = Answer(g.question_id, at, g.correct)
        take_stored(conn, exam.user_id, exam.bank_id, answer, weights)
        if snapshot is not None:
            question = Question.model_validate_json(snapshot)
            take_misconceptions(conn, exam.user_id, exam.bank_id, question, g.chosen, at)
    return len(fresh)
