"""The one error handler: known harmless Telegram errors are noted, the rest logged in full."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import TelegramError

from bot.storage.port import DatabaseBusy
from bot.telegram.context import QuizContext
from bot.telegram.outbound.failures import Failure, sort_error
from bot.telegram.outbound.send import Deferred
from bot.telegram.views import texts

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
    if isinstance(err, DatabaseBusy):
        await _busy(update, where, err)
        return
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


async def _busy(update: object, where: str, err: DatabaseBusy) -> None:
    """The write could not happen in time (another process holds the database's write lock):
    nothing was stored, so the learner is told to tap again rather than left with a spinner."""
    log.warning("%s: database busy, nothing stored, asked to try again: %s", where, err)
    if not isinstance(update, Update):
        return
    try:
        if update.callback_query is not None:
            await update.callback_query.answer(texts.BUSY_TAP)
        elif update.effective_message is not None:
            await update.effective_message.reply_text(texts.BUSY_MESSAGE)
    except TelegramError as answer_err:  # too late to answer, or Telegram down: logged above
        log.info("%s: could not say busy: %s", where, answer_err)
