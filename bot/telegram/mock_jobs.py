"""Mock-exam deadlines: submit exams whose time ran out and tell their learners.

The deadline lives in the database. At start-up every exam whose deadline passed while the bot was
down is submitted; then one JobQueue job waits for the next deadline (re-armed after each run
and after each new exam), and a slow tick (on monotonic time, bot/schedule/ticker.py) covers
anything a lost job would miss, and the exams of other processes on the same database. Of
several processes, one submits each exam: the submit is a write that finds the exam still
running, and writers take turns.
"""

from __future__ import annotations

import logging
from typing import Any

from telegram.ext import CallbackContext, ExtBot, JobQueue

from bot.schedule.ticker import Ticker
from bot.telegram.context import Services
from bot.telegram.outbound.mock_results import send_expired

log = logging.getLogger(__name__)

DEADLINE_JOB = "mock-deadline"
TICK_JOB = "mock-deadline-tick"
# Also how soon an exam started by another process (known only from the database) is
# submitted here when that process died before its deadline.
TICK_S = 15.0
# Always run a late job (APScheduler's default drops one that misses its time by a second).
JOB_KWARGS: dict[str, Any] = {"misfire_grace_time": None, "coalesce": True, "max_instances": 1}


async def expire_due(bot: ExtBot[None], services: Services) -> int:
    """Submit every running exam past its deadline and send each result; how many."""
    replies = await services.mock.expire_due()
    for reply in replies:
        if reply.exam is not None and reply.result is not None:
            await send_expired(bot, services, reply.exam, reply.result)
    return len(replies)


async def arm(job_queue: JobQueue[Any] | None, services: Services) -> None:
    """(Re)schedule the one deadline job at the next running exam's deadline."""
    if job_queue is None:
        return
    for job in job_queue.get_jobs_by_name(DEADLINE_JOB):
        job.schedule_removal()
    deadline = await services.mock.next_deadline()
    if deadline is None:
        return
    delay = max(0.0, deadline - services.clock.now()) + 0.05

    async def fire(context: CallbackContext[Any, Any, Any, Any]) -> None:
        await expire_due(context.bot, services)
        await arm(job_queue, services)

    job_queue.run_once(fire, when=delay, name=DEADLINE_JOB, job_kwargs=JOB_KWARGS)


async def on_startup(
    bot: ExtBot[None],
    job_queue: JobQueue[Any] | None,
    services: Services,
    ticker: Ticker | None = None,
) -> None:
    """Submit exams that ran out while the bot was down, then wait for the next deadline."""
    expired = await expire_due(bot, services)
    if expired:
        log.info("submitted %d mock exam(s) whose deadline passed while the bot was down", expired)
    if job_queue is None:
        return

    async def tick() -> None:
        await expire_due(bot, services)
        await arm(job_queue, services)  # re-aimed: a wall-clock step moved the deadlines

    if ticker is not None:
        ticker.every(TICK_JOB, TICK_S, tick)
    await arm(job_queue, services)
