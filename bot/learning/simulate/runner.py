"""Run simulated learners under a policy on a simulated clock and measure what matters."""

from __future__ import annotations

import datetime as dt
import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.learning.blueprint import Blueprint
from bot.learning.fit import MIN_BANK_REVIEWS, MIN_LEARNER_REVIEWS, Graded, fit
from bot.learning.forgetting import QueueMode, mode_for
from bot.learning.memory import Answer, replay_all, review
from bot.learning.misconceptions import after_answer
from bot.learning.queue import Today
from bot.learning.readiness import readiness
from bot.learning.simulate.learner import LearnerParams, SimLearner
from bot.learning.simulate.policies import LEITNER_DAYS, POLICIES, PolicyView

START = dt.datetime(2027, 1, 4, tzinfo=dt.UTC)
SESSION_HOUR = 8  # learners practise every morning, one answer every 90 seconds
ANSWER_GAP = dt.timedelta(seconds=90)
STILL_READY_DAYS = 7
READY_CHECK_EVERY = 5  # answers between checks of the true score (it costs a pass over the bank)


@dataclass(frozen=True)
class SimConfig:
    """One simulation run: who, how long, how much a day, which policy and ground truth."""

    learners: int = 200
    days: int = 30
    per_day: int = 20
    exam_in: int = 30
    policy: str = "engine"
    truth: str = "power-law"
    seed: int = 1
    learner: LearnerParams = field(default_factory=LearnerParams)
    # Learners not ready after `days` go on practising, up to this many days in all, only to
    # count their answers to ready (0: stop at `days`). Every other figure is of `days`.
    ready_within: int = 0
    # A learner ready (and still a week later) stops STILL_READY_DAYS after that day, exam or
    # not: the panel's figures are answers to ready and the readiness estimate around it.
    stop_when_ready: bool = False


@dataclass
class LearnerOutcome:
    """What one learner's run produced."""

    ready_after: int | None  # answers until ready and still ready a week later (None: never)
    exam_score: float  # true expected score on exam day
    coverage: float  # blueprint-weighted share of questions met by exam day
    abs_errors: list[float]  # readiness |predicted - true|, days with enough data
    brier: list[float]  # (pass probability - passed)^2, same days


@dataclass(frozen=True)
class PolicyReport:
    """Summary over learners for one policy and ground truth."""

    policy: str
    truth: str
    learners: int
    budget: int  # answers in the run (days x per day)
    questions_to_ready: float  # mean, a learner never ready counts as the budget
    median_to_ready: float
    reached_ready: float  # share of learners ready (and a week later) within the run
    exam_score: float  # mean true score on exam day
    pass_rate: float  # share whose true score on exam day is at least the passing score
    coverage: float
    readiness_mae: float | None
    readiness_brier: float | None
    readiness_days: int  # learner-days with enough data

    def as_dict(self) -> dict[str, object]:
        """Plain JSON-ready dict."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _at(day: int, i: int = 0) -> dt.datetime:
    return START + dt.timedelta(days=day, hours=SESSION_HOUR) + i * ANSWER_GAP


def _days(when: dt.datetime) -> float:
    return (when - START).total_seconds() / 86_400


def _ready(learner: SimLearner, t: float, pass_mark: float, answered: int) -> int | None:
    # Ready now and, without further study, still ready a week later.
    if learner.true_score(t) < pass_mark:
        return None
    return answered if learner.true_score(t + STILL_READY_DAYS) >= pass_mark else None


class _Run:
    """One learner in progress, a day at a time."""

    def __init__(self, plan: Blueprint, cfg: SimConfig, index: int) -> None:
        seed = cfg.seed * 1_000_003 + index
        self.plan, self.cfg = plan, cfg
        self.learner = SimLearner(plan, cfg.truth, cfg.learner, random.Random(seed))
        self.rng = random.Random(seed + 7)
        self.view = PolicyView(exam_date=(START + dt.timedelta(days=cfg.exam_in)).date())
        self.ready_after: int | None = None
        self.ready_day: int | None = None
        self.answered = 0
        self.errors: list[float] = []
        self.brier: list[float] = []
        self.exam_score = 0.0
        self.coverage = 0.0

    def practise(self, day: int) -> None:
        """One morning's answers, then (within the run's days) the day's readiness check."""
        plan, cfg, view, learner = self.plan, self.cfg, self.view, self.learner
        policy = POLICIES[cfg.policy]
        start = START + dt.timedelta(days=day)
        new_today = 0
        for i in range(cfg.per_day):
            now = _at(day, i)
            view.today = Today(start.date(), start, i, new_today)
            qid = policy(plan, view, now, self.rng)
            chosen, correct = learner.answer(qid, _days(now))
            new_today += qid not in view.memory
            answer = Answer(qid, now, correct)
            view.history.append(answer)
            view.memory[qid] = review(view.memory.get(qid), answer, view.weights)
            view.misconceptions.update(
                after_answer(view.misconceptions, plan.questions[qid], chosen, now)
            )
            box = view.boxes.get(qid, -1)
            view.boxes[qid] = min(box + 1, len(LEITNER_DAYS) - 1) if correct else 0
            view.last_question_id = qid
            self.answered += 1
            if self.ready_after is None and (
                (i + 1) % READY_CHECK_EVERY == 0 or i + 1 == cfg.per_day
            ):
                self.ready_after = _ready(learner, _days(now), plan.passing_score, self.answered)
                self.ready_day = None if self.ready_after is None else day
        if day >= cfg.days:
            return
        end = _at(day, cfg.per_day)
        true_now = learner.true_score(_days(end))
        estimate = readiness(plan, view.memory, end)
        if estimate.enough_data and estimate.score is not None:
            assert estimate.pass_probability is not None
            self.errors.append(abs(estimate.score - true_now))
            self.brier.append(
                (estimate.pass_probability - float(true_now >= plan.passing_score)) ** 2
            )
        if day == cfg.days - 1:
            exam_t = _days(START + dt.timedelta(days=cfg.exam_in, hours=SESSION_HOUR))
            self.exam_score = learner.true_score(exam_t)
            met = sum(plan.value[q] for q in view.memory)
            self.coverage = met / sum(plan.value.values())

    def outcome(self) -> LearnerOutcome:
        """What the run produced."""
        return LearnerOutcome(
            self.ready_after, self.exam_score, self.coverage, self.errors, self.brier
        )


def run_learners(
    plan: Blueprint,
    cfg: SimConfig,
    on_day: Callable[[int, list[QueueMode]], None] | None = None,
) -> list[LearnerOutcome]:
    """Every learner, side by side, day by day. Under the engine, each morning is the bot's
    nightly fit first: weights fitted to all the bank's learners' answers so far (a learner's
    own once they have enough), every learner's memory restated under theirs, and the study
    queue's mode set by them. `on_day` hears each morning's modes, learner by learner."""
    runs = [_Run(plan, cfg, n) for n in range(cfg.learners)]
    for day in range(max(cfg.days, cfg.ready_within)):
        active = [
            r
            for r in runs
            if r.ready_day is None
            or (
                day < cfg.days
                and not (cfg.stop_when_ready and day > r.ready_day + STILL_READY_DAYS)
            )
        ]
        if not active:
            break
        if cfg.policy == "engine":
            _refit(runs)
        for r in runs:
            r.view.mode = mode_for(r.view.weights)
        if on_day is not None:
            on_day(day, [r.view.mode for r in runs])
        for r in active:
            r.practise(day)
    return [r.outcome() for r in runs]


def _graded(run: _Run) -> list[Graded]:
    return [Graded(a.question_id, a.at.timestamp(), a.correct) for a in run.view.history]


def _refit(runs: list[_Run]) -> None:
    """The bot's nightly fit: weights pooled over the bank's learners, a learner's own once
    they have enough reviews, and every learner's memory restated under their weights."""
    histories = [_graded(r) for r in runs]
    pooled = fit(histories, MIN_BANK_REVIEWS)
    if pooled is None:
        return
    for r, h in zip(runs, histories, strict=True):
        own = fit([h], MIN_LEARNER_REVIEWS)
        weights = (own or pooled).weights
        if weights != r.view.weights:
            r.view.weights = weights
            r.view.memory = replay_all(r.view.history, weights)


def run_policy(plan: Blueprint, cfg: SimConfig) -> PolicyReport:
    """Every learner under one policy and ground truth, summarised."""
    outcomes = run_learners(plan, cfg)
    budget = max(cfg.days, cfg.ready_within) * cfg.per_day
    to_ready = [o.ready_after if o.ready_after is not None else budget for o in outcomes]
    errors = [e for o in outcomes for e in o.abs_errors]
    briers = [b for o in outcomes for b in o.brier]
    return PolicyReport(
        policy=cfg.policy,
        truth=cfg.truth,
        learners=cfg.learners,
        budget=budget,
        questions_to_ready=statistics.fmean(to_ready),
        median_to_ready=statistics.median(to_ready),
        reached_ready=sum(o.ready_after is not None for o in outcomes) / len(outcomes),
        exam_score=statistics.fmean(o.exam_score for o in outcomes),
        pass_rate=sum(o.exam_score >= plan.passing_score for o in outcomes) / len(outcomes),
        coverage=statistics.fmean(o.coverage for o in outcomes),
        readiness_mae=statistics.fmean(errors) if errors else None,
        readiness_brier=statistics.fmean(briers) if briers else None,
        readiness_days=len(errors),
    )
