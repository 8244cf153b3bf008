"""Group and channel settings (admins only) and the leaderboard.

Admins are checked with getChatMember on every settings command: rights change in Telegram
without telling the bot, so a cached list would go stale.
"""

from __future__ import annotations

import datetime as dt
import html
import logging

from telegram import Update

from bot.domain.kinds import PollMode
from bot.telegram.context import QuizContext
from bot.telegram.handlers.chat_admins import is_admin, reply
from bot.telegram.outbound.documents import TooLarge, send_file
from bot.telegram.views import group_render, texts

log = logging.getLogger(__name__)


async def _admin_or_refuse(update: Update, context: QuizContext) -> int | None:
    """The chat id if the sender is an admin; otherwise a polite refusal and None."""
    chat = update.effective_chat
    if chat is None:
        return None
    if not await is_admin(update, context):
        await reply(update, context, texts.GROUP_ADMINS_ONLY)
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
    settings = await groups.settings(chat.id)
    if not settings.leaderboard:
        await reply(update, context, texts.LEADERBOARD_OFF)
        return
    board = await groups.leaderboard(chat.id)
    await reply(update, context, group_render.leaderboard_text(board, chat.title))


async def window(update: Update, context: QuizContext) -> None:
    """/window <minutes> (admins): how long a question stays open."""
    args = context.args or []
    if len(args) != 1 or not args[0].isdigit():
        await reply(update, context, texts.WINDOW_USAGE)
        return
    if (chat_id := await _admin_or_refuse(update, context)) is None:
        return
    asked = int(args[0])
    seconds = await context.services.groups.set_window(chat_id, asked)
    text = texts.WINDOW_SET.format(minutes=seconds // 60)
    if seconds != asked * 60:
        text += texts.WINDOW_CLAMPED.format(asked=asked)
    await reply(update, context, text + texts.WINDOW_FROM_NEXT)


async def quizpoll(update: Update, context: QuizContext) -> None:
    """/quizpoll on|off (admins): Telegram's native quiz poll instead of answer buttons."""
    args = [a.lower() for a in context.args or []]
    if args not in (["on"], ["off"]):
        await reply(update, context, texts.POLL_MODE_USAGE)
        return
    if (chat_id := await _admin_or_refuse(update, context)) is None:
        return
    on = args == ["on"]
    await context.services.groups.set_poll_mode(
        chat_id, PollMode.QUIZ_POLL if on else PollMode.BUTTONS
    )
    mode = "Telegram quiz polls" if on else "questions with answer buttons"
    await reply(update, context, texts.POLL_MODE_SET.format(mode=mode))


async def export(update: Update, context: QuizContext) -> None:
    """/export (admins): the group's results as a CSV document, one row per member."""
    if (chat_id := await _admin_or_refuse(update, context)) is None:
        return
    data, members = await context.services.groups.results_csv(chat_id)
    title = update.effective_chat.title if update.effective_chat else None
    # A chat title is at most 128 characters: the caption stays far below Telegram's 1024.
    caption = texts.EXPORT_CAPTION.format(title=html.escape(title or "this chat"), members=members)
    name = f"results-{abs(chat_id)}-{dt.datetime.now(dt.UTC):%Y-%m-%d}.csv"
    try:
        await send_file(context.bot, chat_id, data, name, caption)
    except TooLarge as err:
        log.warning("/export: %s", err)
        await reply(update, context, texts.EXPORT_TOO_LARGE)
