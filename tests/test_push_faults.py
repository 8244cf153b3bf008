"""The daily push under faults, in process with a fake clock: a database that refuses writes
mid-push, claims of another process, a reply that is not JSON, 429s, a rate too low for the
grace. Real SQLite files; the faults are real (a second connection holding the write lock, a
transport that cuts replies short)."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import os
import socket
import sqlite3
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.domain import push_retry
from bot.schedule.lease import LEASE_S, owner_dead
from bot.schedule.push import PushService
from bot.storage import push_log
from tests import factories
from tests.botharness import Harness, running_bot
from tests.fakes import FakeBotApi

START = dt.datetime(2026, 6, 1, 6, 0, tzinfo=dt.UTC)


def rows(path: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    return factories.rows(path, sql, params)


def states(h: Harness) -> dict[str, int]:
    return dict(rows(h.db_path, "SELECT state, COUNT(*) FROM push_log GROUP BY state"))


@asynccontextmanager
async def bot(
    tmp_path: Path, api: FakeBotApi | None = None, **settings: Any
) -> AsyncIterator[Harness]:
    """The app with its push on the fake clock: pacing waits move the clock, cost no time."""
    settings.setdefault("push_rate", 20.0)
    async with running_bot(tmp_path, api=api, **settings) as h:
        push = push_of(h)
        push.pace_now = h.clock.now

        async def advance(seconds: float) -> None:
            h.clock.advance(seconds)

        push.sleep = advance
        h.clock.set(START)
        yield h


def push_of(h: Harness) -> PushService:
    assert h.services.push is not None
    return h.services.push


async def subscribe(push: PushService, chats: range, at: str = "06:01") -> None:
    for chat in chats:
        await push.subscribe(chat, at, "UTC", user_id=chat)


# ---------------------------------------------------------------- database errors mid-push
class LockingApi(FakeBotApi):
    """After the Nth sendMessage another connection takes the database's write lock and
    keeps it for `hold` seconds of real time (as another process, a backup, a disk full)."""

    def __init__(self, db: Path, after: int, hold: float) -> None:
        super().__init__()
        self.db, self.after, self.hold = db, after, hold
        self.sends = 0
        self.locker: sqlite3.Connection | None = None

    def handle(
        self, method: str, params: dict[str, Any], files: dict[str, bytes] | None = None
    ) -> tuple[int, dict[str, Any]]:
        answer = super().handle(method, params, files)
        if method.lower() == "sendmessage":
            self.sends += 1
            if self.sends == self.after:
                self.locker = sqlite3.connect(self.db, isolation_level=None, timeout=10)
                self.locker.execute("BEGIN IMMEDIATE")
                asyncio.get_running_loop().call_later(self.hold, self.release)
        return answer

    def release(self) -> None:
        assert self.locker is not None
        self.locker.execute("ROLLBACK")
        self.locker.close()


async def test_a_write_lock_mid_push_misses_no_one_and_strands_no_claim(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    api = LockingApi(tmp_path / "bot.sqlite3", after=10, hold=0.8)
    async with bot(tmp_path, api=api) as h:
        push = push_of(h)
        # The production wait is 5 s; 50 ms makes the same "database is locked" come quickly.
        await push.db.call(lambda c: c.execute("PRAGMA busy_timeout=50"))
        await subscribe(push, range(1000, 1040))
        h.clock.advance(120)
        with caplog.at_level(logging.WARNING, logger="bot.schedule.push"):
            sent = await push.run_once()
        assert api.locker is not None  # the fault happened mid-push
        assert "database write failed" in caplog.text
        assert "database writable again" in caplog.text
        assert sent == 40
        assert states(h) == {"sent": 40}  # nothing left `sending` while the bot runs
        assert sorted(api.send_counts.values()) == [1] * 40  # every outcome kept: no resend


# ---------------------------------------------------------------- owners and leases
async def test_another_processs_live_claims_are_left_alone_until_their_lease_expires(
    tmp_path: Path,
) -> None:
    async with bot(tmp_path) as h:
        push = push_of(h)
        await subscribe(push, range(2000, 2004))
        h.clock.advance(120)
        now = h.clock.now()
        await push.db.write(lambda c: push_log.materialize_due(c, now, 7200, 10))
        # Another host's process claimed 2000 and 2001 and is sending them now.
        other = "other-host:4242:feedbeef"
        claimed = await push.db.write(
            lambda c: push_log.claim(c, now, 2, push._pick, owner=other, lease_until=now + LEASE_S)
        )
        assert [c.chat_id for c in claimed] == [2000, 2001]
        assert await push.run_once() == 2  # the two unclaimed ones only
        assert set(h.api.send_counts) == {2002, 2003}
        h.clock.advance(LEASE_S - 1)
        assert await push.run_once() == 0  # lease still live: not touched
        assert states(h) == {"sending": 2, "sent": 2}
        # The other process died without a word: once its lease expires the rows come back
        # (after the first backoff step) and are sent, with no restart here.
        h.clock.advance(2)
        assert await push.run_once() == 0
        assert states(h) == {"pending": 2, "sent": 2}
        h.clock.advance(push_retry.BACKOFF_S[0])
        assert await push.run_once() == 2
        assert states(h) == {"sent": 4}


def test_owner_is_dead_only_when_known_gone() -> None:
    host, pid = socket.gethostname(), os.getpid()
    me = f"{host}:{pid}:aaaa"
    gone = subprocess.Popen(["true"])
    gone.wait()
    assert owner_dead(f"{host}:{gone.pid}:bbbb", me)  # that pid no longer runs
    assert owner_dead(f"{host}:{pid}:cccc", me)  # an earlier run of this process (pid 1 in Docker)
    assert not owner_dead(me, me)
    assert not owner_dead(f"{host}:1:dddd", me)  # alive (init)
    assert not owner_dead(f"elsewhere:{gone.pid}:eeee", me)  # another host: its lease decides


# ---------------------------------------------------------------- replies and 429s
async def test_a_reply_that_is_not_json_counts_as_maybe_delivered(tmp_path: Path) -> None:
    async with bot(tmp_path) as h:
        push = push_of(h)
        await subscribe(push, range(3000, 3002))
        request = h.app.bot.request
        real = request.do_request
        garbled = [b'{"ok": true, "result": {"message_id": 1', b"<html>Bad gateway</html>"]

        async def cut_short(url: str, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
            status, body = await real(url, *args, **kwargs)  # Telegram carried the call out
            if url.endswith("/sendMessage") and garbled:
                return 200, garbled.pop(0)  # ... and a proxy mangled the reply
            return status, body

        request.do_request = cut_short  # type: ignore[method-assign]
        h.clock.advance(120)
        assert await push.run_once() == 0
        assert rows(h.db_path, "SELECT state, attempts FROM push_log") == [("pending", 1)] * 2
        h.clock.advance(push_retry.BACKOFF_S[0])
        assert await push.run_once() == 2
        # At-least-once: both were delivered the first time, and sent again.
        assert dict(h.api.send_counts) == {3000: 2, 3001: 2}


async def test_a_429_for_one_chat_pauses_that_chat_not_the_push(tmp_path: Path) -> None:
    async with bot(tmp_path) as h:
        push = push_of(h)
        await subscribe(push, range(4000, 4040))
        h.api.rate_limit(retry_after=30, times=1, method="sendMessage", chat_id=4003)
        h.clock.advance(120)
        started = h.clock.now()
        assert await push.run_once() == 39
        # 20/s: 40 slots take 39 intervals of 50 ms. The 30 s wait was the chat's alone.
        assert h.clock.now() - started == pytest.approx(39 / 20.0, abs=0.01)
        assert push.pacing.global_pauses == 0
        h.clock.advance(30)
        assert await push.run_once() == 1
        assert h.api.send_counts[4003] == 1


async def test_429s_from_many_chats_pause_the_whole_push(tmp_path: Path) -> None:
    async with bot(tmp_path) as h:
        push = push_of(h)
        await subscribe(push, range(5000, 5040))
        h.api.rate_limit(retry_after=3, times=8, method="sendMessage")  # the bot's limit
        h.clock.advance(120)
        started = h.clock.now()
        await push.run_once()
        assert push.pacing.global_pauses >= 1
        assert h.clock.now() - started >= 3.0  # everyone waited the retry_after
        h.clock.advance(60)
        await push.run_once()
        assert states(h) == {"sent": 40}
        assert sorted(h.api.send_counts.values()) == [1] * 40


# ---------------------------------------------------------------- the grace, every send
async def test_nothing_is_sent_after_due_plus_grace_and_capacity_is_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock_box: list[Harness] = []
    api = FakeBotApi(clock=lambda: clock_box[0].clock.now() if clock_box else 0.0)
    admin = 777
    async with bot(
        tmp_path, api=api, push_rate=2.0, push_grace_minutes=1, admins=frozenset({admin})
    ) as h:
        clock_box.append(h)
        push = push_of(h)
        await subscribe(push, range(6000, 6300))  # 300 due at 06:01; 2/s serves 120 in 1 min
        with caplog.at_level(logging.WARNING, logger="bot.schedule.push"):
            await push.start()
        assert "300 subscribers fall due at 06:01 UTC" in caplog.text
        assert "sends only 120 within the 1-minute grace: 180 would be skipped" in caplog.text
        assert "paid broadcast" in caplog.text
        user = factories.user(admin, "Op")
        await h.feed(factories.command("/admin", user, factories.private_chat(user)))
        report = h.api.last_text(admin) or ""
        assert "Push capacity" in report and "180 would be skipped" in report

        h.clock.set(START + dt.timedelta(minutes=1, seconds=10))  # 10 s into the grace
        due = h.clock.now() - 10
        sent = await push.run_once()
        pushed = [c for c in h.api.send_counts if c != admin]
        dates = [m["date"] for chat in pushed for m in h.api.messages_to(chat)]
        assert sent == len(dates) > 0
        assert max(dates) <= due + 60  # 0 sends after due + grace
        assert 100 <= sent <= 101  # the rate's share of the 50 s left
        assert states(h) == {"sent": sent, "skipped": 300 - sent}
        errors = rows(h.db_path, "SELECT DISTINCT error FROM push_log WHERE state = 'skipped'")
        assert errors and all(e.startswith("late") for (e,) in errors)
        # A push past its grace is skipped before its question is picked: no delivery for it
        # (only the claims in flight when the grace ran out were picked in vain).
        picked = rows(h.db_path, "SELECT COUNT(*) FROM deliveries WHERE source = 'daily'")[0][0]
        assert sent <= picked <= sent + push.window
