"""The pick memo when a learner's memory is emptied as the time, the exponent or the bank
changes: it keeps no recall of the states it held, and picks as the queue does without it."""

from __future__ import annotations

import datetime as dt
import random

from bot.learning.blueprint import Blueprint
from bot.learning.memory import Answer, MemoryState, recalls, review
from bot.learning.pick_memo import PickMemo
from bot.learning.queue import Learner, choose_next, today_from_memory
from bot.learning.simulate.generated_bank import generate_bank

T0 = dt.datetime(2027, 1, 4, 8, 0, tzinfo=dt.UTC)


def _learner(memory: dict[str, MemoryState], now: dt.datetime, memo: PickMemo | None) -> Learner:
    start = now.replace(hour=0, minute=0)
    return Learner(memory=memory, today=today_from_memory(memory, start.date(), start), memo=memo)


def test_recalls_of_an_emptied_memory_are_none() -> None:
    bank = generate_bank(n_questions=20, n_topics=2, seed=1)
    plan, other = Blueprint.of(bank), Blueprint.of(bank)
    ids = list(plan.in_order)
    q = ids[3]
    memory = {q: review(None, Answer(q, T0, False))}
    later = T0 + dt.timedelta(days=3)
    # A new time, a new exponent, a new plan (a bank reloaded): each starts the memo afresh.
    for at, power, then in [(later, 1.0, plan), (T0, 1.3, plan), (T0, 1.0, other)]:
        memo = PickMemo()
        assert memo.recalls(plan, memory, ids, T0, 1.0) == recalls(memory, ids, T0, 1.0)
        assert memo.recalls(then, {}, ids, at, power) == recalls({}, ids, at, power) == {}


def test_a_pick_after_the_memory_was_emptied_is_the_pick_without_the_memo() -> None:
    plan = Blueprint.of(generate_bank(n_questions=20, n_topics=2, seed=1))
    q = plan.in_order[3]
    memory = {q: review(None, Answer(q, T0, False))}
    memo = PickMemo()
    month = T0 + dt.timedelta(days=30)  # the question is due: its recall fell below the target
    choose_next(plan, _learner(memory, month, memo), month, random.Random(5))
    later = month + dt.timedelta(hours=1)
    plain = choose_next(plan, _learner({}, later, None), later, random.Random(5))
    kept = choose_next(plan, _learner({}, later, memo), later, random.Random(5))
    assert plain is not None and kept == plain
