"""Taps on a mock exam's message (answer, move, flag, grid, finish, abandon) and the review.

A move's action letter and number: `a<d>` choose the option shown at display position d ·
`r<d>` unselect it (select-k) · `p`/`n` previous/next question · `f`/`u` flag/unflag ·
`g<q>` jump to question q · `v<page>` show another page of the jump grid · `e` finish ·
`y` finish, confirmed · `b` back to the question · `x` abandon, confirmed · `c` keep going.
"""

from __future__ import annotations

from telegram import CallbackQuery, Message

from bot.practice.mock_models import MockReply, MockStatus
from bot.telegram.context import QuizContext
from bot.telegram.handlers.buttons import Buttons, Press, Who
from bot.telegram.handlers.common import message_lock
from bot.telegram.outbound.mock_results import close_message, send_result
from bot.telegram.outbound.send import edit_html_json, edit_or_send, send_html
from bot.telegram.views import callbacks, mock_keyboards, mock_render, mock_texts
from bot.telegram.views.render import letters

BUTTONS = Buttons()


async def _show(
    query: CallbackQuery,
    message: Message,
    context: QuizContext,
    reply: MockReply,
    *,
    note: str = "",
    page: int | None = None,
) -> None:
    """Answer the tap, then edit the exam's message (or send the result) as the reply says."""
    bot, status, exam = context.bot, reply.status, reply.exam
    if status is MockStatus.SHOWN and exam is not None and reply.question is not None:
        await query.answer(note)
        await edit_html_json(
            bot,
            message.chat_id,
            message.message_id,
            mock_render.screen_text(exam, reply.question, reply.time_left_s),
            mock_keyboards.screen_markup(exam, page),
        )
    elif status is MockStatus.CONFIRM and exam is not None and reply.pending is not None:
        await query.answer()
        await edit_or_send(
            bot,
            message.chat_id,
            message.message_id,
            mock_render.confirm_text(reply.pending, reply.time_left_s),
            mock_keyboards.confirm_keyboard(exam),
        )
    elif status in (MockStatus.FINISHED, MockStatus.EXPIRED) and exam is not None:
        assert reply.result is not None
        expired = status is MockStatus.EXPIRED
        await query.answer(mock_texts.CB_MOCK_EXPIRED if expired else mock_texts.CB_MOCK_FINISHED)
        closing = mock_texts.MOCK_EXPIRED if expired else mock_texts.MOCK_SUBMITTED
        await send_result(bot, context.services, exam, reply.result, closing=closing)
    elif status is MockStatus.ABANDONED and exam is not None:
        await query.answer()
        await edit_or_send(bot, message.chat_id, message.message_id, mock_texts.MOCK_STOPPED)
        if exam.message_id != message.message_id:  # asked from /mock stop: close the exam too
            await close_message(bot, exam, mock_texts.MOCK_STOPPED)
    elif status is MockStatus.PAUSED:
        await query.answer(mock_texts.CB_MOCK_PAUSED)
    elif status is MockStatus.STALE:
        mine = exam is None or exam.user_id == query.from_user.id
        await query.answer(mock_texts.CB_MOCK_STALE if mine else mock_texts.CB_MOCK_NOT_YOURS)
    else:
        await query.answer(mock_texts.CB_MOCK_INVALID)


@BUTTONS.on(callbacks.MOCK_MOVE, Who.PRIVATE)
async def on_move(press: Press, context: QuizContext) -> None:
    """A button on the exam's message: `m:<exam>:<position>:<action><number>:<token>`."""
    query, message, (exam_id, pos, step, token) = press.query, press.message, press.values
    action, number = step[0], int(step[1:] or 0)
    svc, user = context.services.mock, query.from_user.id
    if not await svc.made_for(user, exam_id, token or None):
        # Another exam's button under the same id (a restore handed it out again): no change.
        await query.answer(mock_texts.CB_MOCK_OTHER_EXAM)
        return
    # Taps on one message run one at a time, so the edits land in the order of the writes.
    async with message_lock(message.chat_id, message.message_id):
        note, page = "", None
        if action in ("a", "r"):
            reply = await svc.choose(user, exam_id, pos, number, on=action == "a")
            if reply.exam is not None and reply.status is MockStatus.SHOWN:
                item = reply.exam.items[pos]
                chosen = item.chosen_display
                if action == "a" and number not in chosen:
                    note = mock_texts.CB_MOCK_TOO_MANY.format(count=item.select_count)
                elif chosen:
                    note = mock_texts.CB_MOCK_SAVED.format(letters=letters(chosen))
                else:
                    note = mock_texts.CB_MOCK_CLEARED
        elif action in ("p", "n"):
            reply = await svc.go(user, exam_id, pos - 1 if action == "p" else pos + 1)
        elif action in ("f", "u"):
            reply = await svc.flag(user, exam_id, pos, on=action == "f")
            note = mock_texts.CB_MOCK_FLAGGED if action == "f" else mock_texts.CB_MOCK_UNFLAGGED
        elif action == "g":
            reply = await svc.go(user, exam_id, number)
        elif action in ("v", "b"):
            reply = await svc.go(user, exam_id, pos)
            page = number if action == "v" else None
        elif action in ("e", "y"):
            reply = await svc.finish(user, exam_id, confirmed=action == "y")
        elif action == "x":
            reply = await svc.abandon(user, exam_id)
        elif action == "c":
            await query.answer()
            await edit_or_send(
                context.bot, message.chat_id, message.message_id, mock_texts.MOCK_GOES_ON
            )
            return
        else:
            await query.answer(mock_texts.CB_MOCK_INVALID)
            return
        await _show(query, message, context, reply, note=note, page=page)


@BUTTONS.on(callbacks.MOCK_REVIEW, Who.PRIVATE)
async def on_review(press: Press, context: QuizContext) -> None:
    """ "Review mistakes": one wrong or unanswered question at a time, like a practice verdict."""
    await _review(press, context, in_place=False)


@BUTTONS.on(callbacks.MOCK_REVIEW_SHOWN, Who.PRIVATE)
async def on_review_step(press: Press, context: QuizContext) -> None:
    """◀ ▶ between mistakes, in the review message."""
    await _review(press, context, in_place=True)


async def _review(press: Press, context: QuizContext, *, in_place: bool) -> None:
    query, message, (exam_id, index) = press.query, press.message, press.values
    services = context.services
    entries = await services.mock.review(query.from_user.id, exam_id)
    if entries is None:
        await query.answer(mock_texts.CB_REVIEW_AFTER_EXAM, show_alert=True)
        return
    if not 0 <= index < len(entries):
        await query.answer(mock_texts.CB_MOCK_INVALID)
        return
    result = await services.mock.result(query.from_user.id, exam_id)
    bank = services.catalog.bank(result.bank_id if result else None)
    await query.answer()
    text = mock_render.review_text(bank, entries, index)
    markup = mock_keyboards.review_keyboard(exam_id, index, len(entries))
    if in_place:
        await edit_or_send(context.bot, message.chat_id, message.message_id, text, markup)
    else:
        await send_html(context.bot, message.chat_id, text, markup)
