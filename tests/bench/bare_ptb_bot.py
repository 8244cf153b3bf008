"""A bare python-telegram-bot bot of quizbot's shape, for `bench http`: /quiz → tap → verdict.

`python -m tests.bench.bare_ptb_bot` with BOT_TOKEN and BOT_API_URL; BARE_HTTP=fast puts
quizbot's FastRequest under it instead of PTB's default transport.
"""

from __future__ import annotations

import os

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from bot.telegram.transport import FastRequest


async def quiz(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A question with four option buttons."""
    assert update.effective_message is not None
    number = update.effective_message.message_id
    buttons = [
        InlineKeyboardButton(f"{x}", callback_data=f"a:{number}:{i}") for i, x in enumerate("ABCD")
    ]
    await update.effective_message.reply_html(
        f"<b>Question {number}</b>: which is right &amp; why?",
        reply_markup=InlineKeyboardMarkup([buttons]),
    )


async def tap(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Answer the tap, then edit the question into its verdict."""
    query = update.callback_query
    assert query is not None and query.data is not None
    await query.answer()
    right = query.data.endswith(":1")
    await query.edit_message_text(
        f"{'Right' if right else 'Not quite'}: B, because <i>B</i>.", parse_mode="HTML"
    )


def main() -> None:
    """Long-poll until SIGTERM."""
    url = os.environ["BOT_API_URL"]
    builder = (
        Application.builder()
        .token(os.environ["BOT_TOKEN"])
        .base_url(f"{url}/bot")
        .concurrent_updates(32)  # as quizbot
    )
    if os.environ.get("BARE_HTTP") == "fast":
        builder = builder.request(FastRequest(connection_pool_size=32)).get_updates_request(
            FastRequest(read_timeout=40)
        )
    app = builder.build()
    app.add_handler(CommandHandler("quiz", quiz))
    app.add_handler(CallbackQueryHandler(tap))
    app.run_polling(allowed_updates=Update.ALL_TYPES)


if __name__ == "__main__":
    main()
