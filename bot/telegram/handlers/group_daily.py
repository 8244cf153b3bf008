"""The daily question in groups and channels, on the same scheduler and delivery log as private
subscribers (`PushService`, issue 4): this module gives the push a picker and a composer for
kinds 'group' and 'channel', and handles `/daily` there (admins only).

A pushed group question is an ordinary windowed delivery: the periodic sweep reveals it when
its window ends, exactly like one asked with /quiz.
"""

from __future__ import annotations

import sqlite3
from functools import partial
from typing import Any

from telegram import Update
from telegram.constants import ChatType, ParseMode
from telegram.ext import ExtBot, JobQueue

from bot.bank.models import Question
from bot.domain import due, zones
from bot.schedule.delivery_log import Claim, DueRow
from bot.schedule.sender import Composed, CustomSend
from bot.telegram import group_render, keyboards, texts
from bot.telegram.context import QuizContext, Services
from bot.telegram.handlers import channels
from bot.telegram.handlers.group_admin import is_admin, reply
from bot.telegram.handlers.group_quiz import sweep
from bot.telegram.handlers.membership import groups_of
from bot.telegram.render import esc

KINDS = ("group", "channel")
SWEEP_JOB = "group-sweep"
SWEEP_EVERY_S = 20.0


def install(services: Services, bot: ExtBot[None], job_queue: JobQueue[Any] | None) -> None:
    """Teach the push to choose and compose group questions; sweep windows periodically."""
    push, groups = services.push, groups_of(services)

    def pick(conn: sqlite3.Connection, row: DueRow, now: float) -> tuple[int, str, str] | None:
        delivery = groups.pick(conn, row.chat_id, "daily", now)
        if delivery is None:
            return None
        return delivery.id, delivery.bank_id, delivery.question.id

    def compose(claim: Claim) -> Composed | None:
        question = services.catalog.question(claim.bank_id, claim.question_id)
        if question is None:
            return None
        # Composers are sync and outside any transaction; the chat's poll mode and the
        # delivery's window are read from SQLite just before sending, in the async CustomSend,
        # so a retry or a claim recovered after a restart is sent exactly as the first try.
        return CustomSend(partial(send_group_question, claim, question))

    async def send_group_question(claim: Claim, question: Question, chat_id: int) -> int:
        """The pushed question as a quiz poll or with answer buttons, per the chat's settings."""
        delivery = await services.practice.delivery(claim.delivery_id)
        settings = await groups.settings(chat_id)  # chat_id: where the chat is now
        if settings.poll_mode == "quiz_poll" and group_render.poll_fits(question):
            anonymous = claim.kind == "channel"
            message = await channels.send_quiz_poll(bot, chat_id, question, anonymous=anonymous)
            if message.poll is not None:
                await groups.attach_poll(claim.delivery_id, message.message_id, message.poll.id)
            return message.message_id
        window = float(groups.default_window_s)
        if delivery is not None and delivery.closes_at is not None:
            window = delivery.closes_at - delivery.sent_at
        bank = services.catalog.bank(claim.bank_id)
        # Errors go to the push's sender as for any push. A group question fits one message
        # (bank limits), so there is no earlier part a retry could repeat.
        message = await bot.send_message(
            chat_id,
            group_render.group_question_text(bank, question, window, 0),
            parse_mode=ParseMode.HTML,
            reply_markup=keyboards.question_keyboard(claim.delivery_id, question),
            allow_paid_broadcast=services.settings.paid_broadcast or None,
        )
        return message.message_id

    if push is not None:
        for kind in KINDS:
            push.pickers[kind] = pick
            push.composers[kind] = compose
    if job_queue is not None:
        for job in job_queue.get_jobs_by_name(SWEEP_JOB):
            job.schedule_removal()
        # Pushed questions get no close job of their own: a short periodic sweep reveals them.
        job_queue.run_repeating(
            sweep_job,
            interval=SWEEP_EVERY_S,
            first=SWEEP_EVERY_S,
            name=SWEEP_JOB,
            job_kwargs={"misfire_grace_time": None, "coalesce": True, "max_instances": 1},
        )


async def sweep_job(context: QuizContext) -> None:
    """Reveal whatever window is over (pushed questions included)."""
    job_queue: JobQueue[Any] | None = context.job_queue
    await sweep(context.bot, context.services, job_queue)


async def daily(update: Update, context: QuizContext) -> None:
    """/daily HH:MM Zone | off in a group or channel (admins only)."""
    chat = update.effective_chat
    if chat is None:
        return
    services = context.services
    args = context.args or []
    if services.push is None:
        await reply(update, context, texts.GROUP_DAILY_UNAVAILABLE)
        return
    if not args or len(args) > 2:
        await reply(update, context, texts.GROUP_DAILY_USAGE)
        return
    if not await is_admin(update, context):
        await reply(update, context, texts.GROUP_ADMINS_ONLY)
        return
    groups = groups_of(services)
    await groups.register(chat.id, chat.type, chat.title)
    if args[0].lower() == "off":
        await services.push.unsubscribe(chat.id)
        await reply(update, context, texts.GROUP_DAILY_OFF)
        return
    local_time = due.parse_time(args[0])
    settings = await groups.settings(chat.id)
    zone = zones.canonical_zone(args[1]) if len(args) == 2 else settings.timezone
    if local_time is None or zone is None:
        await reply(update, context, texts.GROUP_DAILY_USAGE)
        return
    kind = "channel" if chat.type == ChatType.CHANNEL else "group"
    await services.push.subscribe(chat.id, local_time, zone, kind=kind)
    # The group's zone also sets where its leaderboard week begins.
    await groups.set_timezone(chat.id, zone)
    await reply(update, context, texts.GROUP_DAILY_SET.format(time=local_time, zone=esc(zone)))
