"""Readiness: the evidence minimum, honest ranges, decay to the exam date, mock results."""

from __future__ import annotations

import datetime as dt
import math
import random
from dataclasses import replace

import pytest

from bot.learning.blueprint import Blueprint
from bot.learning.memory import (
    Answer,
    MemoryState,
    calibration,
    recall_probability,
    review,
)
from bot.learning.readiness import (
    MIN_ANSWERS,
    MODEL_SD,
    MockResult,
    p_right,
    readiness,
    thin_tail_weight,
)
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


def test_thin_tail_weight_grows_only_with_faster_forgetting_than_fsrs() -> None:
    assert thin_tail_weight(0.6) == 0.0 and thin_tail_weight(1.0) == 0.0
    assert abs(thin_tail_weight(1.4) - 0.4) < 1e-9 and thin_tail_weight(3.0) == 1.0


def _with_reviews(predicted: float, right: int, n: int) -> dict[str, MemoryState]:
    """Every question met twice, its review history replaced by `right` of `n` at `predicted`."""
    memory = _answered(list(PLAN.questions), True, reviews=2)
    share = 1.0 / len(memory)
    return {
        q: replace(s, predicted_recall=predicted * n * share, review_right=0)
        for q, s in memory.items()
    } | {
        q: replace(memory[q], predicted_recall=predicted * n * share, review_right=1)
        for q in list(memory)[:right]
    }


def test_a_learner_forgetting_faster_than_fsrs_gets_the_thin_tail_and_a_lower_estimate() -> None:
    long_after = T0 + 60 * DAY  # weeks past the last review: where the two curves disagree
    as_predicted = _with_reviews(0.9, right=72, n=80)  # reviews went as FSRS said
    worse = _with_reviews(0.9, right=30, n=80)  # reviews went much worse
    g_fast = calibration(worse.values(), PLAN.mean_chance).g
    assert g_fast > 1.5 and thin_tail_weight(g_fast) > 0.5
    a = readiness(PLAN, as_predicted, long_after)
    b = readiness(PLAN, worse, long_after)
    assert a.score is not None and b.score is not None and b.score < a.score
    # at g >= 2 every met question follows the exponential curve through FSRS's stability
    assert thin_tail_weight(g_fast) == 1.0
    expected = 0.0
    for q, state in worse.items():
        days = (long_after - state.last_review) / DAY
        expected += PLAN.value[q] * p_right(0.9 ** (days / state.stability), PLAN.chance[q])
    assert abs(b.score - 100 * expected / sum(PLAN.value.values())) < 0.01
    fsrs_only = sum(recall_probability(s, long_after) for s in worse.values()) / len(worse)
    assert fsrs_only > 0.7  # what the heavy tail alone would have claimed


def test_the_memory_models_error_is_one_error_across_topics() -> None:
    """A learner whose every question is met rests wholly on the memory model: the chance of
    passing allows MODEL_SD of error in the whole score, whatever the number of topics (summed
    in quadrature over the bank's topics, the same learner would be near certain to pass)."""
    memory = _answered(list(PLAN.questions), True, reviews=2)
    r = readiness(PLAN, memory, T0 + 80 * DAY)
    assert r.score is not None and r.pass_probability is not None
    # (and the small floor every estimate keeps, a third of it)
    z = (r.score - PLAN.passing_score) / (100 * math.hypot(MODEL_SD, MODEL_SD / 3))
    assert len(PLAN.by_topic) >= 4
    assert r.pass_probability == pytest.approx(0.5 * (1 + math.erf(z / math.sqrt(2))), abs=2e-4)


def test_the_lower_end_allows_for_thin_tailed_forgetting_long_after_review() -> None:
    memory = _answered(list(PLAN.questions), True, reviews=2)  # no review outcomes yet: g = 1
    fresh = readiness(PLAN, memory, T0 + 4 * DAY)
    stale = readiness(PLAN, memory, T0 + 90 * DAY)
    for r in (fresh, stale):
        assert r.score is not None and r.low is not None and r.high is not None
        assert r.low <= r.score <= r.high
    assert fresh.score is not None and fresh.low is not None and fresh.high is not None
    assert stale.score is not None and stale.low is not None and stale.high is not None
    # the range reaches further down once FSRS and the thin tail part, not above
    assert (stale.score - stale.low) > (fresh.score - fresh.low) + 10
    assert (stale.score - stale.low) > (stale.high - stale.score) + 10


def test_the_range_widens_for_a_learner_forgetting_faster_than_fsrs_most_of_all_downward() -> None:
    soon = T0 + 4 * DAY  # shortly after review: the tail gap is small for both
    as_predicted = readiness(PLAN, _with_reviews(0.9, right=72, n=80), soon)
    worse = readiness(PLAN, _with_reviews(0.9, right=30, n=80), soon)
    for r in (as_predicted, worse):
        assert r.score is not None and r.low is not None and r.high is not None
    assert as_predicted.score is not None and as_predicted.low is not None
    assert worse.score is not None and worse.low is not None and worse.high is not None
    assert as_predicted.high is not None
    assert worse.score - worse.low > 2 * (as_predicted.score - as_predicted.low)
    assert worse.high - worse.score < worse.score - worse.low  # the thin tail: downward only
    # FSRS's stabilities are trusted less either way: four months on (upper ends below 100,
    # so not cut by the scale), the upper end moves up too.
    a, b = (readiness(PLAN, _with_reviews(0.9, right=r, n=80), T0 + 120 * DAY) for r in (72, 30))
    assert a.score is not None and a.high is not None and a.high < 100
    assert b.score is not None and b.high is not None and b.high < 100
    assert b.high - b.score > 1.5 * (a.high - a.score)


def test_a_question_just_missed_counts_at_the_share_of_recall_kept_after_misses() -> None:
    now = T0 + 3 * DAY + dt.timedelta(minutes=10)
    memory = _answered(list(PLAN.questions), True, reviews=2)  # last answers 3 days ago...
    missed = list(PLAN.questions)[::2]
    for q in missed:  # ...and half of the questions missed minutes ago
        memory[q] = review(memory[q], Answer(q, now - dt.timedelta(minutes=5), False))

    def after_misses(right: int) -> float:
        """The estimate for a learner `right` of whose 40 answers after a miss were right."""
        share = {
            q: replace(s, miss_predicted=0.8 * 40 / len(memory), miss_right=0, miss_reviews=0)
            for q, s in memory.items()
        }
        share[missed[0]] = replace(share[missed[0]], miss_right=right, miss_reviews=40)
        found = readiness(PLAN, share, now).score
        assert found is not None
        return found

    unknown = readiness(PLAN, memory, now).score  # no answer after a miss yet: the prior
    assert unknown is not None
    # Kept what the feedback showed (all right at the next sitting) or only chance's share.
    assert after_misses(40) > unknown + 5 > after_misses(10) + 10
    # Questions last answered right read the same whatever happened after misses.
    right_only = {q: s for q, s in memory.items() if q not in missed}
    forgot = {
        q: replace(s, miss_predicted=3.2, miss_right=1, miss_reviews=4)
        for q, s in right_only.items()
    }
    assert readiness(PLAN, right_only, now).score == readiness(PLAN, forgot, now).score
