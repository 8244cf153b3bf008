"""The wall clock stepping (an NTP step, a VM restore) while monotonic time runs on: timers,
the daily push, mock-exam deadlines and the heartbeat follow the time that really passed."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.health import check
from bot.mock.models import ExamStatus
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock, JumpWatch
from bot.practice.mock_models import MockStatus
from bot.practice.mock_service import MockService
from bot.schedule.ticker import Ticker
from bot.storage.factory import open_database
from bot.storage.port import Store
from bot.telegram import status
from tests import factories
from tests.backend import database
from tests.botharness import Harness, running_bot
from tests.mock_bank import three_topics

HOUR = 3600.0


def test_the_watch_tells_a_step_either_way_and_logs_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    watch = JumpWatch(clock, log_as="timers")
    clock.advance(30)
    assert watch.check() == 0.0  # time passing is no step
    clock.step(1800)
    with caplog.at_level(logging.WARNING):
        assert watch.check() == 1800
        clock.advance(1)
        assert watch.check() == 0.0
        clock.step(-HOUR)
        assert watch.check() == -HOUR
    assert [r.getMessage() for r in caplog.records] == [
        "timers: the wall clock stepped forward by 1800 s; timers run on monotonic time",
        "timers: the wall clock stepped back by 3600 s; timers run on monotonic time",
    ]


async def test_timers_run_on_monotonic_time_and_at_once_after_a_step() -> None:
    clock = FakeClock()
    ticker = Ticker(clock, monotonic=clock.monotonic)
    runs: list[float] = []

    async def job() -> None:
        runs.append(clock.now())

    ticker.every("job", 30, job)
    clock.advance(30)
    await ticker.tick()
    assert len(runs) == 1
    clock.step(-HOUR)  # a wall-clock timer would now wait an hour and 30 s
    await ticker.tick()
    assert runs[-1] == clock.now() and len(runs) == 2  # at once, to re-read what is due
    clock.advance(29)
    await ticker.tick()
    assert len(runs) == 2
    clock.advance(1)
    await ticker.tick()
    assert len(runs) == 3  # and every 30 s of monotonic time after that


@pytest.fixture
async def mock_db(tmp_path: Path) -> AsyncIterator[Store]:
    async with open_database(database(tmp_path / "m.sqlite3")) as store:
        yield store


async def test_a_forward_step_does_not_submit_a_running_mock(mock_db: Store) -> None:
    clock = FakeClock()
    service = MockService(
        mock_db, Catalog({"mockbank": three_topics()}), clock=clock, rng=random.Random(1)
    )
    started = await service.start(1, chat_id=1)  # 10 questions in 20 minutes
    clock.advance(60)
    clock.step(1800)
    assert await service.expire_due() == []
    again = await service.resume(1)
    assert again.status is MockStatus.SHOWN and again.time_left_s == 19 * 60
    clock.advance(19 * 60)
    expired = await service.expire_due()
    assert [r.exam.status for r in expired if r.exam] == [ExamStatus.EXPIRED]
    assert expired[0].exam is not None and started.exam is not None
    assert expired[0].exam.id == started.exam.id


async def test_a_backward_step_does_not_lengthen_a_running_mock(mock_db: Store) -> None:
    clock = FakeClock()
    service = MockService(
        mock_db, Catalog({"mockbank": three_topics()}), clock=clock, rng=random.Random(1)
    )
    await service.start(1, chat_id=1)
    clock.step(-HOUR)
    clock.advance(20 * 60)
    expired = await service.expire_due()
    assert [r.exam.status for r in expired if r.exam] == [ExamStatus.EXPIRED]


class SteppingSleeps:
    """The push's pacing sleeps on the fake clock; after `after` of them the wall clock steps
    back 30 minutes, then an hour more, mid-push."""

    def __init__(self, h: Harness, after: int) -> None:
        self.h, self.after, self.calls = h, after, 0

    async def __call__(self, seconds: float) -> None:
        self.calls += 1
        self.h.clock.advance(seconds)
        if self.calls == self.after:
            self.h.clock.step(-1800)
            self.h.clock.step(-HOUR)


async def test_a_backward_step_mid_push_strands_nothing(tmp_path: Path) -> None:
    clock = FakeClock(dt.datetime(2026, 6, 1, 6, 50, tzinfo=dt.UTC))
    async with running_bot(tmp_path, push_rate=20.0, clock=clock) as h:
        ticker = h.app.bot_data.ticker
        assert ticker is not None
        ticker.jobs.clear()  # the runs are made by hand here
        push = h.services.push
        push.pace_now = h.clock.monotonic  # pacing on monotonic time, as in production
        push.sleep = SteppingSleeps(h, after=10)
        chats = range(100, 150)
        for chat in chats:
            await push.subscribe(chat, "07:00", "UTC", user_id=chat)
        h.clock.step(1800)  # 07:20: the 07:00 push is due
        first = await push.run_once()
        assert 0 < first < len(chats)  # cut short: the clock now reads 05:50
        h.clock.advance(60)
        # The next wake (the tick, or at once after the step): everything due goes out.
        assert first + await push.run_once() == len(chats)
        assert dict(h.api.send_counts) == {chat: 1 for chat in chats}


async def test_the_heartbeat_after_a_backward_step_is_the_current_wall_time(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path) as h:
        h.clock.step(1800)
        await status.write_heartbeat(h.services, h.app.bot_data.ops)  # written while ahead
        h.clock.step(-HOUR)
        settings = h.services.settings
        for _ in range(200):  # the timers notice the step within a second or so
            report = check(settings, now=h.clock.now())
            if report["ok"]:
                break
            await asyncio.sleep(0.05)
        beat = factories.rows(h.db_path, "SELECT value FROM bot_status WHERE key = 'heartbeat_at'")
        assert float(str(beat[0][0])) == h.clock.now()
        assert report["ok"] and report["database"]["bot"]["heartbeat_age_s"] == 0.0
