"""What the study queue does differently when first memories outlast a week under the fitted
memory model (`bot.learning.forgetting`): cover the bank first."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Collection, Iterable, Mapping, Sequence

from bot.learning.blueprint import Blueprint
from bot.learning.memory import MemoryState, micros


def most_valuable(
    plan: Blueprint, unmet: Mapping[str, Sequence[str]], last: str | None, rng: random.Random
) -> str:
    """The unmet question carrying the largest share of the exam score, from another topic
    than the last question's while one is on offer (ties drawn at random)."""
    last_topic = plan.topic_of(last) if last else None
    topics = [t for t in unmet if t != last_topic] or list(unmet)
    return max((q for t in topics for q in unmet[t]), key=lambda q: (plan.value[q], rng.random()))


def most_at_risk(
    plan: Blueprint, pool: Collection[str], recall: Mapping[str, float], rng: random.Random
) -> str:
    """The met question whose forgetting costs the most exam score (value × (1 − recall))."""
    return max(pool, key=lambda q: (plan.value[q] * (1 - recall[q]), rng.random()))


def longest_unseen(
    memory: Mapping[str, MemoryState], pool: Iterable[str], before: dt.datetime
) -> str | None:
    """The met question of `pool` answered longest ago, if that was before `before`."""
    limit = micros(before)
    waiting = [(st.last_us, q) for q in pool if (st := memory.get(q)) is not None]
    oldest = min(waiting, default=None)
    return oldest[1] if oldest is not None and oldest[0] <= limit else None
