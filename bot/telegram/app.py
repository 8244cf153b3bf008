"""Building the Application: services in post_init, closed in post_shutdown, handlers wired."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import random
from collections.abc import Coroutine
from typing import Any

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    Update,
)
from telegram.error import TelegramError
from telegram.ext import Application, ContextTypes, ExtBot
from telegram.request import BaseRequest

from bot.config import Settings
from bot.practice.catalog import Catalog
from bot.practice.clock import Clock, SystemClock
from bot.practice.core import Core, build_core
from bot.schedule.push import PushService, push_rate, push_window
from bot.schedule.ticker import Ticker
from bot.storage.factory import display_name, open_database
from bot.storage.port import StorageError
from bot.telegram import fit_job, mock_jobs, push_jobs, reload, report_digest, routes, status
from bot.telegram.alerts import AdminAlerts
from bot.telegram.context import BotData, QuizApp, QuizContext, Services
from bot.telegram.handlers.errors import on_error, tell_unsaved
from bot.telegram.inbox import SWEEP_S, Inbox, InboxProcessor, InboxRequest
from bot.telegram.outbound import group_rounds
from bot.telegram.outbound.flood import FloodGate
from bot.telegram.outbound.group_budget import GroupBudget
from bot.telegram.outbound.push_courier import TelegramCourier
from bot.telegram.outbound.send import cancel_retries
from bot.telegram.outbound.throttle import EditThrottle
from bot.telegram.startup import retrying
from bot.telegram.transport import make_request
from bot.telegram.webhook_guard import CountingQueue

log = logging.getLogger(__name__)


@dataclasses.dataclass
class Lifecycle:
    """What the Application does at its start and stop: open the database and the services
    (post_init), let the push record its sends (post_stop), close everything (post_shutdown).

    The daily push sends through its own bot object and connection pool (`push_request`; by
    default a request sized to the push window): it keeps up to 32 sends in flight, and on the
    replies' pool those would leave learners' answers waiting for a connection (and failing
    with a pool timeout). Tests that inject `request` and no `push_request` get one shared
    request, as before.
    """

    settings: Settings
    catalog: Catalog
    clock: Clock
    rng: random.Random | None
    processor: InboxProcessor
    fetching: InboxRequest
    shared_request: bool  # a test's request: the push sends through the app's own bot
    push_request: BaseRequest | None = None
    own_push_request: list[BaseRequest] = dataclasses.field(default_factory=list)
    # Start-up work that must not delay the start, cancelled at shutdown.
    background: list[asyncio.Task[None]] = dataclasses.field(default_factory=list)

    async def push_bot(self, app: QuizApp) -> ExtBot[None]:
        if self.push_request is None and self.shared_request:
            return app.bot
        settings = self.settings
        # A connection per send in flight and a few spare: a push send never waits for the
        # pool, so a pool timeout (which PTB reports as TimedOut, i.e. a retry) cannot happen
        # on a healthy network.
        req = self.push_request
        if req is None:
            req = make_request(
                settings.http, connection_pool_size=push_window(push_rate(settings)) + 4
            )
        bot: ExtBot[None] = ExtBot(
            settings.require_token(),
            base_url=settings.api_base_url,
            base_file_url=f"{settings.bot_api_url}/file/bot",
            request=req,
            get_updates_request=req,
            defaults=app.bot.defaults,
        )
        # The request only, not bot.initialize(): that would call getMe again, one more way for
        # the start to fail, for a bot identity the main bot has already checked.
        await req.initialize()
        self.own_push_request.append(req)
        return bot

    def _in_background(self, work: Coroutine[Any, Any, None], name: str) -> None:
        task = asyncio.get_running_loop().create_task(work, name=name)
        self.background.append(task)

    async def post_init(self, app: QuizApp) -> None:
        settings = self.settings
        db = open_database(
            settings.db, default_timezone=settings.default_timezone, durability=settings.durability
        )
        await db.open()
        core = build_core(db, self.catalog, settings, clock=self.clock, rng=self.rng)
        # The push sends through its own bot (and connection pool); pushed quiz polls too.
        services = telegram_services(app, core, await self.push_bot(app))
        inbox = services.inbox = self.processor.inbox = self.fetching.inbox = Inbox(db, core.clock)
        inbox.on_unsaved = functools.partial(tell_unsaved, app)
        inbox.on_processes = functools.partial(
            split_budgets, services, polling=not settings.webhook_url
        )
        app.bot_data.services = services
        # Updates stored and not handled (this process's last run died, or another process
        # did): claimed now and every few seconds, and handled here.
        self._in_background(
            inbox.sweep_forever(lambda updates: enqueue(app, updates)), "quizbot:inbox"
        )
        # A /reload (or SIGHUP) in another process on the database reaches this one as often.
        await reload.note_bank_version(services)
        self._in_background(reload.follow_forever(services, SWEEP_S), "quizbot:reloads")
        ticker = app.bot_data.ticker = Ticker(core.clock)
        await start_jobs(app, services, ticker)
        # The command menus are cosmetic: set in the background, retried, never fatal.
        self._in_background(set_menus(app), "quizbot:menus")
        await status.mark_started(app, services, ticker)
        self.background.append(ticker.start())
        reload.install_sighup(app)
        log.info(
            "ready: %d questions in %d bank(s), database %s",
            self.catalog.question_count(),
            len(self.catalog.banks),
            display_name(settings.db),
        )

    async def post_stop(self, app: QuizApp) -> None:
        # Before the bot's connection closes: let the push record what it sent.
        services = app.bot_data.services
        if services is not None:
            await services.push.stop()

    async def post_shutdown(self, app: QuizApp) -> None:
        while self.background:
            task = self.background.pop()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        services = app.bot_data.services
        if services is None:
            return
        try:
            if services.inbox is not None:
                await services.inbox.close()
            await services.push.stop()
            while self.own_push_request:  # after the push stopped: nothing sends through it
                await self.own_push_request.pop().shutdown()
            reload.remove_sighup()
            await cancel_retries()
            await status.mark_stopped(app, services)
        except StorageError as err:
            # One line, and `quizbot run` exits non-zero: what the stop should record is lost.
            log.error("stopping: the database could not record the stop: %s", err)
            app.bot_data.ops.unsaved_at_stop = True
        finally:
            # Whatever failed above (a full disk, a held lock), the database is closed: its
            # threads would otherwise keep the process alive after a SIGTERM.
            await services.db.close()


def build_application(
    settings: Settings,
    catalog: Catalog,
    *,
    request: BaseRequest | None = None,
    updates_request: BaseRequest | None = None,
    push_request: BaseRequest | None = None,
    clock: Clock | None = None,
    rng: random.Random | None = None,
    with_updater: bool = True,
) -> QuizApp:
    """The bot, ready for run_polling/run_webhook (or process_update in tests); the push's
    own request is `Lifecycle`'s."""
    processor = InboxProcessor(32)
    fetching = InboxRequest(
        (updates_request or request)
        if request is not None
        else make_request(settings.http, read_timeout=40)
    )
    life = Lifecycle(
        settings,
        catalog,
        clock or SystemClock(),
        rng,
        processor,
        fetching,
        shared_request=request is not None,
        push_request=push_request,
    )
    builder = (
        Application.builder()
        .token(settings.require_token())
        .base_url(settings.api_base_url)
        .base_file_url(f"{settings.bot_api_url}/file/bot")
        .context_types(ContextTypes(context=QuizContext, bot_data=BotData))
        # Answers are independent per user and the database enforces one answer per user and
        # question, so updates need not wait for each other.
        .concurrent_updates(processor)
        # Counts updates not yet handled: the webhook acknowledges only what fits a bound.
        .update_queue(CountingQueue())
        # No AIORateLimiter: it would put learners' replies in one queue with the push, so a
        # big push would make every reply wait; the push is paced by bot/schedule instead.
        .post_init(life.post_init)
        .post_stop(life.post_stop)
        .post_shutdown(life.post_shutdown)
        .request(
            request
            if request is not None
            else make_request(settings.http, connection_pool_size=32)
        )
        .get_updates_request(fetching)
    )
    if not with_updater:
        builder = builder.updater(None)
    app: QuizApp = builder.build()
    for group, handler in routes.early_handlers():
        app.add_handler(handler, group=group)
    for handler in routes.handlers():
        app.add_handler(handler)
    app.add_error_handler(on_error)
    return app


async def register_commands(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """The command menus users see in private chats and in groups."""
    await app.bot.set_my_commands(
        [BotCommand(c, d) for c, d in routes.PRIVATE_COMMANDS],
        scope=BotCommandScopeAllPrivateChats(),
    )
    await app.bot.set_my_commands(
        [BotCommand(c, d) for c, d in routes.GROUP_COMMANDS], scope=BotCommandScopeAllGroupChats()
    )


async def set_menus(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """register_commands, retried with backoff; a failure is logged, the bot runs on."""
    try:
        await retrying("setMyCommands", lambda: register_commands(app), asyncio.sleep)
    except TelegramError as err:
        log.warning("command menus not set (the commands still work): %s", err)


def run(app: QuizApp, settings: Settings) -> None:
    """Serve until stopped: a webhook when a URL is set, else long polling."""
    if settings.webhook_url:
        from bot.telegram.webhook import run_webhook

        run_webhook(app, settings)
    else:
        from bot.telegram.polling import run_polling

        # One process of several on the database polls (a lease); the others stand by.
        run_polling(app)


def telegram_services(app: QuizApp, core: Core, sending_bot: ExtBot[None]) -> Services:
    """The core services with what only the bot has: the push's courier, admin alerts, the
    per-group edit throttle and the flood gate."""
    settings = core.settings
    return Services(
        **{f.name: getattr(core, f.name) for f in dataclasses.fields(core)},
        push=PushService(
            core.db,
            settings,
            TelegramCourier(
                sending_bot,
                core.catalog,
                practice=core.practice,
                groups=core.groups,
                paid_broadcast=settings.paid_broadcast,
                media=core.media,
            ),
            practice=core.practice,
            groups=core.groups,
            clock=core.clock,
        ),
        alerts=AdminAlerts(app.bot, settings.admins, core.clock),
        # Count edits get what is left of a group's per-minute budget once questions,
        # reveals and replies are set aside.
        throttle=EditThrottle(budget=max(1, settings.group_messages_per_minute - 8)),
        flood=FloodGate(settings.flood_burst, settings.flood_per_minute),
        budget=GroupBudget(settings.group_messages_per_minute),
    )


def split_budgets(services: Services, processes: int, *, polling: bool) -> None:
    """Several bot processes on one database (counted by the inbox's sweep): each enforces
    its part of the bot-wide budgets, so that together they keep Telegram's limits. In polling
    mode only the poller handles updates: the budgets of what updates cause are its alone."""
    handlers = 1 if polling else processes
    services.flood.split(handlers)
    services.budget.split(handlers)
    services.throttle.split(handlers)
    services.push.split(processes)
    log.info(
        "%d bot process(es) on the database: budgets split %d way(s), the push's %d",
        processes,
        handlers,
        processes,
    )


async def start_jobs(app: QuizApp, services: Services, ticker: Ticker) -> None:
    """Crash recovery, then the timers: the daily push, group rounds, retention, the memory
    fit, mock exams."""
    await services.push.start()
    if app.job_queue is not None:
        push_jobs.schedule(app.job_queue, ticker, services.push)
        group_rounds.schedule_sweep(app.job_queue)
        push_jobs.schedule_retention(
            app.job_queue, services.db, services.clock, services.settings.retention_days
        )
        report_digest.schedule_digest(app.job_queue, services)
        fit_job.schedule_fit(app.job_queue, services)
    # Groups: overdue reveals done, open windows re-armed.
    await group_rounds.on_startup(app.bot, services, app.job_queue)
    # Mock exams whose deadline passed while the bot was down: submitted, results sent.
    await mock_jobs.on_startup(app.bot, app.job_queue, services, ticker)


def enqueue(app: QuizApp, payloads: list[dict[str, Any]]) -> None:
    """Queue updates claimed from the inbox for handling."""
    for payload in payloads:
        app.update_queue.put_nowait(Update.de_json(payload, app.bot))
