"""The memory model's fit, once a night for every loaded bank (`bot.practice.fitting`): off
the answer path, in its own job; answers go on being recorded while it runs."""

from __future__ import annotations

from typing import Any

from telegram.ext import CallbackContext, JobQueue

from bot.practice.fitting import FIT_AT
from bot.telegram.context import Services
from bot.telegram.push_jobs import JOB_KWARGS

FIT_JOB = "memory-fit"


async def fit_all(services: Services) -> None:
    """Fit every loaded bank (a failing bank logs its line and keeps its last weights)."""
    await services.fits.fit_banks(sorted(services.catalog.banks))


def schedule_fit(job_queue: JobQueue[Any], services: Services) -> None:
    """The nightly fit job, replacing any scheduled before (a reload)."""

    async def run(context: CallbackContext[Any, Any, Any, Any]) -> None:
        await fit_all(services)

    for job in job_queue.get_jobs_by_name(FIT_JOB):
        job.schedule_removal()
    job_queue.run_daily(run, FIT_AT, name=FIT_JOB, job_kwargs=JOB_KWARGS)
