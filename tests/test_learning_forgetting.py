"""The study queue's mode from the memory model fitted to a bank's learners, and what cover-first
does: the arithmetic, the queue's picks in each mode, the simulated bank's nightly fit telling
lasting memories from fading ones, and the bot choosing its order from the stored weights."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import random
from pathlib import Path

import pytest

from bot.learning.blueprint import Blueprint
from bot.learning.forgetting import (
    COVER_DAYS,
    COVER_RECALL,
    QueueMode,
    first_memory_days,
    memory_check,
    mode_for,
)
from bot.learning.memory import (
    DEFAULT_WEIGHTS,
    Answer,
    MemoryState,
    Weights,
    recall_probability,
    review,
)
from bot.learning.queue import Learner, Pick, Reason, Today, choose_next
from bot.learning.simulate.generated_bank import generate_bank
from bot.learning.simulate.runner import SimConfig, run_learners
from bot.storage import fit_sql
from bot.storage.port import Connection
from tests.sample_bank import bank
from tests.test_play_jsonl import demo_catalog, session

T0 = dt.datetime(2027, 1, 4, 8, 0, tzinfo=dt.UTC)
MINUTE = dt.timedelta(minutes=1)


def lasting(first_good: float = 6.0, decay: float = 0.15) -> Weights:
    """FSRS-6's defaults but for the stability of a first right answer and the curve's decay."""
    w = list(DEFAULT_WEIGHTS)
    w[2], w[20] = first_good, decay
    return tuple(w)


def _today(at: dt.datetime) -> Today:
    start = at.replace(hour=0, minute=0)
    return Today(date=start.date(), start=start)


def test_cover_meets_the_most_valuable_question_first_then_the_most_at_risk() -> None:
    plan = Blueprint.of(bank())  # beta: 2 questions for half the exam; alpha: 3 for the other
    picks = set()
    for seed in range(20):
        pick = choose_next(
            plan, Learner({}, _today(T0)), T0, random.Random(seed), mode=QueueMode.COVER
        )
        assert pick is not None and pick.reason is Reason.NEW
        picks.add(pick.question_id)
    assert picks == {"b1", "b2"}
    # Nothing is reviewed while a question is unmet, however forgotten the met ones are.
    now = T0 + dt.timedelta(days=30)
    memory = {q: review(None, Answer(q, T0, False)) for q in ("a1", "a2", "b1", "b2")}
    pick = choose_next(
        plan, Learner(memory, _today(now)), now, random.Random(1), mode=QueueMode.COVER
    )
    assert pick is not None and (pick.question_id, pick.reason) == ("a3", Reason.NEW)
    # All met: the largest exam share at risk (value x forgetting): a beta question, forgotten.
    memory["a3"] = review(None, Answer("a3", now - MINUTE, True))
    memory["b2"] = review(None, Answer("b2", now - MINUTE, True))
    pick = choose_next(
        plan, Learner(memory, _today(now)), now, random.Random(1), mode=QueueMode.COVER
    )
    assert pick is not None and (pick.question_id, pick.reason) == ("b1", Reason.PRACTICE)


@pytest.mark.parametrize("weights", [DEFAULT_WEIGHTS, lasting(), lasting(3.0, 0.5)])
def test_a_first_memory_lasts_until_the_fitted_curve_crosses_the_target(weights: Weights) -> None:
    days = first_memory_days(weights)
    state = review(None, Answer("q", T0, True), weights)
    at = T0 + dt.timedelta(days=days)
    assert recall_probability(state, at) == pytest.approx(COVER_RECALL)
    assert mode_for(weights) is (QueueMode.COVER if days >= COVER_DAYS else QueueMode.STANDARD)


def test_fsrs_defaults_keep_the_standard_order_and_long_first_memories_cover_first() -> None:
    assert mode_for(DEFAULT_WEIGHTS) is QueueMode.STANDARD
    assert mode_for(lasting(6.0)) is QueueMode.COVER
    # Days at 85%: a little under twice the first stability on FSRS-6's heavy default tail.
    assert mode_for(lasting(3.5)) is QueueMode.STANDARD
    assert first_memory_days(lasting(3.5, 0.8)) < first_memory_days(lasting(3.5, 0.15))
    check = memory_check(lasting(), 640)
    assert (check.reviews, check.mode) == (640, QueueMode.COVER)
    assert check.first_memory_days == pytest.approx(first_memory_days(lasting()))


def test_cover_interleaves_topics_and_keeps_the_last_days_for_review() -> None:
    plan = Blueprint.of(bank())
    # Beta's questions carry more of the exam each, but the last question was beta's.
    last = review(None, Answer("b1", T0 - MINUTE, False))
    learner = Learner({"b1": last}, _today(T0), last_question_id="b1")
    pick = choose_next(plan, learner, T0, random.Random(2), mode=QueueMode.COVER)
    assert pick is not None and plan.topic_of(pick.question_id) == "alpha"
    # Two days before the exam, a forgotten question is reviewed rather than a new one met.
    now = T0 + dt.timedelta(days=20)
    memory = {"a1": review(None, Answer("a1", T0, False))}
    exam = Learner(memory, _today(now), exam_date=(now + dt.timedelta(days=2)).date())
    pick = choose_next(plan, exam, now, random.Random(2), mode=QueueMode.COVER)
    assert pick is not None and (pick.question_id, pick.reason) == ("a1", Reason.REVIEW)
    far = dataclasses.replace(exam, exam_date=(now + dt.timedelta(days=30)).date())
    pick = choose_next(plan, far, now, random.Random(2), mode=QueueMode.COVER)
    assert pick is not None and pick.reason is Reason.NEW


def _modes(plan: Blueprint, truth: str) -> list[set[QueueMode]]:
    """The modes the side-by-side learners were on each morning."""
    cfg = SimConfig(learners=20, days=10, per_day=20, policy="engine", truth=truth, seed=5)
    days: list[set[QueueMode]] = []
    run_learners(plan, cfg, on_day=lambda _day, modes: days.append(set(modes)))
    return days


def test_the_nightly_fit_tells_lasting_memories_from_fading_ones() -> None:
    plan = Blueprint.of(generate_bank(n_questions=100, n_topics=3, seed=2))
    lasting_days, fading_days = _modes(plan, "power-law"), _modes(plan, "half-life")
    # Before a fit (too few spaced reviews on the first mornings): FSRS-6's defaults.
    assert lasting_days[0] == fading_days[0] == {QueueMode.STANDARD}
    # Then each world's: long first memories cover first on most mornings; fading ones stay
    # standard but for a morning at most (a pooled fit on its first few hundred reviews can
    # misjudge a night, and the next night's, on more reviews, corrects it).
    assert sum(QueueMode.COVER in modes for modes in lasting_days) >= 5
    assert sum(QueueMode.COVER in modes for modes in fading_days) <= 1


async def _stats_after_one_answer(
    tmp_path: Path, weights: Weights | None, scope: int = fit_sql.BANK_SCOPE
) -> tuple[str, dict[str, float]]:
    """The study order `stats` reports and the stored memory state of the first question
    answered right, with `weights` stored as the bank's fit or as the learner's own (`scope`:
    their user id; None: no fit)."""
    async with session(tmp_path, demo_catalog()) as s:
        if weights is not None:
            w = weights

            def store(conn: Connection) -> None:
                fit_sql.save_params(conn, "demo", scope, w, 900, 0.0)

            await s.service.db.write(store)
        q = await s.handle(json.dumps({"cmd": "next", "user": 1}))
        key = await s.service.delivery(q["delivery"])
        assert key is not None
        right = [p for p in range(len(q["options"])) if key.question.options[p].correct]
        answer = {"cmd": "answer", "user": 1, "delivery": q["delivery"], "chosen": right}
        assert (await s.handle(json.dumps(answer)))["correct"] is True
        states = await s.service.learning.memory(1, "demo")
        state = states[q["question_id"]]
        stats = await s.handle('{"cmd": "stats", "user": 1}')
        return stats["queue_mode"], {"stability": state.stability, "decay": state.decay}


async def test_the_bot_orders_and_schedules_by_the_banks_fitted_weights(tmp_path: Path) -> None:
    mode, state = await _stats_after_one_answer(tmp_path / "none", None)
    assert mode == "standard" and state["decay"] == DEFAULT_WEIGHTS[20]
    assert state["stability"] == pytest.approx(DEFAULT_WEIGHTS[2])
    mode, state = await _stats_after_one_answer(tmp_path / "fit", lasting(6.0, 0.2))
    # The answer was scheduled under the stored weights, and the order follows them.
    assert mode == "cover" and state == {"stability": pytest.approx(6.0), "decay": 0.2}
    # A learner's own fit (the bank has none): their answers and their order follow it.
    mode, state = await _stats_after_one_answer(tmp_path / "own", lasting(6.0, 0.2), scope=1)
    assert mode == "cover" and state == {"stability": pytest.approx(6.0), "decay": 0.2}


def test_covering_first_reviews_the_question_met_longest_ago_one_answer_in_eight() -> None:
    plan = Blueprint.of(bank())
    now = T0 + dt.timedelta(days=10)
    memory = {
        "a1": review(None, Answer("a1", T0, True)),  # ten days ago
        "a2": review(None, Answer("a2", T0 + dt.timedelta(days=1), True)),
        "b1": review(None, Answer("b1", now - dt.timedelta(days=3), True)),
    }

    def pick(answered: int, states: dict[str, MemoryState]) -> Pick | None:
        today = Today(now.date(), now.replace(hour=0), answered=answered)
        learner = Learner(states, today, last_question_id="b1")
        return choose_next(plan, learner, now, random.Random(3), mode=QueueMode.COVER)

    # The eighth answer of the day: a review, so that the nightly fit keeps seeing how a first
    # memory holds past the week it decided on; the others meet new questions.
    assert pick(7, memory) == Pick("a1", Reason.REVIEW)
    assert pick(15, memory) == Pick("a1", Reason.REVIEW)
    for answered in (0, 3, 6, 8):
        found = pick(answered, memory)
        assert found is not None and found.reason is Reason.NEW
    # Nothing met a week ago: no review, a new question.
    recent = {"b1": memory["b1"]}
    found = pick(7, recent)
    assert found is not None and found.reason is Reason.NEW
