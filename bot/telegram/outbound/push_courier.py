"""The push courier: composes one claimed push for its chat and sends it, each Telegram error
turned into a recorded outcome (the `Courier` port of bot/schedule/ports.py).

Delivery rule (also in README): **at-least-once**. A `TimedOut` (or another network error) on
sendMessage means "maybe delivered": the Bot API has no idempotency key, so we cannot ask.
We send again (after a backoff, while within the grace: bot/domain/push_retry.py) with the
same delivery, so a duplicate is the same question with the same buttons, and answering either
counts once (answers are unique per delivery and user). A missed daily question breaks the
learner's habit; a rare duplicate costs a glance. The same rule covers a crash between the API
call and the recorded outcome.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import InlineKeyboardMarkup, InputFile, Message
from telegram.constants import ParseMode
from telegram.error import ChatMigrated, RetryAfter, TelegramError
from telegram.ext import ExtBot

from bot.domain.display import decode_order, displayed
from bot.domain.kinds import ChatKind, PushState
from bot.practice.catalog import Catalog
from bot.practice.groups import GroupService
from bot.practice.media_files import MediaFiles
from bot.practice.service import PracticeService
from bot.schedule.pacer import ClaimPacing
from bot.storage.push_log import Claim, Outcome
from bot.telegram.outbound.failures import Failure, retry_seconds, sort_error
from bot.telegram.outbound.group_rounds import send_group_question
from bot.telegram.outbound.json_api import send_message_json
from bot.telegram.outbound.pictures import PictureUnavailable, fits_caption, photo_by_key
from bot.telegram.outbound.send import into_topic
from bot.telegram.views import question_media
from bot.telegram.views.question_media import Picture
from bot.telegram.views.render_cache import STAND_IN_KEY, private_push

log = logging.getLogger(__name__)

MAX_FLOOD_WAITS = 5  # 429s for one push before it goes back to pending for a later claim
MAX_MIGRATIONS = 2  # a chat id can move once; a loop would be Telegram's bug, not ours

# Sends one message into a chat (its current id); returns the message id.
Step = Callable[[int], Awaitable[int]]


class TelegramCourier:
    """Sends claims at the pacing's rate; never raises for a Telegram error."""

    def __init__(
        self,
        bot: ExtBot[None],
        catalog: Catalog,
        *,
        practice: PracticeService,
        groups: GroupService,
        paid_broadcast: bool = False,
        media: MediaFiles | None = None,
    ) -> None:
        self.bot = bot
        self.media = media
        self.catalog = catalog
        self.practice = practice
        self.groups = groups
        self.paid_broadcast = paid_broadcast

    async def deliver(self, claim: Claim, pacing: ClaimPacing) -> Outcome:
        """Send one push; the outcome says what to record."""
        steps = self._steps(claim, pacing)
        if steps is None:
            return self._done(claim, claim.chat_id, PushState.FAILED, "question withdrawn")
        chat_id = claim.chat_id
        sent = 0  # parts already delivered: a retry continues, it does not repeat them
        flood_waits = migrations = 0
        message_id: int | None = None
        while sent < len(steps):
            try:
                message_id = await steps[sent](chat_id)
                sent += 1
            except LookupError:  # the delivery row is gone (a group push reads it to send)
                return self._done(claim, chat_id, PushState.FAILED, "question withdrawn")
            except TelegramError as err:
                failure = sort_error(err)
                if failure is Failure.FLOOD and isinstance(err, RetryAfter):
                    # A 429 on a send to one chat pauses that chat, not the push: the claim
                    # goes back to pending until Telegram's retry_after has passed and the
                    # other chats keep their pace (PushPacing decides when it is the bot's).
                    wait = retry_seconds(err)
                    flood_waits += 1
                    bot_wide = pacing.chat_flood(chat_id, wait)
                    log.info(
                        "push: flood control for %s, %.1f s (chat %s)",
                        "the bot" if bot_wide else "one chat",
                        wait,
                        chat_id,
                    )
                    if sent == 0:
                        return Outcome(
                            claim.log_id,
                            chat_id,
                            PushState.RETRY,
                            claim.delivery_id,
                            error=f"flood {wait:g} s",
                            retry_after=wait,
                        )
                    if flood_waits > MAX_FLOOD_WAITS:
                        return self._done(claim, chat_id, PushState.RETRY, f"flood {wait:g} s")
                    # Parts already sent: wait here, so a retry does not repeat them.
                    await pacing.flood_wait(wait) if bot_wide else await pacing.sleep(wait)
                elif failure is Failure.MIGRATED and isinstance(err, ChatMigrated):
                    migrations += 1
                    if migrations > MAX_MIGRATIONS:
                        return self._done(claim, chat_id, PushState.FAILED, "migration loop")
                    log.info("push: chat %s migrated to %s", chat_id, err.new_chat_id)
                    await self.groups.migrate(chat_id, err.new_chat_id)
                    chat_id = err.new_chat_id
                else:
                    return self._failed(claim, chat_id, failure, err)
        return Outcome(claim.log_id, chat_id, PushState.SENT, claim.delivery_id, message_id)

    def _failed(self, claim: Claim, chat_id: int, failure: Failure, err: TelegramError) -> Outcome:
        """A send that cannot go on now: blocked, failed for good, or to be retried."""
        match failure:
            case Failure.FORBIDDEN:
                return self._done(claim, chat_id, PushState.BLOCKED, str(err))
            case Failure.TIMED_OUT:
                return self._done(claim, chat_id, PushState.RETRY, "timed out")  # at-least-once
            case Failure.NETWORK:
                return self._done(claim, chat_id, PushState.RETRY, f"network: {err}")
            case Failure.OTHER:
                error = f"{type(err).__name__}: {err}"
                return self._done(claim, chat_id, PushState.FAILED, error)
        # "chat not found" and other 400s: sending again cannot help.
        return self._done(claim, chat_id, PushState.FAILED, str(err))

    def _steps(self, claim: Claim, pacing: ClaimPacing) -> list[Step] | None:
        """One awaitable per message to send, each taking the (current) chat id."""
        question = self.catalog.question(claim.bank_id, claim.question_id)
        if question is None:
            return None
        match claim.kind:
            case ChatKind.PRIVATE:
                bank = self.catalog.bank(claim.bank_id)
                order = decode_order(claim.option_order, len(question.options))
                parts, template = private_push(bank, displayed(question, order))
                key = (
                    f"{claim.delivery_id}:{claim.token}" if claim.token else str(claim.delivery_id)
                )
                markup = json.loads(template.replace(STAND_IN_KEY, key))
                shown = question_media.pictures(bank, displayed(question, order))
                if shown and self.media is not None:
                    return self._photo_steps(pacing, shown, parts, markup)
                last = len(parts) - 1
                return [
                    lambda chat_id, i=i, part=part: self._send(  # type: ignore[misc]
                        pacing, chat_id, part, markup if i == last else None
                    )
                    for i, part in enumerate(parts)
                ]
            case ChatKind.GROUP | ChatKind.CHANNEL:
                # A group question fits one message (bank limits): no earlier part a retry
                # could repeat. Its poll mode and window are read just before sending, so a
                # retry or a claim recovered after a restart goes out as the first try would.
                return [lambda chat_id: self._send_group(pacing, claim, chat_id)]
        raise ValueError(f"unknown chat kind {claim.kind!r}")

    def _photo_steps(
        self,
        pacing: ClaimPacing,
        shown: list[Picture],
        parts: tuple[str, ...],
        markup: dict[str, Any],
    ) -> list[Step]:
        """A question with pictures: each photo a step, the question as the last one's
        caption when it fits, else its parts after it (the keyboard under the last)."""
        captioned = len(parts) == 1 and fits_caption(parts[0])
        steps: list[Step] = [
            lambda chat_id, p=p: self._send_photo(pacing, chat_id, p)  # type: ignore[misc]
            for p in shown[:-1]
        ]
        if captioned:
            steps.append(
                lambda chat_id: self._send_photo(pacing, chat_id, shown[-1], parts[0], markup)
            )
            return steps
        steps.append(lambda chat_id: self._send_photo(pacing, chat_id, shown[-1]))
        last = len(parts) - 1
        steps += [
            lambda chat_id, i=i, part=part: self._send(  # type: ignore[misc]
                pacing, chat_id, part, markup if i == last else None
            )
            for i, part in enumerate(parts)
        ]
        return steps

    async def _send_photo(
        self,
        pacing: ClaimPacing,
        chat_id: int,
        picture: Picture,
        caption: str | None = None,
        markup: dict[str, Any] | None = None,
    ) -> int:
        """One sendPhoto (by file_id once uploaded); returns the message id."""
        assert self.media is not None
        keyboard = None if markup is None else InlineKeyboardMarkup.de_json(markup, self.bot)

        async def send(photo: str | InputFile) -> Message:
            await pacing.acquire(chat_id)
            return await self.bot.send_photo(
                chat_id,
                photo,
                caption=caption,
                parse_mode=ParseMode.HTML,
                reply_markup=keyboard,
                allow_paid_broadcast=self.paid_broadcast or None,
            )

        try:
            message = await photo_by_key(self.media, picture, send)
        except PictureUnavailable:
            if caption is None:
                return 0  # not the last step: the question's text follows
            return await self._send(pacing, chat_id, caption, markup)
        return message.message_id

    async def _send_group(self, pacing: ClaimPacing, claim: Claim, chat_id: int) -> int:
        await pacing.acquire(chat_id)
        return await send_pushed_question(self, claim, chat_id)

    @staticmethod
    def _done(claim: Claim, chat_id: int, state: PushState, error: str) -> Outcome:
        if state is not PushState.RETRY:
            log.info("push to chat %s: %s (%s)", chat_id, state, error)
        return Outcome(claim.log_id, chat_id, state, claim.delivery_id, None, error[:200])

    async def _send(
        self, pacing: ClaimPacing, chat_id: int, text: str, markup: dict[str, Any] | None
    ) -> int:
        """One sendMessage; returns the message id."""
        await pacing.acquire(chat_id)
        params: dict[str, Any] = {"chat_id": chat_id, "text": text, "parse_mode": ParseMode.HTML}
        if markup is not None:
            params["reply_markup"] = markup
        if self.paid_broadcast:
            params["allow_paid_broadcast"] = True
        return await send_message_json(self.bot, params)


async def send_pushed_question(courier: TelegramCourier, claim: Claim, chat_id: int) -> int:
    """A group or channel push; chat_id is where the chat is now, into the forum topic the
    subscription names. The chat's poll mode and the delivery's window are read from the
    database just before sending."""
    delivery = await courier.practice.delivery(claim.delivery_id)
    if delivery is None:
        raise LookupError(f"delivery {claim.delivery_id} is gone")
    settings = await courier.groups.settings(chat_id)
    window = float(courier.groups.default_window_s)
    if delivery.closes_at is not None:
        window = delivery.closes_at - delivery.sent_at

    async def send(thread: int | None) -> Message:
        return await send_group_question(
            courier.bot,
            courier.catalog,
            courier.groups,
            chat_id,
            delivery,
            settings,
            window_s=window,
            anonymous=claim.kind is ChatKind.CHANNEL,
            paid_broadcast=courier.paid_broadcast,
            media=courier.media,
            thread=thread,
        )

    message = await into_topic(chat_id, claim.thread, send)
    if claim.thread is not None and message.message_thread_id != claim.thread:
        # The topic /daily was set in is deleted or closed: General from now on.
        await courier.groups.forget_daily_topic(chat_id, claim.thread)
    return message.message_id
