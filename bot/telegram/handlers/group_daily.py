"""/daily in groups and channels (admins only): the same PushService.subscribe as private
chats, with kind 'group' or 'channel'. A pushed group question is an ordinary windowed
delivery: the periodic sweep reveals it when its window ends, like one asked with /quiz.
"""

from __future__ import annotations

from telegram import Update
from telegram.constants import ChatType

from bot.domain import due, zones
from bot.domain.kinds import ChatKind
from bot.telegram.context import QuizContext
from bot.telegram.handlers.chat_admins import is_admin, reply
from bot.telegram.views import texts
from bot.telegram.views.render import esc


async def daily(update: Update, context: QuizContext) -> None:
    """/daily HH:MM Zone | off in a group or channel (admins only)."""
    chat = update.effective_chat
    if chat is None:
        return
    services = context.services
    args = context.args or []
    if not args or len(args) > 2:
        await reply(update, context, texts.GROUP_DAILY_USAGE)
        return
    if not await is_admin(update, context):
        await reply(update, context, texts.GROUP_ADMINS_ONLY)
        return
    groups = services.groups
    await groups.register(chat.id, chat.type, chat.title)
    if args[0].lower() == "off":
        await services.push.unsubscribe(chat.id)
        await reply(update, context, texts.GROUP_DAILY_OFF)
        return
    local_time = due.parse_time(args[0])
    settings = await groups.settings(chat.id)
    zone = zones.canonical_zone(args[1]) if len(args) == 2 else settings.timezone
    if local_time is None or zone is None:
        await reply(update, context, texts.GROUP_DAILY_USAGE)
        return
    kind = ChatKind.CHANNEL if chat.type == ChatType.CHANNEL else ChatKind.GROUP
    await services.push.subscribe(chat.id, local_time, zone, kind=kind)
    # The group's zone also sets where its leaderboard week begins.
    await groups.set_timezone(chat.id, zone)
    await reply(update, context, texts.GROUP_DAILY_SET.format(time=local_time, zone=esc(zone)))
