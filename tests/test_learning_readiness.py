"""Readiness: the evidence minimum, honest ranges, decay to the exam date, mock results."""

from __future__ import annotations

import datetime as dt
import random

from bot.learning.blueprint import Blueprint
from bot.learning.memory import Answer, MemoryState, review
from bot.learning.readiness import MIN_ANSWERS, MockResult, p_right, readiness
from bot.learning.simulate.generated_bank import generate_bank

T0 = dt.datetime(2027, 1, 4, 8, 0, tzinfo=dt.UTC)
DAY = dt.timedelta(days=1)
PLAN = Blueprint.of(generate_bank(n_questions=80, n_topics=4, seed=3))


def _answered(ids: list[str], correct: bool, reviews: int = 1) -> dict[str, MemoryState]:
    memory: dict[str, MemoryState] = {}
    for qid in ids:
        state = None
        for k in range(reviews):
            state = review(state, Answer(qid, T0 + k * 3 * DAY, correct))
        assert state is not None
        memory[qid] = state
    return memory


def test_guessing_correction() -> None:
    assert p_right(1.0, 0.25) == 1.0 and p_right(0.0, 0.25) == 0.25
    assert abs(p_right(0.6, 0.25) - 0.7) < 1e-9


def test_below_the_evidence_minimum_says_what_is_missing() -> None:
    first_topic = next(iter(PLAN.by_topic))
    memory = _answered(list(PLAN.by_topic[first_topic])[:10], True)
    r = readiness(PLAN, memory, T0 + DAY)
    assert not r.enough_data and r.score is None and r.pass_probability is None
    assert r.answers == 10 and r.answers_missing == MIN_ANSWERS - 10
    assert set(r.topics_missing) == set(PLAN.by_topic) - {first_topic}
    assert r.topics[first_topic].met > 0 and r.passing_score == 70


def test_strong_learner_is_likely_to_pass_and_range_holds_the_score() -> None:
    memory = _answered(list(PLAN.questions), True, reviews=4)
    now = T0 + 10 * DAY
    r = readiness(PLAN, memory, now)
    assert r.enough_data and r.score is not None and r.low is not None and r.high is not None
    assert r.low <= r.score <= r.high and r.score > 85
    assert r.pass_probability is not None and r.pass_probability > 0.95
    assert all(t.met == 1.0 for t in r.topics.values())
    later = readiness(PLAN, memory, now, at=now + 90 * DAY)
    assert later.score is not None and later.score < r.score  # memory decays by the exam


def test_weak_learner_is_not_flattered() -> None:
    memory = _answered(list(PLAN.questions)[::2], False)
    r = readiness(PLAN, memory, T0 + 2 * DAY)
    assert r.enough_data and r.score is not None and r.pass_probability is not None
    assert r.score < 50 and r.pass_probability < 0.05


def test_unmet_questions_are_estimated_from_first_attempts_not_assumed_known() -> None:
    # Right first time on 60% of the questions met, half of every topic met.
    rng = random.Random(2)
    ids = [q for qs in PLAN.by_topic.values() for q in qs[: len(qs) // 2 + 1]]
    memory = {q: review(None, Answer(q, T0, rng.random() < 0.6)) for q in ids}
    r = readiness(PLAN, memory, T0 + DAY)
    assert r.enough_data and r.score is not None
    assert 40 < r.score < 85
    assert r.low is not None and r.high is not None and r.high - r.low > 4  # honest range


def test_a_mock_result_pulls_the_topic_score_toward_it() -> None:
    memory = _answered(list(PLAN.questions), True, reviews=2)
    now = T0 + 8 * DAY
    topic = next(iter(PLAN.by_topic))
    before = readiness(PLAN, memory, now).topics[topic].score
    mock = MockResult(now - DAY, {topic: (2, 10)})
    after = readiness(PLAN, memory, now, mocks=[mock]).topics[topic].score
    assert after < before - 20
    stale = MockResult(now - 60 * DAY, {topic: (2, 10)})
    assert readiness(PLAN, memory, now, mocks=[stale]).topics[topic].score == before
