"""Answers in groups and channels: each member's tap recorded for that member, their verdict
as a private alert, and the live answer count on the shared message, throttled per chat."""

from __future__ import annotations

from typing import Any, cast

from telegram import CallbackQuery, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest, RetryAfter
from telegram.ext import ExtBot, JobQueue

from bot.domain.models import AnswerOutcome, AnswerStatus, Delivery
from bot.telegram import group_render, keyboards, render, texts
from bot.telegram.context import QuizContext, Services
from bot.telegram.handlers.common import REFUSALS, Press, learner
from bot.telegram.handlers.group_quiz import count_job_name
from bot.telegram.handlers.membership import groups_of, guarded
from bot.telegram.sending import cannot_edit, not_modified, retry_seconds


async def _verdict(query: CallbackQuery, context: QuizContext, outcome: AnswerOutcome) -> None:
    """Alert the member alone with their verdict; a new answer bumps the group's count."""
    if outcome.status in REFUSALS or outcome.delivery is None:
        await query.answer(REFUSALS.get(outcome.status, texts.CB_UNKNOWN))
        return
    if outcome.status is AnswerStatus.EMPTY:
        count = outcome.delivery.question.select_count
        await query.answer(texts.CB_PICK_FIRST.format(count=render.NUMBER_WORDS.get(count, count)))
        return
    again = outcome.status is AnswerStatus.ALREADY
    await query.answer(group_render.answer_alert(outcome, again=again), show_alert=True)
    if not again:
        await show_count(context, outcome.delivery, outcome.answer_count)


async def on_answer(press: Press, context: QuizContext) -> None:
    """A member taps a letter of a single-answer group question."""
    delivery_id, option = press.numbers
    outcome = await context.services.practice.answer(
        delivery_id, learner(press.query.from_user), press.message.chat_id, frozenset({option})
    )
    await _verdict(press.query, context, outcome)


async def on_toggle(press: Press, context: QuizContext) -> None:
    """A member selects or unselects a letter of a multiple-answer group question.

    The message is shared, so it never shows anyone's selection: the member sees theirs in
    the callback answer only.
    """
    delivery_id, option = press.numbers
    outcome = await context.services.practice.toggle(
        delivery_id, learner(press.query.from_user), press.message.chat_id, option
    )
    if outcome.status is AnswerStatus.RECORDED:
        await press.query.answer(group_render.toggled_alert(outcome.chosen))
        return
    await _verdict(press.query, context, outcome)


async def on_submit(press: Press, context: QuizContext) -> None:
    """A member submits their selection of a multiple-answer group question."""
    (delivery_id,) = press.numbers
    outcome = await context.services.practice.submit(
        delivery_id, learner(press.query.from_user), press.message.chat_id
    )
    await _verdict(press.query, context, outcome)


async def on_poll_answer(update: Update, context: QuizContext) -> None:
    """A member voted in a (named) quiz poll we sent to a group: record it like a tap."""
    vote = update.poll_answer
    if vote is None or vote.user is None or not vote.option_ids:
        return  # a retracted vote, or a vote on behalf of a chat: nothing to record
    services = context.services
    found = await groups_of(services).delivery_of_poll(vote.poll_id)
    if found is None:
        return
    delivery_id, chat_id = found
    await services.practice.answer(
        delivery_id, learner(vote.user), chat_id, frozenset(vote.option_ids)
    )


async def show_count(context: QuizContext, delivery: Delivery, count: int) -> None:
    """Edit the live count now, or leave it to one trailing edit when the chat is busy."""
    services = context.services
    throttle = groups_of(services).throttle
    wait = throttle.decide(delivery.chat_id, delivery.id, services.clock.now())
    if wait is None:
        return  # a trailing edit is already scheduled and will show the newest count
    if wait == 0:
        flood = await _edit_count(context.bot, services, delivery, count)
        if flood is None or not throttle.defer(delivery.id):
            return
        wait = flood
    _schedule_trailing(context, delivery.id, wait)


def _schedule_trailing(context: QuizContext, delivery_id: int, wait: float) -> None:
    """One trailing count edit in `wait` seconds (the delivery is marked pending already)."""
    job_queue: JobQueue[Any] | None = context.job_queue
    if job_queue is None:
        # No scheduler: the next tap or the reveal shows the count.
        groups_of(context.services).throttle.trailing_done(delivery_id)
        return
    job_queue.run_once(
        trailing_count_job, when=wait, data=delivery_id, name=count_job_name(delivery_id)
    )


async def trailing_count_job(context: QuizContext) -> None:
    """The trailing edit: show the count as it is now."""
    assert context.job is not None
    delivery_id = cast(int, context.job.data)
    services = context.services
    groups = groups_of(services)
    groups.throttle.trailing_done(delivery_id)
    delivery = await services.practice.delivery(delivery_id)
    if delivery is None or groups.throttle.is_closed(delivery_id):
        return
    groups.throttle.note(delivery.chat_id, services.clock.now())
    count = await groups.answer_count(delivery_id)
    flood = await _edit_count(context.bot, services, delivery, count)
    if flood is not None and groups.throttle.defer(delivery_id):
        _schedule_trailing(context, delivery_id, flood)


async def _edit_count(
    bot: ExtBot[None], services: Services, delivery: Delivery, count: int
) -> float | None:
    """Edit the count into the question; on flood control, the seconds to wait (else None).

    Never waits and resends by itself: the reveal may happen during the wait, and a count
    edit landing after it would put the answer buttons back on a closed question. The caller
    leaves the count to a trailing job, which checks first whether the question closed.
    """
    groups = groups_of(services)
    if delivery.message_id is None or groups.throttle.is_closed(delivery.id):
        return None
    message_id = delivery.message_id
    bank = services.catalog.bank(delivery.bank_id)
    window = (delivery.closes_at or delivery.sent_at) - delivery.sent_at
    text = group_render.group_question_text(bank, delivery.question, window, count)
    markup = keyboards.question_keyboard(delivery.id, delivery.question)

    async def edit(chat_id: int) -> None:
        # Checked again on every try (guarded tries again in a migrated chat): the reveal
        # always wins.
        if groups.throttle.is_closed(delivery.id):
            return
        try:
            await bot.edit_message_text(
                text, chat_id, message_id, parse_mode=ParseMode.HTML, reply_markup=markup
            )
        except BadRequest as err:
            # Unlike a reveal, a stale count is not worth a new message in the group.
            if not not_modified(err) and not cannot_edit(err):
                raise

    try:
        await guarded(services, delivery.chat_id, edit, flood_wait=False)
    except RetryAfter as err:
        return max(retry_seconds(err), 0.0)
    return None
