"""The learner simulation checked on itself, and `quizbot simulate --json`."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import random
from collections import Counter

import pytest

from bot.cli import main
from bot.learning.blueprint import Blueprint
from bot.learning.simulate.generated_bank import generate_bank
from bot.learning.simulate.learner import LearnerParams, SimLearner
from bot.learning.simulate.policies import PolicyView, random_policy
from bot.learning.simulate.runner import SimConfig, run_policy

PLAN = Blueprint.of(generate_bank(n_questions=40, n_topics=3, seed=1))
NOW = dt.datetime(2027, 1, 4, 8, tzinfo=dt.UTC)


def test_random_policy_is_uniform_and_never_repeats_the_last_question() -> None:
    rng = random.Random(4)
    view = PolicyView()
    counts: Counter[str] = Counter()
    draws = 8000
    for _ in range(draws):
        qid = random_policy(PLAN, view, NOW, rng)
        assert qid != view.last_question_id
        counts[qid] += 1
        view.last_question_id = qid
    n = len(PLAN.questions)
    expected = draws / n
    chi2 = sum((counts[q] - expected) ** 2 / expected for q in PLAN.questions)
    assert len(counts) == n
    assert chi2 < 73.4  # chi-square critical value, 39 degrees of freedom, p = 0.001


@pytest.mark.parametrize("truth", ["power-law", "half-life"])
def test_simulated_learner_guesses_at_chance_then_learns_from_feedback(truth: str) -> None:
    params = LearnerParams(prior_offset=50.0, misconception_rate=0.0)  # knows nothing at start
    learner = SimLearner(PLAN, truth, params, random.Random(3))
    qid = next(q for q in PLAN.questions if PLAN.questions[q].select_count == 1)
    i = learner.index[qid]
    assert learner.p_right(i, 0.0) == pytest.approx(PLAN.chance[qid])
    start = learner.true_score(0.0)
    assert start < 35
    for k, q in enumerate(PLAN.questions):
        learner.answer(q, k / 1000)
    assert learner.p_right(i, 0.1) > 0.8  # just saw the answer
    assert learner.p_right(i, 0.1) > learner.p_right(i, 20.0) > PLAN.chance[qid]  # forgets
    assert learner.true_score(0.1) > start + 40


def test_misconception_pulls_to_the_tagged_distractor() -> None:
    params = LearnerParams(
        prior_offset=50.0, misconception_rate=1.0, misconception_pull=1.0, misconception_cure=0.0
    )
    learner = SimLearner(PLAN, "power-law", params, random.Random(5))
    qid, options = next(
        (q, [i for i, o in enumerate(PLAN.questions[q].options) if o.misconception])
        for q in PLAN.questions
        if PLAN.questions[q].select_count == 1
        and any(o.misconception for o in PLAN.questions[q].options)
    )
    assert learner.p_right(learner.index[qid], 0.0) == 0.0  # always drawn to the distractor
    chosen, correct = learner.answer(qid, 0.0)
    assert not correct and set(chosen) <= set(options)


def test_simulation_is_deterministic_with_a_seed() -> None:
    cfg = SimConfig(learners=3, days=4, per_day=6, exam_in=5, policy="engine", seed=7)
    assert run_policy(PLAN, cfg) == run_policy(PLAN, cfg)
    other = run_policy(PLAN, SimConfig(learners=3, days=4, per_day=6, exam_in=5, seed=8))
    assert other != run_policy(PLAN, cfg)


def test_cli_simulate_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "simulate",
        "--bank",
        "generated-30",
        "--learners",
        "2",
        "--days",
        "3",
        "--per-day",
        "5",
        "--exam-in",
        "3",
        "--policy",
        "engine",
        "--policy",
        "random",
        "--truth",
        "half-life",
        "--seed",
        "2",
        "--json",
    ]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["questions"] == 30 and out["passing_score"] == 70
    reports = out["reports"]
    assert [(r["policy"], r["truth"]) for r in reports] == [
        ("engine", "half-life"),
        ("random", "half-life"),
    ]
    assert all(r["budget"] == 15 and 0 <= r["coverage"] <= 1 for r in reports)
    assert main(argv) == 0 and json.loads(capsys.readouterr().out) == out  # same seed
    assert main(["simulate", "--bank", "generated-x"]) == 2
    assert "generated-N" in capsys.readouterr().err


def test_ready_within_counts_answers_to_ready_past_the_run_and_changes_nothing_else() -> None:
    short = SimConfig(learners=4, days=3, per_day=10, exam_in=3, policy="engine", seed=3)
    longer = dataclasses.replace(short, ready_within=60)
    a, b = run_policy(PLAN, short), run_policy(PLAN, longer)
    assert a.reached_ready == 0 and a.questions_to_ready == a.budget == 30  # censored
    assert b.budget == 600 and b.reached_ready == 1.0
    assert 30 < b.questions_to_ready < 600
    same = ("exam_score", "pass_rate", "coverage", "readiness_mae", "readiness_brier")
    assert [getattr(a, k) for k in same] == [getattr(b, k) for k in same]
    assert a.readiness_days == b.readiness_days


def test_cli_simulate_checks_ready_within(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--bank", "generated-30", "--ready-within", "-1"]) == 2
    assert "--ready-within" in capsys.readouterr().err
