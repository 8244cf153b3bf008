"""Random walks of one learner's memory states, for tests that compare what a memo keeps with
a fresh computation after every change."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator, Sequence

from bot.learning.memory import Answer, MemoryState, review


def memory_walk(
    ids: Sequence[str], draws: random.Random, steps: int, start: dt.datetime, drop_every: int = 0
) -> Iterator[tuple[dict[str, MemoryState], dt.datetime]]:
    """After each step (an answer to a random question, right half the time, after 0, 3 or 30
    hours; every `drop_every`th step a state dropped instead, as when a question is
    withdrawn): the memory, in question id order, and the time."""
    memory: dict[str, MemoryState] = {}
    now = start
    for step in range(steps):
        qid = draws.choice(ids)
        if drop_every and step % drop_every == drop_every - 1 and memory:
            memory.pop(draws.choice(list(memory)))
        else:
            now += dt.timedelta(hours=draws.choice([0, 0, 0, 3, 30]))
            memory[qid] = review(memory.get(qid), Answer(qid, now, draws.random() < 0.5))
        memory = dict(sorted(memory.items()))
        yield memory, now
