"""Sending a PNG (a chart) as a photo, with the same flood-control wait as text, and the chat
action shown while it is made."""

from __future__ import annotations

import logging

from telegram import InlineKeyboardMarkup, InputFile, Message
from telegram.constants import ChatAction, ParseMode
from telegram.error import TelegramError
from telegram.ext import ExtBot

from bot.telegram.outbound.send import with_retry

log = logging.getLogger(__name__)


async def show_action(bot: ExtBot[None], chat_id: int, action: ChatAction) -> None:
    """ "Sending a photo…" and the like: a courtesy while work takes a moment, so a failure
    is only logged."""
    try:
        await bot.send_chat_action(chat_id, action)
    except TelegramError as err:
        log.debug("chat %s: chat action %s not shown: %s", chat_id, action, err)


async def send_png(
    bot: ExtBot[None],
    chat_id: int,
    png: bytes,
    caption: str,
    markup: InlineKeyboardMarkup | None = None,
    *,
    filename: str = "chart.png",
) -> Message:
    """Upload PNG bytes as a photo (multipart) with an HTML caption and an optional keyboard."""
    return await with_retry(
        lambda: bot.send_photo(
            chat_id,
            InputFile(png, filename=filename),
            caption=caption,
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
        ),
        chat_id=chat_id,
    )
