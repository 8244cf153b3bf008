"""A learner reports a bad question from its verdict: ⚑ Report, why, then an optional one-line
comment as a reply to a ForceReply prompt. One report per learner and question counts; a
repeated or forged press gets a polite answer and changes nothing."""

from __future__ import annotations

from telegram import ForceReply, Update

from bot.domain.models import AnswerStatus
from bot.telegram.context import QuizContext
from bot.telegram.handlers import commands
from bot.telegram.handlers.buttons import Buttons, Press, Who
from bot.telegram.handlers.common import REFUSALS
from bot.telegram.outbound.send import edit_or_send, send_html
from bot.telegram.views import callbacks, keyboards, texts

BUTTONS = Buttons()


async def _delivery_or_refuse(press: Press, context: QuizContext, token: str) -> bool:
    """Whether the press names a delivery of this chat still shown; if not, it is answered."""
    delivery_id = press.values[0]
    delivery, status = await context.services.practice.button_delivery(
        delivery_id, press.message.chat_id, token
    )
    if delivery is None:
        await press.query.answer(REFUSALS.get(status or AnswerStatus.UNKNOWN, texts.CB_UNKNOWN))
        return False
    reports = context.services.reports
    if await reports.reported(press.query.from_user.id, delivery.bank_id, delivery.question.id):
        await press.query.answer(texts.CB_REPORT_ALREADY)
        return False
    return True


@BUTTONS.on(callbacks.REPORT, Who.PRIVATE)
async def on_report(press: Press, context: QuizContext) -> None:
    """ "⚑ Report" under a verdict: ask why."""
    delivery_id, token = press.values
    if not await _delivery_or_refuse(press, context, token):
        return
    await press.query.answer(texts.CB_REPORT_ASK)
    await send_html(
        context.bot,
        press.message.chat_id,
        texts.REPORT_WHY,
        keyboards.report_reasons_keyboard(delivery_id, token or None),
        reply_to=press.message.message_id,
    )


@BUTTONS.on(callbacks.REPORT_WHY, Who.PRIVATE)
async def on_report_why(press: Press, context: QuizContext) -> None:
    """A reason chosen: file the report, then offer the comment prompt."""
    delivery_id, reason, token = press.values
    if not await _delivery_or_refuse(press, context, token):
        return
    reports = context.services.reports
    report_id = await reports.file(delivery_id, press.query.from_user.id, reason)
    if report_id is None:  # a second press raced the first
        await press.query.answer(texts.CB_REPORT_ALREADY)
        return
    await press.query.answer(texts.CB_REPORT_THANKS)
    chat_id = press.message.chat_id
    label = texts.REPORT_REASONS[reason]
    filed = texts.REPORT_FILED.format(reason=label)
    await edit_or_send(context.bot, chat_id, press.message.message_id, filed)
    prompt = await send_html(
        context.bot,
        chat_id,
        texts.REPORT_COMMENT_PROMPT,
        ForceReply(input_field_placeholder=texts.REPORT_COMMENT_PLACEHOLDER),
    )
    await reports.prompted(report_id, prompt.message_id)


async def on_reply(update: Update, context: QuizContext) -> None:
    """A private text reply: a report's comment when it answers a prompt, else free text."""
    message = update.effective_message
    user = update.effective_user
    replied = message.reply_to_message if message is not None else None
    if message is None or user is None or replied is None or message.text is None:
        return await commands.free_text(update, context)
    saved = await context.services.reports.comment(user.id, replied.message_id, message.text)
    if saved is None:
        return await commands.free_text(update, context)
    text = texts.REPORT_COMMENT_SAVED if saved else texts.REPORT_COMMENT_SKIPPED
    await send_html(context.bot, message.chat_id, text)
