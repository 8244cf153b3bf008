"""The bot's place in groups and channels: added, removed, promoted, a group upgraded to a
supergroup, and sending into a chat that may have moved or taken the bot's rights away."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from telegram import ChatMember, ChatMemberRestricted, Update
from telegram.constants import ChatType
from telegram.error import BadRequest, ChatMigrated, Forbidden

from bot.practice.groups import GroupService
from bot.telegram import texts
from bot.telegram.context import QuizContext, Services
from bot.telegram.sending import send_html, with_retry

log = logging.getLogger(__name__)
T = TypeVar("T")

CHANNEL_DAILY_TIME = "09:00"
PRESENT = frozenset({ChatMember.MEMBER, ChatMember.ADMINISTRATOR, ChatMember.OWNER})
GONE = frozenset({ChatMember.LEFT, ChatMember.BANNED})
# BadRequest texts that mean "you may not post or edit here": not worth retrying, not a bug.
NO_RIGHTS = (
    "not enough rights",
    "have no rights",
    "chat_write_forbidden",
    "chat_admin_required",
    "chat not found",
    "need administrator rights",
)


def groups_of(services: Services) -> GroupService:
    """The group service (built in post_init)."""
    if services.groups is None:
        raise RuntimeError("group service is not ready")
    return services.groups


async def _once(call: Callable[[], Awaitable[T]]) -> T:
    return await call()


async def guarded(
    services: Services,
    chat_id: int,
    call: Callable[[int], Awaitable[T]],
    *,
    flood_wait: bool = True,
) -> T | None:
    """Run a send or edit into a group or channel; None when the bot may not post there.

    ChatMigrated moves the chat's rows to the supergroup id and retries there once; Forbidden
    (removed, kicked) marks the chat inactive; "not enough rights" is logged. None of them is
    raised, so a job or a handler never loops on a chat that cannot take messages.
    A short 429 is waited out and the call made again, unless `flood_wait` is False: then
    RetryAfter is raised for the caller to decide (an edit that may be stale by then).
    """
    groups = groups_of(services)
    attempt = with_retry if flood_wait else _once
    try:
        try:
            return await attempt(lambda: call(chat_id))
        except ChatMigrated as err:
            new_id = int(err.new_chat_id)
            log.info("chat %s became supergroup %s: moving its rows", chat_id, new_id)
            await groups.migrate(chat_id, new_id)
            return await attempt(lambda: call(new_id))
    except Forbidden as err:
        log.info("chat %s: forbidden (%s): marked inactive", chat_id, err)
        await groups.deactivate(chat_id)
        return None
    except BadRequest as err:
        if not any(reason in str(err).lower() for reason in NO_RIGHTS):
            raise
        log.warning("chat %s: no right to post or edit: %s", chat_id, err)
        return None


async def on_my_chat_member(update: Update, context: QuizContext) -> None:
    """The bot was added, removed, promoted or restricted somewhere."""
    change = update.my_chat_member
    if change is None:
        return
    chat = change.chat
    old, new = change.old_chat_member, change.new_chat_member
    groups = groups_of(context.services)
    if chat.type == ChatType.PRIVATE:
        # A user blocked (kicked) or restarted the bot: only whether we may write matters.
        if new.status in GONE:
            await groups.deactivate(chat.id)
        return
    if chat.type == ChatType.CHANNEL:
        # Only an administrator may post in a channel.
        if new.status == ChatMember.ADMINISTRATOR:
            log.info("channel %s: bot is an administrator, posting enabled", chat.id)
            await groups.register(chat.id, chat.type, chat.title)
            push = context.services.push
            if push is not None and await push.subscription(chat.id) is None:
                # A channel gets its daily question without asking; an admin posting
                # `/daily HH:MM Zone` in the channel moves it.
                settings = await groups.settings(chat.id)
                await push.subscribe(
                    chat.id, CHANNEL_DAILY_TIME, settings.timezone, kind="channel"
                )
        else:
            log.info("channel %s: bot is %s, posting disabled", chat.id, new.status)
            await groups.deactivate(chat.id)
        return
    mute = isinstance(new, ChatMemberRestricted) and not new.can_send_messages
    if new.status in GONE or mute:
        log.info("group %s: bot is %s: marked inactive", chat.id, new.status)
        await groups.deactivate(chat.id)
        return
    if new.status in PRESENT or isinstance(new, ChatMemberRestricted):
        await groups.register(chat.id, chat.type, chat.title)
        if old.status in GONE:
            log.info("group %s: bot added by %s", chat.id, change.from_user.id)
            settings = await groups.settings(chat.id)
            text = texts.GROUP_WELCOME.format(window=f"{settings.window_s // 60} min")
            await guarded(context.services, chat.id, lambda cid: send_html(context.bot, cid, text))


async def on_migrate(update: Update, context: QuizContext) -> None:
    """A group became a supergroup: move its settings and history to the new id."""
    message = update.effective_message
    if message is None:
        return
    if message.migrate_to_chat_id:
        old_id, new_id = message.chat.id, message.migrate_to_chat_id
    elif message.migrate_from_chat_id:
        old_id, new_id = message.migrate_from_chat_id, message.chat.id
    else:
        return
    # Both service messages arrive (one in each chat); the second finds nothing left to move.
    if await groups_of(context.services).migrate(old_id, new_id):
        log.info("group %s upgraded to supergroup %s: settings and history moved", old_id, new_id)
