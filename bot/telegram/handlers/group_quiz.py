"""One question for a whole group or channel: posting it, closing its window, the reveal, and
the private "Why?" breakdown behind the reveal's deep link.

The truth about windows is in SQLite (`closes_at`, `revealed_at`); jobs only wake the sweep,
which reveals whatever is due. At start the sweep runs once and open windows get their jobs
back, so a restart neither loses nor repeats a reveal.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from telegram import Message, Update
from telegram.error import BadRequest, NetworkError, RetryAfter
from telegram.ext import ExtBot, JobQueue

from bot.domain.groups import Reveal
from bot.domain.models import AnswerOutcome, AnswerStatus, Delivery
from bot.telegram import group_render, keyboards, render, texts
from bot.telegram.context import QuizContext, Services
from bot.telegram.handlers import channels
from bot.telegram.handlers.group_admin import is_admin
from bot.telegram.handlers.membership import groups_of, guarded
from bot.telegram.sending import edit_or_send, send_html

log = logging.getLogger(__name__)
WHY = re.compile(r"^why_(\d{1,18})$")
# A job that fires a hair early would find the window still open: wake a little late instead.
JOB_SLACK_S = 0.5


def close_job_name(delivery_id: int) -> str:
    return f"group-close:{delivery_id}"


def count_job_name(delivery_id: int) -> str:
    return f"group-count:{delivery_id}"


def cancel_jobs(job_queue: JobQueue[Any] | None, name: str) -> None:
    if job_queue is not None:
        for job in job_queue.get_jobs_by_name(name):
            job.schedule_removal()


def schedule_close(job_queue: JobQueue[Any] | None, delivery_id: int, delay_s: float) -> None:
    """Wake the sweep when a window ends (one named job per delivery)."""
    if job_queue is None:
        return
    cancel_jobs(job_queue, close_job_name(delivery_id))
    job_queue.run_once(
        close_job,
        when=max(delay_s, 0.0) + JOB_SLACK_S,
        data=delivery_id,
        name=close_job_name(delivery_id),
        # A stalled loop must not skip a reveal (APScheduler's default grace is 1 s).
        job_kwargs={"misfire_grace_time": None},
    )


async def post_question(
    bot: ExtBot[None],
    services: Services,
    job_queue: JobQueue[Any] | None,
    chat_id: int,
    *,
    source: str = "group",
) -> Delivery | None:
    """Reveal what is still open in the chat, then post its next question with a window.

    One at a time per chat: a second /quiz waits until the first question's message is
    recorded, so it finds that question posted and reveals it, rather than racing its send.
    """
    async with groups_of(services).posting(chat_id):
        return await _post_question(bot, services, job_queue, chat_id, source)


async def _post_question(
    bot: ExtBot[None],
    services: Services,
    job_queue: JobQueue[Any] | None,
    chat_id: int,
    source: str,
) -> Delivery | None:
    groups = groups_of(services)
    for open_id in await groups.unrevealed(chat_id):
        await reveal(bot, services, job_queue, open_id)
    settings = await groups.settings(chat_id)
    delivery = await groups.ask(chat_id, source=source)
    if delivery is None:
        await guarded(services, chat_id, lambda cid: send_html(bot, cid, texts.GROUP_NO_QUESTIONS))
        return None
    bank = services.catalog.bank(delivery.bank_id)
    question = delivery.question
    message: Message | None
    if settings.poll_mode == "quiz_poll" and group_render.poll_fits(question):
        # Channels only take anonymous polls; in a group a named vote lets us record answers.
        anonymous = settings.chat_type == "channel"
        message = await guarded(
            services,
            chat_id,
            lambda cid: channels.send_quiz_poll(bot, cid, question, anonymous=anonymous),
        )
        if message is not None and message.poll is not None:
            await groups.attach_poll(delivery.id, message.message_id, message.poll.id)
    else:
        text = group_render.group_question_text(bank, question, settings.window_s, 0)
        markup = keyboards.question_keyboard(delivery.id, question)
        message = await guarded(services, chat_id, lambda cid: send_html(bot, cid, text, markup))
        if message is not None:
            await services.practice.attach_message(delivery.id, message.message_id)
    if message is None:
        await groups.discard(delivery.id)
        return None
    groups.throttle.note(message.chat_id, services.clock.now())
    schedule_close(job_queue, delivery.id, settings.window_s)
    return delivery


async def reveal(
    bot: ExtBot[None], services: Services, job_queue: JobQueue[Any] | None, delivery_id: int
) -> bool:
    """Close a question and show the answer, shares, explanation and trap (once).

    False if there was nothing to reveal (revealed already, or its message has not arrived
    yet) or if Telegram failed for a passing reason: then the claim is given back and the
    next sweep tries again.
    """
    groups = groups_of(services)
    # Marked before the claim's await: a count edit already in flight must not land after
    # the reveal and put the question back.
    groups.throttle.closing(delivery_id)
    found = await groups.claim_reveal(delivery_id)
    cancel_jobs(job_queue, close_job_name(delivery_id))
    cancel_jobs(job_queue, count_job_name(delivery_id))
    if found is None or found.delivery.message_id is None:
        return False
    groups.throttle.note(found.delivery.chat_id, services.clock.now())
    try:
        await _show_reveal(bot, services, found)
    except BadRequest:
        # Not a passing failure (guarded and edit_or_send already handled "no rights" and
        # "can't be edited"): trying again would fail the same way, so it stays revealed.
        raise
    except (RetryAfter, NetworkError) as err:  # TimedOut is a NetworkError too
        # The revealed mark was committed before the edit; kept, nothing would ever retry
        # and the question would stay open-looking with dead buttons.
        await groups.release_reveal(delivery_id)
        log.warning("reveal of delivery %s deferred to the next sweep: %r", delivery_id, err)
        return False
    return True


async def _show_reveal(bot: ExtBot[None], services: Services, found: Reveal) -> None:
    """Stop the poll, or edit the question into its reveal."""
    delivery = found.delivery
    message_id = delivery.message_id
    assert message_id is not None
    if found.poll_id is not None:
        try:
            await guarded(services, delivery.chat_id, lambda cid: bot.stop_poll(cid, message_id))
        except BadRequest as err:
            log.info("poll of delivery %s not stopped: %s", delivery.id, err)
        return
    bank = services.catalog.bank(delivery.bank_id)
    text = group_render.reveal_text(bank, found)
    markup = keyboards.why_keyboard(group_render.why_url(bot.username, delivery.id))
    await guarded(
        services,
        delivery.chat_id,
        lambda cid: edit_or_send(bot, cid, message_id, text, markup),
    )


async def sweep(bot: ExtBot[None], services: Services, job_queue: JobQueue[Any] | None) -> int:
    """Reveal every question whose window is over; returns how many were revealed."""
    revealed = 0
    for delivery_id in await groups_of(services).due():
        try:
            revealed += await reveal(bot, services, job_queue, delivery_id)
        except Exception:
            # One chat's failure must not hold back the others' reveals.
            log.exception("reveal of delivery %s failed", delivery_id)
    return revealed


async def close_job(context: QuizContext) -> None:
    """A window ended: reveal what is due."""
    job_queue: JobQueue[Any] | None = context.job_queue
    await sweep(context.bot, context.services, job_queue)


async def on_startup(
    bot: ExtBot[None], services: Services, job_queue: JobQueue[Any] | None
) -> None:
    """Reveal windows that ended while the bot was down; re-arm the open ones."""
    revealed = await sweep(bot, services, job_queue)
    now = services.clock.now()
    windows = await groups_of(services).open_windows()
    for delivery_id, closes_at in windows:
        schedule_close(job_queue, delivery_id, closes_at - now)
    if revealed or windows:
        log.info("groups: %d overdue reveal(s) done, %d window(s) open", revealed, len(windows))


async def quiz(update: Update, context: QuizContext) -> None:
    """/quiz in a group or channel: reveal the open question, post the next one."""
    chat = update.effective_chat
    if chat is None:
        return
    services = context.services
    await groups_of(services).register(chat.id, chat.type, chat.title)
    job_queue: JobQueue[Any] | None = context.job_queue
    await post_question(context.bot, services, job_queue, chat.id)


async def reveal_command(update: Update, context: QuizContext) -> None:
    """/reveal (admins): close the open question now."""
    chat = update.effective_chat
    if chat is None:
        return
    services = context.services
    if not await is_admin(update, context):
        await guarded(
            services, chat.id, lambda cid: send_html(context.bot, cid, texts.GROUP_ADMINS_ONLY)
        )
        return
    job_queue: JobQueue[Any] | None = context.job_queue
    open_ids = await groups_of(services).unrevealed(chat.id)
    if not open_ids:
        await guarded(
            services, chat.id, lambda cid: send_html(context.bot, cid, texts.GROUP_NOTHING_OPEN)
        )
    # A reveal that returns False was either won by a concurrent reveal (which shows it) or
    # deferred to the next sweep after a passing error: "nothing open" would be wrong for both.
    for delivery_id in open_ids:
        await reveal(context.bot, services, job_queue, delivery_id)


async def why(update: Update, context: QuizContext, payload: str) -> bool:
    """`/start why_<id>` in private: the member's own breakdown; False if not such a payload."""
    m = WHY.match(payload)
    chat, user = update.effective_chat, update.effective_user
    if m is None or chat is None or user is None:
        return False
    services = context.services
    delivery_id = int(m.group(1))
    delivery = await services.practice.delivery(delivery_id)
    if delivery is None or delivery.closes_at is None:
        await send_html(context.bot, chat.id, texts.WHY_UNKNOWN)
        return True
    groups = groups_of(services)
    if not await groups.is_closed(delivery_id):
        await send_html(context.bot, chat.id, texts.WHY_STILL_OPEN)
        return True
    bank = services.catalog.bank(delivery.bank_id)
    mine = await groups.answer_of(delivery_id, user.id)
    if mine is None:
        text = f"{texts.WHY_NOT_ANSWERED}\n\n{render.breakdown_text(bank, delivery.question)}"
    else:
        chosen, correct = mine
        outcome = AnswerOutcome(AnswerStatus.ALREADY, delivery, chosen, correct)
        text = render.verdict_text(bank, outcome)
    await send_html(context.bot, chat.id, text)
    return True
