"""/daily in a private chat: show, set (time and IANA zone) or stop the daily question.

The work is in PushService.subscribe/unsubscribe, keyed by chat id, so the group branch of
/daily (admins only) calls the same service with kind ChatKind.GROUP or CHANNEL.
"""

from __future__ import annotations

from telegram import Update

from bot.domain import due, zones
from bot.telegram.context import QuizContext
from bot.telegram.handlers.buttons import Buttons, Press, Who
from bot.telegram.handlers.common import effective, learner
from bot.telegram.outbound.send import edit_or_send, send_html
from bot.telegram.views import callbacks, keyboards, texts
from bot.telegram.views.render import esc, when

BUTTONS = Buttons()


async def zone_of(context: QuizContext, user_id: int) -> str:
    """The user's remembered zone, else the bot's default."""
    prefs = await context.services.practice.prefs(user_id)
    return prefs.timezone or context.services.settings.default_timezone


async def status_text(context: QuizContext, chat_id: int, user_id: int) -> tuple[str, str | None]:
    """The current subscription as text, and its time (None when off)."""
    push = context.services.push
    sub = await push.subscription(chat_id)
    if sub is None:
        return texts.DAILY_NONE.format(tz=esc(await zone_of(context, user_id))), None
    if not sub.active or sub.next_due_at is None:
        return texts.DAILY_OFF_STATE.format(tz=esc(sub.timezone)), None
    text = texts.DAILY_CURRENT.format(
        time=sub.local_time, tz=esc(sub.timezone), next=when(sub.next_due_at, sub.timezone)
    )
    return text, sub.local_time


async def daily(update: Update, context: QuizContext) -> None:
    """`/daily`, `/daily 07:30`, `/daily 07:30 Europe/Berlin`, `/daily off`."""
    if (who := effective(update)) is None:
        return
    chat, user = who
    services = context.services
    push = services.push
    await services.practice.register(learner(user))
    args = context.args or []
    if not args:
        text, current = await status_text(context, chat.id, user.id)
        await send_html(context.bot, chat.id, text, keyboards.daily_keyboard(current))
        return
    if args[0].lower() == "off":
        stopped = await push.unsubscribe(chat.id)
        await send_html(
            context.bot, chat.id, texts.DAILY_STOPPED if stopped else texts.DAILY_NOT_SUBSCRIBED
        )
        return
    local_time = due.parse_time(args[0])
    if local_time is None:
        await send_html(context.bot, chat.id, texts.DAILY_BAD_TIME.format(value=esc(args[0][:64])))
        return
    if len(args) > 1:
        zone_name = zones.canonical_zone(" ".join(args[1:]))
        if zone_name is None:
            bad = esc(" ".join(args[1:])[:64])
            await send_html(context.bot, chat.id, texts.DAILY_BAD_ZONE.format(value=bad))
            return
    else:
        zone_name = await zone_of(context, user.id)
    free = await push.minute_room(chat.id, local_time, zone_name)
    if free is not None:  # the minute is full: offer the nearest one with room instead
        when_full = {"time": local_time, "tz": esc(zone_name)}
        if free:
            text = texts.DAILY_FULL.format(**when_full, free=free)
            await send_html(context.bot, chat.id, text, keyboards.daily_free_keyboard(free))
        else:
            await send_html(context.bot, chat.id, texts.DAILY_ALL_FULL.format(**when_full))
        return
    occ = await push.subscribe(chat.id, local_time, zone_name, user_id=user.id)
    text = texts.DAILY_SET.format(time=local_time, tz=esc(zone_name), next=when(occ.at, zone_name))
    await send_html(context.bot, chat.id, text, keyboards.daily_keyboard(local_time))


@BUTTONS.on(callbacks.DAILY, Who.PRIVATE)
async def on_daily_button(press: Press, context: QuizContext) -> None:
    """A time or Off button under the /daily message."""
    query, chat, (choice,) = press.query, press.message.chat, press.values
    user, push = query.from_user, context.services.push
    local_time = None if choice == "off" else due.parse_time(f"{choice[:2]}:{choice[2:]}")
    if local_time is None and choice != "off":
        await query.answer(texts.CB_UNKNOWN)
        return
    if local_time is None:
        await push.unsubscribe(chat.id)
        await query.answer(texts.CB_DAILY_OFF)
    else:
        zone_name = await zone_of(context, user.id)
        sub = await push.subscription(chat.id)
        if sub is not None:
            zone_name = sub.timezone
        free = await push.minute_room(chat.id, local_time, zone_name)
        if free is None:
            await push.subscribe(chat.id, local_time, zone_name, user_id=user.id)
            await query.answer(texts.CB_DAILY_SET.format(time=local_time, tz=zone_name))
        elif free:
            await query.answer(texts.CB_DAILY_FULL.format(time=local_time, free=free))
        else:
            await query.answer(texts.CB_DAILY_ALL_FULL.format(time=local_time))
    text, current = await status_text(context, chat.id, user.id)
    markup = keyboards.daily_keyboard(current)
    await edit_or_send(context.bot, chat.id, press.message.message_id, text, markup)
