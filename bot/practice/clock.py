"""Time as a dependency: production reads the system clock, tests move a fake one by hand.

Two readings: the wall clock (`now`, Unix time: what deadlines and due instants are stored in)
and a monotonic one (`monotonic`: only ever moves forward at the rate time passes). The wall
clock can step either way (an NTP correction, a VM restored from a snapshot); comparing how far
each moved between two readings tells a step from time passing (`JumpWatch`).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from typing import Protocol

log = logging.getLogger(__name__)

# Between two readings the wall clock may drift from the monotonic one by NTP's slewing (well
# under a second a day); more than this is a step.
JUMP_S = 5.0


class Clock(Protocol):
    def now(self) -> float:
        """Unix time in seconds."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never steps (only differences mean anything)."""
        ...


class SystemClock:
    """The real clock."""

    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()


class FakeClock:
    """A clock that only moves when told to (tests, simulations)."""

    def __init__(self, start: float | dt.datetime = 1_800_000_000.0) -> None:
        self.t = start.timestamp() if isinstance(start, dt.datetime) else float(start)
        self.mono = 0.0

    def now(self) -> float:
        return self.t

    def monotonic(self) -> float:
        return self.mono

    def advance(self, seconds: float) -> None:
        """Let time pass: both clocks move forward."""
        self.t += seconds
        self.mono += seconds

    def set(self, when: dt.datetime) -> None:
        """Move to an aware datetime, both clocks by the same amount (backwards too: a test
        rewinding, not a step of the wall clock)."""
        self.advance(when.timestamp() - self.t)

    def step(self, seconds: float) -> None:
        """Step the wall clock alone, either way (an NTP step, a VM restore): no time passes."""
        self.t += seconds


class JumpWatch:
    """Tells, at each `check`, how far the wall clock stepped since the previous check: the
    wall clock's movement minus the monotonic clock's, 0.0 when within `threshold_s`."""

    def __init__(self, clock: Clock, *, threshold_s: float = JUMP_S, log_as: str = "") -> None:
        self.clock = clock
        self.threshold_s = threshold_s
        self.log_as = log_as  # empty: quiet (one watcher per process says it)
        self._last = (clock.now(), clock.monotonic())

    def check(self) -> float:
        wall, mono = self.clock.now(), self.clock.monotonic()
        last_wall, last_mono = self._last
        self._last = (wall, mono)
        jump = (wall - last_wall) - (mono - last_mono)
        if abs(jump) <= self.threshold_s:
            return 0.0
        if self.log_as:
            log.warning(
                "%s: the wall clock stepped %s by %.0f s; timers run on monotonic time",
                self.log_as,
                "forward" if jump > 0 else "back",
                abs(jump),
            )
        return jump
