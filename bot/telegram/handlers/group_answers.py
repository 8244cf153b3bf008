"""Answers in groups and channels: each member's tap recorded for that member, their verdict
as a private alert, and the live answer count on the shared message, throttled per chat."""

from __future__ import annotations

from telegram import CallbackQuery, Update

from bot.domain.models import AnswerOutcome, AnswerStatus
from bot.telegram.context import QuizContext
from bot.telegram.handlers.buttons import Press
from bot.telegram.handlers.common import REFUSALS, learner
from bot.telegram.outbound.live_count import show_count
from bot.telegram.views import group_render, render, texts


async def verdict(query: CallbackQuery, context: QuizContext, outcome: AnswerOutcome) -> None:
    """Alert the member alone with their verdict; a new answer bumps the group's count."""
    if outcome.status in REFUSALS or outcome.delivery is None:
        await query.answer(REFUSALS.get(outcome.status, texts.CB_UNKNOWN))
        return
    if outcome.status is AnswerStatus.REVISED:
        # Not graded: the version on screen is gone; the next /quiz shows the current one.
        await query.answer(texts.CB_REVISED)
        return
    if outcome.status is AnswerStatus.EMPTY:
        count = outcome.delivery.question.select_count
        await query.answer(texts.CB_PICK_FIRST.format(count=render.NUMBER_WORDS.get(count, count)))
        return
    again = outcome.status is AnswerStatus.ALREADY
    await query.answer(group_render.answer_alert(outcome, again=again), show_alert=True)
    if not again:
        await show_count(context, outcome.delivery, outcome.answer_count)


async def on_toggle(press: Press, context: QuizContext) -> None:
    """A member selects or unselects a letter of a multiple-answer group question.

    The message is shared, so it never shows anyone's selection: the member sees theirs in
    the callback answer only.
    """
    delivery_id, token, option = press.values
    outcome = await context.services.practice.toggle(
        delivery_id, learner(press.query.from_user), press.message.chat_id, option, token=token
    )
    if outcome.status is AnswerStatus.RECORDED:
        await press.query.answer(group_render.toggled_alert(outcome.chosen))
        return
    await verdict(press.query, context, outcome)


async def on_poll_answer(update: Update, context: QuizContext) -> None:
    """A member voted in a (named) quiz poll we sent to a group: record it like a tap."""
    vote = update.poll_answer
    if vote is None or vote.user is None or not vote.option_ids:
        return  # a retracted vote, or a vote on behalf of a chat: nothing to record
    services = context.services
    found = await services.groups.delivery_of_poll(vote.poll_id)
    if found is None:
        return
    delivery_id, chat_id = found
    await services.practice.answer(
        delivery_id, learner(vote.user), chat_id, frozenset(vote.option_ids)
    )
