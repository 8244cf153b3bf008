"""The bench-only oracle: it must look at true memory without changing it, and the half-life
floor must stay below what the oracle itself achieves (a floor above an achieved figure would be
no floor)."""

from __future__ import annotations

import copy
import random

import pytest

from bot.learning.blueprint import Blueprint
from bot.learning.simulate.generated_bank import generate_bank
from bot.learning.simulate.learner import LearnerParams, SimLearner
from bot.learning.simulate.runner import SimConfig
from tests.bench.oracle_bound import (
    half_life_floor,
    oracle_pick,
    oracle_to_ready,
    ready_margin,
    week_ahead,
)

PLAN = Blueprint.of(generate_bank(40, n_topics=4, seed=3))


@pytest.mark.parametrize("truth", ["power-law", "half-life", "act-r", "dash", "mcm"])
def test_oracle_pick_leaves_true_memory_as_it_was(truth: str) -> None:
    learner = SimLearner(PLAN, truth, LearnerParams(), random.Random(5))
    for q in learner.order[:10]:
        learner.answer(q, 1.0)
    before = copy.deepcopy(vars(learner.memory))
    pick = oracle_pick(learner, 2.0, last=0, objective=week_ahead, t_now=2.0, burst=3)
    assert vars(learner.memory) == before
    assert pick != 0  # never the question just asked


def test_oracle_prefers_a_question_that_gains_over_one_known_for_good() -> None:
    learner = SimLearner(PLAN, "half-life", LearnerParams(), random.Random(5))
    learner.held.clear()
    # Every question drilled to a very long half-life but one, met once: the gain is there.
    target = 7
    for i in range(len(learner.order)):
        for _ in range(1 if i == target else 30):
            learner.memory.update(i, 0.5, True, learner.skill[i])
    pick = oracle_pick(learner, 1.0, last=None, objective=ready_margin, t_now=1.0)
    assert pick == target


def test_half_life_floor_is_below_the_oracle() -> None:
    cfg = SimConfig(3, 20, 20, 30, "oracle", "half-life", 11)
    for n in range(3):
        floor = half_life_floor(PLAN, cfg, n)
        reached = oracle_to_ready(PLAN, cfg, n, week_ahead, burst=3)
        assert floor is not None and reached is not None
        assert 0 < floor <= reached
