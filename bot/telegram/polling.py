"""Polling mode with several processes on one database: one of them polls.

Telegram allows one consumer of getUpdates per bot. The processes elect it with a lease row
(`leases`, role "poller"): the holder renews it every RENEW_EVERY_S and polls; the others
stand by (they run the bot's jobs and handle what the inbox gives them) and try to take the
role as often. When the poller dies, its lease lapses within LEASE_S and a standby polls
next; a poller that stops cleanly gives the role up at once. A poller that cannot renew (the
database is away) polls on, and stops when it finds the role taken: two pollers for a while
cost Telegram's "terminated by other getUpdates" errors, never an update handled twice,
since the inbox stores each update once and only the process that stored it handles it.

What a dead poller fetched and did not handle is in the inbox, held by it: the next poller
fetches it again (Telegram had no offset confirming it) and drops it, and an inbox sweep
claims it once the dead poller's lease lapsed (see bot/telegram/inbox.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from collections.abc import Callable

from telegram import Update
from telegram.error import TelegramError

from bot.schedule.lease import owner_dead, owner_id
from bot.storage import lease_sql
from bot.storage.port import Connection, Store
from bot.telegram.context import QuizApp
from bot.telegram.startup import STARTUP_BACKOFF_S
from bot.telegram.webhook_guard import RateLimitedLog

log = logging.getLogger(__name__)
ROLE = "poller"
LEASE_S = 10.0
RENEW_EVERY_S = 3.0  # a standby tries as often, so it polls within LEASE_S + RENEW_EVERY_S
POLL_ERROR_LOG_EVERY_S = 60.0


class PollErrors:
    """PTB's error callback for getUpdates. PTB's own logs a traceback per retry, and a fault
    that lasts (a full disk refusing every fetched batch, Telegram away) retries every few
    seconds: here one line per kind of fault per minute, with a count, and no traceback."""

    def __init__(self, every: float = POLL_ERROR_LOG_EVERY_S) -> None:
        self.every = every
        self._logs: dict[str, RateLimitedLog] = {}

    def __call__(self, err: TelegramError) -> None:
        cause = err.__cause__
        kind = type(err).__name__ + (f"/{type(cause).__name__}" if cause else "")
        lines = self._logs.setdefault(kind, RateLimitedLog(log, self.every))
        lines.log("polling: getUpdates failed, retrying: %s", err)


class PollerLease:
    """This process's claim on the poller role, on the wall clock the processes share."""

    def __init__(
        self, db: Store, owner: str | None = None, wall: Callable[[], float] = time.time
    ) -> None:
        self.db = db
        self.owner = owner or owner_id()
        self.wall = wall

    async def hold(self) -> bool:
        """Take or renew the role; whether this process holds it now."""
        now = self.wall()

        def write(conn: Connection) -> bool:
            current = lease_sql.holder(conn, ROLE)
            dead = current[0] if current and owner_dead(current[0], self.owner) else None
            return lease_sql.hold(conn, ROLE, self.owner, now, now + LEASE_S, dead)

        return await self.db.write(write)

    async def release(self) -> None:
        """Give the role up, so that a standby polls without waiting for the lease."""
        await self.db.write(lambda conn: lease_sql.release(conn, ROLE, self.owner))


async def elect(app: QuizApp, lease: PollerLease, stop: asyncio.Event) -> None:
    """Poll while this process holds the role, stand by while another does, until `stop`."""
    updater = app.updater
    if updater is None:
        raise RuntimeError("polling needs the Application's updater")
    poll_errors = PollErrors()
    while not stop.is_set():
        try:
            mine = await lease.hold()
        except Exception as err:  # the database is away: go on as before (see above)
            mine = updater.running
            log.warning("polling: the poller lease not renewed: %s", err)
        if mine and not updater.running:
            log.info("polling: this process polls getUpdates (the others stand by)")
            await updater.start_polling(
                allowed_updates=Update.ALL_TYPES,
                bootstrap_retries=len(STARTUP_BACKOFF_S),
                error_callback=poll_errors,
            )
        elif not mine and updater.running:
            log.warning("polling: another process holds the poller lease; standing by")
            await updater.stop()
        elif not mine:
            log.debug("polling: standing by")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), RENEW_EVERY_S)


async def serve(app: QuizApp, lease_for: Callable[[QuizApp], PollerLease]) -> None:
    """Run the bot in polling mode until SIGTERM or SIGINT, polling when elected."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    lease: PollerLease | None = None
    try:
        await app.initialize()
        if app.post_init is not None:
            await app.post_init(app)
        await app.start()
        lease = lease_for(app)
        await elect(app, lease, stop)
        log.info("stopping: %d updates queued to finish", app.update_queue.qsize())
    finally:
        if app.updater is not None and app.updater.running:
            await app.updater.stop()  # confirms to Telegram what was fetched
        if lease is not None:
            try:
                await lease.release()
            except Exception as err:  # the standby waits for the lease instead
                log.warning("polling: the poller lease not released: %s", err)
        if app.running:
            await app.stop()
            if app.post_stop is not None:
                await app.post_stop(app)
        await app.shutdown()
        if app.post_shutdown is not None:
            await app.post_shutdown(app)
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)


def run_polling(app: QuizApp) -> None:
    """Serve in polling mode (blocking), with a poller lease in the bot's database."""

    def lease_for(running: QuizApp) -> PollerLease:
        services = running.bot_data.services
        if services is None:
            raise RuntimeError("the bot's services did not start")
        return PollerLease(services.db)

    asyncio.run(serve(app, lease_for))
