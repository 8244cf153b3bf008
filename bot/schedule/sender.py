"""Sending one claimed push, with each Telegram error turned into a recorded outcome.

Delivery rule (also in README): **at-least-once**. A `TimedOut` (or another network error) on
sendMessage means "maybe delivered": the Bot API has no idempotency key, so we cannot ask.
We send again (after a backoff, while within the grace: delivery_log.BACKOFF_S) with the same
delivery, so a duplicate is the same question with the same buttons, and answering either
counts once (answers are unique per delivery and user). A missed daily question breaks the
learner's habit; a rare duplicate costs a glance. The same rule covers a crash between the API
call and the recorded outcome.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from telegram import InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)
from telegram.ext import ExtBot

from bot.schedule.delivery_log import Claim, Outcome
from bot.schedule.pacer import GroupWindow, Pacer, Sleep, Unpaced
from bot.telegram.sending import retry_seconds

log = logging.getLogger(__name__)

MAX_FLOOD_WAITS = 5  # 429s for one push before it goes back to pending for a later claim
MAX_MIGRATIONS = 2  # a chat id can move once; a loop would be Telegram's bug, not ours

# Message parts (HTML) and the keyboard (Bot API JSON) under the last one; None: nothing to send.
# A composer may return PTB's InlineKeyboardMarkup or its JSON (cheaper: no objects per send).
Markup = dict[str, Any]


@dataclass(frozen=True, slots=True)
class CustomSend:
    """A push that is not a text message (a native quiz poll): send(chat_id) -> message id.

    It goes through the same pacing and error handling as a text push; the chat id may change
    between tries (a migrated group).
    """

    send: Callable[[int], Awaitable[int]]


Composed = tuple[list[str], Markup | InlineKeyboardMarkup | None] | CustomSend
Composer = Callable[[Claim], Composed | None]
Migrate = Callable[[int, int], Awaitable[None]]


class Sender:
    """Sends claims at the pacer's rate; never raises for a Telegram error."""

    def __init__(
        self,
        bot: ExtBot[None],
        composers: dict[str, Composer],
        pacer: Pacer | Unpaced,
        groups: GroupWindow,
        sleep: Sleep,
        migrate: Migrate,
        *,
        paid_broadcast: bool = False,
    ) -> None:
        self.bot = bot
        self.composers = composers
        self.pacer = pacer
        self.groups = groups
        self.sleep = sleep
        self.migrate = migrate
        self.paid_broadcast = paid_broadcast

    async def deliver(self, claim: Claim) -> Outcome:
        """Send one push; the outcome says what to record."""
        composer = self.composers.get(claim.kind) or self.composers["private"]
        composed = composer(claim)
        if composed is None:
            return self._done(claim, claim.chat_id, "failed", "question withdrawn")
        steps = self._steps(composed)
        chat_id = claim.chat_id
        sent = 0  # parts already delivered: a retry continues, it does not repeat them
        flood_waits = migrations = 0
        message_id: int | None = None
        while sent < len(steps):
            try:
                message_id = await steps[sent](chat_id)
                sent += 1
            except RetryAfter as err:
                wait = retry_seconds(err)
                flood_waits += 1
                if flood_waits > MAX_FLOOD_WAITS:
                    return self._done(claim, chat_id, "retry", f"flood control {wait:g} s")
                log.info("push: flood control, waiting %.1f s (chat %s)", wait, chat_id)
                self.pacer.pause(wait)  # everyone waits: the flood limit is the bot's
                await self.sleep(wait)
            except Forbidden as err:
                return self._done(claim, chat_id, "blocked", str(err))
            except ChatMigrated as err:
                migrations += 1
                if migrations > MAX_MIGRATIONS:
                    return self._done(claim, chat_id, "failed", "migration loop")
                log.info("push: chat %s migrated to %s", chat_id, err.new_chat_id)
                await self.migrate(chat_id, err.new_chat_id)
                chat_id = err.new_chat_id
            except BadRequest as err:
                # "chat not found" and friends: sending again cannot help. Checked before
                # TimedOut/NetworkError because BadRequest is a NetworkError subclass.
                return self._done(claim, chat_id, "failed", str(err))
            except TimedOut:
                return self._done(claim, chat_id, "retry", "timed out")  # at-least-once
            except NetworkError as err:
                return self._done(claim, chat_id, "retry", f"network: {err}")
            except TelegramError as err:
                return self._done(claim, chat_id, "failed", f"{type(err).__name__}: {err}")
        return Outcome(claim.log_id, chat_id, "sent", claim.delivery_id, message_id)

    def _steps(self, composed: Composed) -> list[Callable[[int], Awaitable[int]]]:
        """One awaitable per message to send, each taking the (current) chat id."""
        if isinstance(composed, CustomSend):
            return [lambda chat_id: self._custom(chat_id, composed)]
        parts, markup = composed
        last = len(parts) - 1
        return [
            lambda chat_id, i=i, part=part: self._send(chat_id, part, markup, i == last)  # type: ignore[misc]
            for i, part in enumerate(parts)
        ]

    async def _custom(self, chat_id: int, composed: CustomSend) -> int:
        """A non-text push, paced like any other."""
        await self._pace(chat_id)
        return await composed.send(chat_id)

    async def _pace(self, chat_id: int) -> None:
        if chat_id < 0:  # groups and channels: 20 a minute each
            await self.groups.acquire(chat_id)
        await self.pacer.acquire()

    @staticmethod
    def _done(claim: Claim, chat_id: int, state: str, error: str) -> Outcome:
        if state != "retry":
            log.info("push to chat %s: %s (%s)", chat_id, state, error)
        return Outcome(claim.log_id, chat_id, state, claim.delivery_id, None, error[:200])

    async def _send(
        self, chat_id: int, text: str, markup: Markup | InlineKeyboardMarkup | None, last: bool
    ) -> int:
        """One sendMessage; returns the message id."""
        await self._pace(chat_id)
        params: dict[str, Any] = {"chat_id": chat_id, "text": text, "parse_mode": ParseMode.HTML}
        if markup is not None and last:
            params["reply_markup"] = (
                markup.to_dict() if isinstance(markup, InlineKeyboardMarkup) else markup
            )
        if self.paid_broadcast:
            params["allow_paid_broadcast"] = True
        # Bot._post (PTB 22.x, private; errors are raised exactly as for send_message) instead
        # of send_message: building the keyboard objects and parsing the returned Message was
        # ~60% of the CPU of a push (bench_push), and the push needs only the message id. The
        # public Bot.do_api_request would do the same but warns for endpoints PTB implements.
        result = await self.bot._post("sendMessage", params)
        return int(result["message_id"])
