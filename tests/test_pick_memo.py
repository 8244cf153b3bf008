"""The pick memo (`bot.learning.pick_memo`): picks made with it are those made without it."""

from __future__ import annotations

import datetime as dt
import random

from bot.learning.blueprint import Blueprint
from bot.learning.forgetting import QueueMode
from bot.learning.memory import (
    Answer,
    Confidence,
    MemoryState,
    forgetting_exponent,
    recalls,
    review,
)
from bot.learning.pick_memo import PickMemo
from bot.learning.queue import Learner, today_from_memory
from bot.learning.simulate.generated_bank import generate_bank
from tests.memory_walks import memory_walk, pick_twice

T0 = dt.datetime(2027, 1, 4, 8, 0, tzinfo=dt.UTC)


def _picks(seed: int, mode: QueueMode) -> tuple[list[tuple[object, float]], int]:
    """One learner answering at random for 400 picks, each pick made twice from the same
    random state: without a memo and with one kept across the picks. The clock stands still
    for stretches (most states unchanged between picks) and jumps now and then; answers a
    sitting apart change the forgetting exponent. Returns the pairs that differ (none
    expected) and how many picks were reviews of met questions."""
    plan = Blueprint.of(generate_bank(n_questions=60, n_topics=4, seed=seed))
    rng, draws = random.Random(seed), random.Random(seed + 100)
    memo = PickMemo()
    memory: dict[str, MemoryState] = {}
    now, last, differ, reviews = T0, None, [], 0
    for _ in range(400):
        if draws.random() < 0.08:
            now += dt.timedelta(hours=draws.choice([1, 4, 20, 50]))
        start = now.replace(hour=0, minute=0)
        today = today_from_memory(memory, start.date(), start)
        if today_from_memory(memory, start.date(), start, memo) != today:
            differ.append((today, "today"))
        learner = Learner(
            memory=dict(sorted(memory.items())),
            today=today,
            exam_date=None,
            last_question_id=last,
        )
        kept = pick_twice(plan, learner, memo, now, rng, mode, differ)
        assert kept is not None
        reviews += kept.question_id in memory
        qid = last = kept.question_id
        confidence = draws.choice([None, Confidence.SURE, Confidence.UNSURE])
        answer = Answer(qid, now, draws.random() < 0.6, confidence)
        memory[qid] = review(memory.get(qid), answer)
    return differ, reviews


def test_picks_with_the_memo_are_the_picks_without_it() -> None:
    for seed, mode in [(1, QueueMode.STANDARD), (2, QueueMode.RELEARN), (3, QueueMode.COVER)]:
        differ, reviews = _picks(seed, mode)
        assert differ == []
        assert reviews > 200  # most picks walked the met questions, where the memo works


def test_recalls_exponent_and_today_are_the_same_after_any_change() -> None:
    plan = Blueprint.of(generate_bank(n_questions=30, n_topics=3, seed=4))
    ids = list(plan.in_order)
    draws, memo = random.Random(5), PickMemo()
    for memory, now in memory_walk(ids, draws, 300, T0):
        g = forgetting_exponent(memory.values(), plan.mean_chance)
        assert memo.exponent(memory, plan.mean_chance) == g
        start = now.replace(hour=0, minute=0)
        today = today_from_memory(memory, start.date(), start)
        assert today_from_memory(memory, start.date(), start, memo) == today
        assert list(memo.recalls(plan, memory, ids, now, g).items()) == list(
            recalls(memory, ids, now, g).items()
        )
