"""The pick memo kept while the bank is reloaded, states are dropped (all of them too) and the
clock goes back: it picks as the queue does without it."""

from __future__ import annotations

import datetime as dt
import random

from bot.bank.models import Bank, Question
from bot.learning.blueprint import Blueprint
from bot.learning.forgetting import QueueMode
from bot.learning.memory import Answer, Confidence, MemoryState, recalls, review
from bot.learning.misconceptions import MisconceptionState, after_answer
from bot.learning.pick_memo import PickMemo
from bot.learning.queue import Learner, choose_next, today_from_memory
from bot.learning.simulate.generated_bank import generate_bank
from tests.memory_walks import pick_twice

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


def _reloads(bank: Bank) -> list[Bank]:
    """The bank and versions of it a reload could bring: questions withdrawn, questions added
    between the others, questions moved to another topic and a topic renamed."""
    questions = list(bank.questions.values())
    withdrawn = {q.id: q for i, q in enumerate(questions) if i % 6 != 2}
    added: dict[str, Question] = {}
    for i, q in enumerate(questions):
        added[q.id] = q
        if i % 7 == 3:
            added[f"{q.id}-b"] = q.model_copy(update={"id": f"{q.id}-b"})
    moved = {
        q.id: q.model_copy(update={"topic": "topic-9" if q.topic == "topic-2" else "topic-1"})
        if q.topic == "topic-2" or i % 5 == 0
        else q
        for i, q in enumerate(questions)
    }
    renamed = [
        t.model_copy(update={"id": "topic-9"}) if t.id == "topic-2" else t
        for t in bank.meta.topics
    ]
    return [
        bank,
        bank.model_copy(update={"questions": withdrawn}),
        bank.model_copy(update={"questions": added}),
        bank.model_copy(
            update={"meta": bank.meta.model_copy(update={"topics": renamed}), "questions": moved}
        ),
    ]


def test_a_memo_kept_across_reloads_drops_and_a_clock_going_back_picks_as_without_it() -> None:
    banks = _reloads(generate_bank(n_questions=40, n_topics=4, seed=7, misconceptions=3))
    plans = [Blueprint.of(b) for b in banks]
    every = sorted({q for b in banks for q in b.questions})
    rng, draws = random.Random(8), random.Random(9)
    memory: dict[str, MemoryState] = {}
    misconceptions: dict[str, MisconceptionState] = {}
    memo, now, which, topic, last = PickMemo(), T0, 0, None, None
    differ, reloads, emptied = [], 0, 0
    for _ in range(700):
        event = draws.random()
        if event < 0.05:
            now += dt.timedelta(hours=draws.choice([1, 20, 49, 400]))
        elif event < 0.07:
            now -= dt.timedelta(hours=draws.choice([1, 30]))
        elif event < 0.10:
            which, reloads = draws.randrange(len(plans)), reloads + 1
        elif event < 0.12:
            topic = draws.choice([None, "topic-1", "topic-2", "topic-9"])
        elif event < 0.15 and memory:
            for q in draws.sample(list(memory), draws.choice([1, len(memory)])):
                del memory[q]  # a state withdrawn, or all of them
            emptied += not memory
        elif event < 0.17:
            q = draws.choice(every)  # a state of a question this version may not have
            memory[q] = review(memory.get(q), Answer(q, now, draws.random() < 0.5))
        plan, bank = plans[which], banks[which]
        start = now.replace(hour=0, minute=0)
        kept_memory = dict(sorted(memory.items()))
        learner = Learner(
            memory=kept_memory,
            today=today_from_memory(kept_memory, start.date(), start),
            topic=topic if topic and plan.by_topic.get(topic) else None,
            misconceptions=dict(misconceptions),
            last_question_id=last,
        )
        mode = draws.choice(list(QueueMode))
        kept = pick_twice(plan, learner, memo, now, rng, mode, differ)
        if kept is None:
            continue
        last, question = kept.question_id, bank.questions[kept.question_id]
        chosen = {draws.randrange(len(question.options))}
        right = chosen == question.correct_indices
        memory[last] = review(memory.get(last), Answer(last, now, right, Confidence.SURE))
        misconceptions.update(after_answer(misconceptions, question, chosen, now))
    assert differ == []
    assert reloads > 10 and emptied > 2
