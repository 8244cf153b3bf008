"""Operator handlers: `/reload` for admins, and the update tracker that feeds `quizbot health`."""

from __future__ import annotations

import logging

from telegram import Update

from bot.plural import plural
from bot.telegram.context import QuizContext
from bot.telegram.outbound.send import send_html
from bot.telegram.reload import SHOWN_PROBLEMS, reload_services
from bot.telegram.status import track_update
from bot.telegram.views.render import clip, esc

__all__ = ["reload_command", "track_update"]

log = logging.getLogger(__name__)

# Operator-facing texts live here, next to the one command that sends them.
NOT_ADMIN = "Sorry, only the bot's operators can reload the question banks."
RELOADED = (
    "✅ <b>Question banks reloaded</b>\n{banks}\n"
    "{added} added, {removed} removed, {changed} changed.{topics}"
)
TOPICS_NOTE = "\nAnswers given before a question moved keep the topic they were given in."
REFUSED = (
    "⚠️ <b>Reload refused</b>: {problems_found} found, the banks in use stay as they were.\n"
    "<pre>{problems}</pre>{more}"
)


async def reload_command(update: Update, context: QuizContext) -> None:
    """/reload: validate the banks on disk and swap them in (admins only)."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    services = context.services
    if user.id not in services.settings.admins:
        log.info("/reload refused for non-admin user %s", user.id)
        await send_html(context.bot, chat.id, NOT_ADMIN)
        return
    log.info("/reload by admin %s", user.id)
    outcome = await reload_services(services)
    if outcome.ok:
        banks = "\n".join(f"• {esc(b)}: {plural(n, 'question')}" for b, n in outcome.banks.items())
        lines = outcome.topic_lines()
        topics = "".join(f"\n• {esc(line)}" for line in lines)
        if any(t.moved for t in outcome.topics):
            topics += TOPICS_NOTE
        text = RELOADED.format(
            banks=banks,
            added=plural(outcome.added, "question"),
            removed=outcome.removed,
            changed=outcome.changed,
            topics=topics,
        )
    else:
        shown = outcome.problems[:SHOWN_PROBLEMS]
        extra = len(outcome.problems) - len(shown)
        text = REFUSED.format(
            problems_found=plural(len(outcome.problems), "problem"),
            problems=esc(clip("\n".join(shown), 3000)),
            more=f"\n…and {extra} more (run <code>quizbot validate</code>)" if extra else "",
        )
    await send_html(context.bot, chat.id, text)
