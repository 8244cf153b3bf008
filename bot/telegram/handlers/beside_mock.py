"""/quiz and /mistakes while a mock exam runs: back to the exam, pause it, or practice outside it.

Practice shows each answer's verdict; beside a running exam (paused or not) it would give the
exam's answers away, so practice then never picks the exam's questions (bot.practice.service),
and /quiz or /mistakes first asks which the learner meant while the exam's clock runs.
"""

from __future__ import annotations

from bot.domain.kinds import Source
from bot.practice.mock_models import MockStatus
from bot.telegram import mock_jobs
from bot.telegram.context import QuizContext
from bot.telegram.handlers.buttons import Buttons, Press, Who
from bot.telegram.handlers.common import send_next_question
from bot.telegram.handlers.mock import show_start
from bot.telegram.outbound.mock_results import close_message, send_result
from bot.telegram.outbound.send import edit_or_send, send_html
from bot.telegram.views import callbacks, mock_keyboards, mock_render, mock_texts

BUTTONS = Buttons()
PRACTICE = {"quiz": Source.QUIZ, "mistakes": Source.MISTAKES}


async def asked_first(context: QuizContext, chat_id: int, user_id: int, practice: str) -> bool:
    """When a mock exam's clock runs, offer the exam, a pause, or practice outside it (True:
    asked, send nothing more); `practice` is the command, `quiz` or `mistakes`. A paused exam
    asks nothing: its learner paused it to practise."""
    services = context.services
    exam = await services.mock.running(user_id)
    if exam is None or exam.paused:
        return False
    left = mock_render.duration(exam.time_left(services.clock.now()))
    await send_html(
        context.bot,
        chat_id,
        mock_texts.MOCK_BESIDE.format(left=left),
        mock_keyboards.beside_keyboard(exam, practice),
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


@BUTTONS.on(callbacks.PAUSE_MOCK, Who.PRIVATE)
async def on_pause(press: Press, context: QuizContext) -> None:
    """Pause the exam named by the button (its clock and its deadline job wait), then practise
    outside it; the button of an exam that is over, or another's, changes nothing."""
    query, message, (exam_id, practice, token) = press.query, press.message, press.values
    chat_id, user, services = message.chat_id, query.from_user, context.services
    if not await services.mock.made_for(user.id, exam_id, token or None):
        await query.answer(mock_texts.CB_MOCK_OTHER_EXAM)
        return
    reply = await services.mock.pause(user.id, exam_id)
    exam = reply.exam
    if reply.status is MockStatus.EXPIRED and exam is not None and reply.result is not None:
        await query.answer(mock_texts.CB_MOCK_EXPIRED)
        await send_result(
            context.bot, services, exam, reply.result, closing=mock_texts.MOCK_EXPIRED
        )
        return
    if reply.status is not MockStatus.PAUSED or exam is None:
        await query.answer(mock_texts.CB_MOCK_STALE)
        return
    await query.answer(mock_texts.MOCK_PAUSED_LINE)
    left = mock_render.duration(reply.time_left_s)
    await edit_or_send(
        context.bot, chat_id, message.message_id, mock_texts.MOCK_PAUSED.format(left=left)
    )
    # The exam's message stops taking taps while its clock waits; /mock shows it again.
    await close_message(context.bot, exam, mock_texts.MOCK_PAUSED_LINE)
    await mock_jobs.arm(context.job_queue, services)
    await send_next_question(context, chat_id, user, source=PRACTICE[practice])
