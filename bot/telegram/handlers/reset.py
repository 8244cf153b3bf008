"""/reset in a private chat: forget the learner's progress in the current exam, after a
confirmation button. Other exams, the daily question and settings stay as they are."""

from __future__ import annotations

from telegram import Update

from bot.telegram.context import QuizContext
from bot.telegram.handlers.buttons import Buttons, Press, Who
from bot.telegram.handlers.common import effective, message_lock
from bot.telegram.outbound.send import edit_or_send, send_html
from bot.telegram.views import callbacks, keyboards, texts
from bot.telegram.views.render import clip, esc

BUTTONS = Buttons()


async def reset(update: Update, context: QuizContext) -> None:
    """/reset: ask to confirm forgetting the current exam's progress."""
    if (who := effective(update)) is None:
        return
    chat, user = who
    services = context.services
    bank = await services.practice.current_bank(user.id)
    text = texts.RESET_ASK.format(bank=esc(bank.meta.title))
    await send_html(context.bot, chat.id, text, keyboards.reset_keyboard(bank.id))


@BUTTONS.on(callbacks.RESET, Who.PRIVATE)
async def on_reset_button(press: Press, context: QuizContext) -> None:
    """Yes (`rs:<bank>`: the exam the question named, even if the learner switched since) or
    Cancel (`rs:-`)."""
    query, (chosen,) = press.query, press.values
    chat_id, message_id = press.message.chat_id, press.message.message_id
    if chosen == callbacks.RESET_CANCEL:
        await query.answer(texts.CB_RESET_CANCELLED)
        await edit_or_send(context.bot, chat_id, message_id, texts.RESET_CANCELLED)
        return
    services = context.services
    bank = services.catalog.banks.get(chosen)
    if bank is None:
        await query.answer(texts.BANK_GONE)
        return
    # One reset per message however often Yes is tapped: repeats wait, then find it done.
    async with message_lock(chat_id, message_id):
        forgotten = await services.guards.reset(query.from_user.id, bank.id)
        await query.answer(clip(texts.CB_RESET_DONE.format(count=forgotten)))
        text = texts.RESET_DONE.format(bank=esc(bank.meta.title))
        await edit_or_send(context.bot, chat_id, message_id, text)
