"""The one error handler: known harmless Telegram errors are noted, the rest logged in full."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut

from bot.telegram.context import QuizContext
from bot.telegram.sending import not_modified

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
    if isinstance(err, BadRequest) and not_modified(err):
        return
    if isinstance(err, Forbidden):
        # The user blocked the bot or the bot left the chat: nothing to retry.
        log.info("%s: forbidden: %s", where, err)
        return
    if isinstance(err, RetryAfter):
        log.warning("%s: flood control, retry after %s", where, err.retry_after)
        return
    if isinstance(err, TimedOut):
        log.warning("%s: Telegram timed out: %s", where, err)
        return
    if isinstance(err, NetworkError) and not isinstance(err, BadRequest):
        log.warning("%s: network error: %s", where, err)
        return
    log.error("%s: unhandled error", where, exc_info=err)
    notify = context.bot_data.services
    if notify is not None and notify.alerts is not None:
        await notify.alerts.report(f"{where}: {type(err).__name__}: {err}")
