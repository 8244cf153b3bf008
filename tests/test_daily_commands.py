"""/daily and /admin through the real Application: parsing, buttons, refusal, counts."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from tests import factories
from tests.botharness import Harness, running_bot

ANN = factories.user(701, "Ann")
ANN_CHAT = factories.private_chat(ANN)
BOSS = factories.user(900, "Boss")
BOSS_CHAT = factories.private_chat(BOSS)


def rows(path: Path, sql: str) -> list[tuple[Any, ...]]:
    return factories.rows(path, sql)


def buttons(message: dict[str, Any] | None) -> dict[str, str]:
    assert message is not None
    rows_ = message.get("reply_markup", {}).get("inline_keyboard", [])
    return {b["text"]: b["callback_data"] for row in rows_ for b in row}


async def say(h: Harness, text: str, user: dict[str, Any] = ANN) -> str:
    await h.feed(factories.command(text, user, factories.private_chat(user)))
    return h.api.last_text(user["id"]) or ""


def start_at(h: Harness) -> None:
    h.clock.set(dt.datetime(2026, 6, 1, 5, 0, tzinfo=dt.UTC))


async def test_daily_without_subscription_offers_times(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        text = await say(h, "/daily")
        assert "no daily question yet" in text and "UTC" in text
        choices = buttons(h.api.last_message(ANN["id"]))
        assert choices["07:00"] == "dl:0700" and choices["Off"] == "dl:off"
        assert all(len(d.encode()) <= 64 for d in choices.values())


async def test_daily_with_time_and_zone_subscribes_and_remembers_zone(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        start_at(h)
        text = await say(h, "/daily 7:30 europe/berlin")
        assert "07:30" in text and "Europe/Berlin" in text and "Mon 01 Jun, 07:30" in text
        assert rows(h.db_path, "SELECT timezone FROM users WHERE id = 701") == [("Europe/Berlin",)]
        # A time alone keeps the remembered zone.
        text = await say(h, "/daily 18:45")
        assert "18:45" in text and "Europe/Berlin" in text
        assert rows(
            h.db_path, "SELECT chat_id, local_time, timezone, active FROM subscriptions"
        ) == [(701, "18:45", "Europe/Berlin", 1)]
        text = await say(h, "/daily")
        assert "18:45" in text and "Next: <b>" not in text  # rendered HTML, not raw tags
        assert "• 18:00 •" not in buttons(h.api.last_message(ANN["id"]))


async def test_daily_without_zone_uses_the_default_timezone(tmp_path: Path) -> None:
    async with running_bot(tmp_path, default_timezone="Asia/Tokyo") as h:
        start_at(h)
        assert "Asia/Tokyo" in await say(h, "/daily 08:00")


async def test_bad_time_and_unknown_zone_get_examples(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        text = await say(h, "/daily 25:00")
        assert "could not read" in text and "/daily 07:30" in text
        text = await say(h, "/daily 07:30 Mars/Olympus")
        assert "do not know the timezone" in text and "Europe/Berlin" in text
        text = await say(h, "/daily 07:30 <b>")
        assert "&lt;b&gt;" not in text and "<b>" in text  # escaped in HTML, shown literally
        assert rows(h.db_path, "SELECT COUNT(*) FROM subscriptions") == [(0,)]


async def test_daily_off_and_buttons(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        start_at(h)
        assert "had no daily question" in await say(h, "/daily off")
        await say(h, "/daily 07:30 Europe/Berlin")
        assert "stopped" in await say(h, "/daily off")
        assert rows(h.db_path, "SELECT active FROM subscriptions") == [(0,)]
        await say(h, "/daily")
        message = h.api.last_message(ANN["id"])
        await h.feed(factories.callback(buttons(message)["20:00"], ANN, message or {}))
        answer = h.api.calls_of("answerCallbackQuery")[-1].params
        assert answer["text"] == "Daily question at 20:00 (Europe/Berlin)."
        assert rows(h.db_path, "SELECT local_time, active FROM subscriptions") == [("20:00", 1)]
        edited = h.api.message(ANN["id"], (message or {})["message_id"])
        assert "20:00" in edited["text"] and "• 20:00 •" in buttons(edited)
        await h.feed(factories.callback("dl:off", ANN, edited))
        assert rows(h.db_path, "SELECT active FROM subscriptions") == [(0,)]
        assert "is off" in h.api.message(ANN["id"], edited["message_id"])["text"]


async def test_forged_daily_button_is_answered_politely(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await say(h, "/daily")
        message = h.api.last_message(ANN["id"]) or {}
        await h.feed(factories.callback("dl:9999", ANN, message))
        assert "no longer valid" in h.api.calls_of("answerCallbackQuery")[-1].params["text"]


async def test_admin_refuses_non_admins(tmp_path: Path) -> None:
    async with running_bot(tmp_path, admins=frozenset({900})) as h:
        assert "for the bot's operators" in await say(h, "/admin")


async def test_admin_counts_subscribers_and_todays_push(tmp_path: Path) -> None:
    async with running_bot(tmp_path, admins=frozenset({900}), push_rate=1000.0) as h:
        push = h.services.push
        assert push is not None
        push.pace_now = h.clock.now
        start_at(h)
        for chat in range(1, 7):
            await push.subscribe(chat, "05:01", "UTC", user_id=chat)
        await push.subscribe(7, "23:00", "UTC", user_id=7)
        await push.unsubscribe(6)
        h.api.block(2)
        h.api.fail_next("sendMessage", 400, "Bad Request: chat not found", chat_id=3)
        h.clock.advance(120)
        await push.run_once()
        text = await say(h, "/admin", BOSS)
        assert "Subscribers: 5 active, 2 inactive" in text  # 2 blocked, 6 unsubscribed
        assert "sent 3 · pending 0" in text and "blocked 1 · failed 1 · skipped 0" in text
