"""A question with pictures: each photo sent by the file_id Telegram gave it at its first
upload, the question as the last photo's caption when it fits (else as the message after it),
and the verdict edited into that caption."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import InlineKeyboardMarkup, InputFile, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest
from telegram.ext import ExtBot

from bot.bank.limits import TELEGRAM_CAPTION_CHARS
from bot.practice.media_files import MediaFiles
from bot.telegram.outbound.failures import refused_file_id, refused_photo
from bot.telegram.outbound.send import Then, edit_else_send, send_html, send_parts, with_retry
from bot.telegram.views.html_split import split_html, visible_length
from bot.telegram.views.question_media import Picture

log = logging.getLogger(__name__)


# One upload per picture at a time: a push sends the same question to many chats at once,
# and every one of them would otherwise upload it before the first file_id is stored.
_uploads: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()


def _upload_lock(key: str) -> asyncio.Lock:
    lock = _uploads.get(key)
    if lock is None:
        lock = _uploads[key] = asyncio.Lock()
    return lock


async def photo_by_key(
    media: MediaFiles, picture: Picture, send: Callable[[str | InputFile], Awaitable[Message]]
) -> Message:
    """`send` the picture by its stored file_id, else made (drawn or read) and uploaded, its
    new file_id stored for the next time."""
    known = await media.file_id(picture.key)
    if known is None:
        lock = _upload_lock(picture.key)
        async with lock:
            known = await media.file_id(picture.key)  # uploaded while we waited?
            if known is None:
                return await _upload(media, picture, send)
    try:
        return await send(known)
    except BadRequest as err:
        if not refused_file_id(err):
            raise
        log.info("file_id of %s refused (%s): uploading it again", picture.key, err)
        await media.forget(picture.key, known)
    async with _upload_lock(picture.key):
        return await _upload(media, picture, send)


class PictureUnavailable(Exception):
    """A picture could not be made; the sender goes on without it."""


async def _upload(
    media: MediaFiles, picture: Picture, send: Callable[[str | InputFile], Awaitable[Message]]
) -> Message:
    # Drawing a formula takes a moment of CPU: off the event loop, as the charts are.
    try:
        data = await asyncio.to_thread(picture.make)
    except (OSError, ValueError, RuntimeError) as err:
        # An image deleted since the bank loaded, a formula mathtext parsed but cannot draw:
        # the question still goes, as text.
        log.warning("picture %s (%s) cannot be made: %s", picture.key, picture.filename, err)
        raise PictureUnavailable(picture.filename) from err
    try:
        message = await send(InputFile(data, filename=picture.filename))
    except BadRequest as err:
        if not refused_photo(err):
            raise
        # Telegram would not take this picture (its size, its contents): the question still
        # goes, as text, and the log says which picture to look at.
        log.warning("picture %s (%s) refused by Telegram: %s", picture.key, picture.filename, err)
        raise PictureUnavailable(picture.filename) from err
    if message.photo:
        await media.remember(picture.key, message.photo[-1].file_id)
    return message


async def send_picture(
    bot: ExtBot[None],
    media: MediaFiles,
    chat_id: int,
    picture: Picture,
    caption: str | None = None,
    markup: InlineKeyboardMarkup | None = None,
    *,
    then: Then | None = None,
) -> Message:
    """One photo as a reply (flood control waited out as for text), by file_id when known."""

    async def send(photo: str | InputFile) -> Message:
        return await with_retry(
            lambda: bot.send_photo(
                chat_id, photo, caption=caption, parse_mode=ParseMode.HTML, reply_markup=markup
            ),
            chat_id=chat_id,
            then=then,
        )

    return await photo_by_key(media, picture, send)


def fits_caption(text: str) -> bool:
    """Whether HTML text fits a photo's caption (Telegram counts it after parsing)."""
    return len(text) <= TELEGRAM_CAPTION_CHARS or visible_length(text) <= TELEGRAM_CAPTION_CHARS


async def send_with_pictures(
    bot: ExtBot[None],
    media: MediaFiles,
    chat_id: int,
    shown: list[Picture],
    text: str,
    markup: InlineKeyboardMarkup | None,
    *,
    then: Then | None = None,
) -> Message:
    """The pictures, then the question: as the last one's caption with the buttons when it
    fits, else as its own message(s) right after. Returns the message the buttons are on."""
    for picture in shown[:-1]:
        with contextlib.suppress(PictureUnavailable):
            await send_picture(bot, media, chat_id, picture)
    if fits_caption(text):
        try:
            return await send_picture(bot, media, chat_id, shown[-1], text, markup, then=then)
        except PictureUnavailable:
            return await send_html(bot, chat_id, text, markup, then=then)
    with contextlib.suppress(PictureUnavailable):
        await send_picture(bot, media, chat_id, shown[-1])
    return await send_html(bot, chat_id, text, markup, then=then)


async def edit_caption_json(
    bot: ExtBot[None], chat_id: int, message_id: int, text: str, markup: dict[str, Any]
) -> None:
    """Edit a photo's caption into `text` with the keyboard; what does not fit the caption
    follows as new messages, the keyboard under the last. A photo too old to edit gets the
    whole text as new messages."""
    keyboard = InlineKeyboardMarkup.de_json(markup, bot)
    parts = split_html(text, TELEGRAM_CAPTION_CHARS) if not fits_caption(text) else [text]
    rest = split_html("\n".join(parts[1:])) if len(parts) > 1 else []
    edited = await edit_else_send(
        lambda: with_retry(
            lambda: bot.edit_message_caption(
                chat_id=chat_id,
                message_id=message_id,
                caption=parts[0],
                parse_mode=ParseMode.HTML,
                reply_markup=None if rest else keyboard,
            ),
            chat_id=chat_id,
        ),
        lambda: send_parts(bot, chat_id, split_html(text), keyboard),
        chat_id,
        message_id,
    )
    if edited and rest:
        await send_parts(bot, chat_id, rest, keyboard)
