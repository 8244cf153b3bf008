"""FSRS memory states, their columns, replay, and misconception transitions."""

from __future__ import annotations

import dataclasses
import datetime as dt
import random

import pytest
from fsrs import Card, Rating, State

from bot.bank.models import Question
from bot.learning.memory import (
    AFTER_MISS_PRIOR,
    AFTER_MISS_PSEUDO,
    DEFAULT_WEIGHTS,
    SCHEDULER,
    Answer,
    Confidence,
    MemoryState,
    calibration,
    rating_for,
    recall_probability,
    recalls,
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


def _library_review(state: MemoryState | None, answer: Answer) -> MemoryState:
    """The review as py-fsrs computes it, a Card per call (the memoised path must equal it)."""
    at = answer.at
    rating = rating_for(answer.correct, answer.confidence)
    if state is None:
        card = Card(card_id=1, state=State.Learning, due=at)
        reps, lapses, predicted, right = 0, 0, 0.0, 0
    else:
        card = Card(
            card_id=1,
            state=State.Review,
            step=None,
            stability=state.stability,
            difficulty=state.difficulty,
            due=state.due,
            last_review=state.last_review,
        )
        reps, lapses = state.reps, state.lapses
        at = max(at, state.last_review)
        predicted = state.predicted_recall + recall_probability(state, at)
        right = state.review_right + answer.correct
    card, _ = SCHEDULER.review_card(card, rating, review_datetime=at)
    assert card.stability is not None and card.difficulty is not None
    return MemoryState(
        stability=card.stability,
        difficulty=card.difficulty,
        due=card.due,
        last_review=at,
        reps=reps + 1,
        lapses=lapses + (rating is Rating.Again),
        last_correct=answer.correct,
        last_confidence=answer.confidence,
        first_correct=answer.correct if state is None else state.first_correct,
        predicted_recall=predicted,
        review_right=right,
    )


def _fsrs(state: MemoryState) -> tuple[object, ...]:
    return (
        state.stability, state.difficulty, state.due, state.last_review, state.reps,
        state.lapses, state.last_correct, state.last_confidence, state.first_correct,
    )  # fmt: skip


def test_memoised_reviews_equal_the_librarys_over_random_histories() -> None:
    rng = random.Random(20261201)
    gaps = [0.0, 0.01, 0.5, 0.99, 1.0, 1.5, 2.0, 3.7, 7.0, 30.0, 365.0, 4000.0]
    checked = 0
    for _ in range(400):
        ours: MemoryState | None = None
        theirs: MemoryState | None = None
        at = T0 + dt.timedelta(seconds=rng.randrange(86_400 * 30))
        for _ in range(rng.randint(1, 12)):
            gap = rng.choice(gaps) if rng.random() < 0.5 else rng.uniform(0, 60)
            at += dt.timedelta(days=gap) * (-0.01 if rng.random() < 0.03 else 1)  # skew too
            confidence = rng.choice([None, Confidence.SURE, Confidence.UNSURE])
            answer = Answer("q", at, rng.random() < 0.6, confidence)
            ours, theirs = review(ours, answer), _library_review(theirs, answer)
            # The library's part; the calibration sums are tested below.
            assert _fsrs(ours) == _fsrs(theirs)
            checked += 1
    assert checked > 1500


def test_recalls_in_one_pass_are_the_same_floats_as_one_by_one() -> None:
    rng = random.Random(5)
    start = dt.datetime(2027, 1, 4, 8, tzinfo=dt.UTC)
    memory = {}
    for i in range(60):
        q = f"q{i}"
        for k in range(rng.randint(1, 5)):
            at = start + dt.timedelta(days=k * rng.choice((1, 3, 9)), minutes=i)
            memory[q] = review(memory.get(q), Answer(q, at, rng.random() < 0.7))
    ids = [f"q{i}" for i in range(70)]  # ten never met
    for at in (start, start + dt.timedelta(days=5, hours=3), start + dt.timedelta(days=80)):
        expected = {q: recall_probability(memory[q], at) for q in ids if q in memory}
        assert recalls(memory, ids, at) == expected


def _answers(*steps: tuple[float, bool]) -> MemoryState:
    """The state after answers `hours` after the first, right or wrong."""
    state = None
    for hours, correct in steps:
        state = review(state, Answer("q", T0 + dt.timedelta(hours=hours), correct))
    assert state is not None
    return state


def test_a_state_scheduled_under_fitted_weights_keeps_their_curve() -> None:
    fitted = list(DEFAULT_WEIGHTS)
    fitted[2], fitted[20] = 5.0, 0.4  # a first right answer lasts longer, on a steeper curve
    weights = tuple(fitted)
    first = review(None, Answer("q", T0, True), weights)
    assert first.stability == pytest.approx(5.0) and first.decay == 0.4
    assert review(None, Answer("q", T0, True)).decay == DEFAULT_WEIGHTS[20]
    # Recall is 90% one stability later on either curve, and the curves part after that.
    for state in (first, review(None, Answer("q", T0, True))):
        assert recall_probability(state, T0 + state.stability * DAY) == pytest.approx(0.9)
    default_like = dataclasses.replace(first, decay=DEFAULT_WEIGHTS[20])
    later = T0 + 30 * DAY
    assert recall_probability(first, later) < recall_probability(default_like, later)
    assert recalls({"q": first}, ["q"], later) == {"q": recall_probability(first, later)}
    # The decay is stored with the state; a row from before it reads as FSRS-6's default.
    assert MemoryState.from_row(first.to_row()) == first
    assert MemoryState.from_row(dict(first.to_row(), decay=None)).decay == DEFAULT_WEIGHTS[20]
    # A later answer is scheduled under the weights it is given.
    again = review(first, Answer("q", T0 + 6 * DAY, True), weights)
    assert again.decay == 0.4 and again.stability > first.stability


def test_the_forgetting_calibration_counts_only_answers_a_sitting_apart() -> None:
    # Re-asked minutes later, a slip says nothing about forgetting: no review is counted.
    massed = _answers((0, False), (0.05, True), (0.1, False), (0.15, True))
    assert (massed.spaced_reviews, massed.predicted_recall, massed.review_right) == (0, 0.0, 0)
    assert calibration([massed]).g == 1.0
    spaced = _answers((0, False), (0.05, True), (48, False), (48.05, True))
    assert (spaced.spaced_reviews, spaced.review_right) == (1, 0)
    assert spaced.predicted_recall == pytest.approx(
        recall_probability(_answers((0, False), (0.05, True)), T0 + dt.timedelta(hours=48))
    )


def test_the_after_a_miss_share_counts_only_spaced_answers_that_follow_a_miss() -> None:
    # Wrong, right minutes later (massed: not counted), wrong two days on (follows a right
    # answer: a spaced review but not after a miss), then right two days on after that miss.
    state = _answers((0, False), (0.05, True), (48, False), (96, True))
    assert (state.spaced_reviews, state.review_right) == (2, 1)
    assert (state.miss_reviews, state.miss_right) == (1, 1)
    before_last = _answers((0, False), (0.05, True), (48, False))
    assert state.miss_predicted == pytest.approx(
        recall_probability(before_last, T0 + dt.timedelta(hours=96))
    )
    assert MemoryState.from_row(state.to_row()) == state
    # No evidence: the prior. Then the learner's own share, trusted the more the more there is.
    assert calibration([_answers((0, True), (48, True))]).kept == AFTER_MISS_PRIOR
    forgotten = [
        dataclasses.replace(state, miss_predicted=0.8 * 60, miss_right=15, miss_reviews=60)
    ]
    weight = 60 / (60 + AFTER_MISS_PSEUDO)
    # 15 right of 60 is what chance alone gives: nothing of the feedback was kept.
    assert calibration(forgotten, chance=0.25).kept == pytest.approx(
        AFTER_MISS_PRIOR * (1 - weight)
    )
    kept = [dataclasses.replace(state, miss_predicted=0.5 * 60, miss_right=60, miss_reviews=60)]
    # Better than FSRS predicted counts as all of it, no more.
    assert calibration(kept).kept == pytest.approx(
        AFTER_MISS_PRIOR + (1 - AFTER_MISS_PRIOR) * weight
    )
