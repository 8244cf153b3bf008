"""The held-out learner models behave as their papers say: PPE and Estes reward spacing,
Atkinson's all-or-none chain rewards repetition while a question is held for now, and each
learns from feedback and forgets."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest

from bot.cli import main
from bot.learning.blueprint import Blueprint
from bot.learning.simulate.generated_bank import generate_bank
from bot.learning.simulate.holdout_models import (
    HOLDOUT,
    AtkinsonMemory,
    AtkinsonParams,
    EstesMemory,
    EstesParams,
    PpeMemory,
    PpeParams,
)
from bot.learning.simulate.learner import LearnerParams, SimLearner
from bot.learning.simulate.truth import TrueMemory

MINUTE = 1 / 1440


def _practised(memory: TrueMemory, times: list[float]) -> TrueMemory:
    for k, t in enumerate(times):
        memory.update(0, t, k > 0, 0.0)  # recalled at every practice but the first
    return memory


@pytest.mark.parametrize(
    "make", [lambda: PpeMemory(PpeParams()), lambda: EstesMemory(EstesParams())]
)
def test_spaced_practice_outlasts_massed_practice(make: Callable[[], TrueMemory]) -> None:
    spaced = _practised(make(), [0.0, 1.0, 2.0])
    massed = _practised(make(), [2.0, 2.0 + MINUTE, 2.0 + 2 * MINUTE])
    assert spaced.recall(0, 32.0) > massed.recall(0, 32.0) + 0.1


def test_atkinson_conditions_the_hidden_state_on_each_answer() -> None:
    p = AtkinsonParams()
    memory = AtkinsonMemory(p)
    memory.update(0, 0.0, False, 0.0)  # a first study: U -> P or T
    assert memory.recall(0, 0.0) == pytest.approx(p.to_permanent + p.to_temporary)
    memory.update(0, 5.0, True, 0.0)  # recalled: T or P, and a study consolidates T
    assert memory.recall(0, 5.0) == pytest.approx(1.0)
    after_recall = memory.recall(0, 30.0)
    memory.update(0, 30.0, False, 0.0)  # missed: it was U, feedback moves it on at fail_rate
    missed = (p.to_permanent + p.to_temporary) * p.fail_rate
    assert memory.recall(0, 30.0) == pytest.approx(missed)
    assert 0 < after_recall < 1


def test_atkinson_rewards_repetition_while_a_question_is_held_for_now() -> None:
    def week_after(times: list[float]) -> float:
        rng, total = random.Random(2), 0.0
        for _ in range(400):
            memory = AtkinsonMemory(AtkinsonParams())
            for t in times:
                memory.update(0, t, rng.random() < memory.recall(0, t), 0.0)
            total += memory.recall(0, times[-1] + 7)
        return total / 400

    assert week_after([0.0, MINUTE, 2 * MINUTE]) > week_after([0.0, 4.0, 8.0]) + 0.1


@pytest.mark.parametrize("truth", list(HOLDOUT))
def test_every_held_out_learner_learns_from_feedback_and_forgets(truth: str) -> None:
    plan = Blueprint.of(generate_bank(n_questions=40, n_topics=3, seed=1))
    params = LearnerParams(prior_offset=50.0, misconception_rate=0.0)  # knows nothing at start
    learner = SimLearner(plan, truth, params, random.Random(3))
    start = learner.true_score(0.0)
    for k, q in enumerate(plan.questions):
        learner.answer(q, k * MINUTE)
    just_after, month_after = learner.true_score(0.05), learner.true_score(30.0)
    assert just_after > start + 15
    assert just_after > month_after >= start


def test_cli_simulate_runs_a_held_out_model(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--bank", "generated-30", "--learners", "1", "--days", "2"]
    assert main([*argv, "--per-day", "5", "--truth", "estes/fast", "--json"]) == 0
    reports = json.loads(capsys.readouterr().out)["reports"]
    assert {r["truth"] for r in reports} == {"estes/fast"}
