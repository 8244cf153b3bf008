"""Policies the simulation compares: the engine's study queue and three baselines."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.learning.blueprint import Blueprint
from bot.learning.forgetting import QueueMode
from bot.learning.memory import DEFAULT_WEIGHTS, Answer, MemoryState, Weights
from bot.learning.misconceptions import MisconceptionState
from bot.learning.queue import Learner, Today, choose_next

LEITNER_DAYS = (1, 2, 4, 8, 16)  # box intervals; a right answer moves up a box, a wrong one to 1


@dataclass
class PolicyView:
    """What a policy may look at: the learner's recorded answers as the bot stores them."""

    memory: dict[str, MemoryState] = field(default_factory=dict)
    misconceptions: dict[str, MisconceptionState] = field(default_factory=dict)
    boxes: dict[str, int] = field(default_factory=dict)  # Leitner box per question, 0-based
    last_question_id: str | None = None
    exam_date: dt.date | None = None
    today: Today | None = None
    mode: QueueMode = QueueMode.STANDARD  # set by the weights, as of this morning
    history: list[Answer] = field(default_factory=list)  # every answer, as the bot stores them
    # The memory model `memory` is scheduled under: the engine's are fitted every morning, the
    # baselines stay on FSRS-6's defaults (plain FSRS is the published scheduler as it ships).
    weights: Weights = DEFAULT_WEIGHTS


Policy = Callable[[Blueprint, PolicyView, dt.datetime, random.Random], str]


def _not_last(plan: Blueprint, view: PolicyView) -> list[str]:
    ids = [q for q in plan.questions if q != view.last_question_id]
    return ids or list(plan.questions)


def random_policy(plan: Blueprint, view: PolicyView, now: dt.datetime, rng: random.Random) -> str:
    """Any question but the last one, uniformly at random."""
    return rng.choice(_not_last(plan, view))


def fsrs_policy(plan: Blueprint, view: PolicyView, now: dt.datetime, rng: random.Random) -> str:
    """Plain FSRS at 90% retention: the most overdue due question, else a random new one."""
    ids = _not_last(plan, view)
    due = [q for q in ids if q in view.memory and view.memory[q].due <= now]
    if due:
        return min(due, key=lambda q: (view.memory[q].due, q))
    new = [q for q in ids if q not in view.memory]
    if new:
        return rng.choice(new)
    return min(ids, key=lambda q: (view.memory[q].due, q))


def leitner_policy(plan: Blueprint, view: PolicyView, now: dt.datetime, rng: random.Random) -> str:
    """Leitner boxes (1, 2, 4, 8, 16 days): the most overdue due card, else a random new one."""
    ids = _not_last(plan, view)

    def due_at(q: str) -> dt.datetime:
        interval = LEITNER_DAYS[view.boxes[q]]
        return view.memory[q].last_review + dt.timedelta(days=interval)

    met = [q for q in ids if q in view.memory]
    due = [q for q in met if due_at(q) <= now]
    if due:
        return min(due, key=lambda q: (due_at(q), q))
    new = [q for q in ids if q not in view.memory]
    if new:
        return rng.choice(new)
    return min(met, key=lambda q: (due_at(q), q))


def _learner(view: PolicyView, memory: dict[str, MemoryState]) -> Learner:
    """The queue's view of the simulated learner, on `memory` (as stored, or restated under
    the model the learner is on)."""
    assert view.today is not None
    return Learner(
        memory=memory,
        today=view.today,
        exam_date=view.exam_date,
        misconceptions=view.misconceptions,
        last_question_id=view.last_question_id,
    )


def engine_policy(plan: Blueprint, view: PolicyView, now: dt.datetime, rng: random.Random) -> str:
    """The bot's study queue (`bot.learning.queue.choose_next`)."""
    pick = choose_next(plan, _learner(view, view.memory), now, rng, mode=view.mode)
    assert pick is not None
    return pick.question_id


POLICIES: dict[str, Policy] = {
    "engine": engine_policy,
    "random": random_policy,
    "leitner": leitner_policy,
    "fsrs": fsrs_policy,
}
