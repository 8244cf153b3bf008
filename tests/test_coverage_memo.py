"""What a learner's picks keep per topic (`bot.learning.coverage_memo`) and the pick memo's
recalls on any pool: the same as computed afresh, and so the same picks, for several learners
with topics, exam dates, misconceptions and a clock that moves."""

from __future__ import annotations

import dataclasses
import datetime as dt
import random

from bot.learning.ability import topic_abilities
from bot.learning.blueprint import Blueprint
from bot.learning.forgetting import QueueMode
from bot.learning.memory import Answer, Confidence, MemoryState, recalls, review
from bot.learning.misconceptions import MisconceptionState, after_answer
from bot.learning.pick_memo import PickMemo
from bot.learning.queue import Learner, _unmet_by_topic, today_from_memory
from bot.learning.simulate.generated_bank import generate_bank
from tests.memory_walks import memory_walk, pick_twice

T0 = dt.datetime(2027, 1, 4, 8, 0, tzinfo=dt.UTC)


@dataclasses.dataclass
class _Person:
    memory: dict[str, MemoryState] = dataclasses.field(default_factory=dict)
    misconceptions: dict[str, MisconceptionState] = dataclasses.field(default_factory=dict)
    memo: PickMemo = dataclasses.field(default_factory=PickMemo)
    topic: str | None = None
    exam: dt.date | None = None
    last: str | None = None


def test_several_learners_pick_the_same_with_and_without_the_memo() -> None:
    bank = generate_bank(n_questions=90, n_topics=5, seed=11, misconceptions=4)
    plan = Blueprint.of(bank)
    topics = list(plan.by_topic)
    rng, draws = random.Random(12), random.Random(13)
    people = [_Person() for _ in range(4)]
    now, differ, new, reviews = T0, [], 0, 0
    for _ in range(1_500):
        p = draws.choice(people)
        event = draws.random()
        if event < 0.05:
            now += dt.timedelta(hours=draws.choice([1, 5, 20, 49]))
        elif event < 0.08:
            p.topic = draws.choice([None, None, *topics])
        elif event < 0.10:
            p.exam = draws.choice([None, now.date() + dt.timedelta(days=draws.choice([2, 9, 40]))])
        start = now.replace(hour=0, minute=0)
        memory = dict(sorted(p.memory.items()))  # as the memory cache hands them out
        learner = Learner(
            memory=memory,
            today=today_from_memory(memory, start.date(), start),
            exam_date=p.exam,
            topic=p.topic,
            misconceptions=dict(p.misconceptions),
            last_question_id=p.last,
        )
        mode = draws.choice(list(QueueMode))
        kept = pick_twice(plan, learner, p.memo, now, rng, mode, differ)
        if kept is None:
            continue
        qid = p.last = kept.question_id
        reviews += qid in p.memory
        new += qid not in p.memory
        question = bank.questions[qid]
        chosen = {draws.randrange(len(question.options))}
        correct = chosen == set(question.correct_indices)
        confidence = draws.choice([None, Confidence.SURE, Confidence.UNSURE])
        p.memory[qid] = review(p.memory.get(qid), Answer(qid, now, correct, confidence))
        p.misconceptions.update(after_answer(p.misconceptions, question, chosen, now))
    assert differ == []
    assert new > 200 and reviews > 500  # both new questions and reviews were picked


def test_coverage_and_recalls_are_the_same_after_any_change() -> None:
    plan = Blueprint.of(generate_bank(n_questions=40, n_topics=4, seed=21))
    ids = list(plan.in_order)
    topics = list(plan.in_order_by_topic)
    draws, memo = random.Random(22), PickMemo()
    for memory, now in memory_walk(ids, draws, 400, T0, drop_every=37):
        coverage = memo.coverage(plan, memory)
        abilities = topic_abilities(plan, memory)
        for t, a in abilities.items():
            assert coverage.standing(t) == (a.met_share, a.rate)
        for topic in [None, draws.choice(topics)]:
            last = draws.choice([None, *ids])
            # The pool: the topic's questions without the last one (unless it is the only one).
            pool = [q for q in ids if topic is None or plan.topic_of(q) == topic]
            if len(pool) > 1 and last in pool:
                pool.remove(last)
            learner = Learner(
                memory=memory,
                today=today_from_memory(memory, now.date(), now),
                topic=topic,
                last_question_id=last,
            )
            skip = None if last in pool else last
            fresh = _unmet_by_topic(plan, learner, pool)
            assert {t: list(q) for t, q in coverage.unmet(topic, skip).items()} == fresh
            # Pools missing none, a few or many of the met questions, in bank order.
            for some in [ids, pool, [q for q in ids if draws.random() < 0.8]]:
                kept = memo.recalls(plan, memory, some, now, 1.1)
                assert list(kept.items()) == list(recalls(memory, some, now, 1.1).items())
            # The whole bank but a few, told as the ids left out.
            left_out = draws.sample(ids, draws.choice([0, 1, 3]))
            some = [q for q in ids if q not in left_out]
            kept = memo.recalls(plan, memory, some, now, 1.1, left_out=left_out)
            assert list(kept.items()) == list(recalls(memory, some, now, 1.1).items())
