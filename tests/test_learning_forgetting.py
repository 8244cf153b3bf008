"""The learner's fitted forgetting curve and the one-step score gain built on it."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.learning.forgetting import Curve, Forgetting, fit_forgetting
from bot.learning.gain import AGAIN, GOOD, new_gain, next_stability, review_gain
from bot.learning.memory import Answer, review

T0 = dt.datetime(2027, 1, 4, 8, 0, tzinfo=dt.UTC)
DAY = dt.timedelta(days=1)


def _history(correct_after_a_week: bool, questions: int = 30) -> list[Answer]:
    answers = []
    for i in range(questions):
        q = f"q{i}"
        answers.append(Answer(q, T0, True))
        answers.append(Answer(q, T0 + DAY, True))
        answers.append(Answer(q, T0 + 8 * DAY, correct_after_a_week or i % 10 == 0))
    return answers


def test_a_fast_forgetter_gets_a_steeper_curve_and_a_slow_one_does_not() -> None:
    chance = {f"q{i}": 0.25 for i in range(30)}
    fast = Curve.of(fit_forgetting(_history(False), chance))
    slow = Curve.of(fit_forgetting(_history(True), chance))
    default = Curve()
    assert fast.recall_after_days(5.0, 7.0) < default.recall_after_days(5.0, 7.0) - 0.2
    assert slow.recall_after_days(5.0, 7.0) >= default.recall_after_days(5.0, 7.0) - 0.02
    # Without reviews the prior keeps FSRS's curve within a few points.
    prior = Curve.of(Forgetting())
    assert abs(prior.recall_after_days(5.0, 7.0) - default.recall_after_days(5.0, 7.0)) < 0.05


def test_incremental_observe_equals_replay_and_json_round_trips() -> None:
    history = _history(False, 5)
    chance = {f"q{i}": 0.25 for i in range(5)}
    record, states = Forgetting(), {}
    for a in history:
        if a.question_id in states:
            record = record.observe(states[a.question_id], a.at, a.correct, 0.25)
        states[a.question_id] = review(states.get(a.question_id), a)
    fitted = fit_forgetting(reversed(history), chance)
    assert record.loglik == pytest.approx(fitted.loglik) and fitted.reviews == 10
    back = Forgetting.from_json(record.to_json())
    assert back.reviews == 10 and back.curve() == pytest.approx(record.curve(), rel=1e-4)
    assert Forgetting.from_json('{"loglik": [0.0], "reviews": 3}') == Forgetting()


@pytest.mark.parametrize("correct", [True, False])
@pytest.mark.parametrize("days", [0, 1, 3, 12])
def test_restated_fsrs_update_matches_the_package(correct: bool, days: int) -> None:
    state = review(review(None, Answer("q", T0, True)), Answer("q", T0 + 2 * DAY, True))
    after = review(state, Answer("q", T0 + 2 * DAY + days * DAY, correct))
    days_fsrs = days
    expected = next_stability(
        state.stability, state.difficulty, days_fsrs, GOOD if correct else AGAIN
    )
    assert after.stability == pytest.approx(expected, rel=1e-6)


def test_a_forgotten_question_gains_more_than_a_fresh_one() -> None:
    state = review(None, Answer("q", T0, True))
    curve = Curve()
    fresh = review_gain(state, T0 + dt.timedelta(hours=1), 7.0, curve, 0.25)
    forgotten = review_gain(state, T0 + 10 * DAY, 7.0, curve, 0.25)
    assert forgotten > fresh >= 0.0
    assert new_gain(0.3, 7.0, curve, 0.25) > 0.0
