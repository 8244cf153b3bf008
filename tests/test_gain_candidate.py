"""The candidate rule the panel measures beside the bot's queue (bot/learning/simulate/gain.py):
greatest expected gain in recall a week ahead, on a model that may be fitted."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import replace

import pytest

from bot.learning.blueprint import Blueprint
from bot.learning.fit import Graded
from bot.learning.memory import Answer, MemoryState, review
from bot.learning.model import DEFAULT_MODEL, Model
from bot.learning.queue import Learner, Reason, Today
from bot.learning.simulate.gain import choose_by_gain, plan_days, replayed, restate
from tests.sample_bank import bank, question

T0 = dt.datetime(2027, 1, 4, 8, 0, tzinfo=dt.UTC)
DAY = dt.timedelta(days=1)


def _learner(
    memory: dict[str, MemoryState], at: dt.datetime, exam: dt.date | None = None
) -> Learner:
    start = at.replace(hour=0, minute=0)
    return Learner(memory=memory, today=Today(start.date(), start), exam_date=exam)


def _answers(history: list[tuple[str, dt.datetime, bool]]) -> dict[str, MemoryState]:
    memory: dict[str, MemoryState] = {}
    for qid, at, right in history:
        memory[qid] = review(memory.get(qid), Answer(qid, at, right))
    return memory


def test_under_the_default_model_restated_memory_is_the_stored_memory() -> None:
    history = [
        ("a", T0, False),
        ("a", T0 + 2 * DAY, True),
        ("b", T0, True),
        ("a", T0 + 9 * DAY, True),
    ]
    memory = _answers(history)
    graded = [Graded(q, at.timestamp(), right) for q, at, right in history]
    again = replayed(graded, memory, DEFAULT_MODEL)
    for q, state in memory.items():
        assert again[q].stability == pytest.approx(state.stability, rel=1e-12)
        assert again[q].difficulty == pytest.approx(state.difficulty, rel=1e-12)
        assert again[q].last_review == state.last_review
    one = restate(None, memory["b"], DEFAULT_MODEL)
    assert one.stability == pytest.approx(memory["b"].stability, rel=1e-12)


def test_a_fading_question_beats_a_fresh_one_and_new_ones_wait_while_memories_are_short() -> None:
    plan = Blueprint.of(bank([question("fresh"), question("fading"), question("new")]))
    now = T0 + 3 * DAY
    fresh = review(None, Answer("fresh", now - dt.timedelta(minutes=5), True))
    fading = replace(fresh, stability=2.0, difficulty=5.0, last_review=now - 4 * DAY)
    memory = {"fresh": fresh, "fading": fading}
    # First memories that last minutes and a steep curve: a new question's answer is gone in
    # a week; the review of a memory of days, fading, is what holds.
    w = list(DEFAULT_MODEL.w)
    w[0], w[2], w[20] = 0.01, 0.01, 0.8
    short = Model(tuple(w))
    pick = choose_by_gain(plan, _learner(memory, now), now, random.Random(1), short)
    assert pick is not None and (pick.question_id, pick.reason) == ("fading", Reason.REVIEW)
    # FSRS's defaults: a first answer lasts days, so the new question adds most.
    pick = choose_by_gain(plan, _learner(memory, now), now, random.Random(1), DEFAULT_MODEL)
    assert pick is not None and (pick.question_id, pick.reason) == ("new", Reason.NEW)


def test_the_rule_plans_a_week_ahead_or_to_a_sooner_exam() -> None:
    assert plan_days(_learner({}, T0)) == 7.0
    assert plan_days(_learner({}, T0, (T0 + 3 * DAY).date())) == 3.0
    assert plan_days(_learner({}, T0, (T0 - DAY).date())) == 7.0  # past: a week


def test_the_panel_table_gives_a_candidate_run_beside_the_queue_a_column() -> None:
    from bot.learning.simulate.panel import Cell, CellResult, markdown

    runs = {"engine": [300.0], "fsrs": [400.0], "leitner": [500.0], "random": [600.0]}
    result = CellResult(
        Cell("half-life", "csv-240", 20, 14), runs | {"gain-fit": [350.0]}, 4.0, 0.1
    )
    header, _, row = markdown([result]).splitlines()
    assert header.endswith("| Brier | gain-fit |")
    assert (
        row
        == "| half-life | csv-240 | 20 | 14 | 300 | 400 | 500 | 600 | 0.75 | 4.0 | 0.100 | 350 |"
    )
    plain = markdown([CellResult(result.cell, runs, None, None)]).splitlines()
    assert plain[0].endswith("| Brier |") and plain[2].endswith("| - | - |")
