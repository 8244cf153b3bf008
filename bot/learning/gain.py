"""One-step lookahead: how many exam points asking a question now is expected to add."""

from __future__ import annotations

import datetime as dt
import math

from bot.learning.forgetting import Curve
from bot.learning.memory import SCHEDULER, MemoryState

DAY_SECONDS = 86_400.0
# FSRS-6 stability after one more answer, with the default parameters. These are py-fsrs
# 6.3.2's update rules (MIT) restated, because the package exposes them only through
# `review_card`, which builds objects and is too slow to call for every question on every pick.
_W = tuple(float(v) for v in SCHEDULER.parameters)
_DECAY = -_W[20]
_FACTOR = 0.9 ** (1 / _DECAY) - 1
AGAIN, GOOD = 1, 3


def _fsrs_recall(stability: float, days: float) -> float:
    return float((1 + _FACTOR * days / stability) ** _DECAY)


def next_stability(stability: float, difficulty: float, days: int, rating: int) -> float:
    """FSRS-6 stability after an answer graded `rating`, `days` whole calendar days later."""
    w = _W
    if days < 1:
        inc = math.exp(w[17] * (rating - 3 + w[18])) * stability ** -w[19]
        if rating >= GOOD:
            inc = max(inc, 1.0)
        return max(0.001, float(stability * inc))
    r = _fsrs_recall(stability, days)
    if rating == AGAIN:
        long_term = (
            w[11]
            * difficulty ** -w[12]
            * ((stability + 1) ** w[13] - 1)
            * math.exp((1 - r) * w[14])
        )
        return max(0.001, float(min(long_term, stability / math.exp(w[17] * w[18]))))
    growth = math.exp(w[8]) * (11 - difficulty) * stability ** -w[9]
    return max(0.001, float(stability * (1 + growth * (math.exp((1 - r) * w[10]) - 1))))


FIRST_STABILITY = {AGAIN: float(_W[0]), GOOD: float(_W[2])}


def _calendar_days(last: dt.datetime, now: dt.datetime) -> int:
    return (now.date() - last.date()).days


def review_gain(
    state: MemoryState, now: dt.datetime, horizon_days: float, curve: Curve, chance: float
) -> float:
    """Expected rise in P(right) at now + horizon from answering a met question now."""
    elapsed = max(0.0, (now - state.last_review).total_seconds() / DAY_SECONDS)
    recall_now = curve.recall_after_days(state.stability, elapsed)
    p = recall_now + (1 - recall_now) * chance
    days = _calendar_days(state.last_review, now)
    good = next_stability(state.stability, state.difficulty, days, GOOD)
    again = next_stability(state.stability, state.difficulty, days, AGAIN)
    without = curve.recall_after_days(state.stability, elapsed + horizon_days)
    after = p * curve.recall_after_days(good, horizon_days) + (1 - p) * curve.recall_after_days(
        again, horizon_days
    )
    return (1 - chance) * (after - without)


def new_gain(rate: float, horizon_days: float, curve: Curve, chance: float) -> float:
    """Expected rise in P(right) at now + horizon from meeting a question now (rate: first try)."""
    recall = rate * curve.recall_after_days(FIRST_STABILITY[GOOD], horizon_days) + (
        1 - rate
    ) * curve.recall_after_days(FIRST_STABILITY[AGAIN], horizon_days)
    return recall + (1 - recall) * chance - rate
