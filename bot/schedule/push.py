"""The daily push service: subscriptions, and the runner that finds what is due and sends it.

Truth lives in SQLite: a run (`run_once`) reads what is due from the database with the
injectable clock, so a tick, a restart or a test all do the same thing. The JobQueue only wakes
the runner (bot/schedule/jobs.py). The runner is a background task: learners' updates never
wait for it, and it holds the database only for short batch transactions.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import random
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from telegram.ext import ExtBot

from bot.bank.models import Bank, Question
from bot.config import Settings
from bot.domain import due
from bot.practice.catalog import Catalog
from bot.practice.clock import Clock
from bot.schedule import delivery_log as dlog
from bot.schedule.pacer import GroupWindow, Pacer, Sleep, Unpaced
from bot.schedule.picker import private_picker
from bot.schedule.sender import Composer, Markup, Sender
from bot.storage.chat_migration import migrate_chat
from bot.storage.db import Database
from bot.telegram import keyboards, render, texts
from bot.telegram.html_split import split_html

log = logging.getLogger(__name__)

STAND_IN_ID = 987654321987654321  # 18 digits: cannot collide with other callback text
MATERIALIZE_BATCH = 1000  # subscriptions turned into log rows per transaction (~10 ms)
DAY_S = 86400.0
TEXT_CACHE_SIZE = 1024  # rendered questions kept; cleared whole when full (reloads add entries)


def push_rate(settings: Settings) -> float:
    """Messages per second the push is paced at."""
    return settings.paid_broadcast_rate if settings.paid_broadcast else settings.push_rate


def push_window(rate: float) -> int:
    """Claims in flight: enough to keep the rate with ~250 ms per send, few enough that a
    kill -9 leaves only a handful of maybe-sent rows to send again. Also the number of
    connections the push needs (bot/telegram/app.py sizes its pool from it)."""
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
        catalog: Catalog,
        settings: Settings,
        bot: ExtBot[None],
        *,
        clock: Clock,
        rng: random.Random | None = None,
        paced: bool = True,
        window: int | None = None,
    ) -> None:
        self.db = db
        self.catalog = catalog
        self.settings = settings
        self.clock = clock
        self.grace_s = settings.push_grace_minutes * 60.0
        # Tests swap these for a fake clock: pacing and 429 waits then cost no real time.
        self.pace_now: Callable[[], float] = time.monotonic
        self.sleep: Sleep = asyncio.sleep
        rate = push_rate(settings)
        self.pacer: Pacer | Unpaced = Pacer(rate, self._now, self._sleep) if paced else Unpaced()
        self.window = window or push_window(rate)
        # Outcomes are written in batches; when paced, small ones (a few per second cost
        # nothing) so that a crash leaves few sent-but-unrecorded pushes to send again.
        self.flush_every = max(1, self.window // 2 if not paced else math.ceil(rate / 50))
        self.pickers: dict[str, dlog.Picker] = {
            "private": private_picker(catalog, rng or random.Random())
        }
        self.composers: dict[str, Composer] = {"private": self._compose_private}
        self.sender = Sender(
            bot,
            self.composers,
            self.pacer,
            GroupWindow(settings.group_messages_per_minute, self._now, self._sleep),
            self._sleep,
            self._migrate,
            paid_broadcast=settings.paid_broadcast,
        )
        self.on_idle: Callable[[float | None], None] | None = None  # set by jobs.py
        self._run_lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        self._stopping = False
        # (id(bank), id(question)) -> (bank, question, parts, keyboard JSON). Keyed by object
        # identity with the objects kept in the value (as render._VERDICT_CACHE): a /reload
        # brings new objects, so an edited question never meets its old text, and a kept object
        # cannot have its id reused by another.
        self._texts: dict[tuple[int, int], tuple[Bank, Question, list[str], str]] = {}

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
        kind: str = "private",
    ) -> due.Occurrence:
        """Subscribe a chat (private: user_id remembers the zone too); returns the next push."""
        now = self.clock.now()

        def go(conn: sqlite3.Connection) -> due.Occurrence:
            if user_id is not None:
                conn.execute(
                    "INSERT INTO users (id, timezone, created_at, seen_at) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (id) DO UPDATE SET timezone = excluded.timezone",
                    (user_id, timezone, now, now),
                )
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
            self.sender.groups.forget_idle()  # one window per group, only while it is busy
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
                    inflight |= {asyncio.create_task(self.sender.deliver(c)) for c in claims}
                if not inflight:
                    # Retried rows wait in backoff (at least BACKOFF_S[0]): nothing to claim
                    # again now. The wake at next_wake (their not_before) or a tick runs again.
                    await self._flush(done_outcomes)
                    sent += sum(o.state == "sent" for o in done_outcomes)
                    return sent
                finished, inflight = await asyncio.wait(
                    inflight, return_when=asyncio.FIRST_COMPLETED
                )
                done_outcomes.extend(t.result() for t in finished)
                if len(done_outcomes) >= self.flush_every:
                    await self._flush(done_outcomes)
                    sent += sum(o.state == "sent" for o in done_outcomes)
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
        picker = self.pickers.get(row.kind) or self.pickers["private"]
        return picker(conn, row, now)

    async def _migrate(self, old: int, new: int) -> None:
        now = self.clock.now()
        await self.db.write(lambda c: migrate_chat(c, old, new, now))

    def _compose_private(self, claim: dlog.Claim) -> tuple[list[str], Markup] | None:
        question = self.catalog.question(claim.bank_id, claim.question_id)
        if question is None:
            return None
        bank = self.catalog.bank(claim.bank_id)
        key = (id(bank), id(question))
        cached = self._texts.get(key)
        if cached is None:
            # The same question goes to many learners: render, split and build its keyboard
            # once (with a stand-in delivery id), then fill in each delivery's id.
            parts = split_html(texts.DAILY_HEADER + render.question_text(bank, question))
            keyboard = keyboards.question_keyboard(STAND_IN_ID, question).to_dict()
            if len(self._texts) >= TEXT_CACHE_SIZE:
                self._texts.clear()
            cached = self._texts[key] = (bank, question, parts, json.dumps(keyboard))
        parts, template = cached[2], cached[3]
        return parts, json.loads(template.replace(str(STAND_IN_ID), str(claim.delivery_id)))
