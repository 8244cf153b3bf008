"""The one error handler: known harmless Telegram errors are noted, the rest logged in full."""

from __future__ import annotations

import logging
import time
from typing import Any

from telegram import Update
from telegram.error import TelegramError

from bot.storage.port import DatabaseBusy, StorageError
from bot.telegram.context import QuizApp, QuizContext
from bot.telegram.outbound.failures import Failure, sort_error
from bot.telegram.outbound.refusals import RefusalGate
from bot.telegram.outbound.send import Deferred
from bot.telegram.views import texts
from bot.telegram.webhook_guard import RateLimitedLog

log = logging.getLogger(__name__)
FAULT_LOG_S = 60.0  # one log line per kind of storage fault and minute


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
    if isinstance(err, StorageError):
        await _cannot_save(update, where, err, context)
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


async def _cannot_save(
    update: object, where: str, err: StorageError, context: QuizContext
) -> None:
    """A storage fault (a full disk, a read-only or replaced file): nothing was saved. The user
    hears so (a tap's spinner always stops; a message gets the sentence once a minute per
    user), and the log gets one line per kind of fault and minute, with the count."""
    ops = context.bot_data.ops
    services = context.bot_data.services
    kind = (services.db.fault if services else None) or type(err).__name__
    lines = ops.storage_faults.get(kind)
    if lines is None:
        lines = ops.storage_faults[kind] = RateLimitedLog(log, FAULT_LOG_S, logging.ERROR)
    lines.log("%s: storage fault (%s), nothing saved: %s", where, kind, err)
    if not isinstance(update, Update):
        return
    now = services.clock.now() if services else time.time()
    await _say_cannot_save(update, ops.told_cannot_save, now, where)


async def _say_cannot_save(update: Update, gate: RefusalGate, now: float, where: str) -> None:
    """A tap's spinner stops with the sentence; a message gets it once a minute per user."""
    chat = update.effective_chat.id if update.effective_chat else 0
    user = update.effective_user.id if update.effective_user else 0
    try:
        if update.callback_query is not None:
            await update.callback_query.answer(texts.CANNOT_SAVE)
        elif update.effective_message is not None and gate.allow(chat, user, now):
            await update.effective_message.reply_text(texts.CANNOT_SAVE)
    except TelegramError as answer_err:  # Telegram down too, or the tap answered before
        log.info("%s: could not say nothing was saved: %s", where, answer_err)


async def tell_unsaved(app: QuizApp, payloads: list[dict[str, Any]]) -> None:
    """Updates the inbox could not store (a full disk): no handler runs for them, and they
    are not acknowledged, so Telegram sends them again and they are handled once the database
    is back. Meanwhile their senders hear that nothing was saved, as a handler's would."""
    services = app.bot_data.services
    now = services.clock.now() if services else time.time()
    for payload in payloads:
        try:
            update = Update.de_json(payload, app.bot)
        except Exception:  # stored or not, a payload PTB cannot read gets no answer
            continue
        await _say_cannot_save(update, app.bot_data.ops.told_cannot_save, now, "inbox")
