"""Telegram's native quiz poll (channels and groups that choose it) and commands posted in a
channel, where the sender is the channel itself: only its admins can post there."""

from __future__ import annotations

from telegram import Message
from telegram.ext import ExtBot

from bot.bank.models import Kind, Question
from bot.telegram import group_render


async def send_quiz_poll(
    bot: ExtBot[None], chat_id: int, question: Question, *, anonymous: bool
) -> Message:
    """Post a question as a quiz poll; the caller checked it fits (`group_render.poll_fits`)."""
    # PTB 22.8 / Bot API 9.6: `correct_option_ids` (a list) replaces `correct_option_id`,
    # which now warns; several correct options need `allows_multiple_answers`.
    return await bot.send_poll(
        chat_id,
        question.stem.strip(),
        [o.text.strip() for o in question.options],
        is_anonymous=anonymous,
        type="quiz",
        allows_multiple_answers=question.kind is Kind.MULTIPLE,
        correct_option_ids=sorted(question.correct_indices),  # type: ignore[arg-type]
        explanation=group_render.poll_explanation(question),
    )
