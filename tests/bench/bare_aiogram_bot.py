"""The bare bot of `bench http` on aiogram 3, for scale: /quiz → tap → verdict.

`python -m tests.bench.bare_aiogram_bot` with BOT_TOKEN and BOT_API_URL. aiogram is no
dependency of quizbot: `bench http` runs this variant only where aiogram is installed.
"""

from __future__ import annotations

import asyncio
import os

from aiogram import Bot, Dispatcher, F
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.filters import Command
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message

dispatcher = Dispatcher()


@dispatcher.message(Command("quiz"))
async def quiz(message: Message) -> None:
    """A question with four option buttons."""
    number = message.message_id
    buttons = [
        InlineKeyboardButton(text=x, callback_data=f"a:{number}:{i}") for i, x in enumerate("ABCD")
    ]
    await message.answer(
        f"<b>Question {number}</b>: which is right &amp; why?",
        parse_mode="HTML",
        reply_markup=InlineKeyboardMarkup(inline_keyboard=[buttons]),
    )


@dispatcher.callback_query(F.data)
async def tap(query: CallbackQuery) -> None:
    """Answer the tap, then edit the question into its verdict."""
    await query.answer()
    right = (query.data or "").endswith(":1")
    if isinstance(query.message, Message):
        await query.message.edit_text(
            f"{'Right' if right else 'Not quite'}: B, because <i>B</i>.", parse_mode="HTML"
        )


async def main() -> None:
    """Long-poll until SIGTERM."""
    session = AiohttpSession(api=TelegramAPIServer.from_base(os.environ["BOT_API_URL"]))
    bot = Bot(os.environ["BOT_TOKEN"], session=session)
    await dispatcher.start_polling(bot, handle_signals=True)


if __name__ == "__main__":
    asyncio.run(main())
