"""Waking the push: a repeating tick on monotonic time plus a one-off wake at the next due instant.

Jobs only wake the push runner; what is due is read from SQLite each time. misfire_grace_time
is None (always run, however late): APScheduler's default of 1 s drops a job when the loop
stalls across its fire time (a busy loop, a GC pause), and a late tick is still a useful tick.
"""

from __future__ import annotations

from typing import Any

from telegram.ext import CallbackContext, JobQueue

from bot.practice.clock import Clock
from bot.schedule import retention
from bot.schedule.push import PushService
from bot.schedule.ticker import Ticker
from bot.storage.port import Store

TICK_S = 30.0
TICK_JOB = "daily-push-tick"
WAKE_JOB = "daily-push-wake"
RETENTION_JOB = "retention"
RETENTION_FIRST_S = 600.0  # not in the rush of a start-up
JOB_KWARGS: dict[str, Any] = {"misfire_grace_time": None, "coalesce": True, "max_instances": 1}


def schedule(job_queue: JobQueue[Any], ticker: Ticker, push: PushService) -> None:
    """Run at once (catch up after downtime), tick every TICK_S, and wake when due. The tick
    runs on the ticker (monotonic time): after the wall clock steps back, it still comes every
    TICK_S and re-reads what is due, where a JobQueue wake aimed at a wall instant would wait
    out the step."""

    async def wake(_: CallbackContext[Any, Any, Any, Any]) -> None:
        push.wake()

    async def tick() -> None:
        push.wake()

    def next_due(instant: float | None) -> None:
        for job in job_queue.get_jobs_by_name(WAKE_JOB):
            job.schedule_removal()
        if instant is None:
            return
        # Only the precise wake-up: the tick covers anything further than one tick away too.
        delay = max(0.0, instant - push.clock.now()) + 0.05
        job_queue.run_once(wake, when=delay, name=WAKE_JOB, job_kwargs=JOB_KWARGS)

    ticker.every(TICK_JOB, TICK_S, tick)
    # The catch-up run at start is a one-off: an interval trigger whose start passed while the
    # scheduler was not yet running skips ahead to the next interval instead of firing.
    job_queue.run_once(wake, when=0.0, name=WAKE_JOB, job_kwargs=JOB_KWARGS)
    push.on_idle = next_due


def schedule_retention(
    job_queue: JobQueue[Any], db: Store, clock: Clock, answer_days: int | None
) -> None:
    """Prune old rows once a day (bot/schedule/retention.py), first 10 minutes after start."""

    async def run(_: CallbackContext[Any, Any, Any, Any]) -> None:
        await retention.prune(db, clock, answer_days)

    for job in job_queue.get_jobs_by_name(RETENTION_JOB):
        job.schedule_removal()
    job_queue.run_repeating(
        run,
        interval=retention.DAY_S,
        first=RETENTION_FIRST_S,
        name=RETENTION_JOB,
        job_kwargs=JOB_KWARGS,
    )
