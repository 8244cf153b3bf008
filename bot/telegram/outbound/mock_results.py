"""A submitted mock exam reaches the learner: its message closed, the result, chart and review.

Used by the buttons (Finish, a tap after the deadline) and by the deadline job, which sends on
its own when the learner is away.
"""

from __future__ import annotations

import asyncio
import logging

from telegram.error import BadRequest, Forbidden
from telegram.ext import ExtBot

from bot.charts import TopicBar, mock_chart
from bot.mock.models import Exam
from bot.mock.scoring import MockResult
from bot.telegram.context import Services
from bot.telegram.outbound.photos import send_png
from bot.telegram.outbound.send import edit_or_send, send_html
from bot.telegram.views import mock_keyboards, mock_render, mock_texts

log = logging.getLogger(__name__)


def render_chart(result: MockResult) -> bytes:
    """The result's per-topic chart (CPU-bound: run it in a thread)."""
    bars = [TopicBar(t.name, t.percent, t.weight) for t in result.topics]
    return mock_chart(bars, passing_score=result.passing_score)


async def close_message(bot: ExtBot[None], exam: Exam, text: str) -> None:
    """Turn the exam's message into a line without buttons (old buttons stop inviting taps)."""
    if exam.chat_id is None or exam.message_id is None:
        return
    try:
        await edit_or_send(bot, exam.chat_id, exam.message_id, text)
    except BadRequest as err:  # the message was deleted: nothing left to close
        log.info("mock exam %s: could not close its message: %s", exam.id, err)


async def send_result(
    bot: ExtBot[None], services: Services, exam: Exam, result: MockResult, *, closing: str
) -> None:
    """Close the exam's message, then send the result, its chart and "Review mistakes"."""
    chat_id = exam.chat_id if exam.chat_id is not None else exam.user_id
    await close_message(bot, exam, closing)
    await send_html(bot, chat_id, mock_render.result_text(result))
    png = await asyncio.to_thread(render_chart, result)
    await send_png(
        bot,
        chat_id,
        png,
        mock_texts.CHART_CAPTION.format(passing=result.passing_score),
        mock_keyboards.review_start_keyboard(exam.id, len(result.mistakes)),
        filename="mock-exam.png",
    )


async def send_expired(
    bot: ExtBot[None], services: Services, exam: Exam, result: MockResult
) -> None:
    """An exam submitted at its deadline by the job: the learner may have blocked the bot."""
    try:
        await send_result(bot, services, exam, result, closing=mock_texts.MOCK_EXPIRED)
    except Forbidden:
        log.info("mock exam %s expired; its learner blocked the bot", exam.id)
