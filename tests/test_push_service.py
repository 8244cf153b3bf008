"""The daily push through the real app on a fake Bot API, with a fake clock (no real waits)."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from telegram.error import TimedOut

from bot.domain import push_retry
from bot.schedule.push import PushService
from bot.storage import push_log
from tests import factories, sample_bank
from tests.botharness import Harness, running_bot

BERLIN = ZoneInfo("Europe/Berlin")


def rows(path: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    return factories.rows(path, sql, params)


def log_states(h: Harness) -> dict[int, str]:
    return dict(rows(h.db_path, "SELECT chat_id, state FROM push_log"))  # type: ignore[arg-type]


class Sleeps:
    """An asyncio.sleep stand-in that moves the fake clock instead of waiting."""

    def __init__(self, h: Harness) -> None:
        self.h = h
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)
        self.h.clock.advance(seconds)


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    async with running_bot(tmp_path, push_rate=20.0) as harness:
        push = harness.services.push
        assert push is not None
        push.pace_now = harness.clock.now
        push.sleep = Sleeps(harness)
        set_time(harness, dt.datetime(2026, 6, 1, 6, 0, tzinfo=dt.UTC))
        yield harness


def push_of(h: Harness) -> PushService:
    assert h.services.push is not None
    return h.services.push


def set_time(h: Harness, when: dt.datetime) -> None:
    h.clock.set(when)


async def test_due_subscribers_get_one_question_each_in_their_zone(h: Harness) -> None:
    push = push_of(h)
    set_time(h, dt.datetime(2026, 6, 1, 5, 0, tzinfo=dt.UTC))
    await push.subscribe(11, "07:30", "Europe/Berlin", user_id=11)  # 05:30 UTC
    await push.subscribe(12, "07:30", "Asia/Tokyo", user_id=12)  # 22:30 UTC
    await push.subscribe(13, "08:00", "Europe/Berlin", user_id=13)  # 06:00 UTC
    set_time(h, dt.datetime(2026, 6, 1, 5, 31, tzinfo=dt.UTC))
    assert await push.run_once() == 1
    assert dict(h.api.send_counts) == {11: 1}
    text = h.api.last_text(11) or ""
    assert "Your daily question" in text
    assert await push.run_once() == 0  # a second tick: nothing new
    h.clock.advance(3600)
    assert await push.run_once() == 1
    assert dict(h.api.send_counts) == {11: 1, 13: 1}
    (source,) = rows(h.db_path, "SELECT source FROM deliveries WHERE chat_id = 11")[0]
    assert source == "daily"


async def test_daily_question_is_answered_like_any_other(h: Harness) -> None:
    push = push_of(h)
    await push.subscribe(21, "06:01", "UTC", user_id=21)
    h.clock.advance(120)
    await push.run_once()
    message = h.api.last_message(21)
    assert message is not None
    data = message["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
    ann = factories.user(21, "Ann")
    await h.feed(factories.callback(data, ann, message))
    assert rows(h.db_path, "SELECT COUNT(*) FROM answers WHERE user_id = 21") == [(1,)]
    assert h.api.calls_of("answerCallbackQuery")


async def test_downtime_within_grace_sends_on_restart_beyond_grace_skips(h: Harness) -> None:
    push = push_of(h)
    set_time(h, dt.datetime(2026, 6, 1, 6, 0, tzinfo=dt.UTC))
    await push.subscribe(31, "07:00", "UTC", user_id=31)
    await push.subscribe(32, "09:30", "UTC", user_id=32)
    # "Down" until 10:00: 31 is 3 h late (skipped), 32 is 30 min late (sent).
    set_time(h, dt.datetime(2026, 6, 1, 10, 0, tzinfo=dt.UTC))
    await push.start()
    assert await push.run_once() == 1
    assert dict(h.api.send_counts) == {32: 1}
    assert log_states(h) == {31: "skipped", 32: "sent"}
    # Both come back the next day.
    set_time(h, dt.datetime(2026, 6, 2, 7, 1, tzinfo=dt.UTC))
    assert await push.run_once() == 1
    set_time(h, dt.datetime(2026, 6, 2, 9, 31, tzinfo=dt.UTC))
    assert await push.run_once() == 1


async def test_days_of_downtime_only_today_counts(h: Harness) -> None:
    push = push_of(h)
    set_time(h, dt.datetime(2026, 6, 1, 6, 0, tzinfo=dt.UTC))
    await push.subscribe(41, "07:00", "UTC", user_id=41)
    set_time(h, dt.datetime(2026, 6, 4, 7, 10, tzinfo=dt.UTC))
    assert await push.run_once() == 1
    assert rows(h.db_path, "SELECT local_date, state FROM push_log") == [("2026-06-04", "sent")]


async def test_pending_rows_older_than_grace_are_skipped(h: Harness) -> None:
    push = push_of(h)
    await push.subscribe(51, "06:01", "UTC", user_id=51)
    h.clock.advance(120)
    # Materialized but never sent (say the bot stopped), then started 3 hours later.

    now = h.clock.now()
    await push.db.write(lambda c: push_log.materialize_due(c, now, 7200, 10))
    h.clock.advance(3 * 3600)
    assert await push.run_once() == 0
    assert log_states(h) == {51: "skipped"}


async def test_dst_spring_forward_and_fall_back_send_once(h: Harness) -> None:
    push = push_of(h)
    set_time(h, dt.datetime(2026, 3, 28, 12, 0, tzinfo=dt.UTC))
    await push.subscribe(61, "02:30", "Europe/Berlin", user_id=61)
    # Spring forward: 02:30 does not exist; due at 03:30 CEST (01:30 UTC), once.
    set_time(h, dt.datetime(2026, 3, 29, 1, 29, tzinfo=dt.UTC))
    assert await push.run_once() == 0
    set_time(h, dt.datetime(2026, 3, 29, 1, 30, tzinfo=dt.UTC))
    assert await push.run_once() == 1
    h.clock.advance(7200)
    assert await push.run_once() == 0
    # Fall back: 02:30 happens at 00:30 and again at 01:30 UTC; one push.
    await push.subscribe(61, "02:30", "Europe/Berlin", user_id=61)
    set_time(h, dt.datetime(2026, 10, 24, 12, 0, tzinfo=dt.UTC))
    await push.subscribe(61, "02:30", "Europe/Berlin", user_id=61)
    before = h.api.send_counts[61]
    for hour, minute in ((0, 30), (1, 0), (1, 30), (1, 45), (3, 0)):
        set_time(h, dt.datetime(2026, 10, 25, hour, minute, tzinfo=dt.UTC))
        await push.run_once()
    assert h.api.send_counts[61] - before == 1
    assert rows(h.db_path, "SELECT due_at FROM push_log WHERE local_date = '2026-10-25'") == [
        (dt.datetime(2026, 10, 25, 0, 30, tzinfo=dt.UTC).timestamp(),)
    ]


async def test_changing_the_time_after_todays_push_does_not_send_twice(h: Harness) -> None:
    push = push_of(h)
    set_time(h, dt.datetime(2026, 6, 1, 6, 0, tzinfo=dt.UTC))
    await push.subscribe(71, "07:00", "UTC", user_id=71)
    set_time(h, dt.datetime(2026, 6, 1, 7, 0, tzinfo=dt.UTC))
    await push.run_once()
    await push.subscribe(71, "07:05", "UTC", user_id=71)
    set_time(h, dt.datetime(2026, 6, 1, 7, 6, tzinfo=dt.UTC))
    await push.run_once()
    assert h.api.send_counts[71] == 1


async def test_restart_resends_rows_cut_off_while_sending(h: Harness) -> None:
    push = push_of(h)
    await push.subscribe(81, "06:01", "UTC", user_id=81)
    h.clock.advance(120)

    now = h.clock.now()
    await push.db.write(lambda c: push_log.materialize_due(c, now, 7200, 10))
    claims = await push.db.write(lambda c: push_log.claim(c, now, 10, push._pick))
    assert len(claims) == 1 and log_states(h) == {81: "sending"}
    # kill -9 here; the next start puts the row back (after the first backoff step) and
    # sends the same delivery.
    assert await push.start() == 1
    assert await push.run_once() == 0
    h.clock.advance(push_retry.BACKOFF_S[0])
    assert await push.run_once() == 1
    assert rows(h.db_path, "SELECT state, attempts, delivery_id FROM push_log") == [
        ("sent", 2, claims[0].delivery_id)
    ]


async def test_blocked_subscriber_becomes_inactive(h: Harness) -> None:
    push = push_of(h)
    for chat in (91, 92):
        await push.subscribe(chat, "06:01", "UTC", user_id=chat)
    h.api.block(91)
    h.clock.advance(120)
    assert await push.run_once() == 1
    assert log_states(h) == {91: "blocked", 92: "sent"}
    assert rows(h.db_path, "SELECT chat_id, active FROM subscriptions ORDER BY chat_id") == [
        (91, 0),
        (92, 1),
    ]
    h.clock.advance(86400)
    await push.run_once()
    assert h.api.count("sendMessage", chat_id=91) == 1  # not tried again


async def test_flood_control_retries_the_chat_after_retry_after(h: Harness) -> None:
    push = push_of(h)
    await push.subscribe(101, "06:01", "UTC", user_id=101)
    h.api.rate_limit(retry_after=7, times=2, method="sendMessage")
    h.clock.advance(120)
    for _ in range(2):  # each 429 puts the chat back for exactly Telegram's retry_after
        assert await push.run_once() == 0
        ((state, wait),) = rows(h.db_path, "SELECT state, not_before - finished_at FROM push_log")
        assert state == "pending" and wait == pytest.approx(7.0)
        h.clock.advance(7)
    assert await push.run_once() == 1
    assert h.api.send_counts[101] == 1
    assert h.api.count("sendMessage", chat_id=101) == 3


async def test_migrated_group_gets_its_new_id(h: Harness) -> None:
    push = push_of(h)
    old, new = -555, -100555
    await push.subscribe(old, "06:01", "UTC", kind="private")
    h.api.migrate(old, new)
    h.clock.advance(120)
    assert await push.run_once() == 1
    assert h.api.send_counts == {new: 1}
    assert rows(h.db_path, "SELECT chat_id, active FROM subscriptions") == [(new, 1)]
    assert rows(h.db_path, "SELECT chat_id, state FROM push_log") == [(new, "sent")]
    assert rows(h.db_path, "SELECT chat_id FROM deliveries") == [(new,)]


async def test_chat_not_found_fails_without_retry(h: Harness) -> None:
    push = push_of(h)
    await push.subscribe(111, "06:01", "UTC", user_id=111)
    h.api.fail_next("sendMessage", 400, "Bad Request: chat not found", chat_id=111)
    h.clock.advance(120)
    assert await push.run_once() == 0
    assert rows(h.db_path, "SELECT state, attempts, error FROM push_log") == [
        ("failed", 1, "Chat not found")
    ]
    assert h.api.count("sendMessage", chat_id=111) == 1


async def test_timeout_is_sent_again_at_least_once(h: Harness) -> None:
    push = push_of(h)
    await push.subscribe(121, "06:01", "UTC", user_id=121)
    real = push.courier.bot
    timeouts = [1]

    class SlowBot:
        """Telegram took the message but the answer never came back (once)."""

        async def _post(self, *args: Any, **kwargs: Any) -> Any:
            message = await real._post(*args, **kwargs)
            if timeouts:
                timeouts.pop()
                raise TimedOut("read timeout")
            return message

    push.courier.bot = SlowBot()  # type: ignore[assignment]
    h.clock.advance(120)
    assert await push.run_once() == 0  # timed out: back to pending, waiting out its backoff
    assert rows(h.db_path, "SELECT state, attempts FROM push_log") == [("pending", 1)]
    h.clock.advance(push_retry.BACKOFF_S[0])
    assert await push.run_once() == 1
    # at-least-once: the maybe-delivered message is sent again, with the same buttons.
    assert h.api.send_counts[121] == 2
    first, second = h.api.messages_to(121)
    assert first["reply_markup"] == second["reply_markup"]
    assert rows(h.db_path, "SELECT state, attempts FROM push_log") == [("sent", 2)]


async def test_pacing_spaces_sends_at_the_configured_rate(h: Harness) -> None:
    push = push_of(h)
    for chat in range(200, 240):
        await push.subscribe(chat, "06:01", "UTC", user_id=chat)
    h.clock.advance(120)
    started = h.clock.now()
    assert await push.run_once() == 40
    calls = h.api.calls_of("sendMessage")
    assert len(calls) == 40
    # 20/s configured: 40 sends take 39 intervals of 50 ms on the (fake) clock.
    assert h.clock.now() - started == pytest.approx(39 / 20.0, abs=0.01)


async def test_group_chats_get_at_most_the_group_rate(h: Harness) -> None:
    push = push_of(h)
    window = push.pacing.groups
    for _ in range(20):
        await window.acquire(-42)
    t0 = h.clock.now()
    await window.acquire(-42)  # the 21st in a minute waits for the window
    assert h.clock.now() - t0 == pytest.approx(60.0)


async def test_a_short_outage_backs_off_and_everyone_still_gets_the_question(h: Harness) -> None:
    push = push_of(h)
    chats = (131, 132, 133)
    for chat in chats:
        await push.subscribe(chat, "06:01", "UTC", user_id=chat)
    wakes: list[float | None] = []
    push.on_idle = wakes.append
    h.api.fail_next("sendMessage", 502, "Bad Gateway", times=15)  # 5 tries' worth for 3 chats
    h.clock.advance(120)
    due_at = h.clock.now() - 60
    assert await push.run_once() == 0
    # One try each, then the run ends: the rows wait in backoff instead of being claimed again
    # at the pacer's rate (which burnt every attempt in well under a second).
    assert h.api.count("sendMessage") == 3
    retry_at = rows(h.db_path, "SELECT state, not_before - finished_at FROM push_log")
    assert retry_at == [("pending", push_retry.BACKOFF_S[0])] * 3
    # The runner asks to be woken when the first retry is ready, not at tomorrow's push.
    (earliest,) = rows(h.db_path, "SELECT MIN(not_before) FROM push_log")[0]
    assert wakes[-1] == earliest
    gaps = []
    while set(log_states(h).values()) == {"pending"}:
        wake = wakes[-1]
        assert wake is not None and wake > h.clock.now()
        gaps.append(round(wake - h.clock.now()))
        h.clock.advance(wake - h.clock.now())  # the wake-up job fires
        await push.run_once()
    assert gaps == [5, 30, 120, 600, 1800]  # the backoff schedule, one step per failed try
    assert log_states(h) == dict.fromkeys(chats, "sent")
    assert [h.api.send_counts[c] for c in chats] == [1, 1, 1]
    assert rows(h.db_path, "SELECT DISTINCT attempts FROM push_log") == [(6,)]
    assert h.clock.now() - due_at < push.grace_s
    assert wakes[-1] == rows(h.db_path, "SELECT next_due_at FROM subscriptions")[0][0]


async def test_retries_give_up_when_the_next_try_would_be_past_the_grace(h: Harness) -> None:
    push = push_of(h)
    await push.subscribe(151, "06:01", "UTC", user_id=151)
    wakes: list[float | None] = []
    push.on_idle = wakes.append
    h.api.fail_next("sendMessage", 502, "Bad Gateway", times=1000)  # a long outage
    h.clock.advance(60)
    due_at = h.clock.now()
    await push.run_once()
    while log_states(h) == {151: "pending"}:
        wake = wakes[-1]
        assert wake is not None
        h.clock.advance(max(0.0, wake - h.clock.now()))
        await push.run_once()
    # 7 tries (now, +5 s, +35 s, +2.6 min, +12.6 min, +42.6 min, +1.7 h): the 8th would come
    # 2.7 h after the due time, past the 2 h grace, so the row gives up instead.
    assert h.api.count("sendMessage", chat_id=151) == 7
    state, attempts, error, finished = rows(
        h.db_path, "SELECT state, attempts, error, finished_at FROM push_log"
    )[0]
    assert (state, attempts, error) == ("failed", 7, "gave up after 7 tries: network: Bad Gateway")
    assert finished - due_at < push.grace_s
    h.clock.advance(push.grace_s)
    await push.run_once()
    assert h.api.count("sendMessage", chat_id=151) == 7  # nothing more for that day


async def test_a_row_in_backoff_past_the_grace_at_start_fails_with_its_error(h: Harness) -> None:
    push = push_of(h)
    await push.subscribe(161, "06:01", "UTC", user_id=161)
    h.api.fail_next("sendMessage", 502, "Bad Gateway")
    h.clock.advance(120)
    await push.run_once()
    h.clock.advance(3 * 3600)  # the bot was down across the retry and the rest of the grace
    await push.start()
    assert await push.run_once() == 0
    assert rows(h.db_path, "SELECT state, error FROM push_log") == [
        ("failed", "gave up: network: Bad Gateway")
    ]


async def test_a_push_after_a_bank_reload_carries_the_edited_question(tmp_path: Path) -> None:
    old = sample_bank.bank([sample_bank.question("q1", correct=(1,), n_options=4)])
    async with running_bot(tmp_path, old, push_rate=20.0) as h:
        push = push_of(h)
        push.pace_now = h.clock.now
        push.sleep = Sleeps(h)
        set_time(h, dt.datetime(2026, 6, 1, 6, 0, tzinfo=dt.UTC))
        await push.subscribe(171, "06:01", "UTC", user_id=171)
        h.clock.advance(120)
        assert await push.run_once() == 1  # renders q1 (4 options) into the push's cache
        # The operator fixes q1 (three options, C correct) and reloads.
        new = sample_bank.bank(
            [sample_bank.question("q1", correct=(2,), n_options=3, stem="Fixed stem")]
        )
        h.services.catalog.replace({new.id: new})
        await push.subscribe(172, "06:05", "UTC", user_id=172)
        h.clock.advance(300)
        assert await push.run_once() == 1
        message = h.api.last_message(172)
        assert message is not None
        assert "Fixed stem" in message["text"]
        buttons = [b for row in message["reply_markup"]["inline_keyboard"] for b in row]
        assert [b["text"] for b in buttons] == ["A", "B", "C"]
        # Graded by the same question the learner saw: C is right.
        await h.feed(factories.callback(buttons[2]["callback_data"], factories.user(172), message))
        assert (h.api.last_text(172) or "").startswith("✅")


async def test_group_windows_are_forgotten_once_idle() -> None:
    from bot.practice.clock import FakeClock
    from bot.schedule.pacer import GroupWindow

    clock = FakeClock(1_800_000_000.0)
    window = GroupWindow(20, clock.now)
    await window.acquire(-100)
    window.forget_idle()
    assert -100 in window._sent  # still inside its minute
    clock.advance(61)
    window.forget_idle()
    assert window._sent == {}
