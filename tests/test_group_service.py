"""GroupService's decisions that need no Telegram: settings with defaults, the window clamp,
the chat's own chooser, poll modes and timezones; plus the edit throttle and week starts."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.domain.groups import week_start
from bot.domain.kinds import PollMode, Source
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.practice.groups import MAX_WINDOW_S, MIN_WINDOW_S, GroupService
from bot.storage.factory import open_database
from bot.storage.group_sql import ChatRecord
from tests import sample_bank
from tests.backend import database

CHAT = -100


@pytest.fixture
async def groups(tmp_path: Path) -> AsyncIterator[GroupService]:
    bank = sample_bank.bank([sample_bank.question(f"q{i}") for i in range(3)])
    async with open_database(database(tmp_path / "g.sqlite3")) as db:
        service = GroupService(
            db,
            Catalog({bank.id: bank}),
            clock=FakeClock(1_800_000_000.0),
            rng=random.Random(1),
            default_window_s=300,
            default_timezone="Europe/Berlin",
        )
        await service.register(CHAT, "supergroup", "Study")
        yield service


def record(**changes: object) -> ChatRecord:
    base = dict(
        id=CHAT, type="group", title=None, active=True, bank_id=None, topic=None,
        answer_window_s=None, leaderboard=True, poll_mode="buttons", migrated_to=None, tz=None,
    )  # fmt: skip
    return ChatRecord(**{**base, **changes})  # type: ignore[arg-type]


def test_settings_fill_defaults(groups: GroupService) -> None:
    unknown = groups._settings(CHAT, None)
    assert (unknown.window_s, unknown.timezone, unknown.poll_mode) == (
        300,
        "Europe/Berlin",
        PollMode.BUTTONS,
    )
    stored = groups._settings(CHAT, record(answer_window_s=120, tz="Asia/Tokyo"))
    assert (stored.window_s, stored.timezone) == (120, "Asia/Tokyo")


def test_an_unknown_poll_mode_in_the_database_reads_as_buttons(groups: GroupService) -> None:
    assert groups._settings(CHAT, record(poll_mode="carrier-pigeon")).poll_mode is PollMode.BUTTONS
    assert groups._settings(CHAT, record(poll_mode="quiz_poll")).poll_mode is PollMode.QUIZ_POLL


async def test_window_is_clamped_to_a_minute_and_a_day(groups: GroupService) -> None:
    assert await groups.set_window(CHAT, 0) == MIN_WINDOW_S
    assert await groups.set_window(CHAT, 10**6) == MAX_WINDOW_S
    assert await groups.set_window(CHAT, 7) == 420
    assert (await groups.settings(CHAT)).window_s == 420


async def test_unknown_timezone_and_poll_mode_are_refused(groups: GroupService) -> None:
    with pytest.raises(ValueError):
        await groups.set_timezone(CHAT, "Mars/Olympus")
    with pytest.raises(ValueError):
        await groups.set_poll_mode(CHAT, "smoke-signals")  # type: ignore[arg-type]
    await groups.set_timezone(CHAT, "America/New_York")
    assert (await groups.settings(CHAT)).timezone == "America/New_York"


async def test_the_chat_gets_every_question_once_before_a_repeat(groups: GroupService) -> None:
    asked = []
    for _ in range(4):
        delivery = await groups.ask(CHAT)
        assert delivery is not None
        assert delivery.source is Source.GROUP and delivery.closes_at is not None
        asked.append(delivery.question.id)
        groups.clock.advance(60)  # type: ignore[attr-defined]
    assert sorted(asked[:3]) == ["q0", "q1", "q2"]
    assert asked[3] == asked[0]  # then the one asked longest ago


def test_week_starts_on_monday_midnight_in_the_zone() -> None:
    # 2027-01-15 is a Friday; Monday 2027-01-11 00:00 in Tokyo is 2027-01-10 15:00 UTC.
    friday_noon_utc = 1_800_014_400.0
    assert week_start(friday_noon_utc, "Asia/Tokyo") == 1_799_593_200.0
