"""Planning the daily push: due subscriptions become log rows in small transactions."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from bot.schedule.push import PushService
from tests import factories
from tests.botharness import running_bot

START = dt.datetime(2026, 6, 1, 6, 0, tzinfo=dt.UTC)


async def test_plan_turns_every_due_subscription_into_one_row_whatever_the_batch(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path) as h:
        push = h.services.push
        assert isinstance(push, PushService)
        h.clock.set(START - dt.timedelta(hours=2))  # 04:00 UTC, 05:00 in Lisbon
        # Two zones and two times: the per-(time, zone) work is shared within a batch.
        for chat in range(5000, 5130):
            zone = "UTC" if chat % 2 else "Europe/Lisbon"
            await push.subscribe(chat, "06:30" if chat % 3 else "06:45", zone, user_id=chat)
        h.clock.set(START + dt.timedelta(hours=1))  # 07:00 UTC: all due, Lisbon's 06:xx too
        push.plan_batch = 50  # several transactions
        assert await push.plan(h.clock.now()) == 130
        assert await push.plan(h.clock.now()) == 0  # moved to tomorrow: nothing twice
        assert push.longest_plan_hold > 0
        rows = factories.rows(h.db_path, "SELECT chat_id, due_at, state FROM push_log")
        (nxt,) = factories.one(h.db_path, "SELECT MIN(next_due_at) FROM subscriptions")
        assert sorted(r[0] for r in rows) == list(range(5000, 5130))
        assert {r[2] for r in rows} == {"pending"}
        # 06:30 UTC, 06:45 UTC, 05:30 UTC (06:30 Lisbon, summer time), 05:45 UTC
        expected = {START + dt.timedelta(minutes=m) for m in (30, 45, -30, -15)}
        assert {dt.datetime.fromtimestamp(r[1], dt.UTC) for r in rows} == expected
        assert nxt > h.clock.now()
