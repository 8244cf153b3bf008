"""/daily in groups and channels: anyone sees the schedule; admins change it with the same
PushService.subscribe as private chats, with kind 'group' or 'channel'. A pushed group
question is an ordinary windowed delivery: the periodic sweep reveals it when its window ends,
like one asked with /quiz.
"""

from __future__ import annotations

from telegram import Update
from telegram.constants import ChatType

from bot.domain import due, zones
from bot.domain.kinds import ChatKind
from bot.telegram.context import QuizContext
from bot.telegram.handlers.chat_admins import is_admin, refuse, reply
from bot.telegram.handlers.common import thread_of
from bot.telegram.views import texts
from bot.telegram.views.render import esc, when


async def daily(update: Update, context: QuizContext) -> None:
    """/daily shows the chat's schedule; /daily HH:MM [Zone] | off changes it (admins only)."""
    chat = update.effective_chat
    if chat is None:
        return
    services = context.services
    args = context.args or []
    if not args:
        await reply(update, context, await schedule_text(context, chat.id))
        return
    if not await is_admin(update, context):
        await refuse(update, context, texts.GROUP_ADMINS_ONLY)
        return
    groups = services.groups
    await groups.register(chat.id, chat.type, chat.title)
    if args[0].lower() == "off":
        await services.push.unsubscribe(chat.id)
        await reply(update, context, texts.GROUP_DAILY_OFF)
        return
    # The same specific messages as in a private chat: what was wrong, with an example.
    local_time = due.parse_time(args[0])
    if local_time is None:
        await reply(update, context, texts.DAILY_BAD_TIME.format(value=esc(args[0][:64])))
        return
    settings = await groups.settings(chat.id)
    zone = settings.timezone
    if len(args) > 1:
        named = zones.canonical_zone(" ".join(args[1:]))
        if named is None:
            bad = esc(" ".join(args[1:])[:64])
            await reply(update, context, texts.DAILY_BAD_ZONE.format(value=bad))
            return
        zone = named
    kind = ChatKind.CHANNEL if chat.type == ChatType.CHANNEL else ChatKind.GROUP
    # In a forum group the question goes to the topic /daily was set in.
    thread = thread_of(update)
    occ = await services.push.subscribe(chat.id, local_time, zone, kind=kind, thread=thread)
    # The group's zone also sets where its leaderboard week begins.
    await groups.set_timezone(chat.id, zone)
    text = texts.GROUP_DAILY_SET.format(time=local_time, zone=esc(zone), next=when(occ.at, zone))
    await reply(update, context, text + (texts.GROUP_DAILY_IN_TOPIC if thread else ""))


async def schedule_text(context: QuizContext, chat_id: int) -> str:
    """The chat's daily question: time, zone, on or off, and the next one."""
    sub = await context.services.push.subscription(chat_id)
    if sub is None:
        return texts.GROUP_DAILY_NONE
    if not sub.active or sub.next_due_at is None:
        return texts.GROUP_DAILY_IS_OFF.format(time=sub.local_time, zone=esc(sub.timezone))
    return texts.GROUP_DAILY_ON.format(
        time=sub.local_time, zone=esc(sub.timezone), next=when(sub.next_due_at, sub.timezone)
    )
