"""The /mistakes queue: the questions whose last answer was wrong, most forgotten first."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from bot.learning.blueprint import Blueprint
from bot.learning.memory import MemoryState, recall_probability


def mistakes(
    plan: Blueprint,
    memory: Mapping[str, MemoryState],
    now: dt.datetime,
    topic: str | None = None,
) -> list[str]:
    """Questions whose last answer was wrong, most forgotten (lowest recall) first."""
    ids = [
        q
        for q, state in memory.items()
        if not state.last_correct
        and q in plan.questions
        and (topic is None or plan.topic_of(q) == topic)
    ]
    return sorted(ids, key=lambda q: (recall_probability(memory[q], now), q))


def next_mistake(
    plan: Blueprint,
    memory: Mapping[str, MemoryState],
    now: dt.datetime,
    last_question_id: str | None = None,
    topic: str | None = None,
) -> str | None:
    """The first of `mistakes`, never the question just shown while another is left."""
    queue = mistakes(plan, memory, now, topic)
    if len(queue) > 1 and queue[0] == last_question_id:
        return queue[1]
    return queue[0] if queue else None
