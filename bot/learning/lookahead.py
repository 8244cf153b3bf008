"""Experiment: pick the question whose answer raises the predicted exam score a week ahead most.

The same greedy as the bench's oracle, on what the engine may see: FSRS states and the
learner's answers. Recall a week ahead is a per-learner blend of FSRS-6's heavy-tailed curve
(bent by the learner's forgetting exponent) and a thin-tailed exponential curve through the
same stability, weighted by which of the two has predicted this learner's review answers
better (online log-likelihood, equal prior odds).
"""

from __future__ import annotations

import datetime as dt
import math
import random
from collections.abc import Mapping, Sequence

from bot.learning.ability import topic_abilities
from bot.learning.blueprint import Blueprint
from bot.learning.memory import Answer, MemoryState, recall_probability, review

AHEAD = dt.timedelta(days=7)


def exponential_weight(memory: Mapping[str, MemoryState]) -> float:
    """Posterior weight of the exponential curve against FSRS's, from the reviews' likelihoods."""
    diff = sum(s.ll_power - s.ll_exp for s in memory.values())
    diff = max(-50.0, min(50.0, diff))
    return 1.0 / (1.0 + math.exp(diff))


def _recall(state: MemoryState, at: dt.datetime, g: float, lam: float) -> float:
    days = max(0.0, (at - state.last_review).total_seconds() / 86_400)
    power = recall_probability(state, at) ** g
    return float((1 - lam) * power + lam * 0.9 ** (days / state.stability))


def choose_by_gain(
    plan: Blueprint,
    memory: Mapping[str, MemoryState],
    unmet_in: Mapping[str, Sequence[str]],
    pool: Sequence[str],
    now: dt.datetime,
    end_of_day: dt.datetime,
    g: float,
    rng: random.Random,
) -> tuple[str, bool]:
    """The candidate with the largest expected gain of the week-ahead score; True if new."""
    lam = exponential_weight(memory)
    week = max(now, end_of_day) + AHEAD
    best, best_gain, best_new = "", -math.inf, False
    for q in pool:
        state = memory.get(q)
        if state is None:
            continue
        chance = plan.chance[q]
        r_now = _recall(state, now, g, lam)
        p_right = r_now + (1 - r_now) * chance
        before = _recall(state, week, g, lam)
        ok = review(state, Answer(q, now, True))
        bad = review(state, Answer(q, now, False))
        after = p_right * _recall(ok, week, g, lam) + (1 - p_right) * _recall(bad, week, g, lam)
        gain = plan.value[q] * (1 - chance) * (after - before) + 1e-12 * rng.random()
        if gain > best_gain:
            best, best_gain, best_new = q, gain, False
    abilities = topic_abilities(plan, memory)
    for topic, ids in unmet_in.items():
        q = rng.choice(list(ids))
        chance = plan.chance[q]
        a = abilities.get(topic)
        rate = a.rate if a else 0.5  # P(right) on a first attempt, guesses included
        ok = review(None, Answer(q, now, True))
        bad = review(None, Answer(q, now, False))
        recall = rate * _recall(ok, week, g, lam) + (1 - rate) * _recall(bad, week, g, lam)
        after = recall + (1 - recall) * chance
        gain = plan.value[q] * (after - rate) + 1e-12 * rng.random()
        if gain > best_gain:
            best, best_gain, best_new = q, gain, True
    return best, best_new
