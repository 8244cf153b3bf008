"""sendMessage, editMessageText and answerCallbackQuery posted as Bot API JSON through PTB's
`Bot._post`, the one private PTB API the bot uses.

Why: on the push and the answer path nobody reads the Message that `Bot.send_message` and
`edit_message_text` parse from Telegram's reply (the push needs only the message id), nor
needs keyboard objects built only to be serialised again (tests/bench/ measures both paths).
`_post` raises exactly the errors the public methods raise. The public `Bot.do_api_request`
would do the same but warns for endpoints PTB implements. pyproject pins PTB to 22.x for this,
and tests/test_json_api.py fails loudly if `_post` changes its name, signature or errors.
"""

from __future__ import annotations

from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.ext import ExtBot


async def send_message_json(bot: ExtBot[None], params: dict[str, Any]) -> int:
    """sendMessage with Bot API JSON params (reply_markup as a dict); the new message's id."""
    result = await bot._post("sendMessage", params)
    return int(result["message_id"])


async def answer_callback(bot: ExtBot[None], query_id: str, text: str | None = None) -> None:
    """answerCallbackQuery with the params `CallbackQuery.answer(text)` sends (a test keeps
    them equal), raising what it raises."""
    await bot._post("answerCallbackQuery", {"callback_query_id": query_id, "text": text})


async def edit_message_json(bot: ExtBot[None], params: dict[str, Any]) -> None:
    """editMessageText with Bot API JSON params: no keyboard objects built, none parsed back
    (a mock exam's screen carries dozens of buttons)."""
    await bot._post("editMessageText", params)


# The button fields the bot's keyboards use; a button with any other field set is serialised by
# PTB itself (to_dict), which walks every attribute generically and is slow for what it does.
_PLAIN_FIELDS = ("text", "callback_data", "url")
_OTHER_FIELDS = tuple(name for name in InlineKeyboardButton.__slots__ if name not in _PLAIN_FIELDS)


def markup_json(markup: InlineKeyboardMarkup) -> dict[str, Any]:
    """The keyboard as Bot API JSON, equal to `markup.to_dict()` (a test keeps it so)."""
    rows: list[list[dict[str, Any]]] = []
    for row in markup.inline_keyboard:
        out: list[dict[str, Any]] = []
        for button in row:
            if button.api_kwargs or any(getattr(button, f) is not None for f in _OTHER_FIELDS):
                return markup.to_dict()
            out.append({f: v for f in _PLAIN_FIELDS if (v := getattr(button, f)) is not None})
        rows.append(out)
    return {"inline_keyboard": rows}


async def edit_text_raw(
    bot: ExtBot[None],
    chat_id: int,
    message_id: int,
    text: str,
    markup: InlineKeyboardMarkup | None,
) -> None:
    """editMessageText in HTML (the verdict among others) without parsing the edited Message
    Telegram returns, which nobody reads."""
    params: dict[str, Any] = {
        "chat_id": chat_id,
        "message_id": message_id,
        "text": text,
        "parse_mode": ParseMode.HTML,
        "reply_markup": None if markup is None else markup_json(markup),
    }
    await edit_message_json(bot, params)
