"""Sending and editing with the Telegram errors a bot meets every day handled on purpose."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from telegram import InlineKeyboardMarkup, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, RetryAfter
from telegram.ext import ExtBot

from bot.telegram.outbound.failures import Failure, retry_seconds, sort_error
from bot.telegram.outbound.fast_send import edit_text_raw
from bot.telegram.views.html_split import split_html

log = logging.getLogger(__name__)
T = TypeVar("T")

# A learner waiting on a reply is worth a short wait; a longer flood ban is not worth holding
# the handler for, and the error handler logs it.
MAX_INTERACTIVE_WAIT_S = 10.0


async def with_retry(call: Callable[[], Awaitable[T]]) -> T:
    """Run a Bot API call; on 429 wait the retry_after given (if short) and try once more."""
    try:
        return await call()
    except RetryAfter as err:
        wait = retry_seconds(err)
        if wait > MAX_INTERACTIVE_WAIT_S:
            raise
        log.info("flood control: waiting %.1f s before retrying", wait)
        await asyncio.sleep(wait)
        return await call()


async def send_html(
    bot: ExtBot[None],
    chat_id: int,
    text: str,
    markup: InlineKeyboardMarkup | None = None,
    *,
    reply_to: int | None = None,
) -> Message:
    """Send HTML text, split to fit; the keyboard goes under the last part. Returns the last."""
    return await send_parts(bot, chat_id, split_html(text), markup, reply_to=reply_to)


async def send_parts(
    bot: ExtBot[None],
    chat_id: int,
    parts: list[str],
    markup: InlineKeyboardMarkup | None = None,
    *,
    reply_to: int | None = None,
) -> Message:
    """Send already split HTML parts in order; the keyboard goes under the last one."""
    message: Message | None = None
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        message = await with_retry(
            lambda part=part, last=last, first=(i == 0): bot.send_message(  # type: ignore[misc]
                chat_id,
                part,
                parse_mode=ParseMode.HTML,
                reply_markup=markup if last else None,
                reply_to_message_id=reply_to if first else None,
                allow_sending_without_reply=True,
            )
        )
    assert message is not None
    return message


async def edit_or_send(
    bot: ExtBot[None],
    chat_id: int,
    message_id: int,
    text: str,
    markup: InlineKeyboardMarkup | None = None,
) -> None:
    """Edit a message in place; a message too old to edit gets a new message instead.

    Text over 4096 chars: the first part replaces the message, the rest follow as new messages.
    "Message is not modified" (a repeated edit) is not an error here.
    """
    parts = split_html(text)
    try:
        await with_retry(
            lambda: edit_text_raw(
                bot, chat_id, message_id, parts[0], markup if len(parts) == 1 else None
            )
        )
    except BadRequest as err:
        failure = sort_error(err)
        if failure is Failure.NOT_MODIFIED:
            return
        if failure is not Failure.CANNOT_EDIT:
            raise
        log.info(
            "message %s in chat %s can no longer be edited: sending anew", message_id, chat_id
        )
        await send_parts(bot, chat_id, parts, markup)
        return
    if len(parts) > 1:
        await send_parts(bot, chat_id, parts[1:], markup)


async def edit_markup(
    bot: ExtBot[None], chat_id: int, message_id: int, markup: InlineKeyboardMarkup | None
) -> None:
    """Change only the keyboard; unchanged or uneditable messages are left alone."""
    try:
        await with_retry(
            lambda: bot.edit_message_reply_markup(
                chat_id=chat_id, message_id=message_id, reply_markup=markup
            )
        )
    except BadRequest as err:
        if sort_error(err) not in (Failure.NOT_MODIFIED, Failure.CANNOT_EDIT):
            raise
