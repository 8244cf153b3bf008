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
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar

from bot.config import Settings
from bot.domain import due, zones
from bot.domain.kinds import ChatKind, PushState
from bot.practice.clock import Clock, JumpWatch
from bot.practice.groups import GroupService
from bot.practice.service import PracticeService
from bot.schedule.capacity import Capacity, capacity
from bot.schedule.lease import (
    DB_RETRY_S,
    LEASE_S,
    RENEW_EVERY_S,
    RUN_RETRY_S,
    owner_dead,
    owner_id,
)
from bot.schedule.pacer import GroupWindow, Pacer, PushLate, PushPacing, Sleep, Unpaced
from bot.schedule.ports import Courier
from bot.storage import practice_sql, push_lease
from bot.storage import push_log as dlog
from bot.storage.port import Connection, StorageError, Store
from bot.storage.push_peak import due_profile, minute_load

log = logging.getLogger(__name__)
T = TypeVar("T")

# Planning (subscriptions turned into log rows) runs in transactions sized to hold the single
# writer about PLAN_HOLD_S each, so an answer never waits long behind it.
MATERIALIZE_BATCH = 1000
PLAN_HOLD_S = 0.025
DAY_S = 86400.0
# /daily looks this many minutes either side of a full minute for one with room.
MINUTES_TRIED = 180


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
    capacity: Capacity | None = None


class PushService:
    """Subscriptions for /daily and the paced, crash-safe push."""

    def __init__(
        self,
        db: Store,
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
        self._watch = JumpWatch(clock)
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
            self._now,
        )
        self.rate = rate
        self.owner = owner_id()
        # Waits for the database to come back: real time even when pacing runs on a test clock.
        self.db_sleep: Sleep = asyncio.sleep
        self.plan_batch = MATERIALIZE_BATCH
        self.longest_plan_hold = 0.0  # seconds, the longest planning transaction so far
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
        self._db_failing = 0  # consecutive failed push writes (0: the database is fine)
        self._warned: str | None = None  # the capacity warning logged last

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
        thread: int | None = None,
    ) -> due.Occurrence:
        """Subscribe a chat (private: user_id remembers the zone too; a forum group: `thread`,
        the topic its question goes to); returns the next push."""
        now = self.clock.now()

        def go(conn: Connection) -> due.Occurrence:
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
                thread=thread,
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

        def gather(conn: Connection) -> PushStats:
            active, inactive, upcoming = dlog.subscriber_counts(conn, now, DAY_S)
            cap = self._capacity_of(due_profile(conn, now - self.grace_s), now)
            return PushStats(active, inactive, upcoming, dlog.push_counts(conn, now - DAY_S), cap)

        return await self.db.read(gather)

    async def capacity(self) -> Capacity | None:
        """The backlog (what is due and not sent yet, and every subscription's next push)
        against what the rate sends within the grace."""
        now = self.clock.now()
        profile = await self.db.read(lambda c: due_profile(c, now - self.grace_s))
        return self._capacity_of(profile, now)

    def _capacity_of(self, profile: list[tuple[float, int]], now: float) -> Capacity | None:
        return capacity(profile, self.rate, self.grace_s, now)

    async def check_capacity(self) -> Capacity | None:
        """`capacity`, warning in the log when the backlog cannot be sent in time (once per
        distinct warning: a tick that finds the same shortfall says nothing new)."""
        cap = await self.capacity()
        warning = cap.warning() if cap is not None else None
        if warning and warning != self._warned:
            log.warning("push: %s", warning)
        self._warned = warning
        return cap

    async def minute_room(self, chat_id: int, local_time: str, timezone: str) -> str | None:
        """None when a push at `local_time` in `timezone` still fits the rate (the minute
        holds fewer pushes than the rate sends in a minute, this chat's own not counted);
        else the nearest local time (HH:MM, either side) whose minute has room, or "" if
        none within MINUTES_TRIED has."""
        tz = zones.zone(timezone)
        if tz is None:
            return None
        now = self.clock.now()
        per_minute = math.floor(self.rate * 60)
        hour, minute = (int(x) for x in local_time.split(":"))
        chosen = hour * 60 + minute

        def full(conn: Connection, minutes: int) -> bool:
            text = f"{minutes // 60 % 24:02d}:{minutes % 60:02d}"
            at = due.next_due(text, tz, now).at
            return minute_load(conn, at, chat_id) >= per_minute

        def probe(conn: Connection) -> str | None:
            if not full(conn, chosen):
                return None
            for step in range(1, MINUTES_TRIED + 1):
                for minutes in (chosen + step, chosen - step):
                    if not full(conn, minutes % 1440):
                        return f"{minutes % 1440 // 60:02d}:{minutes % 60:02d}"
            return ""

        return await self.db.read(probe)

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> int:
        """Put back rows a crash left `sending` (at-least-once) and warn when the rate cannot
        serve the busiest due instant within the grace; returns how many rows came back."""
        recovered = await self._recover()
        await self.check_capacity()
        return recovered

    async def _recover(self) -> int:
        """Claims whose lease expired or whose owner is dead go back to pending (backoff)."""
        now = self.clock.now()
        owners = await self.db.read(push_lease.sending_owners)
        dead = [o for o in owners if owner_dead(o, self.owner)]
        recovered = await self.db.write(
            lambda c: push_lease.recover_expired(c, now, self.grace_s, dead)
        )
        if recovered:
            log.warning(
                "push: %d pushes were cut off while sending; sending them again", recovered
            )
        return recovered

    def wake(self) -> None:
        """Ask the background runner for a run (a tick, a due instant); never blocks."""
        if self._stopping:
            return
        if self._loop_task is None or self._loop_task.done():
            self._loop_task = asyncio.create_task(self._loop(), name="daily-push")
        self._wake.set()

    def split(self, processes: int) -> None:
        """One of `processes` pushing from the shared claims: each sends its part of the rate
        (Telegram's limits are the bot's), so that together they send at the rate."""
        self.pacing.pacer.split(processes)
        self.pacing.groups.split(processes)

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
            except Exception as err:
                # The log rows say where we were; try again soon (a database that refused the
                # planning is usually back within seconds), the ticks after that anyway.
                if isinstance(err, StorageError):
                    log.warning("push run failed, retrying in %g s: %s", RUN_RETRY_S, err)
                else:
                    log.exception("push run failed")
                if not self._stopping:
                    await self.db_sleep(RUN_RETRY_S)
                    self._wake.set()

    # ------------------------------------------------------------------ the run
    async def run_once(self) -> int:
        """Materialize what is due, skip what is too late, send the rest; returns sends."""
        async with self._run_lock:
            if jump := self._watch.check():
                await self.db.write(lambda c: dlog.shift_pending(c, jump))
            now = self.clock.now()
            if await self.plan(now):
                # New rows joined the backlog: say now if it cannot all be sent in time.
                await self.check_capacity()
            await self._recover()
            skipped = await self.db.write(lambda c: dlog.skip_late(c, now, self.grace_s))
            if skipped:
                log.warning("push: %d pushes more than the grace late, skipped", skipped)
            sent = await self._drain()
            self.pacing.groups.forget_idle()  # one window per group, only while it is busy
            if self.on_idle is not None and not self._stopping:
                self.on_idle(await self.db.read(dlog.next_wake))
            return sent

    async def plan(self, now: float) -> int:
        """Turn due subscriptions into log rows, in transactions of about PLAN_HOLD_S;
        returns how many subscriptions were planned."""

        def batch(conn: Connection, size: int) -> int:
            return dlog.materialize_due(conn, now, self.grace_s, size)

        planned = 0
        while True:
            size = self.plan_batch
            started = time.perf_counter()
            n = await self.db.write(partial(batch, size=size))
            # Timed around the round trip, not inside the transaction: its commit writes every
            # page the batch dirtied (push_log and its indexes), often longer than the inserts.
            took = time.perf_counter() - started
            planned += n
            self.longest_plan_hold = max(self.longest_plan_hold, took)
            # Size the next transaction from this one: halve when it held the writer too
            # long, grow while it is well under (a loaded machine plans in smaller steps).
            if took > PLAN_HOLD_S:
                self.plan_batch = max(50, size // 2)
            elif took < PLAN_HOLD_S / 3:
                self.plan_batch = min(8 * MATERIALIZE_BATCH, size * 2)
            if n < size:
                return planned

    async def _write(self, fn: Callable[[Connection], T]) -> tuple[bool, T | None]:
        """A push write that may meet a database error: (False, None) instead of raising."""
        try:
            return True, await self.db.write(fn)
        except StorageError as err:
            if not self._db_failing:
                log.warning("push: database write failed, retrying with backoff: %s", err)
            self._db_failing += 1
            return False, None

    async def _drain(self) -> int:
        """Claim, send and record until nothing is ready. A database error never strands a
        claim: claiming pauses, outcomes are kept and recorded once the database is back,
        and leases are renewed while sends are in flight."""
        inflight: set[asyncio.Task[dlog.Outcome]] = set()
        done: list[dlog.Outcome] = []
        exhausted = False
        sent = 0
        loop = asyncio.get_running_loop()
        retry_at = 0.0  # loop time before which the database is left alone after an error
        renewed_at = self.clock.now()
        self._db_failing = 0
        try:
            while True:
                now = self.clock.now()
                if inflight and now - renewed_at >= RENEW_EVERY_S:
                    ok, _ = await self._write(
                        partial(push_lease.renew, owner=self.owner, lease_until=now + LEASE_S)
                    )
                    renewed_at = now if ok else renewed_at
                healthy = loop.time() >= retry_at
                if (
                    healthy
                    and not self._stopping
                    and not exhausted
                    and len(inflight) <= self.window // 2
                ):
                    want = self.window - len(inflight)
                    claim = partial(
                        dlog.claim,
                        now=now,
                        limit=want,
                        pick=self._pick,
                        owner=self.owner,
                        lease_until=now + LEASE_S,
                        slots=self._slots(now),
                    )
                    ok, claims = await self._write(claim)
                    if ok and claims is not None:
                        exhausted = len(claims) < want
                        inflight |= {asyncio.create_task(self._deliver(c)) for c in claims}
                    healthy = ok
                if healthy and done and (len(done) >= self.flush_every or not inflight):
                    outcomes = done
                    ok, _ = await self._write(
                        partial(dlog.record, outcomes=outcomes, now=now, grace_s=self.grace_s)
                    )
                    if ok:
                        sent += sum(o.state is PushState.SENT for o in outcomes)
                        done = []
                    healthy = ok
                if healthy and self._db_failing:
                    log.warning(
                        "push: database writable again after %d failed writes", self._db_failing
                    )
                    self._db_failing = 0
                elif not healthy and loop.time() >= retry_at:
                    step = DB_RETRY_S[min(self._db_failing, len(DB_RETRY_S)) - 1]
                    retry_at = loop.time() + step
                if not inflight:
                    if not done and (exhausted or self._stopping):
                        return sent
                    # Waiting for the database: outcomes to record, or claims to make.
                    await self.db_sleep(max(0.0, retry_at - loop.time()))
                    continue
                finished, inflight = await asyncio.wait(
                    inflight, timeout=RENEW_EVERY_S, return_when=asyncio.FIRST_COMPLETED
                )
                done.extend(t.result() for t in finished)
        finally:
            # Cancelled mid-push (shutdown timeout): unsent claims and unrecorded outcomes stay
            # `sending` under our lease; the next start (our owner is then dead) or any run
            # after the lease expires sends them again, which is the at-least-once rule.
            for task in inflight:
                task.cancel()
            if inflight:
                await asyncio.gather(*inflight, return_exceptions=True)

    def _slots(self, now: float) -> dlog.SendSlots:
        """When the next claims would be sent: the senders in flight already hold their
        slots in the pacer, so a backlog shows as a next free slot later than now."""
        pacer = self.pacing.pacer
        return dlog.SendSlots(now + pacer.wait_for_slot(), pacer.interval, self.grace_s)

    async def _deliver(self, claim: dlog.Claim) -> dlog.Outcome:
        """One claim through the courier; a slot past due + grace skips it (not sent)."""
        pacing = self.pacing.for_claim(claim.due_at + self.grace_s, self.clock.now)
        try:
            return await self.courier.deliver(claim, pacing)
        except PushLate:
            late = self.clock.now() - claim.due_at
            return dlog.Outcome(
                claim.log_id,
                claim.chat_id,
                PushState.SKIPPED,
                claim.delivery_id,
                error=f"late: {late:.0f} s after due, past the grace",
            )
        except Exception as err:  # a bug must not strand the claim: retried, and logged
            log.exception("push to chat %s failed unexpectedly", claim.chat_id)
            error = f"{type(err).__name__}: {err}"[:200]
            return dlog.Outcome(
                claim.log_id, claim.chat_id, PushState.RETRY, claim.delivery_id, error=error
            )

    def _pick(self, conn: Connection, row: dlog.DueRow, now: float) -> tuple[int, str, str] | None:
        """Choose and record the question of one due chat, by its kind."""
        match row.kind:
            case ChatKind.PRIVATE:
                return self.practice.pick_daily(conn, row, now)
            case ChatKind.GROUP | ChatKind.CHANNEL:
                return self.groups.pick_daily(conn, row, now)
        raise ValueError(f"unknown chat kind {row.kind!r}")
