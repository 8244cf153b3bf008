"""The live answer count on a group question, edited within the group's edit budget: now when
there is room, else one trailing edit that shows the newest count.

The reveal always wins, also when another process made it: a count edit is not sent to a
question the database says is revealed, and one that raced a reveal elsewhere (the reveal
landed while the count edit was on its way) is followed by the reveal again."""

from __future__ import annotations

import contextlib
from typing import Any, cast

from telegram.constants import ParseMode
from telegram.error import BadRequest, RetryAfter
from telegram.ext import ExtBot, JobQueue

from bot.domain.models import Delivery
from bot.telegram.context import QuizContext, Services
from bot.telegram.outbound.failures import Failure, retry_seconds, sort_error
from bot.telegram.outbound.group_rounds import count_job_name, show_reveal
from bot.telegram.outbound.guarded import guarded
from bot.telegram.outbound.send import Deferred
from bot.telegram.views import group_render, keyboards


async def show_count(context: QuizContext, delivery: Delivery, count: int) -> None:
    """Edit the live count now, or leave it to one trailing edit when the chat is busy."""
    services = context.services
    throttle = services.throttle
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
        context.services.throttle.trailing_done(delivery_id)
        return
    job_queue.run_once(
        trailing_count_job, when=wait, data=delivery_id, name=count_job_name(delivery_id)
    )


async def trailing_count_job(context: QuizContext) -> None:
    """The trailing edit: show the count as it is now."""
    assert context.job is not None
    delivery_id = cast(int, context.job.data)
    services = context.services
    groups = services.groups
    throttle = services.throttle
    throttle.trailing_done(delivery_id)
    delivery = await services.practice.delivery(delivery_id)
    if delivery is None or throttle.is_closed(delivery_id):
        return
    throttle.note(delivery.chat_id, services.clock.now())
    count = await groups.answer_count(delivery_id)
    flood = await _edit_count(context.bot, services, delivery, count)
    if flood is not None and throttle.defer(delivery_id):
        _schedule_trailing(context, delivery_id, flood)


async def _edit_count(
    bot: ExtBot[None], services: Services, delivery: Delivery, count: int
) -> float | None:
    """Edit the count into the question; on flood control, the seconds to wait (else None).

    Never waits and resends by itself: the reveal may happen during the wait, and a count
    edit landing after it would put the answer buttons back on a closed question. The caller
    leaves the count to a trailing job, which checks first whether the question closed.
    """
    throttle = services.throttle
    if delivery.message_id is None or throttle.is_closed(delivery.id):
        return None
    message_id = delivery.message_id
    bank = services.catalog.bank(delivery.bank_id)
    window = (delivery.closes_at or delivery.sent_at) - delivery.sent_at
    text = group_render.group_question_text(bank, delivery.question, window, count)
    markup = keyboards.question_keyboard(delivery.id, delivery.question, token=delivery.token)

    async def edit(chat_id: int) -> None:
        # Checked again on every try (guarded tries again in a migrated chat): the reveal
        # always wins.
        if throttle.is_closed(delivery.id):
            return
        try:
            await bot.edit_message_text(
                text, chat_id, message_id, parse_mode=ParseMode.HTML, reply_markup=markup
            )
        except BadRequest as err:
            # Unlike a reveal, a stale count is not worth a new message in the group.
            if sort_error(err) not in (Failure.NOT_MODIFIED, Failure.CANNOT_EDIT):
                raise

    if await _revealed_elsewhere(bot, services, delivery.id):
        return None
    try:
        await guarded(services, delivery.chat_id, edit, flood_wait=False, edit=True)
    except RetryAfter as err:
        return max(retry_seconds(err), 0.0)
    await _revealed_elsewhere(bot, services, delivery.id, show=True)
    return None


async def _revealed_elsewhere(
    bot: ExtBot[None], services: Services, delivery_id: int, *, show: bool = False
) -> bool:
    """Whether another process revealed the question this one has not seen closed; with
    `show`, its reveal is put back over the count edit that just landed."""
    if services.throttle.is_closed(delivery_id):
        return False  # revealed here: the reveal is this process's own to show
    found = await services.groups.revealed(delivery_id)
    if found is None:
        return False
    services.throttle.closing(delivery_id)
    if show:
        with contextlib.suppress(Deferred):  # flood control: its background retry shows it
            await show_reveal(bot, services, found)
    return True
