"""Commands sent where they do not work, and messages the bot cannot read: a short hint instead
of silence. Private commands in a group, group commands in a private chat, an unknown command
addressed to the bot in a group, and stickers, photos, voice notes or files in a private chat.
"""

from __future__ import annotations

from telegram import Update

from bot.telegram.context import QuizContext
from bot.telegram.handlers.chat_admins import reply
from bot.telegram.outbound.send import send_html
from bot.telegram.views import group_render, texts
from bot.telegram.views.render import esc


def command_of(update: Update) -> str:
    """The command word of a message, without its slash or @bot suffix ('' if none)."""
    message = update.effective_message
    word = (message.text or "").split(maxsplit=1)[0] if message and message.text else ""
    return word[1:].split("@", 1)[0].lower() if word.startswith("/") else ""


async def group_start(update: Update, context: QuizContext) -> None:
    """/start in a group or channel: what works here."""
    chat = update.effective_chat
    if chat is None:
        return
    settings = await context.services.groups.settings(chat.id)
    text = texts.GROUP_WELCOME.format(window=f"{settings.window_s // 60} min")
    await reply(update, context, text)


async def group_stats(update: Update, context: QuizContext) -> None:
    """/stats in a group: a member's record is private; a link opens it in our chat."""
    url = group_render.stats_url(context.bot.username or "")
    await reply(update, context, texts.GROUP_STATS.format(url=esc(url)))


async def group_private_only(update: Update, context: QuizContext) -> None:
    """/admin, /reload and the other private-chat commands sent in a group or channel."""
    command = command_of(update)
    await reply(update, context, texts.GROUP_PRIVATE_ONLY.format(command=command))


async def group_unknown(update: Update, context: QuizContext) -> None:
    """An unknown command addressed to this bot (`/foo@bot`) in a group or channel.

    A bare `/foo` may be for another bot in the chat, so it gets no reply.
    """
    message = update.effective_message
    word = (message.text or "").split(maxsplit=1)[0] if message and message.text else ""
    if word.lower().endswith(f"@{(context.bot.username or '').lower()}"):
        await reply(update, context, texts.GROUP_UNKNOWN_COMMAND)


async def private_group_only(update: Update, context: QuizContext) -> None:
    """/leaderboard, /reveal, /window, /quizpoll in a private chat: they work in groups."""
    chat = update.effective_chat
    if chat is not None:
        text = texts.PRIVATE_GROUP_ONLY.format(command=command_of(update))
        await send_html(context.bot, chat.id, text)


async def private_not_text(update: Update, context: QuizContext) -> None:
    """A sticker, photo, voice note, file or other non-text message in a private chat."""
    chat = update.effective_chat
    if chat is not None:
        await send_html(context.bot, chat.id, texts.NOT_TEXT)
