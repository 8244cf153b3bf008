"""Editing a message whose keyboard is given as Bot API JSON (the mock exam's screen)."""

from __future__ import annotations

from typing import Any

from telegram import InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.ext import ExtBot

from bot.bank.limits import TELEGRAM_MESSAGE_CHARS
from bot.telegram.outbound.fast_send import edit_message_json, send_message_json
from bot.telegram.outbound.send import edit_else_send, edit_or_send, with_retry


async def edit_html_json(
    bot: ExtBot[None], chat_id: int, message_id: int, text: str, markup: dict[str, Any]
) -> None:
    """Edit in place like `edit_or_send`: a repeated edit is fine, a message too old to edit
    gets a new one, and a text that might not fit one message goes the splitting way."""
    if (
        len(text) > TELEGRAM_MESSAGE_CHARS
    ):  # tags included: the shown text may still fit; split safely
        await edit_or_send(
            bot, chat_id, message_id, text, InlineKeyboardMarkup.de_json(markup, bot)
        )
        return
    params = {
        "chat_id": chat_id,
        "text": text,
        "parse_mode": ParseMode.HTML,
        "reply_markup": markup,
    }
    await edit_else_send(
        lambda: with_retry(
            lambda: edit_message_json(bot, {**params, "message_id": message_id}), chat_id=chat_id
        ),
        lambda: with_retry(lambda: send_message_json(bot, params), chat_id=chat_id),
        chat_id,
        message_id,
    )
