"""The bot's place in groups and channels: added, removed, promoted, a group upgraded to a
supergroup."""

from __future__ import annotations

import logging

from telegram import ChatMember, ChatMemberRestricted, Update
from telegram.constants import ChatType

from bot.domain.kinds import ChatKind
from bot.telegram.context import QuizContext
from bot.telegram.outbound.guarded import deactivate, guarded
from bot.telegram.outbound.send import send_html
from bot.telegram.views import texts
from bot.telegram.views.render import esc

log = logging.getLogger(__name__)

CHANNEL_DAILY_TIME = "09:00"
PRESENT = frozenset({ChatMember.MEMBER, ChatMember.ADMINISTRATOR, ChatMember.OWNER})
GONE = frozenset({ChatMember.LEFT, ChatMember.BANNED})


async def on_my_chat_member(update: Update, context: QuizContext) -> None:
    """The bot was added, removed, promoted or restricted somewhere."""
    change = update.my_chat_member
    if change is None:
        return
    chat = change.chat
    old, new = change.old_chat_member, change.new_chat_member
    groups = context.services.groups
    if chat.type == ChatType.PRIVATE:
        # A user blocked (kicked) or restarted the bot: only whether we may write matters.
        if new.status in GONE:
            await deactivate(context.services, chat.id)
        return
    if chat.type == ChatType.CHANNEL:
        # Only an administrator may post in a channel.
        if new.status == ChatMember.ADMINISTRATOR:
            log.info("channel %s: bot is an administrator, posting enabled", chat.id)
            await groups.register(chat.id, chat.type, chat.title)
            push = context.services.push
            found = await push.subscription(chat.id)
            if found is None:
                # A channel gets its daily question without asking; an admin posting
                # `/daily HH:MM Zone` in the channel moves it.
                settings = await groups.settings(chat.id)
                await push.subscribe(
                    chat.id, CHANNEL_DAILY_TIME, settings.timezone, kind=ChatKind.CHANNEL
                )
            elif not found.active:
                # Promoted again after a demotion (which stopped the posting): the daily
                # question comes back at the time the channel had.
                await push.subscribe(
                    chat.id, found.local_time, found.timezone, kind=ChatKind.CHANNEL
                )
        else:
            log.info("channel %s: bot is %s, posting disabled", chat.id, new.status)
            await deactivate(context.services, chat.id)
        return
    mute = isinstance(new, ChatMemberRestricted) and not new.can_send_messages
    if new.status in GONE or mute:
        log.info("group %s: bot is %s: marked inactive", chat.id, new.status)
        await deactivate(context.services, chat.id)
        return
    if new.status in PRESENT or isinstance(new, ChatMemberRestricted):
        await groups.register(chat.id, chat.type, chat.title)
        if old.status in GONE:
            log.info("group %s: bot added by %s", chat.id, change.from_user.id)
            settings = await groups.settings(chat.id)
            text = texts.GROUP_WELCOME.format(window=f"{settings.window_s // 60} min")
            found = await context.services.push.subscription(chat.id)
            if found is not None and not found.active:
                # Stopped while the bot was away (a push refused) or by an admin before: the
                # group hears it is off rather than wait for a question that never comes.
                text += "\n\n" + texts.GROUP_DAILY_IS_OFF.format(
                    time=found.local_time, zone=esc(found.timezone)
                )
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
    if await context.services.groups.migrate(old_id, new_id):
        log.info("group %s upgraded to supergroup %s: settings and history moved", old_id, new_id)
