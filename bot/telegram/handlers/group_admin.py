"""Group and channel settings (admins only) and the leaderboard.

Admins are checked with getChatMember on every settings command: rights change in Telegram
without telling the bot, so a cached list would go stale.
"""

from __future__ import annotations

import datetime as dt
import html
import logging

from telegram import Update
from telegram.constants import ChatType

from bot.domain.kinds import PollMode
from bot.plural import plural
from bot.telegram.context import QuizContext
from bot.telegram.handlers.chat_admins import is_admin, refuse, reply
from bot.telegram.handlers.common import thread_of
from bot.telegram.outbound.documents import TooLarge, send_file
from bot.telegram.outbound.guarded import guarded
from bot.telegram.views import group_render, texts
from bot.telegram.views.render import esc

log = logging.getLogger(__name__)


async def _admin_or_refuse(update: Update, context: QuizContext) -> int | None:
    """The chat id if the sender is an admin; otherwise a polite refusal and None."""
    chat = update.effective_chat
    if chat is None:
        return None
    if not await is_admin(update, context):
        await refuse(update, context, texts.GROUP_ADMINS_ONLY)
        return None
    await context.services.groups.register(chat.id, chat.type, chat.title)
    return chat.id


async def leaderboard(update: Update, context: QuizContext) -> None:
    """/leaderboard: this week and all time; admins: /leaderboard off|on."""
    chat = update.effective_chat
    if chat is None:
        return
    groups = context.services.groups
    arg = (context.args or [""])[0].lower()
    if arg in ("on", "off"):
        if (chat_id := await _admin_or_refuse(update, context)) is None:
            return
        await groups.set_leaderboard(chat_id, arg == "on")
        await reply(update, context, texts.LEADERBOARD_SET.format(state=arg))
        return
    if arg:
        await reply(update, context, texts.LEADERBOARD_USAGE)
        return
    if chat.type == ChatType.CHANNEL:
        # As with /export: every subscriber would see who answered.
        await reply(update, context, texts.LEADERBOARD_NOT_IN_CHANNELS)
        return
    settings = await groups.settings(chat.id)
    if not settings.leaderboard:
        await reply(update, context, texts.LEADERBOARD_OFF)
        return
    board = await groups.leaderboard(chat.id)
    await reply(update, context, group_render.leaderboard_text(board, chat.title))


async def window(update: Update, context: QuizContext) -> None:
    """/window shows how long a question stays open; /window <minutes> (admins) sets it."""
    args = context.args or []
    if not args and (chat := update.effective_chat) is not None:
        settings = await context.services.groups.settings(chat.id)
        await reply(update, context, texts.WINDOW_CURRENT.format(minutes=settings.window_s // 60))
        return
    # isdecimal, not isdigit: "²" is a digit that int() refuses.
    if len(args) != 1 or not args[0].isdecimal():
        await reply(update, context, texts.WINDOW_USAGE)
        return
    if (chat_id := await _admin_or_refuse(update, context)) is None:
        return
    digits = args[0].lstrip("0") or "0"
    # Past six digits it is clamped all the same; int() would refuse past 4,300 of them, and
    # the note would echo them all.
    long = len(digits) > 6
    asked = 10**6 if long else int(digits)
    seconds = await context.services.groups.set_window(chat_id, asked)
    text = texts.WINDOW_SET.format(minutes=seconds // 60)
    if seconds != asked * 60:
        text += texts.WINDOW_CLAMPED.format(asked=digits[:6] + "…" if long else asked)
    await reply(update, context, text + texts.WINDOW_FROM_NEXT)


MODES = {
    PollMode.QUIZ_POLL: "Telegram quiz polls",
    PollMode.BUTTONS: "questions with answer buttons",
}


async def quizpoll(update: Update, context: QuizContext) -> None:
    """/quizpoll shows the mode and how many of the chat's questions can be polls;
    /quizpoll on|off (admins): Telegram's native quiz poll instead of answer buttons."""
    args = [a.lower() for a in context.args or []]
    chat = update.effective_chat
    if not args and chat is not None:
        settings = await context.services.groups.settings(chat.id)
        now = texts.POLL_MODE_NOW.format(mode=MODES[settings.poll_mode])
        text = f"{now} {await _polls_fitting(context, chat.id)}\n{texts.POLL_MODE_USAGE}"
        await reply(update, context, text)
        return
    if args not in (["on"], ["off"]):
        await reply(update, context, texts.POLL_MODE_USAGE)
        return
    if (chat_id := await _admin_or_refuse(update, context)) is None:
        return
    mode = PollMode.QUIZ_POLL if args == ["on"] else PollMode.BUTTONS
    await context.services.groups.set_poll_mode(chat_id, mode)
    text = texts.POLL_MODE_SET.format(mode=MODES[mode])
    if mode is PollMode.QUIZ_POLL:
        # Said once, here: each question that cannot be a poll then goes out with buttons.
        text += " " + await _polls_fitting(context, chat_id)
    await reply(update, context, text)


async def _polls_fitting(context: QuizContext, chat_id: int) -> str:
    """How many of the chat's questions (its bank, its topic if it chose one) can be polls."""
    services = context.services
    settings = await services.groups.settings(chat_id)
    bank = services.catalog.bank(settings.bank_id)
    fit, total = group_render.polls_fitting(bank.in_topic(settings.topic))
    text = texts.POLL_FIT.format(fit=fit, total=total, bank=esc(bank.meta.title))
    if fit < total:
        text += texts.POLL_UNFIT.format(rest=total - fit)
    return text + texts.POLL_LONG_STEM


async def export(update: Update, context: QuizContext) -> None:
    """/export (admins): the group's results as a CSV document, one row per member."""
    if (chat_id := await _admin_or_refuse(update, context)) is None:
        return
    chat = update.effective_chat
    if chat is not None and chat.type == ChatType.CHANNEL:
        # Posted in a channel, the file would show every subscriber who answered (name,
        # username, id) to all the others.
        await reply(update, context, texts.EXPORT_NOT_IN_CHANNELS.format(chat_id=chat_id))
        return
    data, members = await context.services.groups.results_csv(chat_id)
    title = update.effective_chat.title if update.effective_chat else None
    # A chat title is at most 128 characters: the caption stays far below Telegram's 1024.
    caption = texts.EXPORT_CAPTION.format(
        title=html.escape(title or "this chat"), members=plural(members, "member")
    )
    name = f"results-{abs(chat_id)}-{dt.datetime.now(dt.UTC):%Y-%m-%d}.csv"
    thread = thread_of(update)
    try:
        await guarded(
            context.services,
            chat_id,
            lambda cid: send_file(context.bot, cid, data, name, caption, thread=thread),
        )
    except TooLarge as err:
        log.warning("/export: %s", err)
        await reply(update, context, texts.EXPORT_TOO_LARGE)
