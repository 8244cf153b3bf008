"""Sending a PNG (a chart) as a photo, with the same flood-control wait as text."""

from __future__ import annotations

from telegram import InlineKeyboardMarkup, InputFile, Message
from telegram.constants import ParseMode
from telegram.ext import ExtBot

from bot.telegram.outbound.send import with_retry


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
