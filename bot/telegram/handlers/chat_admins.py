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
from bot.telegram.outbound.guarded import guarded
from bot.telegram.outbound.send import send_html

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
    """A short answer in the chat the command came from."""
    chat = update.effective_chat
    if chat is not None:
        await guarded(context.services, chat.id, lambda cid: send_html(context.bot, cid, text))
