"""Who may change a group's settings, and the short reply every group command sends.

Admins are checked with getChatMember on every settings command: rights change in Telegram
without telling the bot, so a cached list would go stale.
"""

from __future__ import annotations

import logging

from telegram import ChatMember, Update
from telegram.constants import ChatType
from telegram.error import TelegramError

from bot.telegram.context import QuizContext
from bot.telegram.handlers.common import thread_of
from bot.telegram.outbound.guarded import guarded
from bot.telegram.outbound.send import Deferred, send_html

log = logging.getLogger(__name__)
ADMIN_STATUSES = frozenset({ChatMember.OWNER, ChatMember.ADMINISTRATOR})


async def is_admin(update: Update, context: QuizContext) -> bool:
    """Whether the sender administers the chat (asked to Telegram, not remembered)."""
    chat, message = update.effective_chat, update.effective_message
    if chat is None:
        return False
    if chat.type == ChatType.CHANNEL:
        return True  # only a channel's admins can post in it
    if message is not None and message.sender_chat is not None:
        # An anonymous admin posts as the group itself.
        return message.sender_chat.id == chat.id
    user = update.effective_user
    if user is None:
        return False
    return await is_member_admin(context, chat.id, user.id)


async def is_member_admin(context: QuizContext, chat_id: int, user_id: int) -> bool:
    """Whether Telegram says this user is the chat's creator or an administrator.

    A button press must ask even in a channel: any reader can press a button there.
    """
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except TelegramError as err:
        log.info("chat %s: admin check for %s failed: %s", chat_id, user_id, err)
        return False
    return member.status in ADMIN_STATUSES


async def refuse(update: Update, context: QuizContext, text: str) -> None:
    """A non-admin's "admins only" in the group: once per member per window, then silence."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None:
        return
    services = context.services
    if user is not None and not services.refusals.allow(chat.id, user.id, services.clock.now()):
        log.debug("chat %s: refusal for %s not repeated", chat.id, user.id)
        return
    await reply(update, context, text)


async def reply(update: Update, context: QuizContext, text: str) -> None:
    """A short answer to a command, in the chat it came from while the group's budget allows.

    A group shares about 20 messages a minute: a member past their share gets the answer
    privately (if they started the bot) or not at all, so they cannot crowd out the group's
    questions; an admin's answer always goes in the group.
    """
    chat, user = update.effective_chat, update.effective_user
    if chat is None:
        return
    services = context.services
    now = services.clock.now()
    if (
        chat.type != ChatType.PRIVATE
        and user is not None
        and not services.budget.allow_member(chat.id, user.id, now)
    ):
        if not await is_admin(update, context):
            await _privately(context, chat.id, user.id, text)
            return
        services.budget.note(chat.id, now)
    thread = thread_of(update)
    await guarded(services, chat.id, lambda cid: send_html(context.bot, cid, text, thread=thread))


async def _privately(context: QuizContext, chat_id: int, user_id: int, text: str) -> None:
    """A member's answer, diverted from a group that has no room for it."""
    if not await context.services.practice.has_started(user_id):
        log.info("chat %s: no room for a reply to %s: dropped", chat_id, user_id)
        return
    try:
        await send_html(context.bot, user_id, text)
    except (Deferred, TelegramError) as err:
        log.info("chat %s: reply to %s in private not sent: %s", chat_id, user_id, err)
