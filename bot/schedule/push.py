"""The daily push service: subscriptions, and the runner that finds what is due and sends it.

Truth lives in SQLite: a run (`run_once`) reads what is due from the database with the
injectable clock, so a tick, a restart or a test all do the same thing. The JobQueue only wakes
the runner (bot/telegram/push_jobs.py). The runner is a background task: learners' updates
never wait for it, and it holds the database only for short batch transactions.

Sending is not done here: a `Courier` (the port in bot/schedule/ports.py, implemented by
bot/telegram/outbound/push_courier.py) composes and sends one push and says what came of it.
"""

from __future__ import annotations

import asyncio
import logging
import math
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from bot.config import Settings
from bot.domain import due
from bot.domain.kinds import ChatKind, PushState
from bot.practice.clock import Clock
from bot.practice.groups import GroupService
from bot.practice.service import PracticeService
from bot.schedule.pacer import GroupWindow, Pacer, PushPacing, Sleep, Unpaced
from bot.schedule.ports import Courier
from bot.storage import practice_sql
from bot.storage import push_log as dlog
from bot.storage.db import Database

log = logging.getLogger(__name__)

MATERIALIZE_BATCH = 1000  # subscriptions turned into log rows per transaction (~10 ms)
DAY_S = 86400.0


def push_rate(settings: Settings) -> float:
    """Messages per second the push is paced at."""
    return settings.paid_broadcast_rate if settings.paid_broadcast else settings.push_rate


def push_window(rate: float) -> int:
    """Claims in flight: enough to keep the rate with ~250 ms per send, few enough that a
    kill -9 leaves only a handful of maybe-sent rows to send again. Also the number of
    connections the push needs (the composition root sizes its pool from it)."""
    return max(4, min(32, math.ceil(rate / 4)))


@dataclass(frozen=True, slots=True)
class PushStats:
    """What /admin shows."""

    active: int
    inactive: int
    due_next_24h: int
    last_24h: dict[str, int] = field(default_factory=dict)


class PushService:
    """Subscriptions for /daily and the paced, crash-safe push."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        courier: Courier,
        *,
        practice: PracticeService,
        groups: GroupService,
        clock: Clock,
        paced: bool = True,
        window: int | None = None,
    ) -> None:
        self.db = db
        self.settings = settings
        self.courier = courier
        self.practice = practice
        self.groups = groups
        self.clock = clock
        self.grace_s = settings.push_grace_minutes * 60.0
        # Tests swap these for a fake clock: pacing and 429 waits then cost no real time.
        self.pace_now: Callable[[], float] = time.monotonic
        self.sleep: Sleep = asyncio.sleep
        rate = push_rate(settings)
        pacer: Pacer | Unpaced = Pacer(rate, self._now, self._sleep) if paced else Unpaced()
        self.pacing = PushPacing(
            pacer,
            GroupWindow(settings.group_messages_per_minute, self._now, self._sleep),
            self._sleep,
        )
        self.window = window or push_window(rate)
        # Outcomes are written in batches; when paced, small ones (a few per second cost
        # nothing) so that a crash leaves few sent-but-unrecorded pushes to send again.
        self.flush_every = max(1, self.window // 2 if not paced else math.ceil(rate / 50))
        # Told the next instant a run is wanted (the JobQueue wiring sets it).
        self.on_idle: Callable[[float | None], None] | None = None
        self._run_lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        self._stopping = False

    def _now(self) -> float:
        return self.pace_now()

    async def _sleep(self, seconds: float) -> None:
        await self.sleep(seconds)

    # ------------------------------------------------------------------ subscriptions
    async def subscribe(
        self,
        chat_id: int,
        local_time: str,
        timezone: str,
        *,
        user_id: int | None = None,
        kind: ChatKind = ChatKind.PRIVATE,
    ) -> due.Occurrence:
        """Subscribe a chat (private: user_id remembers the zone too); returns the next push."""
        now = self.clock.now()

        def go(conn: sqlite3.Connection) -> due.Occurrence:
            if user_id is not None:
                practice_sql.set_user_timezone(conn, user_id, timezone, now)
            return dlog.upsert_subscription(
                conn,
                chat_id=chat_id,
                user_id=user_id,
                kind=kind,
                local_time=local_time,
                timezone=timezone,
                now=now,
            )

        occ = await self.db.write(go)
        if self.on_idle is not None:
            self.on_idle(await self.db.read(dlog.next_wake))
        return occ

    async def unsubscribe(self, chat_id: int) -> bool:
        """Stop the chat's daily push; False if it had none."""
        now = self.clock.now()
        return await self.db.write(lambda c: dlog.deactivate(c, chat_id, now))

    async def subscription(self, chat_id: int) -> dlog.Subscription | None:
        """The chat's subscription, active or not."""
        return await self.db.read(lambda c: dlog.subscription(c, chat_id))

    async def stats(self) -> PushStats:
        """Subscribers and the pushes due in the last 24 hours, by state."""
        now = self.clock.now()

        def gather(conn: sqlite3.Connection) -> PushStats:
            active, inactive, upcoming = dlog.subscriber_counts(conn, now, DAY_S)
            return PushStats(active, inactive, upcoming, dlog.push_counts(conn, now - DAY_S))

        return await self.db.read(gather)

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> int:
        """Put back rows a crash left `sending` (at-least-once); returns how many."""
        now = self.clock.now()
        recovered = await self.db.write(lambda c: dlog.recover_sending(c, now))
        if recovered:
            log.warning("push: %d pushes were cut off by a stop; sending them again", recovered)
        return recovered

    def wake(self) -> None:
        """Ask the background runner for a run (a tick, a due instant); never blocks."""
        if self._stopping:
            return
        if self._loop_task is None or self._loop_task.done():
            self._loop_task = asyncio.create_task(self._loop(), name="daily-push")
        self._wake.set()

    async def stop(self, grace: float = 10.0) -> None:
        """Stop claiming, let sends in flight finish (up to `grace` seconds), then cancel."""
        self._stopping = True
        self._wake.set()
        task, self._loop_task = self._loop_task, None
        if task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), grace)
        except TimeoutError:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def _loop(self) -> None:
        while not self._stopping:
            await self._wake.wait()
            self._wake.clear()
            if self._stopping:
                break
            try:
                await self.run_once()
            except Exception:
                # The next tick tries again; the log rows say where we were.
                log.exception("push run failed")

    # ------------------------------------------------------------------ the run
    async def run_once(self) -> int:
        """Materialize what is due, skip what is too late, send the rest; returns sends."""
        async with self._run_lock:
            now = self.clock.now()
            while True:
                n = await self.db.write(
                    lambda c: dlog.materialize_due(c, now, self.grace_s, MATERIALIZE_BATCH)
                )
                if n < MATERIALIZE_BATCH:
                    break
            skipped = await self.db.write(lambda c: dlog.skip_late(c, now, self.grace_s))
            if skipped:
                log.warning("push: %d pushes more than the grace late, skipped", skipped)
            sent = await self._drain()
            self.pacing.groups.forget_idle()  # one window per group, only while it is busy
            if self.on_idle is not None and not self._stopping:
                self.on_idle(await self.db.read(dlog.next_wake))
            return sent

    async def _drain(self) -> int:
        inflight: set[asyncio.Task[dlog.Outcome]] = set()
        done_outcomes: list[dlog.Outcome] = []
        exhausted = False
        sent = 0
        try:
            while True:
                if not self._stopping and not exhausted and len(inflight) <= self.window // 2:
                    want = self.window - len(inflight)
                    now = self.clock.now()
                    claims = await self.db.write(
                        partial(dlog.claim, now=now, limit=want, pick=self._pick)
                    )
                    exhausted = len(claims) < want
                    inflight |= {
                        asyncio.create_task(self.courier.deliver(c, self.pacing)) for c in claims
                    }
                if not inflight:
                    # Retried rows wait in backoff (at least BACKOFF_S[0]): nothing to claim
                    # again now. The wake at next_wake (their not_before) or a tick runs again.
                    await self._flush(done_outcomes)
                    sent += sum(o.state is PushState.SENT for o in done_outcomes)
                    return sent
                finished, inflight = await asyncio.wait(
                    inflight, return_when=asyncio.FIRST_COMPLETED
                )
                done_outcomes.extend(t.result() for t in finished)
                if len(done_outcomes) >= self.flush_every:
                    await self._flush(done_outcomes)
                    sent += sum(o.state is PushState.SENT for o in done_outcomes)
                    done_outcomes = []
        finally:
            # Cancelled mid-push (shutdown timeout): the unsent claims stay `sending` and the
            # next start sends them again, which is the at-least-once rule.
            for task in inflight:
                task.cancel()
            if inflight:
                await asyncio.gather(*inflight, return_exceptions=True)

    async def _flush(self, outcomes: list[dlog.Outcome]) -> None:
        """Record outcomes in one transaction (retries go back to pending, in backoff)."""
        if not outcomes:
            return
        now = self.clock.now()
        await self.db.write(lambda c: dlog.record(c, outcomes, now, self.grace_s))

    def _pick(
        self, conn: sqlite3.Connection, row: dlog.DueRow, now: float
    ) -> tuple[int, str, str] | None:
        """Choose and record the question of one due chat, by its kind."""
        match row.kind:
            case ChatKind.PRIVATE:
                return self.practice.pick_daily(conn, row, now)
            case ChatKind.GROUP | ChatKind.CHANNEL:
                return self.groups.pick_daily(conn, row, now)
        raise ValueError(f"unknown chat kind {row.kind!r}")
