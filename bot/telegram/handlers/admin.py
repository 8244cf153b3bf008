"""Operators' commands (user ids in QUIZBOT_ADMINS, private chat): /admin shows subscribers and
the daily push so far; /report the item analysis of the current bank."""

from __future__ import annotations

import html
import logging

from telegram import Update

from bot.practice.item_reports import bank_item_report
from bot.telegram.context import QuizContext
from bot.telegram.handlers.common import effective
from bot.telegram.outbound.documents import TooLarge, send_file
from bot.telegram.outbound.send import send_html
from bot.telegram.views import item_report_render as report_views
from bot.telegram.views import texts

log = logging.getLogger(__name__)

STATES = ("sent", "pending", "sending", "blocked", "failed", "skipped")


async def admin(update: Update, context: QuizContext) -> None:
    """Push figures for admins; a polite refusal for everyone else."""
    if (who := effective(update)) is None:
        return
    chat, user = who
    services = context.services
    if user.id not in services.settings.admins:
        await send_html(context.bot, chat.id, texts.ADMIN_ONLY)
        return
    stats = await services.push.stats()
    counts = {state: stats.last_24h.get(state, 0) for state in STATES}
    text = texts.ADMIN_REPORT.format(
        active=stats.active, inactive=stats.inactive, upcoming=stats.due_next_24h, **counts
    )
    if stats.capacity is not None and (warning := stats.capacity.warning()):
        text += texts.ADMIN_CAPACITY.format(warning=html.escape(warning))
    await send_html(context.bot, chat.id, text)


async def report(update: Update, context: QuizContext) -> None:
    """/report: the five worst-flagged questions of the admin's current bank, then the whole
    item analysis as an HTML document; a polite refusal for everyone else."""
    if (who := effective(update)) is None:
        return
    chat, user = who
    services = context.services
    if user.id not in services.settings.admins:
        log.info("/report refused for non-admin user %s", user.id)
        await send_html(context.bot, chat.id, texts.ADMIN_ONLY)
        return
    bank = services.catalog.bank((await services.practice.prefs(user.id)).bank_id)
    result = await bank_item_report(services.settings.db, bank)
    check = await services.practice.learning.memory_check(bank.id)
    await send_html(context.bot, chat.id, report_views.report_text(result, bank.meta.title, check))
    try:
        await send_file(
            context.bot,
            chat.id,
            result.html,
            result.filename,
            report_views.report_caption(bank.meta.title),
        )
    except TooLarge as err:
        log.warning("/report: %s", err)
        await send_html(context.bot, chat.id, report_views.TOO_LARGE)
