"""The study queue as a pure function, driven with a fake clock and a seeded rng."""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter

from bot.learning.blueprint import Blueprint
from bot.learning.forgetting import QueueMode
from bot.learning.memory import Answer, Confidence, MemoryState, review
from bot.learning.misconceptions import MisconceptionState, after_answer
from bot.learning.mistakes import mistakes, next_mistake
from bot.learning.queue import (
    Learner,
    Reason,
    Today,
    _most_urgent,
    choose_next,
)
from bot.learning.simulate.generated_bank import generate_bank
from tests.sample_bank import bank, question

T0 = dt.datetime(2027, 1, 4, 8, 0, tzinfo=dt.UTC)
DAY = dt.timedelta(days=1)


def _today(at: dt.datetime, answered: int = 0, new: int = 0) -> Today:
    start = at.replace(hour=0, minute=0)
    return Today(date=start.date(), start=start, answered=answered, new=new)


def _met(correct: bool, at: dt.datetime, confidence: Confidence | None = None) -> MemoryState:
    return review(None, Answer("x", at, correct, confidence))


def test_due_review_beats_new_question() -> None:
    plan = Blueprint.of(bank())
    now = T0 + 10 * DAY
    memory = {"a1": _met(True, T0)}  # ten days on, recall is far below the target
    pick = choose_next(plan, Learner(memory, _today(now)), now, random.Random(1))
    assert pick is not None and (pick.question_id, pick.reason) == ("a1", Reason.REVIEW)


def test_new_question_when_nothing_is_due() -> None:
    plan = Blueprint.of(bank())
    memory = {"a1": _met(True, T0)}
    pick = choose_next(plan, Learner(memory, _today(T0, 1, 1)), T0, random.Random(1))
    assert pick is not None and pick.reason is Reason.NEW and pick.question_id != "a1"


def test_confident_error_comes_back_before_unsure_one() -> None:
    plan = Blueprint.of(bank())
    for seed in range(20):
        memory = {
            "a1": _met(False, T0, Confidence.UNSURE),
            "b1": _met(False, T0, Confidence.SURE),
            **{q: _met(True, T0 + 2 * DAY) for q in ("a2", "a3", "b2")},
        }
        now = T0 + 2 * DAY + dt.timedelta(hours=2)
        pick = choose_next(plan, Learner(memory, _today(now)), now, random.Random(seed))
        assert pick is not None and pick.question_id == "b1"


def test_never_the_same_question_twice_in_a_row_and_topic_respected() -> None:
    plan = Blueprint.of(bank())
    rng = random.Random(3)
    memory: dict[str, MemoryState] = {}
    last: str | None = None
    now = T0
    for _ in range(60):
        learner = Learner(memory, _today(now), topic="alpha", last_question_id=last)
        pick = choose_next(plan, learner, now, rng)
        assert pick is not None and pick.question_id != last
        assert plan.topic_of(pick.question_id) == "alpha"
        memory[pick.question_id] = review(
            memory.get(pick.question_id), Answer(pick.question_id, now, rng.random() < 0.6)
        )
        last = pick.question_id
        now += dt.timedelta(hours=7)
    only = Blueprint.of(bank([question("solo")]))
    pick = choose_next(only, Learner({}, _today(T0), last_question_id="solo"), T0, rng)
    assert pick is not None and pick.question_id == "solo"  # nothing else to ask
    assert choose_next(plan, Learner({}, _today(T0), topic="nope"), T0, rng) is None


def test_thirty_day_plan_at_ten_a_day_covers_every_topic_before_the_exam() -> None:
    plan = Blueprint.of(generate_bank(n_questions=150, n_topics=6, seed=4))
    exam = (T0 + 30 * DAY).date()
    rng, learner_rng = random.Random(5), random.Random(6)
    memory: dict[str, MemoryState] = {}
    last: str | None = None
    met_by_day: list[int] = []
    for day in range(30):
        start = T0 + day * DAY
        new = 0
        for i in range(10):
            now = start + i * dt.timedelta(minutes=3)
            today = Today(start.date(), start.replace(hour=0), answered=i, new=new)
            pick = choose_next(plan, Learner(memory, today, exam, last_question_id=last), now, rng)
            assert pick is not None
            qid = pick.question_id
            new += qid not in memory
            memory[qid] = review(memory.get(qid), Answer(qid, now, learner_rng.random() < 0.7))
            last = qid
        met_by_day.append(len(memory))
    assert met_by_day[27 - 1] == len(plan.questions)  # all met before the final review days
    # Coverage grows in proportion: a week in, every topic has been started.
    week = Counter(plan.topic_of(q) for q in list(memory)[: met_by_day[6]])
    assert set(week) == set(plan.by_topic)


def test_misconception_retested_with_another_question_within_three_days() -> None:
    plan = Blueprint.of(generate_bank(n_questions=120, n_topics=4, seed=2))
    mid, tagged = next((m, qs) for m, qs in plan.by_misconception.items() if len(qs) >= 3)
    first = plan.questions[tagged[0]]
    option = next(i for i, o in enumerate(first.options) if o.misconception == mid)
    mis: dict[str, MisconceptionState] = dict(after_answer({}, first, [option], T0))
    memory = {first.id: review(None, Answer(first.id, T0, False))}
    rng = random.Random(9)
    retested_on: int | None = None
    for day in range(1, 4):
        start = T0 + day * DAY
        for i in range(10):
            now = start + i * dt.timedelta(minutes=2)
            learner = Learner(
                memory, Today(start.date(), start.replace(hour=0), i), None, None, mis
            )
            pick = choose_next(plan, learner, now, rng)
            assert pick is not None
            if pick.reason is Reason.MISCONCEPTION:
                assert pick.question_id in tagged and pick.question_id != first.id
                retested_on = retested_on or day
            memory[pick.question_id] = review(
                memory.get(pick.question_id), Answer(pick.question_id, now, True)
            )
    assert retested_on is not None and retested_on <= 3
    # Not on the same day it was activated.
    same_day = Learner(memory, _today(T0 + dt.timedelta(hours=1)), None, None, mis)
    pick = choose_next(plan, same_day, T0 + dt.timedelta(hours=1), rng)
    assert pick is not None and pick.reason is not Reason.MISCONCEPTION


def test_cover_first_leaves_a_misconception_retest_to_the_share_at_risk() -> None:
    plan = Blueprint.of(generate_bank(n_questions=40, n_topics=2, seed=2))
    mid, tagged = next((m, qs) for m, qs in plan.by_misconception.items() if len(qs) >= 2)
    first = plan.questions[tagged[0]]
    option = next(i for i, o in enumerate(first.options) if o.misconception == mid)
    mis = dict(after_answer({}, first, [option], T0))
    # Everything met on the first day; two days on, the misconception is due for a re-test.
    memory = {q: review(None, Answer(q, T0, q != first.id)) for q in plan.questions}
    now = T0 + 2 * DAY
    learner = Learner(memory, _today(now), None, None, mis)
    standard = choose_next(plan, learner, now, random.Random(1))
    assert standard is not None and standard.reason is Reason.MISCONCEPTION
    cover = choose_next(plan, learner, now, random.Random(1), mode=QueueMode.COVER)
    assert cover is not None and cover.reason is Reason.PRACTICE


def test_mistakes_queue_only_wrong_most_forgotten_first() -> None:
    plan = Blueprint.of(bank())
    memory = {
        "a1": _met(False, T0 + 2 * DAY),
        "a2": _met(False, T0),  # wrong longest ago: most forgotten
        "a3": _met(True, T0),
        "b1": _met(False, T0 + DAY),
    }
    now = T0 + 3 * DAY
    assert mistakes(plan, memory, now) == ["a2", "b1", "a1"]
    assert mistakes(plan, memory, now, topic="beta") == ["b1"]
    assert next_mistake(plan, memory, now, last_question_id="a2") == "b1"
    assert next_mistake(plan, {"a3": memory["a3"]}, now) is None


def test_urgency_ranking_is_the_key_function_it_replaced() -> None:
    # The review pick ranks flat tuples; it must choose what min() with the key function
    # ((tier, -value × (1 - recall)), draw) chose, drawing the same numbers in the same order.
    plan = Blueprint.of(generate_bank(n_questions=80, n_topics=4, seed=3))
    ids = list(plan.in_order)
    gen = random.Random(11)
    for case in range(300):
        memory = {
            q: _met(gen.random() < 0.6, T0, gen.choice([None, Confidence.SURE, Confidence.UNSURE]))
            for q in gen.sample(ids, gen.randint(1, len(ids)))
        }
        # Many equal recalls (all 1.0 on some cases): ties go to the draws, then to the order.
        recall = {
            q: 1.0 if case % 3 == 0 else gen.choice([0.5, 0.7, gen.random()]) for q in memory
        }
        ranked = list(memory)

        def urgency(
            q: str, memory: dict[str, MemoryState] = memory, recall: dict[str, float] = recall
        ) -> tuple[int, float]:
            state = memory[q]
            tier = 0 if state.confident_error else 1 if not state.last_correct else 2
            return tier, -plan.value[q] * (1 - recall[q])

        ours, theirs = random.Random(case), random.Random(case)
        expected = min(ranked, key=lambda q: (urgency(q), theirs.random()))
        assert _most_urgent(plan, memory, recall, ranked, ours) == expected
        assert ours.random() == theirs.random()  # as many draws
