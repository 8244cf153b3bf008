"""/admin for the operators listed in QUIZBOT_ADMINS: subscribers and the daily push so far."""

from __future__ import annotations

import html

from telegram import Update

from bot.telegram.context import QuizContext
from bot.telegram.handlers.common import effective
from bot.telegram.outbound.send import send_html
from bot.telegram.views import texts

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
