"""FSRS memory states, their columns, replay, and misconception transitions."""

from __future__ import annotations

import datetime as dt

import pytest
from fsrs import Rating

from bot.bank.models import Question
from bot.learning.memory import (
    Answer,
    Confidence,
    MemoryState,
    rating_for,
    recall_probability,
    replay,
    replay_all,
    review,
)
from bot.learning.misconceptions import after_answer
from tests.sample_bank import question

T0 = dt.datetime(2027, 1, 4, 8, 0, tzinfo=dt.UTC)
DAY = dt.timedelta(days=1)


def test_grade_map_never_easy() -> None:
    assert rating_for(False) is Rating.Again
    assert rating_for(False, Confidence.SURE) is Rating.Again
    assert rating_for(True) is Rating.Good
    assert rating_for(True, Confidence.SURE) is Rating.Good
    assert rating_for(True, Confidence.UNSURE) is Rating.Hard


def test_first_answers_schedule_whole_days_and_rank_by_grade() -> None:
    good = review(None, Answer("q", T0, True))
    hard = review(None, Answer("q", T0, True, Confidence.UNSURE))
    again = review(None, Answer("q", T0, False, Confidence.SURE))
    assert good.stability > hard.stability > again.stability
    assert again.due - T0 >= DAY and again.lapses == 1 and again.confident_error
    assert good.due > hard.due >= again.due
    assert good.first_correct and not again.first_correct


def test_recall_decays_and_wrong_answer_lowers_stability() -> None:
    state = review(None, Answer("q", T0, True))
    r1, r5 = recall_probability(state, T0 + DAY), recall_probability(state, T0 + 5 * DAY)
    assert 1.0 > r1 > r5 > 0.0
    assert recall_probability(None, T0) == 0.0
    lapsed = review(state, Answer("q", T0 + 3 * DAY, False))
    assert lapsed.stability < state.stability and lapsed.reps == 2 and not lapsed.last_correct


def test_replay_equals_incremental_updates_and_sorts_by_time() -> None:
    answers = [
        Answer("q", T0, False, Confidence.SURE),
        Answer("q", T0 + 1 * DAY, True, Confidence.UNSURE),
        Answer("q", T0 + 4 * DAY, True, None, seconds=12.5),
        Answer("q", T0 + 15 * DAY, False),
        Answer("q", T0 + 16 * DAY, True),
    ]
    state = None
    for a in answers:
        state = review(state, a)
    assert replay(reversed(answers)) == state
    assert replay([]) is None
    both = replay_all([*answers, Answer("p", T0, True)])
    assert both["q"] == state and both["p"].reps == 1


def test_columns_round_trip() -> None:
    state = review(
        review(None, Answer("q", T0, True)), Answer("q", T0 + DAY, False, Confidence.SURE)
    )
    row = state.to_row()
    assert isinstance(row["due"], float) and row["last_confidence"] == "sure"
    assert MemoryState.from_row(row) == state
    assert MemoryState.from_row(dict(row, last_confidence=None)).last_confidence is None


def test_naive_times_are_refused() -> None:
    with pytest.raises(ValueError):
        review(None, Answer("q", dt.datetime(2027, 1, 1), True))


def _tagged(qid: str, tag: str | None = "mis-a") -> Question:
    q = question(qid, correct=(0,))
    options = [
        o.model_copy(update={"misconception": tag}) if i == 2 else o
        for i, o in enumerate(q.options)
    ]
    return q.model_copy(update={"options": options})


def test_misconception_activates_then_resolves_after_two_avoidances() -> None:
    q1, q2, q3 = _tagged("m1"), _tagged("m2"), _tagged("m3")
    states = after_answer({}, q1, [2], T0)
    m = states["mis-a"]
    assert m.active and m.activated_by == "m1" and m.activated_at == T0
    # The same question again does not count as an avoidance: a re-test needs another one.
    assert after_answer(states, q1, [0], T0 + DAY) == {}
    states |= after_answer(states, q2, [1], T0 + DAY)
    assert states["mis-a"].active and states["mis-a"].avoidances == 1
    # Picking the tagged option again restarts the count.
    states |= after_answer(states, q3, [2], T0 + 2 * DAY)
    assert states["mis-a"].avoidances == 0 and states["mis-a"].activated_by == "m3"
    states |= after_answer(states, q1, [0], T0 + 3 * DAY)
    states |= after_answer(states, q2, [0], T0 + 4 * DAY)
    assert not states["mis-a"].active and states["mis-a"].resolved_at == T0 + 4 * DAY
    assert after_answer(states, question("plain"), [1], T0) == {}
