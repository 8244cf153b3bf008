"""A bench-only oracle study policy that sees the simulated learner's true memory.

It is not a policy the bot could run: it reads the ground truth the simulator keeps hidden. It
answers one question: how few answers does *any* question-by-question policy need to reach
"ready and still ready a week later", so we know how far the engine is from the best possible?

At each answer it picks the question (any but the one just asked, as every policy) whose answer
raises the criterion most in expectation: for each candidate it copies that question's true
memory, applies the answer as recalled and as not recalled, weighs both by the true recall, and
restores it. The exam score is a weighted sum over questions, so only the candidate's own term
changes; a pass over the bank costs two memory updates per question.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from bot.learning.blueprint import Blueprint
from bot.learning.simulate.learner import SimLearner
from bot.learning.simulate.runner import (
    READY_CHECK_EVERY,
    STILL_READY_DAYS,
    SimConfig,
    _at,
    _days,
    _ready,
)
from bot.learning.simulate.truth import HalfLifeMemory

_MISSING = object()
PRUNE = 1e-3  # outcomes of a burst less likely than this are left out of its expectation


def _guess(learner: SimLearner, i: int) -> float:
    # The learner's chance of a right answer without recall (misconception pull included),
    # read off `p_right` at a time when nothing is recalled would need a fake memory, so the
    # same rule is restated: P(right) = R + (1 - R) * guess.
    qid = learner.order[i]
    guess = learner.plan.chance[qid]
    q = learner.plan.questions[qid]
    if any(o.misconception in learner.held for o in q.options):
        guess *= 1 - learner.p.misconception_pull
    return guess


@dataclass(frozen=True)
class Outlook:
    """The true score (percent) now and a week ahead, and each question's share of it."""

    now: float
    week: float
    per_point: float  # percent per unit of P(right) per unit weight: 100 / total weight


def _leaves(
    learner: SimLearner, i: int, t: float, depth: int, at: tuple[float, float]
) -> list[tuple[float, float, float]]:
    """(probability, recall at at[0], recall at at[1]) after `depth` answers to question i at t,
    one leaf per sequence of outcomes; the true memory is restored afterwards."""
    memory = learner.memory
    p = memory.recall(i, t)
    tables = [d for d in vars(memory).values() if isinstance(d, dict)]
    found: list[tuple[float, float, float]] = []
    for recalled, chance in ((True, p), (False, 1 - p)):
        if chance < PRUNE:
            continue  # an outcome this unlikely moves the expectation by less than it costs
        # A copy of a list the update appends to (ACT-R's traces, DASH's events) in place.
        saved = [(d, list(v) if isinstance(v := d.get(i, _MISSING), list) else v) for d in tables]
        memory.update(i, t, recalled, learner.skill[i])
        if depth == 1:
            found.append((chance, memory.recall(i, at[0]), memory.recall(i, at[1])))
        else:
            found.extend((chance * c, a, b) for c, a, b in _leaves(learner, i, t, depth - 1, at))
        for d, v in saved:
            if v is _MISSING:
                d.pop(i, None)
            else:
                d[i] = v
    return found


Objective = Callable[[float, float, float, float], float]


def week_ahead(now: float, week: float, d_now: float, d_week: float) -> float:
    """Greedy on the score a week ahead: its expected increase."""
    return d_week


def ready_margin(now: float, week: float, d_now: float, d_week: float) -> float:
    """Greedy on min(score now, score a week ahead): the change of the smaller one."""
    return min(now + d_now, week + d_week) - min(now, week)


OBJECTIVES: dict[str, Objective] = {"week": week_ahead, "min": ready_margin}


def oracle_pick(
    learner: SimLearner,
    t: float,
    last: int | None,
    objective: Objective,
    t_now: float,
    burst: int = 1,
) -> int:
    """The question whose answer at t raises `objective` most in expectation (true memory).

    With `burst` > 1 a question is valued by its best gain per answer over 1..burst answers in
    a row (interleaved with others in practice): the first answers to a new question can gain
    little on their own while a few together gain much, which a one-step greedy never sees."""
    memory = learner.memory
    weights = learner._weights
    per_point = 100 / sum(weights)
    t_week = t_now + STILL_READY_DAYS
    guesses = [_guess(learner, i) for i in range(len(weights))]
    recall_now = [memory.recall(i, t_now) for i in range(len(weights))]
    recall_week = [memory.recall(i, t_week) for i in range(len(weights))]

    def score(recall: list[float]) -> float:
        return per_point * sum(
            w * (r + (1 - r) * g) for w, r, g in zip(weights, recall, guesses, strict=True)
        )

    now, week = score(recall_now), score(recall_week)
    best, best_gain = -1, -float("inf")
    for i, w in enumerate(weights):
        if i == last:
            continue
        scale = per_point * w * (1 - guesses[i])
        gain = -float("inf")
        for depth in range(1, burst + 1):
            expected = sum(
                chance
                * objective(
                    now, week, scale * (r_now - recall_now[i]), scale * (r_week - recall_week[i])
                )
                for chance, r_now, r_week in _leaves(learner, i, t, depth, (t_now, t_week))
            )
            gain = max(gain, expected / depth)
        if gain > best_gain:
            best, best_gain = i, gain
    return best


def oracle_to_ready(
    plan: Blueprint, cfg: SimConfig, index: int, objective: Objective, burst: int = 1
) -> int | None:
    """Answers until ready (and a week later) for one learner under the oracle, as the runner
    counts them (same learner draw, same session times, same checks); None: never in the run."""
    seed = cfg.seed * 1_000_003 + index
    learner = SimLearner(plan, cfg.truth, cfg.learner, random.Random(seed))
    pass_mark = plan.passing_score
    last: int | None = None
    answered = 0
    for day in range(cfg.days):
        # "Now" is the end of today's session: that is when the day's last check happens.
        t_end = _days(_at(day, cfg.per_day - 1))
        for i in range(cfg.per_day):
            t = _days(_at(day, i))
            pick = oracle_pick(learner, t, last, objective, max(t, t_end), burst)
            learner.answer(learner.order[pick], t)
            last = pick
            answered += 1
            if (i + 1) % READY_CHECK_EVERY == 0 or i + 1 == cfg.per_day:
                done = _ready(learner, t, pass_mark, answered)
                if done is not None:
                    return done
    return None


def half_life_floor(plan: Blueprint, cfg: SimConfig, index: int, most: int = 60) -> int | None:
    """A lower bound on the answers any policy needs to make this half-life learner ready.

    Relaxations, each only in the learner's favour: every answer after a question's first
    meeting is recalled (a never-met question has recall 0, so its first answer is wrong);
    every answer is given at the moment of the check, so a week later exactly 7 days have
    passed; misconceptions are cured (no pull); only the week-ahead score must reach passing.
    Half-life memory has no spacing effect, so what a question is worth then depends only on
    how many answers it had. The fewest answers reaching the passing score is a knapsack over
    questions; its linear relaxation (each question's value curve replaced by its concave
    majorant, segments taken steepest first) is lower still, so it is a valid floor. None: not
    reachable within the run's budget."""
    seed = cfg.seed * 1_000_003 + index
    learner = SimLearner(plan, cfg.truth, cfg.learner, random.Random(seed))
    memory = learner.memory
    assert isinstance(memory, HalfLifeMemory)
    p = memory.p
    t_first = _days(_at(0, 0))
    per_point = 100 / sum(learner._weights)
    base = 0.0
    segments: list[tuple[float, int]] = []  # (score per answer, answers)
    for i, w in enumerate(learner._weights):
        chance = plan.chance[learner.order[i]]
        known = i in memory.right

        def value(
            n: int, i: int = i, w: float = w, chance: float = chance, known: bool = known
        ) -> float:
            if n == 0:
                r = memory.recall(i, t_first + STILL_READY_DAYS) if known else 0.0
            else:
                right = (memory.right[i] + n) if known else n - 1
                wrong = 0 if known else 1
                log2h = (
                    p.bias
                    + p.w_right * math.sqrt(1 + right)
                    + p.w_wrong * math.sqrt(1 + wrong)
                    + p.w_skill * learner.skill[i]
                )
                r = 2.0 ** (-STILL_READY_DAYS / 2.0**log2h)
            return per_point * w * (r + (1 - r) * chance)

        curve = [value(n) for n in range(most + 1)]
        base += curve[0]
        at = 0
        while at < most:
            # The steepest chord from here: one segment of the concave majorant.
            slope, to = max(
                ((curve[m] - curve[at]) / (m - at), m) for m in range(at + 1, most + 1)
            )
            if slope <= 0:
                break
            segments.append((slope, to - at))
            at = to
    need = plan.passing_score - base
    answers = 0.0
    for slope, length in sorted(segments, reverse=True):
        if need <= 0:
            break
        take = min(length, need / slope)
        answers += take
        need -= take * slope
    if need > 1e-9:
        return None
    # Readiness is checked every few answers, so the count is rounded up to the next check.
    checks = math.ceil(answers / READY_CHECK_EVERY - 1e-9)
    floor = max(1, checks) * READY_CHECK_EVERY
    return floor if floor <= cfg.days * cfg.per_day else None
