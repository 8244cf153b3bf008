"""The composition root of the Telegram-free services: one database, one catalog, one clock.

The bot (`bot.telegram.app`) and every CLI command build their services here, so a service
gets the same settings however the process was started.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from bot.config import Settings
from bot.practice.catalog import Catalog
from bot.practice.chat_guards import ChatGuards
from bot.practice.clock import Clock, SystemClock
from bot.practice.fitting import MemoryFits
from bot.practice.groups import GroupService
from bot.practice.media_files import MediaFiles
from bot.practice.mock_service import MockService
from bot.practice.question_reports import QuestionReports
from bot.practice.readiness_service import ReadinessService
from bot.practice.service import PracticeService
from bot.storage.factory import open_database
from bot.storage.port import Store


@dataclass(slots=True)
class Core:
    """The services of one process over one open database."""

    settings: Settings
    db: Store
    catalog: Catalog
    clock: Clock
    practice: PracticeService
    groups: GroupService
    mock: MockService
    readiness: ReadinessService
    guards: ChatGuards  # one result per button, group /quiz pace, /reset
    reports: QuestionReports  # learners' reports of a bad question
    media: MediaFiles  # file_ids of uploaded pictures (question images, formulas)
    fits: MemoryFits  # the memory model fitted to the answers (run off the answer path)


def build_core(
    db: Store,
    catalog: Catalog,
    settings: Settings | None = None,
    *,
    clock: Clock | None = None,
    rng: random.Random | None = None,
) -> Core:
    """The services over an open database (`settings`: the defaults when None, without
    reading the environment)."""
    s = settings or Settings.model_construct()
    clock = clock or SystemClock()
    zone = s.default_timezone
    practice = PracticeService(db, catalog, clock=clock, rng=rng, default_timezone=zone)
    groups = GroupService(
        db, catalog, clock=clock, rng=rng,
        default_window_s=s.group_answer_window_minutes * 60, default_timezone=zone,
    )  # fmt: skip
    return Core(
        settings=s,
        db=db,
        catalog=catalog,
        clock=clock,
        practice=practice,
        groups=groups,
        mock=MockService(db, catalog, clock=clock, rng=rng),
        readiness=ReadinessService(db, catalog, clock=clock, default_timezone=zone),
        guards=ChatGuards(
            db,
            clock=clock,
            cooldown_s=s.group_quiz_cooldown_seconds,
            min_open_s=s.group_min_open_seconds,
        ),
        reports=QuestionReports(db, clock),
        media=MediaFiles(db, clock),
        fits=MemoryFits(db, clock),
    )


@contextlib.asynccontextmanager
async def open_core(
    catalog: Catalog,
    target: str | Path,
    settings: Settings | None = None,
    *,
    clock: Clock | None = None,
    rng: random.Random | None = None,
) -> AsyncIterator[Core]:
    """Open the database `target` names (`QUIZBOT_DB` or a CLI's --db), the services over it;
    closed again on exit."""
    zone = settings.default_timezone if settings else "UTC"
    async with open_database(target, default_timezone=zone) as db:
        yield build_core(db, catalog, settings, clock=clock, rng=rng)
