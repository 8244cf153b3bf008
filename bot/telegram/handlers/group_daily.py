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

from telegram import InlineKeyboardMarkup, Update
from telegram.constants import ChatType, ParseMode
from telegram.ext import ExtBot, JobQueue

from bot.bank.models import Question
from bot.schedule import due
from bot.schedule.delivery_log import Claim, DueRow
from bot.schedule.sender import Composed, CustomSend
from bot.storage.group_sql import chat_row
from bot.telegram import group_render, keyboards, texts
from bot.telegram.context import QuizContext, Services
from bot.telegram.handlers import channels
from bot.telegram.handlers.group_admin import is_admin, reply
from bot.telegram.handlers.group_quiz import sweep
from bot.telegram.handlers.membership import groups_of
from bot.telegram.html_split import split_html
from bot.telegram.render import esc

KINDS = ("group", "channel")
SWEEP_JOB = "group-sweep"
SWEEP_EVERY_S = 20.0


def install(services: Services, bot: ExtBot[None], job_queue: JobQueue[Any] | None) -> None:
    """Teach the push to choose and compose group questions; sweep windows periodically."""
    push, groups = services.push, groups_of(services)
    # delivery id -> (window length, quiz-poll mode), noted by pick inside the claim
    # transaction, where the chat's settings are at hand, and taken by the first compose. Only
    # a shortcut: a claim sent again (a retry, or rows recovered after a restart) finds
    # nothing here, and then both are read from SQLite, the truth, before sending. Composers
    # are sync and outside any transaction, so that read happens in the async CustomSend.
    picked: dict[int, tuple[float, bool]] = {}

    def pick(conn: sqlite3.Connection, row: DueRow, now: float) -> tuple[int, str, str] | None:
        delivery = groups.pick(conn, row.chat_id, "daily", now)
        if delivery is None:
            return None
        chat = chat_row(conn, row.chat_id)
        polls = chat is not None and chat["poll_mode"] == "quiz_poll"
        picked[delivery.id] = ((delivery.closes_at or now) - now, polls)
        return delivery.id, delivery.bank_id, delivery.question.id

    def compose(claim: Claim) -> Composed | None:
        question = services.catalog.question(claim.bank_id, claim.question_id)
        if question is None:
            return None
        known = picked.pop(claim.delivery_id, None)
        if known is None:
            return CustomSend(partial(send_as_stored, claim, question))
        window, polls = known
        return composed(claim, question, window, polls)

    def composed(
        claim: Claim, question: Question, window: float, polls: bool
    ) -> tuple[list[str], InlineKeyboardMarkup] | CustomSend:
        if polls and group_render.poll_fits(question):
            return CustomSend(
                partial(send_poll, claim, question, anonymous=claim.kind == "channel")
            )
        bank = services.catalog.bank(claim.bank_id)
        text = group_render.group_question_text(bank, question, window, 0)
        return split_html(text), keyboards.question_keyboard(claim.delivery_id, question)

    async def send_as_stored(claim: Claim, question: Question, chat_id: int) -> int:
        """A claim whose pick this process did not see: poll mode and window from SQLite."""
        delivery = await services.practice.delivery(claim.delivery_id)
        settings = await groups.settings(chat_id)  # chat_id: where the chat is now
        window = float(groups.default_window_s)
        if delivery is not None and delivery.closes_at is not None:
            window = delivery.closes_at - delivery.sent_at
        how = composed(claim, question, window, settings.poll_mode == "quiz_poll")
        if isinstance(how, CustomSend):
            return await how.send(chat_id)
        parts, markup = how
        message_id = 0
        # Errors go to the push's sender as for any push (no waiting here). A group question
        # fits one message (bank limits), so a retry never repeats an earlier part.
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            message = await bot.send_message(
                chat_id, part, parse_mode=ParseMode.HTML, reply_markup=markup if last else None
            )
            message_id = message.message_id
        return message_id

    async def send_poll(claim: Claim, question: Question, chat_id: int, *, anonymous: bool) -> int:
        """The pushed question as a native quiz poll; its poll id is kept for votes and stop."""
        message = await channels.send_quiz_poll(bot, chat_id, question, anonymous=anonymous)
        if message.poll is not None:
            await groups.attach_poll(claim.delivery_id, message.message_id, message.poll.id)
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
    zone = due.canonical_zone(args[1]) if len(args) == 2 else settings.timezone
    if local_time is None or zone is None:
        await reply(update, context, texts.GROUP_DAILY_USAGE)
        return
    kind = "channel" if chat.type == ChatType.CHANNEL else "group"
    await services.push.subscribe(chat.id, local_time, zone, kind=kind)
    # The group's zone also sets where its leaderboard week begins.
    await groups.set_timezone(chat.id, zone)
    await reply(update, context, texts.GROUP_DAILY_SET.format(time=local_time, zone=esc(zone)))
