"""A real quizbot Application on a FakeBotApi: updates go in through process_update."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from telegram import Update

from bot.bank.models import Bank
from bot.config import Settings
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.telegram.app import build_application
from bot.telegram.context import QuizApp, Services
from tests import sample_bank
from tests.backend import database
from tests.fakes import TOKEN, FakeBotApi, FakeRequest


class Harness:
    """The app, its fake Telegram, its clock and its database path."""

    def __init__(self, app: QuizApp, api: FakeBotApi, clock: FakeClock, db_path: Path) -> None:
        self.app = app
        self.api = api
        self.clock = clock
        self.db_path = db_path

    @property
    def services(self) -> Services:
        assert self.app.bot_data.services is not None
        return self.app.bot_data.services

    async def feed(self, payload: dict[str, Any]) -> None:
        """Process one update to completion (handlers and error handler)."""
        await self.app.process_update(Update.de_json(payload, self.app.bot))


def make_settings(tmp_path: Path, **extra: Any) -> Settings:
    """The bot's settings on the test's database (`tmp_path / "bot.sqlite3"`, or the
    PostgreSQL database that path names on the PostgreSQL run)."""
    db = database(tmp_path / "bot.sqlite3")
    return Settings(BOT_TOKEN=TOKEN, QUIZBOT_DB=db, **extra)  # type: ignore[call-arg]


@asynccontextmanager
async def running_bot(
    tmp_path: Path,
    bank: Bank | None = None,
    *,
    api: FakeBotApi | None = None,
    more_banks: tuple[Bank, ...] = (),
    clock: FakeClock | None = None,
    **settings: Any,
) -> AsyncIterator[Harness]:
    """Start the app's services as run_polling would, without polling."""
    api = api or FakeBotApi()
    clock = clock or FakeClock(1_800_000_000.0)
    bank = bank or sample_bank.bank()
    app = build_application(
        make_settings(tmp_path, **settings),
        Catalog({b.id: b for b in (bank, *more_banks)}),
        request=FakeRequest(api),
        clock=clock,
        rng=random.Random(3),
        with_updater=False,
    )
    async with app:
        assert app.post_init is not None and app.post_shutdown is not None
        await app.post_init(app)
        try:
            yield Harness(app, api, clock, tmp_path / "bot.sqlite3")
        finally:
            await app.post_shutdown(app)
