"""Once a day the admins get one message listing the learners' reports filed since the last
one (never one message per report). Which reports were listed is kept in the database, so a
day the bot was down is caught up by the next digest."""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from telegram.error import TelegramError
from telegram.ext import CallbackContext, ExtBot, JobQueue

from bot.telegram.context import Services
from bot.telegram.outbound.send import send_html
from bot.telegram.push_jobs import JOB_KWARGS
from bot.telegram.views.item_report_render import digest_text

log = logging.getLogger(__name__)

DIGEST_JOB = "report-digest"
DIGEST_AT = dt.time(8, 0, tzinfo=dt.UTC)  # mornings in Europe, evening in the Americas


async def send_digest(bot: ExtBot[None], services: Services) -> int:
    """Send the new reports to every admin in one message; how many were listed."""
    admins = sorted(services.settings.admins)
    reports = await services.reports.undigested() if admins else []
    if not reports:
        return 0
    text = digest_text(reports, {b.id: b.meta.title for b in services.catalog.banks.values()})
    delivered = False
    for admin in admins:
        try:
            await send_html(bot, admin, text)
            delivered = True
        except TelegramError as err:
            log.warning("report digest not sent to admin %s: %s", admin, err)
    if delivered:  # else the next digest tries them again
        await services.reports.digested(reports)
    return len(reports)


def schedule_digest(job_queue: JobQueue[Any], services: Services) -> None:
    """The daily digest job, replacing any scheduled before (a reload)."""

    async def run(context: CallbackContext[Any, Any, Any, Any]) -> None:
        await send_digest(context.bot, services)

    for job in job_queue.get_jobs_by_name(DIGEST_JOB):
        job.schedule_removal()
    job_queue.run_daily(run, DIGEST_AT, name=DIGEST_JOB, job_kwargs=JOB_KWARGS)
