"""The gate every update passes before its handler: flood control.

It stops an update with ApplicationHandlerStop, so no handler does any work for it. (Who may
press which button is checked by the button's own route: handlers/buttons.py.)
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import ApplicationHandlerStop

from bot.telegram.context import QuizContext
from bot.telegram.handlers.chat_admins import reply
from bot.telegram.outbound.flood import Verdict
from bot.telegram.outbound.send import Deferred
from bot.telegram.views import texts

log = logging.getLogger(__name__)


def _sender(update: Update) -> int | None:
    """Whose bucket an update takes from: its user, else (a channel post) its chat."""
    if update.callback_query is not None:
        return update.callback_query.from_user.id
    if update.effective_message is None:
        return None  # membership changes, poll answers: Telegram's, not a sender's, pace
    if update.effective_user is not None:
        return update.effective_user.id
    return update.effective_chat.id if update.effective_chat is not None else None


async def flood_gate(update: Update, context: QuizContext) -> None:
    """Drop updates from a sender over the flood limit; tell them once to slow down."""
    key = _sender(update)
    if key is None:
        return
    services = context.services
    inbox = services.inbox
    if inbox is not None and update.update_id in inbox.replayed:
        # Taken over from a process that died: its gate counted the update when it came.
        inbox.replayed.discard(update.update_id)
        return
    verdict = services.flood.check(key, services.clock.now())
    if verdict is Verdict.PASS:
        return
    if verdict is Verdict.WARN:
        log.info("flood control: updates from %s dropped until they slow down", key)
        try:
            await _slow_down(update, context)
        except (Deferred, TelegramError) as err:
            # The notice met flood control too (it may follow in the background): the update
            # is dropped all the same, so an error here must not let it through to a handler.
            log.info("flood control: notice to %s not sent now: %s", key, err)
    raise ApplicationHandlerStop


async def _slow_down(update: Update, context: QuizContext) -> None:
    query, chat = update.callback_query, update.effective_chat
    if query is not None:
        await query.answer(texts.SLOW_DOWN_CB)
    elif chat is not None:
        await reply(update, context, texts.SLOW_DOWN)
