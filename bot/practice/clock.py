"""Time as a dependency: production reads the system clock, tests move a fake one by hand."""

from __future__ import annotations

import datetime as dt
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Unix time in seconds."""
        ...


class SystemClock:
    """The real clock."""

    def now(self) -> float:
        return time.time()


class FakeClock:
    """A clock that only moves when told to (tests, simulations)."""

    def __init__(self, start: float | dt.datetime = 1_800_000_000.0) -> None:
        self.t = start.timestamp() if isinstance(start, dt.datetime) else float(start)

    def now(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        """Move the clock forward."""
        self.t += seconds

    def set(self, when: dt.datetime) -> None:
        """Jump to an aware datetime."""
        self.t = when.timestamp()
