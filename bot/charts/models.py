"""The plain data charts are drawn from."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TopicBar:
    """One topic's bar: a score in percent (None: not enough evidence yet) and its weight."""

    name: str
    score: float | None
    weight: float


@dataclass(frozen=True, slots=True)
class DayActivity:
    """Answers given on one (local) day and how many were right."""

    day: dt.date
    answered: int
    correct: int
