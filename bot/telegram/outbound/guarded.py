"""Sending into a group or channel that may have moved or taken the bot's rights away."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from telegram.error import BadRequest, ChatMigrated, Forbidden

from bot.telegram.context import Services
from bot.telegram.outbound.failures import Failure, sort_error
from bot.telegram.outbound.send import Then, with_retry

log = logging.getLogger(__name__)
T = TypeVar("T")


async def _once(call: Callable[[], Awaitable[T]], **_: object) -> T:
    return await call()


async def deactivate(services: Services, chat_id: int) -> None:
    """The bot may not post in the chat any more: stop sending there, forget its pacing."""
    await services.groups.deactivate(chat_id)
    services.throttle.forget_chat(chat_id)


async def guarded(
    services: Services,
    chat_id: int,
    call: Callable[[int], Awaitable[T]],
    *,
    flood_wait: bool = True,
    then: Then | None = None,
    edit: bool = False,
) -> T | None:
    """Run a send or edit into a group or channel; None when the bot may not post there.

    ChatMigrated moves the chat's rows to the supergroup id and retries there once (an `edit`
    of a message by its id is not retried: the message is in the old group, and the same id
    in the supergroup is another message); Forbidden
    (removed, kicked) marks the chat inactive; "not enough rights" is logged. None of them is
    raised, so a job or a handler never loops on a chat that cannot take messages.
    A 429 is retried in the background (send.with_retry: Deferred is raised, `then` gets the
    result) unless `flood_wait` is False: then RetryAfter is raised for the caller to decide
    (an edit that may be stale by then).
    """
    attempt = with_retry if flood_wait else _once
    try:
        try:
            return await attempt(lambda: call(chat_id), chat_id=chat_id, then=then)
        except ChatMigrated as err:
            new_id = int(err.new_chat_id)
            log.info("chat %s became supergroup %s: moving its rows", chat_id, new_id)
            await services.groups.migrate(chat_id, new_id)
            if edit:
                return None
            return await attempt(lambda: call(new_id), chat_id=new_id, then=then)
    except Forbidden as err:
        log.info("chat %s: forbidden (%s): marked inactive", chat_id, err)
        await deactivate(services, chat_id)
        return None
    except BadRequest as err:
        if sort_error(err) is not Failure.NO_RIGHTS:
            raise
        log.warning("chat %s: no right to post or edit: %s", chat_id, err)
        return None
