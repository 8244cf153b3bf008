"""The one error handler: known harmless Telegram errors are noted, the rest logged in full."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import TelegramError

from bot.telegram.context import QuizContext
from bot.telegram.outbound.failures import Failure, sort_error
from bot.telegram.outbound.send import Deferred

log = logging.getLogger(__name__)


def describe(update: object) -> str:
    """A short, token-free description of an update for the log."""
    if isinstance(update, Update):
        chat = update.effective_chat.id if update.effective_chat else "-"
        user = update.effective_user.id if update.effective_user else "-"
        return f"update {update.update_id} (chat {chat}, user {user})"
    return repr(update)[:200]


async def on_error(update: object, context: QuizContext) -> None:
    """Log what went wrong; never let a handler error take the bot down."""
    err = context.error
    where = describe(update)
    if isinstance(err, Deferred):
        # Flood control on a reply: it is retried in the background, or dropped (logged there).
        log.info("%s: %s", where, err)
        return
    failure = sort_error(err) if isinstance(err, TelegramError) else None
    if failure is Failure.NOT_MODIFIED:
        return
    if failure is Failure.FORBIDDEN:
        # The user blocked the bot or the bot left the chat: nothing to retry.
        log.info("%s: forbidden: %s", where, err)
        return
    if failure is Failure.FLOOD:
        log.warning("%s: flood control: %s", where, err)
        return
    if failure is Failure.TIMED_OUT:
        log.warning("%s: Telegram timed out: %s", where, err)
        return
    if failure is Failure.NETWORK:
        log.warning("%s: network error: %s", where, err)
        return
    log.error("%s: unhandled error", where, exc_info=err)
    services = context.bot_data.services
    if services is not None:
        await services.alerts.report(f"{where}: {type(err).__name__}: {err}")
