"""A candidate study queue measured on the panel and not adopted (docs/panel.md says why):
the question whose answer adds most to the exam score expected a week ahead, by an FSRS-6
model fitted to the learners' answers (`bot.learning.fit`). Kept in the simulator so that
the panel can measure it again against the bot's queue (`PANEL_CANDIDATES` in the bench)."""

from __future__ import annotations

import datetime as dt
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.learning.ability import topic_standing
from bot.learning.blueprint import Blueprint
from bot.learning.fit import MIN_BANK_REVIEWS, MIN_LEARNER_REVIEWS, Graded, fit
from bot.learning.forgetting import QueueMode
from bot.learning.memory import MemoryState, from_timestamp, micros
from bot.learning.model import AGAIN, GOOD, Model
from bot.learning.queue import (
    DEFAULT_SETTINGS,
    Learner,
    Pick,
    QueueSettings,
    Reason,
    misconception_retest,
)
from bot.learning.queue_modes import probe_to_ask, recently_answered, to_relearn

# How far ahead the rule plans: "ready" is a score that holds a week without study.
PLAN_DAYS = 7.0
FIT_EVERY = 3  # simulated days between two fits


@dataclass(frozen=True, slots=True)
class Candidate:
    """One variant of the rule: with fitted weights or FSRS's defaults; `checked`: the
    bank-wide forgetting check's probes are asked and its RELEARN mode relearns in the
    sitting, as in the bot's queue."""

    fitted: bool
    checked: bool = False


CANDIDATES = {
    "gain": Candidate(fitted=False),
    "gain-fit": Candidate(fitted=True),
    "gain-fit-checked": Candidate(fitted=True, checked=True),
}


def plan_days(learner: Learner) -> float:
    """Days ahead at which the rule maximises recall: a week, or the exam if it is sooner."""
    if learner.exam_date is None:
        return PLAN_DAYS
    left = (learner.exam_date - learner.today.date).days
    return PLAN_DAYS if left <= 0 else min(PLAN_DAYS, float(left))


def greatest_gain(
    plan: Blueprint,
    learner: Learner,
    pool: Sequence[str],
    now: dt.datetime,
    model: Model,
    rng: random.Random,
) -> str:
    """The question whose answer now adds most to the exam score expected `plan_days` ahead.

    For a met question with recall p now: after = p·R(T, S if right) + (1 − p)·R(T, S if
    wrong), and the gain is (after − R(T, S now)) × its exam share; for a new one, the same
    with the model's first stabilities and p the learner's first-attempt rate in its topic."""
    memory = learner.memory
    horizon = plan_days(learner)
    now_us = micros(now)
    standing = topic_standing(plan, memory)
    recall, after_answer = model.recall, model.next
    s_ok, _ = model.first(GOOD)
    s_bad, _ = model.first(AGAIN)
    new_after = {}
    for t in plan.by_topic:
        p = standing(t)[1]
        new_after[t] = p * recall(horizon, s_ok) + (1 - p) * recall(horizon, s_bad)
    value, topic_of = plan.value, plan.topic_by_question
    best, best_gain = pool[0], -math.inf
    for q in pool:
        state = memory.get(q)
        if state is None:
            gain = new_after[topic_of[q]]
        else:
            elapsed = (now_us - state.last_us) / 86_400e6
            s, d = state.stability, state.difficulty
            p = recall(elapsed, s)
            up, _ = after_answer(s, d, int(elapsed), GOOD)
            down, _ = after_answer(s, d, int(elapsed), AGAIN)
            gain = p * recall(horizon, up) + (1 - p) * recall(horizon, down)
            gain -= recall(elapsed + horizon, s)
        gain = gain * value[q] + 1e-12 * rng.random()  # ties drawn at random
        if gain > best_gain:
            best, best_gain = q, gain
    return best


def choose_by_gain(
    plan: Blueprint,
    learner: Learner,
    now: dt.datetime,
    rng: random.Random,
    model: Model,
    mode: QueueMode | None = None,
    settings: QueueSettings = DEFAULT_SETTINGS,
) -> Pick | None:
    """The next question: with a `mode` (the forgetting check's), its probes and relearning
    first; then a due misconception re-test; else the greatest expected gain."""
    s = settings
    pool = [q for q in plan.in_order if q != learner.last_question_id] or list(plan.in_order)
    if not pool:
        return None
    memory = learner.memory
    if mode is not None:
        if mode is QueueMode.RELEARN:
            recent = recently_answered(memory, s.relearn_spacing)
            spaced = [q for q in pool if q not in recent] or pool
            again = to_relearn(memory, spaced, now, s.relearn_criterion, s.relearn_give_up_misses)
            if again is not None:
                return Pick(again, Reason.RELEARN)
        probe = probe_to_ask(memory, pool, now, s.cover_probe_share)
        if probe is not None:
            return Pick(probe, Reason.REVIEW)
    if learner.misconceptions:
        retest = misconception_retest(plan, learner, pool, now, s, rng)
        if retest is not None:
            return Pick(retest, Reason.MISCONCEPTION)
    q = greatest_gain(plan, learner, pool, now, model, rng)
    return Pick(q, Reason.NEW if q not in memory else Reason.REVIEW)


def restate(before: MemoryState | None, state: MemoryState, model: Model) -> MemoryState:
    """`state` (FSRS's defaults', after an answer) with stability and difficulty under
    `model` instead, from `before` (the state under `model` before that answer)."""
    grade = GOOD if state.last_correct else AGAIN
    if before is None:
        s, d = model.first(grade)
    else:
        days = (state.last_review - before.last_review).days
        s, d = model.next(before.stability, before.difficulty, days, grade)
    return replace(state, stability=s, difficulty=d)


def refitted(histories: Sequence[list[Graded]]) -> list[Model | None]:
    """Each learner's model: fitted on their own answers when they have enough, else on
    everyone's pooled, else None (keep what they have)."""
    pooled = fit(histories, MIN_BANK_REVIEWS)
    found: list[Model | None] = []
    for history in histories:
        chosen = fit([history], MIN_LEARNER_REVIEWS) or pooled
        found.append(None if chosen is None else Model(chosen.weights))
    return found


def replayed(
    history: Sequence[Graded], memory: dict[str, MemoryState], model: Model
) -> dict[str, MemoryState]:
    """The learner's memory restated under `model` from their answers."""
    states: dict[str, MemoryState] = {}
    for g in history:
        prev = states.get(g.question_id)
        at = from_timestamp(g.at)
        grade = GOOD if g.correct else AGAIN
        if prev is None:
            s, d = model.first(grade)
        else:
            s, d = model.next(prev.stability, prev.difficulty, (at - prev.last_review).days, grade)
        states[g.question_id] = replace(
            memory[g.question_id],
            stability=s,
            difficulty=d,
            last_review=at,
            last_correct=g.correct,
        )
    return states
