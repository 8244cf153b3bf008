"""/quiz and /mistakes while a mock exam runs: back to the exam, or practice outside it.

Practice shows each answer's verdict; beside a running exam it would give the exam's answers
away, so practice then never picks the exam's questions (bot.practice.service), and /quiz or
/mistakes first asks which the learner meant.
"""

from __future__ import annotations

from bot.domain.kinds import Source
from bot.telegram.context import QuizContext
from bot.telegram.handlers.buttons import Buttons, Press, Who
from bot.telegram.handlers.common import send_next_question
from bot.telegram.handlers.mock import show_start
from bot.telegram.outbound.send import edit_or_send, send_html
from bot.telegram.views import callbacks, mock_keyboards, mock_render, mock_texts

BUTTONS = Buttons()
PRACTICE = {"quiz": Source.QUIZ, "mistakes": Source.MISTAKES}


async def asked_first(context: QuizContext, chat_id: int, user_id: int, practice: str) -> bool:
    """When a mock exam runs, offer the exam or practice outside it (True: asked, send
    nothing more); `practice` is the command, `quiz` or `mistakes`."""
    services = context.services
    exam = await services.mock.running(user_id)
    if exam is None:
        return False
    left = mock_render.duration(exam.time_left(services.clock.now()))
    await send_html(
        context.bot,
        chat_id,
        mock_texts.MOCK_BESIDE.format(left=left),
        mock_keyboards.beside_keyboard(practice),
    )
    return True


@BUTTONS.on(callbacks.BESIDE_MOCK, Who.PRIVATE)
async def on_beside(press: Press, context: QuizContext) -> None:
    """Back to the exam (its screen, as /mock shows it), or a question outside it."""
    query, message, (choice,) = press.query, press.message, press.values
    chat_id, user = message.chat_id, query.from_user
    if choice == callbacks.BACK_TO_EXAM:
        await query.answer()
        await show_start(context, chat_id, await context.services.mock.resume(user.id))
        return
    await query.answer(mock_texts.CB_OUTSIDE_EXAM)
    await edit_or_send(context.bot, chat_id, message.message_id, mock_texts.CB_OUTSIDE_EXAM)
    await send_next_question(context, chat_id, user, source=PRACTICE[choice])
