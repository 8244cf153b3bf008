"""Sending and editing with the Telegram errors a bot meets every day handled on purpose."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from telegram import ForceReply, InlineKeyboardMarkup, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, RetryAfter, TelegramError
from telegram.ext import ExtBot

from bot.bank.limits import TELEGRAM_MESSAGE_CHARS
from bot.telegram.outbound.failures import Failure, retry_seconds, sort_error
from bot.telegram.outbound.json_api import edit_message_json, edit_text_raw, send_message_json
from bot.telegram.views.html_split import split_html

log = logging.getLogger(__name__)
T = TypeVar("T")

# A reply that met flood control (429) is sent again after Telegram's retry_after by a
# background task, never by sleeping in the handler: a handler holds one of the application's
# update slots, and one chat's ban would otherwise stall every other chat's updates. A longer
# ban makes the reply stale (the learner has moved on): it is dropped with a log line.
MAX_INTERACTIVE_WAIT_S = 10.0
MAX_TRIES = 3  # the first try and two background retries
MAX_PENDING_PER_CHAT = 4  # queued retries per chat; more are dropped (a flood's replies)

Then = Callable[[Any], Awaitable[object]]
_pending: dict[int, set[asyncio.Task[None]]] = {}
_sleep = asyncio.sleep  # tests replace it to run a retry at once


class Deferred(Exception):
    """A call met flood control: it is retried in the background, or was dropped as stale."""


async def with_retry(
    call: Callable[[], Awaitable[T]], *, chat_id: int = 0, then: Then | None = None
) -> T:
    """Run a Bot API call; on 429 retry it in the background after retry_after and raise
    Deferred. `then` gets the result of a background retry (the caller handles its own).

    A wait too long to be worth it (or too many retries queued for the chat) re-raises the
    RetryAfter: the caller decides (a reveal is retried by the next sweep; a reply is dropped
    and the error handler logs it).
    """
    try:
        return await call()
    except RetryAfter as err:
        if not _retry_later(call, retry_seconds(err), chat_id, then, tries=1):
            raise
        raise Deferred(f"chat {chat_id}: flood control for {retry_seconds(err):g} s") from err


def _retry_later(
    call: Callable[[], Awaitable[Any]], wait: float, chat_id: int, then: Then | None, tries: int
) -> bool:
    """Schedule a retry in `wait` seconds; False (and a log line) when it would be stale."""
    pending = _pending.setdefault(chat_id, set())
    if wait > MAX_INTERACTIVE_WAIT_S or tries >= MAX_TRIES or len(pending) >= MAX_PENDING_PER_CHAT:
        log.warning(
            "flood control in chat %s (retry after %g s, try %d, %d queued): reply dropped",
            chat_id, wait, tries, len(pending),
        )  # fmt: skip
        if not pending:
            del _pending[chat_id]
        return False
    task = asyncio.create_task(_later(call, wait, chat_id, then, tries))
    pending.add(task)

    def done(t: asyncio.Task[None]) -> None:
        pending.discard(t)
        if not pending and _pending.get(chat_id) is pending:
            del _pending[chat_id]

    task.add_done_callback(done)
    return True


async def _later(
    call: Callable[[], Awaitable[Any]], wait: float, chat_id: int, then: Then | None, tries: int
) -> None:
    await _sleep(wait)
    try:
        result = await call()
    except RetryAfter as err:
        _retry_later(call, retry_seconds(err), chat_id, then, tries + 1)
        return
    except TelegramError as err:
        log.info("chat %s: delayed reply failed: %s", chat_id, err)
        return
    if then is not None:
        try:
            await then(result)
        except Exception:
            log.exception("chat %s: after a delayed reply", chat_id)


def pending_retries() -> int:
    """Replies waiting in the background for their retry."""
    return sum(len(tasks) for tasks in _pending.values())


async def cancel_retries() -> None:
    """At shutdown: drop the replies still waiting (each would be stale after a restart)."""
    tasks = [t for tasks in _pending.values() for t in tasks]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def into_topic(
    chat_id: int, thread: int | None, send: Callable[[int | None], Awaitable[T]]
) -> T:
    """`send(thread)`; when Telegram refuses that forum topic (deleted, or closed to the bot),
    `send(None)`: into the group's General topic rather than nowhere."""
    try:
        return await send(thread)
    except BadRequest as err:
        if thread is None or sort_error(err) is not Failure.TOPIC_GONE:
            raise
        log.info("chat %s: topic %s refused (%s): sent to General", chat_id, thread, err)
        return await send(None)


async def send_html(
    bot: ExtBot[None],
    chat_id: int,
    text: str,
    markup: InlineKeyboardMarkup | ForceReply | None = None,
    *,
    reply_to: int | None = None,
    then: Then | None = None,
    thread: int | None = None,
) -> Message:
    """Send HTML text, split to fit; the keyboard goes under the last part. Returns the last.
    `thread`: the topic of a forum group to send into (None: the chat itself, or General)."""
    return await send_parts(
        bot, chat_id, split_html(text), markup, reply_to=reply_to, then=then, thread=thread
    )


async def send_parts(
    bot: ExtBot[None],
    chat_id: int,
    parts: list[str],
    markup: InlineKeyboardMarkup | ForceReply | None = None,
    *,
    reply_to: int | None = None,
    then: Then | None = None,
    thread: int | None = None,
) -> Message:
    """Send already split HTML parts in order; the keyboard goes under the last one.

    After a 429 the background retry continues with the parts not yet sent.
    """
    sent = 0

    async def rest() -> Message:
        nonlocal sent
        message: Message | None = None
        for i in range(sent, len(parts)):

            async def one(topic: int | None, i: int = i) -> Message:
                return await bot.send_message(
                    chat_id,
                    parts[i],
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup if i == len(parts) - 1 else None,
                    reply_to_message_id=reply_to if i == 0 else None,
                    allow_sending_without_reply=True,
                    message_thread_id=topic,
                )

            message = await into_topic(chat_id, thread, one)
            sent = i + 1
        assert message is not None
        return message

    return await with_retry(rest, chat_id=chat_id, then=then)


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
    edited = await edit_else_send(
        lambda: with_retry(
            lambda: edit_text_raw(
                bot, chat_id, message_id, parts[0], markup if len(parts) == 1 else None
            ),
            chat_id=chat_id,
        ),
        lambda: send_parts(bot, chat_id, parts, markup),
        chat_id,
        message_id,
    )
    if edited and len(parts) > 1:
        # A reply to the edited message: in a forum group it stays in that message's topic.
        await send_parts(bot, chat_id, parts[1:], markup, reply_to=message_id)


async def edit_html_json(
    bot: ExtBot[None], chat_id: int, message_id: int, text: str, markup: dict[str, Any]
) -> None:
    """`edit_or_send` with the keyboard as Bot API JSON (the verdict, the mock exam's screen):
    no keyboard objects built, none parsed back."""
    if len(text) > TELEGRAM_MESSAGE_CHARS:  # tags included: it may still fit; split safely
        await edit_or_send(
            bot, chat_id, message_id, text, InlineKeyboardMarkup.de_json(markup, bot)
        )
        return
    params = {
        "chat_id": chat_id,
        "text": text,
        "parse_mode": ParseMode.HTML,
        "reply_markup": markup,
    }
    await edit_else_send(
        lambda: with_retry(
            lambda: edit_message_json(bot, {**params, "message_id": message_id}), chat_id=chat_id
        ),
        lambda: with_retry(lambda: send_message_json(bot, params), chat_id=chat_id),
        chat_id,
        message_id,
    )


async def edit_else_send(
    edit: Callable[[], Awaitable[object]],
    send: Callable[[], Awaitable[object]],
    chat_id: int,
    message_id: int,
) -> bool:
    """Run `edit`; a repeated edit is fine, a message too old to edit gets `send` instead.
    True only when the edit went through."""
    try:
        await edit()
    except BadRequest as err:
        failure = sort_error(err)
        if failure is Failure.NOT_MODIFIED:
            return False
        if failure is not Failure.CANNOT_EDIT:
            raise
        log.info(
            "message %s in chat %s can no longer be edited: sending anew", message_id, chat_id
        )
        await send()
        return False
    return True


async def edit_markup(
    bot: ExtBot[None], chat_id: int, message_id: int, markup: InlineKeyboardMarkup | None
) -> None:
    """Change only the keyboard; unchanged or uneditable messages are left alone."""
    try:
        await with_retry(
            lambda: bot.edit_message_reply_markup(
                chat_id=chat_id, message_id=message_id, reply_markup=markup
            ),
            chat_id=chat_id,
        )
    except BadRequest as err:
        if sort_error(err) not in (Failure.NOT_MODIFIED, Failure.CANNOT_EDIT):
            raise
