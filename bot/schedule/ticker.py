"""Repeating jobs on monotonic time: the push tick, the heartbeat, the mock-deadline sweep.

APScheduler (PTB's JobQueue) keeps a repeating job's next run as a wall-clock instant: after
the wall clock steps back an hour, the job sleeps that hour, and a push due meanwhile waits
with it. Here each job's next run is a monotonic reading, so a step changes nothing about
when jobs run; what is due is still read against the wall clock by the job itself. A step
either way (logged once, by the watch) runs every job at once, so due rows are re-read now.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.practice.clock import Clock, JumpWatch

log = logging.getLogger(__name__)

RESOLUTION_S = 1.0  # how often the loop looks at its jobs (and the clocks)


@dataclass(slots=True)
class _Job:
    name: str
    every_s: float
    run: Callable[[], Awaitable[object]]
    next_at: float  # monotonic


class Ticker:
    """Jobs run every so many seconds of monotonic time; `tick` is one look (tests call it).
    `clock` tells steps of the wall clock; `monotonic` paces the jobs (a fake clock's in unit
    tests; the real one by default, so a bot on a fake clock runs its jobs as it always did,
    and at once when its fake wall clock steps)."""

    def __init__(
        self,
        clock: Clock,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        resolution_s: float = RESOLUTION_S,
    ) -> None:
        self.clock = clock
        self.monotonic = monotonic
        self.resolution_s = resolution_s
        self.watch = JumpWatch(clock, log_as="timers")
        self.jobs: list[_Job] = []
        self._task: asyncio.Task[None] | None = None

    def every(
        self,
        name: str,
        seconds: float,
        run: Callable[[], Awaitable[object]],
        *,
        first: float | None = None,
    ) -> None:
        """Run `run` every `seconds`, the first time after `first` (default: `seconds`)."""
        start = self.monotonic() + (seconds if first is None else first)
        self.jobs = [j for j in self.jobs if j.name != name]
        self.jobs.append(_Job(name, seconds, run, start))

    async def tick(self) -> float:
        """Run the jobs whose time came (all of them after a step); returns the step, if any."""
        jump = self.watch.check()
        mono = self.monotonic()
        for job in list(self.jobs):
            if jump or mono >= job.next_at:
                job.next_at = mono + job.every_s
                try:
                    await job.run()
                except Exception:  # one job's failure must not stop the others, or later ticks
                    log.exception("timer %s failed", job.name)
        return jump

    async def _run(self) -> None:
        while True:
            await self.tick()
            await asyncio.sleep(self.resolution_s)  # the event loop's clock is monotonic

    def start(self) -> asyncio.Task[None]:
        """Start the loop (once); the caller cancels the task at shutdown."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="timers")
        return self._task
