"""/quiz and /reveal in a group or channel, and the private "Why?" breakdown behind the
reveal's deep link. The rounds themselves are in bot/telegram/outbound/group_rounds.py."""

from __future__ import annotations

import math
import re
from typing import Any

from telegram import Update
from telegram.ext import JobQueue

from bot.telegram.context import QuizContext
from bot.telegram.handlers.chat_admins import is_admin, refuse, reply
from bot.telegram.handlers.common import learner, thread_of
from bot.telegram.outbound.group_rounds import post_question, reveal
from bot.telegram.outbound.guarded import guarded
from bot.telegram.outbound.send import send_html
from bot.telegram.views import render, texts

WHY = re.compile(r"^why_(\d{1,18})$")


async def quiz(update: Update, context: QuizContext) -> None:
    """/quiz in a group or channel: reveal the open question, post the next one."""
    chat = update.effective_chat
    if chat is None:
        return
    services = context.services
    await services.groups.register(chat.id, chat.type, chat.title)
    job_queue: JobQueue[Any] | None = context.job_queue
    # The pace is checked where the question is posted, under the chat's lock: two /quiz sent
    # at once would both pass it outside.
    await post_question(
        context.bot,
        services,
        job_queue,
        chat.id,
        thread=thread_of(update),
        admit=lambda: _may_post(update, context, chat.id),
    )


# The last question each chat was told "wait" about: one notice per question, not per /quiz.
_told: dict[int, int] = {}


async def _may_post(update: Update, context: QuizContext, chat_id: int) -> bool:
    """A group's pace: a cooldown after each question, and a minimum open time before a
    non-admin's /quiz may close the open one. A refused /quiz gets one polite notice."""
    guards = context.services.guards
    pace = await guards.quiz_pace(chat_id, admin=False)
    if pace.wait_s > 0 and pace.open_question and await is_admin(update, context):
        pace = await guards.quiz_pace(chat_id, admin=True)  # admins may skip the open time
    if pace.wait_s <= 0:
        return True
    last = await guards.last_question_id(chat_id)
    if _told.get(chat_id) == last:
        return False
    _told[chat_id] = last
    seconds = max(1, math.ceil(pace.wait_s))
    text = (texts.GROUP_QUIZ_TOO_SOON if pace.open_question else texts.GROUP_QUIZ_COOLDOWN).format(
        seconds=seconds
    )
    await reply(update, context, text)
    return False


async def reveal_command(update: Update, context: QuizContext) -> None:
    """/reveal (admins): close the open question now."""
    chat = update.effective_chat
    if chat is None:
        return
    services = context.services
    if not await is_admin(update, context):
        await refuse(update, context, texts.GROUP_ADMINS_ONLY)
        return
    job_queue: JobQueue[Any] | None = context.job_queue
    open_ids = await services.groups.unrevealed(chat.id)
    if not open_ids:
        thread = thread_of(update)
        await guarded(
            services,
            chat.id,
            lambda cid: send_html(context.bot, cid, texts.GROUP_NOTHING_OPEN, thread=thread),
        )
    # A reveal that returns False was either won by a concurrent reveal (which shows it) or
    # deferred to the next sweep after a passing error: "nothing open" would be wrong for both.
    for delivery_id in open_ids:
        await reveal(context.bot, services, job_queue, delivery_id)


async def why_start(update: Update, context: QuizContext) -> None:
    """`/start why_<id>` in private (the reveal's deep link): the member's own breakdown."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    services = context.services
    await services.practice.register(learner(user), started=True)
    await services.practice.register_chat(chat.id, chat.type, None)
    await why(update, context, context.args[0] if context.args else "")


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
    groups = services.groups
    if not await groups.is_closed(delivery_id):
        await send_html(context.bot, chat.id, texts.WHY_STILL_OPEN)
        return True
    bank = services.catalog.bank(delivery.bank_id)
    mine = await groups.answer_of(delivery_id, user.id)
    if mine is None:
        text = f"{texts.WHY_NOT_ANSWERED}\n\n{render.breakdown_text(bank, delivery.question)}"
    else:
        chosen, correct = mine
        text = render.verdict_html(bank, delivery.question, chosen, correct)
    await send_html(context.bot, chat.id, text)
    return True
