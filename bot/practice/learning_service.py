"""The learner's side of the learning engine: exam date, confidence, misconceptions, memory.

Reached as `PracticeService.learning`. Answers update memory inside `PracticeService`'s answer
transaction; this service reads and sets what the learner chooses.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from bot.learning.forgetting import MemoryCheck, memory_check
from bot.learning.memory import DEFAULT_WEIGHTS, MemoryState
from bot.learning.misconceptions import MisconceptionState, active
from bot.practice.catalog import Catalog
from bot.practice.clock import Clock
from bot.storage import fit_sql
from bot.storage import learning_sql as lsql
from bot.storage import practice_sql as sql
from bot.storage.port import Connection, Store

MAX_LISTED_MISCONCEPTIONS = 5


@dataclass(frozen=True, slots=True)
class ExamInfo:
    """A learner's exam date for their current bank, and their local today."""

    bank_id: str
    bank_title: str
    date: dt.date | None
    today: dt.date

    @property
    def days_left(self) -> int | None:
        return None if self.date is None else (self.date - self.today).days


@dataclass(frozen=True, slots=True)
class ActiveMisconception:
    """One wrong idea the learner currently holds, for /stats."""

    name: str
    description: str
    since: dt.datetime


class LearningService:
    """Exam dates, the confidence preference, active misconceptions and memory states."""

    def __init__(
        self, db: Store, catalog: Catalog, *, clock: Clock, default_timezone: str = "UTC"
    ) -> None:
        self.db = db
        self.catalog = catalog
        self.clock = clock
        self.default_timezone = default_timezone

    def _today(self, timezone: str | None) -> dt.date:
        zone = ZoneInfo(timezone or self.default_timezone)
        return dt.datetime.fromtimestamp(self.clock.now(), zone).date()

    def _exam(self, conn: Connection, user_id: int) -> ExamInfo:
        prefs = sql.user_prefs(conn, user_id)
        bank = self.catalog.bank(prefs.bank_id)
        date = lsql.exam_date(conn, user_id, bank.id)
        return ExamInfo(bank.id, bank.meta.title, date, self._today(prefs.timezone))

    async def exam(self, user_id: int) -> ExamInfo:
        """The exam date for the learner's current bank (None: not set) and their today."""
        return await self.db.read(lambda c: self._exam(c, user_id))

    async def set_exam(self, user_id: int, date: dt.date | None) -> ExamInfo:
        """Set (None: clear) the exam date for the learner's current bank."""
        now = self.clock.now()

        def go(conn: Connection) -> ExamInfo:
            bank = self.catalog.bank(sql.user_prefs(conn, user_id).bank_id)
            lsql.set_exam_date(conn, user_id, bank.id, date, now)
            return self._exam(conn, user_id)

        return await self.db.write(go)

    async def set_exam_in(self, user_id: int, days: int | None) -> ExamInfo:
        """The /start offer's buttons: an exam `days` from the learner's today (None: no date)."""
        info = await self.exam(user_id)
        date = None if days is None else info.today + dt.timedelta(days=days)
        return await self.set_exam(user_id, date)

    async def offer_exam(self, user_id: int) -> bool:
        """Whether to offer an exam date now: once per learner, and only without one set."""

        def go(conn: Connection) -> bool:
            first = lsql.claim_exam_offer(conn, user_id)
            return first and self._exam(conn, user_id).date is None

        return await self.db.write(go)

    async def confidence(self, user_id: int) -> bool:
        """Whether the learner is asked Sure/Unsure after picking."""
        prefs = await self.db.read(lambda c: lsql.learning_prefs(c, user_id))
        return prefs.confidence

    async def set_confidence(self, user_id: int, on: bool) -> None:
        now = self.clock.now()
        await self.db.write(lambda c: lsql.set_confidence(c, user_id, on, now))

    async def misconceptions(
        self, user_id: int, limit: int = MAX_LISTED_MISCONCEPTIONS
    ) -> list[ActiveMisconception]:
        """The learner's active misconceptions in their current bank, latest first."""

        def go(conn: Connection) -> tuple[str, list[MisconceptionState]]:
            bank = self.catalog.bank(sql.user_prefs(conn, user_id).bank_id)
            return bank.id, active(lsql.misconception_states(conn, user_id, bank.id))

        bank_id, states = await self.db.read(go)
        meta = self.catalog.bank(bank_id).meta
        out = []
        for state in states:
            m = meta.misconception(state.misconception_id)
            if m is not None:
                out.append(ActiveMisconception(m.name, m.description, state.activated_at))
        return out[:limit]

    async def memory(self, user_id: int, bank_id: str) -> dict[str, MemoryState]:
        """A learner's memory states in a bank by question id (readiness, reports)."""
        return await self.db.read(lambda c: lsql.memory_states(c, user_id, bank_id))

    async def exam_date(self, user_id: int, bank_id: str) -> dt.date | None:
        """A learner's exam date for a given bank."""
        return await self.db.read(lambda c: lsql.exam_date(c, user_id, bank_id))

    async def memory_check(self, bank_id: str, user_id: int = fit_sql.BANK_SCOPE) -> MemoryCheck:
        """The memory model fitted to the bank's learners, or the one a learner is on (their
        own fit, else the bank's; FSRS-6's defaults before a fit), and the study queue's mode
        it sets."""
        found = await self.db.read(lambda c: fit_sql.params_for(c, user_id, bank_id))
        if found is None:
            return memory_check(DEFAULT_WEIGHTS, 0)
        return memory_check(found.weights, found.reviews)
