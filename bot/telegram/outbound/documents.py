"""Sending a file (the item-analysis HTML) as a document, with the same flood-control wait."""

from __future__ import annotations

from telegram import InputFile, Message
from telegram.constants import ParseMode
from telegram.ext import ExtBot

from bot.telegram.outbound.send import into_topic, with_retry

# Telegram's limit for a file a bot uploads with sendDocument.
DOCUMENT_BYTES_LIMIT = 50 * 1024 * 1024


class TooLarge(ValueError):
    """The file is over Telegram's upload limit for bots."""


async def send_file(
    bot: ExtBot[None],
    chat_id: int,
    data: bytes,
    filename: str,
    caption: str,
    *,
    thread: int | None = None,
) -> Message:
    """Upload bytes as a document (multipart) with an HTML caption, into the forum topic
    `thread` if any; TooLarge over 50 MB."""
    if len(data) > DOCUMENT_BYTES_LIMIT:
        raise TooLarge(f"{filename} is {len(data)} bytes, over {DOCUMENT_BYTES_LIMIT}")

    async def send(topic: int | None) -> Message:
        return await bot.send_document(
            chat_id,
            InputFile(data, filename=filename),
            caption=caption,
            parse_mode=ParseMode.HTML,
            message_thread_id=topic,
        )

    return await with_retry(lambda: into_topic(chat_id, thread, send), chat_id=chat_id)
