"""`/mock` (start, resume, `short`, `stop`), the offer of a shorter exam, and `/ready`."""

from __future__ import annotations

from telegram import InlineKeyboardMarkup, Update

from bot.mock.models import ExamKind
from bot.plural import plural
from bot.practice.mock_models import MockReply, MockStatus
from bot.telegram import mock_jobs
from bot.telegram.context import QuizContext
from bot.telegram.handlers.buttons import Buttons, Press, Who
from bot.telegram.handlers.common import effective
from bot.telegram.outbound.mock_results import close_message, send_result
from bot.telegram.outbound.send import edit_or_send, send_html
from bot.telegram.views import callbacks, mock_keyboards, mock_render, mock_texts
from bot.telegram.views import readiness_render as ready_views
from bot.telegram.views.render import esc

BUTTONS = Buttons()


async def show_new(context: QuizContext, chat_id: int, reply: MockReply) -> None:
    """Send the exam's screen as a new message and make it the exam's one message."""
    exam, question = reply.exam, reply.question
    assert exam is not None and question is not None
    message = await send_html(
        context.bot,
        chat_id,
        mock_render.screen_text(exam, question, reply.time_left_s),
        InlineKeyboardMarkup.de_json(mock_keyboards.screen_markup(exam), context.bot),
    )
    await context.services.mock.attach_message(exam.id, chat_id, message.message_id)


async def show_start(context: QuizContext, chat_id: int, reply: MockReply) -> None:
    """What a start (or a resume) replies, as new messages."""
    services = context.services
    if reply.status is MockStatus.STARTED:
        await show_new(context, chat_id, reply)
        await mock_jobs.arm(context.job_queue, services)
    elif reply.status in (MockStatus.RUNNING, MockStatus.SHOWN, MockStatus.RESUMED):
        assert reply.exam is not None
        if reply.status is MockStatus.RUNNING:
            await send_html(context.bot, chat_id, mock_texts.MOCK_ALREADY_RUNNING)
        if reply.status is MockStatus.RESUMED:  # its clock runs again: so does its deadline
            left = mock_render.duration(reply.time_left_s)
            await send_html(context.bot, chat_id, mock_texts.MOCK_RESUMED.format(left=left))
            await mock_jobs.arm(context.job_queue, services)
        # The old message stops taking taps in the chat's view: the exam continues below.
        await close_message(context.bot, reply.exam, mock_texts.MOCK_MOVED)
        await show_new(context, chat_id, reply)
    elif reply.status is MockStatus.EXPIRED:
        assert reply.exam is not None and reply.result is not None
        await send_result(
            context.bot, services, reply.exam, reply.result, closing=mock_texts.MOCK_EXPIRED
        )
    elif reply.status is MockStatus.TOO_SMALL:
        assert reply.too_small is not None
        offer = reply.offer
        if offer is None:
            await send_html(context.bot, chat_id, mock_texts.MOCK_EMPTY_BANK)
            return
        minutes = offer.seconds // 60
        text = mock_texts.MOCK_TOO_SMALL.format(
            available=plural(reply.too_small.available, "question"),
            requested=reply.too_small.requested,
            offer=offer.questions,
            minutes=minutes,
        )
        await send_html(
            context.bot, chat_id, text, mock_keyboards.offer_keyboard(offer.questions, minutes)
        )
    else:
        await send_html(context.bot, chat_id, mock_texts.MOCK_NONE_RUNNING)


async def mock(update: Update, context: QuizContext) -> None:
    """`/mock` starts (or resumes, a paused one too) an exam; `/mock short` a quarter one;
    `/mock stop` asks to abandon it."""
    if (who := effective(update)) is None:
        return
    chat, user = who
    services = context.services
    arg = " ".join(context.args or []).lower()
    if arg not in ("", "short", "stop"):
        # A typo or a size must not start the full timed exam with its clock running.
        await send_html(context.bot, chat.id, mock_texts.MOCK_USAGE.format(value=esc(arg[:40])))
        return
    if arg == "stop":
        reply = await services.mock.resume(user.id, unpause=False)
        if reply.status is MockStatus.SHOWN and reply.exam is not None:
            await send_html(
                context.bot,
                chat.id,
                mock_render.stop_text(reply.exam, reply.time_left_s),
                mock_keyboards.stop_keyboard(reply.exam),
            )
            return
        await show_start(context, chat.id, reply)
        return
    running = await services.mock.resume(user.id)
    if running.status is not MockStatus.NONE:
        # Asked for another exam: say why not.
        if arg and running.status in (MockStatus.SHOWN, MockStatus.RESUMED):
            await send_html(context.bot, chat.id, mock_texts.MOCK_ALREADY_RUNNING)
        await show_start(context, chat.id, running)
        return
    kind = ExamKind.SHORT if arg == "short" else ExamKind.FULL
    reply = await services.mock.start(user.id, chat_id=chat.id, kind=kind)
    await show_start(context, chat.id, reply)


@BUTTONS.on(callbacks.MOCK_OFFER, Who.PRIVATE)
async def on_offer(press: Press, context: QuizContext) -> None:
    """The button of a shorter exam offered when the bank is too small."""
    query, message, (what,) = press.query, press.message, press.values
    kind, count = {
        "full": (ExamKind.FULL, None),
        "short": (ExamKind.SHORT, None),
    }.get(what, (ExamKind.REDUCED, int(what) if what.isdigit() else None))
    reply = await context.services.mock.start(
        query.from_user.id, chat_id=message.chat_id, kind=kind, questions=count
    )
    if reply.status is MockStatus.RUNNING:
        await query.answer(mock_texts.CB_MOCK_RUNNING)
        return
    await query.answer()
    await edit_or_send(context.bot, message.chat_id, message.message_id, message.text_html or "…")
    await show_start(context, message.chat_id, reply)


async def ready(update: Update, context: QuizContext) -> None:
    """`/ready`: the predicted exam score, its range and the chance of passing."""
    if (who := effective(update)) is None:
        return
    chat, user = who
    report = await context.services.readiness.report(user.id)
    await send_html(context.bot, chat.id, ready_views.readiness_text(report))
