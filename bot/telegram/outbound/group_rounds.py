"""Group rounds: posting one question for a whole group or channel, closing its window and
revealing the answer.

The truth about windows is in SQLite (`closes_at`, `revealed_at`); jobs only wake the sweep,
which reveals whatever is due. At start the sweep runs once and open windows get their jobs
back, so a restart neither loses nor repeats a reveal.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, cast

from telegram import InputFile, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, NetworkError, RetryAfter, TelegramError
from telegram.ext import ExtBot, JobQueue

from bot.bank.models import Kind, Question
from bot.domain.groups import GroupSettings, Reveal
from bot.domain.kinds import ChatKind, PollMode, Source
from bot.domain.models import Delivery
from bot.practice.catalog import Catalog
from bot.practice.groups import GroupService
from bot.practice.media_files import MediaFiles
from bot.schedule.lease import owner_dead
from bot.storage import lease_sql
from bot.storage.port import Connection
from bot.telegram.context import QuizContext, Services
from bot.telegram.outbound.failures import retry_seconds
from bot.telegram.outbound.guarded import guarded
from bot.telegram.outbound.pictures import PictureUnavailable, photo_by_key
from bot.telegram.outbound.send import Deferred, edit_or_send, into_topic, send_html
from bot.telegram.views import group_render, keyboards, question_media, texts

log = logging.getLogger(__name__)
# A job that fires a hair early would find the window still open: wake a little late instead.
JOB_SLACK_S = 0.5
SWEEP_JOB = "group-sweep"
SWEEP_EVERY_S = 20.0
MAX_POST_TRIES = 4  # a question's first send and its retries after flood bans
# A post (reveals, then a send) holds its chat's lease row this long at most, unrenewed: well
# over what one takes, and what another process waits at worst for a holder that died
# mid-post on another host (one of this host is known dead at once).
POST_LEASE_S = 30.0
POST_POLL_S = 0.05  # a post waiting for another process's lease tries again this often


async def send_quiz_poll(
    bot: ExtBot[None],
    chat_id: int,
    question: Question,
    *,
    anonymous: bool,
    reply_to: int | None = None,
    thread: int | None = None,
) -> Message:
    """Post a question as a quiz poll (its question the stem, or a pointer to the message
    `reply_to` that holds a long stem); the caller checked it fits (`group_render.poll_fits`)."""
    # PTB 22.8 / Bot API 9.6: `correct_option_ids` (a list) replaces `correct_option_id`,
    # which now warns; several correct options need `allows_multiple_answers`.
    return await bot.send_poll(
        chat_id,
        group_render.poll_question(question),
        group_render.poll_options(question),
        is_anonymous=anonymous,
        type="quiz",
        allows_multiple_answers=question.kind is Kind.MULTIPLE,
        correct_option_ids=sorted(question.correct_indices),  # type: ignore[arg-type]
        explanation=group_render.poll_explanation(question),
        reply_to_message_id=reply_to,
        message_thread_id=thread,
    )


async def send_group_question(
    bot: ExtBot[None],
    catalog: Catalog,
    groups: GroupService,
    chat_id: int,
    delivery: Delivery,
    settings: GroupSettings,
    *,
    window_s: float | None = None,
    anonymous: bool | None = None,
    paid_broadcast: bool = False,
    media: MediaFiles | None = None,
    thread: int | None = None,
) -> Message:
    """Post a group question as a quiz poll or with answer buttons, per the chat's settings
    (a poll's id is recorded at once: votes may come before anything else is written).

    A question's pictures (formulas, its image) go just before it, as photos of their own:
    the question stays a text message or a poll, whose count and reveal edits work as for
    any other. Errors are raised for the caller's policy: `guarded` for /quiz, the courier
    for a push.
    """
    question = delivery.question
    bank = catalog.bank(delivery.bank_id)
    if media is not None:
        for picture in question_media.pictures(bank, question):

            async def send(photo: str | InputFile) -> Message:
                return await bot.send_photo(
                    chat_id,
                    photo,
                    allow_paid_broadcast=paid_broadcast or None,
                    message_thread_id=thread,
                )

            with contextlib.suppress(PictureUnavailable):
                await photo_by_key(media, picture, send)
    if settings.poll_mode is PollMode.QUIZ_POLL and group_render.poll_fits(question):
        # Channels only take anonymous polls; in a group a named vote lets us record answers.
        if anonymous is None:
            anonymous = settings.chat_type == ChatKind.CHANNEL
        above = None
        if not group_render.stem_fits_poll(question):
            # A poll's question holds 300 characters: a longer stem goes in a message just
            # above, and the poll answers it.
            stem = await bot.send_message(
                chat_id,
                group_render.poll_stem_text(bank, question),
                parse_mode=ParseMode.HTML,
                allow_paid_broadcast=paid_broadcast or None,
                message_thread_id=thread,
            )
            above = stem.message_id
        try:
            message = await send_quiz_poll(
                bot, chat_id, question, anonymous=anonymous, reply_to=above, thread=thread
            )
        except TelegramError:
            if above is not None:
                # The question is posted again whole (after a 429, or in General): a stem
                # left above no poll would read as a second question.
                with contextlib.suppress(TelegramError):
                    await bot.delete_message(chat_id, above)
            raise
        if message.poll is not None:
            await groups.attach_poll(delivery.id, message.message_id, message.poll.id)
        return message
    window = settings.window_s if window_s is None else window_s
    # A group question fits one message (bank limits): nothing to split.
    return await bot.send_message(
        chat_id,
        group_render.group_question_text(bank, question, window, 0),
        parse_mode=ParseMode.HTML,
        reply_markup=keyboards.question_keyboard(delivery.id, question, token=delivery.token),
        allow_paid_broadcast=paid_broadcast or None,
        message_thread_id=thread,
    )


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
    source: Source = Source.GROUP,
    tries: int = 1,
    thread: int | None = None,
    admit: Callable[[], Awaitable[bool]] | None = None,
) -> Delivery | None:
    """Reveal what is still open in the chat, then post its next question with a window
    (into the forum topic `thread`, where the /quiz came from, if any). `admit`, asked once
    the chat is held, may refuse the post (a /quiz within the group's pace).

    One at a time per chat: a second /quiz waits until the first question's message is
    recorded, so it finds that question posted and reveals it, rather than racing its send.
    A question that meets flood control is posted again later (`schedule_retry`).
    """
    async with services.groups.posting(chat_id), post_lease(services, chat_id):
        if admit is not None and not await admit():
            return None
        return await _post_question(bot, services, job_queue, chat_id, source, tries, thread)


@contextlib.asynccontextmanager
async def post_lease(
    services: Services, chat_id: int, wall: Callable[[], float] = time.time
) -> AsyncIterator[None]:
    """The chat's lease row "post:<chat_id>" around a post: the in-process lock's equal among
    the processes on the database (a /quiz reaches any of them in webhook mode).

    A live process's lease is waited for until released or lapsed (POST_LEASE_S at most);
    a dead holder's is taken over at once. The wall clock: leases are shared by processes,
    which never share the bot's clock (tests step it).
    """
    name = f"post:{chat_id}"
    me = services.push.owner  # this process's id among the bot's processes

    def take(conn: Connection) -> bool:
        now = wall()
        current = lease_sql.holder(conn, name)
        dead = current[0] if current and owner_dead(current[0], me) else None
        return lease_sql.hold(conn, name, me, now, now + POST_LEASE_S, dead)

    give_up_at = wall() + POST_LEASE_S
    # Nobody renews a post lease, so by give_up_at the holder's has lapsed and a try took
    # it; the bound only keeps a clock that jumped from holding the post back for good.
    while not await services.db.write(take):
        if wall() >= give_up_at:
            break
        await asyncio.sleep(POST_POLL_S)
    try:
        yield
    finally:
        try:
            await services.db.write(lambda conn: lease_sql.release(conn, name, me))
        except Exception as err:  # the lease lapses by itself: the next post waits that long
            log.warning("chat %s: posting lease not released: %s", chat_id, err)


def schedule_retry(
    job_queue: JobQueue[Any] | None,
    chat_id: int,
    source: Source,
    wait_s: float,
    tries: int,
    thread: int | None = None,
) -> None:
    """Post the chat's question again after a flood ban, a few times at most."""
    if job_queue is None or tries >= MAX_POST_TRIES:
        log.warning("chat %s: question not posted after %d tries (flood control)", chat_id, tries)
        return
    log.info("chat %s: question meets flood control: posted again in %g s", chat_id, wait_s)
    job_queue.run_once(
        retry_job,
        when=max(wait_s, 0.0) + JOB_SLACK_S,
        data=(chat_id, source, tries + 1, thread),
        name=f"group-retry:{chat_id}",
        job_kwargs={"misfire_grace_time": None},
    )


async def retry_job(context: QuizContext) -> None:
    """A question that met flood control: post the chat's question now."""
    assert context.job is not None
    data = cast(tuple[int, Source, int, int | None], context.job.data)
    chat_id, source, tries, thread = data
    job_queue: JobQueue[Any] | None = context.job_queue
    await post_question(
        context.bot,
        context.services,
        job_queue,
        chat_id,
        source=source,
        tries=tries,
        thread=thread,
    )


async def _post_question(
    bot: ExtBot[None],
    services: Services,
    job_queue: JobQueue[Any] | None,
    chat_id: int,
    source: Source,
    tries: int,
    thread: int | None,
) -> Delivery | None:
    groups = services.groups
    for open_id in await groups.unrevealed(chat_id):
        await reveal(bot, services, job_queue, open_id)
    settings = await groups.settings(chat_id)
    delivery = await groups.ask(chat_id, source=source)
    if delivery is None:
        await guarded(
            services,
            chat_id,
            lambda cid: send_html(bot, cid, texts.GROUP_NO_QUESTIONS, thread=thread),
        )
        return None

    async def posted(message: Message) -> None:
        if message.poll is None:
            await services.practice.attach_message(delivery.id, message.message_id)
        services.throttle.note(message.chat_id, services.clock.now())
        services.budget.note(message.chat_id, services.clock.now())
        schedule_close(job_queue, delivery.id, settings.window_s)

    def send(cid: int, topic: int | None) -> Awaitable[Message]:
        return send_group_question(
            bot,
            services.catalog,
            services.groups,
            cid,
            delivery,
            settings,
            media=services.media,
            thread=topic,
        )

    try:
        message = await guarded(
            services,
            chat_id,
            lambda cid: into_topic(cid, thread, lambda topic: send(cid, topic)),
            flood_wait=False,
        )
    except RetryAfter as err:
        # A delivery without its message is a question nobody can see or close: forget it
        # and post the chat's question anew once the ban is over.
        await groups.discard(delivery.id)
        schedule_retry(job_queue, chat_id, source, retry_seconds(err), tries, thread)
        return None
    except Exception:
        # Refused for good: no question left open that was never posted, to count as asked
        # and to keep its question out of the chat's rotation.
        await groups.discard(delivery.id)
        raise
    if message is None:
        await groups.discard(delivery.id)
        return None
    await posted(message)
    return delivery


async def reveal(
    bot: ExtBot[None], services: Services, job_queue: JobQueue[Any] | None, delivery_id: int
) -> bool:
    """Close a question and show the answer, shares, explanation and trap (once).

    False if there was nothing to reveal (revealed already, or its message has not arrived
    yet) or if Telegram failed for a passing reason: then the claim is given back and the
    next sweep tries again.
    """
    groups = services.groups
    # Marked before the claim's await: a count edit already in flight must not land after
    # the reveal and put the question back.
    services.throttle.closing(delivery_id)
    found = await groups.claim_reveal(delivery_id)
    cancel_jobs(job_queue, close_job_name(delivery_id))
    cancel_jobs(job_queue, count_job_name(delivery_id))
    if found is None or found.delivery.message_id is None:
        return False
    services.throttle.note(found.delivery.chat_id, services.clock.now())
    services.budget.note(found.delivery.chat_id, services.clock.now())
    try:
        await show_reveal(bot, services, found)
    except Deferred:
        return True  # flood control: the background retry shows it
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


async def show_reveal(bot: ExtBot[None], services: Services, found: Reveal) -> None:
    """Stop the poll, or edit the question into its reveal."""
    delivery = found.delivery
    message_id = delivery.message_id
    assert message_id is not None
    if found.poll_id is not None:
        try:
            await guarded(
                services, delivery.chat_id, lambda cid: bot.stop_poll(cid, message_id), edit=True
            )
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
        edit=True,
    )


async def sweep(bot: ExtBot[None], services: Services, job_queue: JobQueue[Any] | None) -> int:
    """Reveal every question whose window is over; returns how many were revealed."""
    revealed = 0
    for delivery_id in await services.groups.due():
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
    windows = await services.groups.open_windows()
    for delivery_id, closes_at in windows:
        schedule_close(job_queue, delivery_id, closes_at - now)
    if revealed or windows:
        log.info("groups: %d overdue reveal(s) done, %d window(s) open", revealed, len(windows))


def schedule_sweep(job_queue: JobQueue[Any]) -> None:
    """Pushed questions get no close job of their own: a short periodic sweep reveals them."""
    cancel_jobs(job_queue, SWEEP_JOB)
    job_queue.run_repeating(
        close_job,
        interval=SWEEP_EVERY_S,
        first=SWEEP_EVERY_S,
        name=SWEEP_JOB,
        job_kwargs={"misfire_grace_time": None, "coalesce": True, "max_instances": 1},
    )
