"""Random walks of one learner's memory states, and picks made with and without a memo, for
tests that compare what a memo keeps with a fresh computation after every change."""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from collections.abc import Iterator, Sequence

from bot.learning.blueprint import Blueprint
from bot.learning.forgetting import QueueMode
from bot.learning.memory import Answer, MemoryState, review
from bot.learning.pick_memo import PickMemo
from bot.learning.queue import Learner, Pick, choose_next


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


def pick_twice(
    plan: Blueprint,
    learner: Learner,
    memo: PickMemo,
    now: dt.datetime,
    rng: random.Random,
    mode: QueueMode,
    differ: list[tuple[Pick | None, Pick | None]],
) -> Pick | None:
    """The pick with `memo`, made from the random state the pick without it started from; the
    two (and the random state each left) compared, a difference added to `differ`."""
    state = rng.getstate()
    plain = choose_next(plan, learner, now, rng, mode=mode)
    after = rng.random()
    rng.setstate(state)
    kept = choose_next(plan, dataclasses.replace(learner, memo=memo), now, rng, mode=mode)
    if (plain, after) != (kept, rng.random()):
        differ.append((plain, kept))
    return kept
