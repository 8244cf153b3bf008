"""The push plans for its capacity: the check adds up the backlog over the grace (not one due
instant), warns in the log and /admin with the rate it would need as soon as planning makes a
backlog that cannot be sent in time, and /daily offers the nearest minute with room when the
chosen one is full."""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path
from typing import Any

import pytest

from bot.schedule.capacity import capacity, needed_rate, skipped_at
from bot.schedule.push import PushService
from tests import factories
from tests.botharness import Harness, running_bot
from tests.push_support import insert_private_subscriptions

START = dt.datetime(2026, 6, 1, 6, 0, tzinfo=dt.UTC).timestamp()
ANN = factories.user(701, "Ann")
ADMIN = 777


def test_one_instant_is_the_old_check() -> None:
    cap = capacity([(START, 300)], rate=2.0, grace_s=60.0)
    assert cap is not None
    assert (cap.servable, cap.short) == (120, 180)
    assert cap.need == pytest.approx(5.0, rel=1e-3)
    assert "300 subscribers fall due at 06:00 UTC" in (cap.warning() or "")


def test_a_spread_backlog_adds_up_though_no_instant_is_too_big() -> None:
    # 1,000,000 over an hour at 25/s with a two-hour grace: each minute's ~16,700 fit the
    # grace alone, but only about 25 × 3 hours can be sent before the last grace ends.
    per_minute = 1_000_000 // 60
    profile = [(START + 60.0 * m, per_minute) for m in range(60)]
    cap = capacity(profile, rate=25.0, grace_s=7200.0)
    assert cap is not None and cap.warning() is not None
    total = per_minute * 60
    assert cap.peak_subscribers == total
    assert cap.servable == pytest.approx(25 * (7200 + 59 * 60), abs=1)
    assert cap.short == pytest.approx(total - cap.servable, rel=0.01)
    assert cap.need == pytest.approx(total / (7200 + 59 * 60), rel=0.01)
    assert "between 06:00 UTC and 06:59 UTC" in (cap.warning() or "")
    # The rate it names sends them all; a little less does not.
    assert skipped_at(profile, cap.need * 1.001, 7200.0) == 0
    assert skipped_at(profile, cap.need * 0.99, 7200.0) > 0


def test_a_backlog_due_already_is_sent_from_now() -> None:
    # 100 due ten minutes ago with a 15-minute grace: 5 minutes are left, 1/s sends 300.
    assert capacity([(START - 600, 100)], 1.0, 900.0, now=START).short == 0  # type: ignore[union-attr]
    late = capacity([(START - 600, 400)], 1.0, 900.0, now=START)
    assert late is not None and late.short == 100 and late.servable == 300
    assert needed_rate([(START - 600, 400)], 900.0, now=START) == pytest.approx(400 / 300, 1e-3)
    # Pushes whose grace ended already are past saving: they ask for no rate.
    ended = capacity([(START - 900, 50), (START - 600, 400)], 1.0, 900.0, now=START)
    assert ended is not None and ended.need == pytest.approx(400 / 300, 1e-3)


def push_of(h: Harness) -> PushService:
    assert h.services.push is not None
    return h.services.push


async def test_planning_a_backlog_that_cannot_be_sent_in_time_warns_log_and_admin(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # 200 a minute for six minutes at 2/s with a 2-minute grace: one minute (200) fits its
    # grace (240), the six (1,200) do not fit the 7 minutes from the first to the last grace.
    async with running_bot(
        tmp_path, push_rate=2.0, push_grace_minutes=2, admins=frozenset({ADMIN})
    ) as h:
        h.clock.set(dt.datetime.fromtimestamp(START, dt.UTC))
        rows = [
            (1000 + 200 * m + i, f"06:{m + 1:02d}", "UTC", "2026-06-01", START + 60 * (m + 1))
            for m in range(6)
            for i in range(200)
        ]
        with factories.blocking(h.db_path) as conn:
            conn.execute("BEGIN")
            insert_private_subscriptions(conn, rows, START - 3600)
            conn.execute("COMMIT")
        push = push_of(h)
        cap = await push.capacity()
        assert cap is not None and cap.short > 0
        assert cap.need == pytest.approx(1200 / 420, rel=1e-3)
        user = factories.user(ADMIN, "Op")
        await h.feed(factories.command("/admin", user, factories.private_chat(user)))
        report = h.api.last_text(ADMIN) or ""
        assert "Push capacity" in report and "between 06:01 UTC and 06:06 UTC" in report
        assert "Needs 2.9 msg/s" in report
        # The run that plans the first minute's rows says so in the log, once.
        h.clock.set(dt.datetime.fromtimestamp(START + 61, dt.UTC))
        push.pace_now = h.clock.now

        async def advance(seconds: float) -> None:
            h.clock.advance(seconds)

        push.sleep = advance
        with caplog.at_level(logging.WARNING, logger="bot.schedule.push"):
            await push.run_once()
        warned = [r.message for r in caplog.records if "would be skipped as late" in r.message]
        assert len(warned) == 1 and "msg/s" in warned[0]


async def say(h: Harness, text: str) -> dict[str, Any]:
    await h.feed(factories.command(text, ANN, factories.private_chat(ANN)))
    message = h.api.last_message(ANN["id"])
    assert message is not None
    return message


async def test_daily_offers_the_nearest_minute_with_room_when_the_chosen_one_is_full(
    tmp_path: Path,
) -> None:
    # 0.05 msg/s sends 3 in a minute: three subscribers fill 07:30, three more 07:31.
    async with running_bot(tmp_path, push_rate=0.05) as h:
        h.clock.set(dt.datetime(2026, 6, 1, 5, 0, tzinfo=dt.UTC))
        push = push_of(h)
        for chat in (11, 12, 13):
            await push.subscribe(chat, "07:30", "UTC", user_id=chat)
        for chat in (14, 15, 16):
            await push.subscribe(chat, "07:31", "UTC", user_id=chat)
        message = await say(h, "/daily 07:30 UTC")
        assert "07:30 (UTC) is full" in message["text"]
        assert "nearest time with room is 07:29" in message["text"]
        assert factories.rows(
            h.db_path, "SELECT COUNT(*) FROM subscriptions WHERE chat_id = 701"
        ) == [(0,)]
        (button,) = [b for row in message["reply_markup"]["inline_keyboard"] for b in row]
        assert button["callback_data"] == "dl:0729"
        await h.feed(factories.callback(button["callback_data"], ANN, message))
        assert factories.rows(
            h.db_path, "SELECT local_time FROM subscriptions WHERE chat_id = 701"
        ) == [("07:29",)]
        # A minute with room is set as before; the learner's own push does not fill it.
        message = await say(h, "/daily 08:00")
        assert "Daily question set for 08:00" in message["text"]
