"""Readiness and study analytics of a learner in a bank: the estimate, activity per day, charts.

No Telegram here: `/ready`, `/stats` and `quizbot stats` call this service. The learner's memory
states are the ones the answer transaction stores (`memory_states` table); a learner with answers
but no stored state (answers recorded before the memory model) gets them replayed from the
answers instead.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from bot.bank.models import Bank
from bot.charts import DayActivity, TopicBar, stats_chart
from bot.learning.blueprint import Blueprint
from bot.learning.memory import Answer, MemoryState, from_timestamp, replay_all
from bot.learning.readiness import MockResult as MockEvidence
from bot.learning.readiness import Readiness, readiness
from bot.mock.models import ExamStatus, MockSummary
from bot.mock.scoring import score
from bot.practice.catalog import Catalog
from bot.practice.clock import Clock, SystemClock
from bot.storage import history_sql, learning_sql, mock_sql, practice_sql, summaries
from bot.storage.history_sql import AnswerRow
from bot.storage.port import Connection, Store

CHART_DAYS = 30
MOCKS_LISTED = 5
MOCK_EVIDENCE_DAYS = 14  # older mock exams say little about today's score
EXAM_HOUR = 9  # an exam date is taken as that morning in the learner's zone
CHART_CACHE = 256


@dataclass(frozen=True, slots=True)
class TopicLine:
    """One blueprint topic in the report: name, weight in percent, prediction and share met."""

    id: str
    name: str
    weight: float
    score: float | None  # None while the topic has too few answers
    met: float


@dataclass(frozen=True, slots=True)
class ReadinessReport:
    """Everything `/ready`, `/stats` and `quizbot stats` show about one learner in one bank."""

    user_id: int
    bank_id: str
    bank_title: str
    readiness: Readiness
    topics: tuple[TopicLine, ...]
    days: tuple[DayActivity, ...]  # answers per local day, the last CHART_DAYS days
    mocks: tuple[MockSummary, ...]  # latest first
    today: dt.date
    timezone: str  # the learner's IANA zone (days and dates are local to it)
    last_answer_id: int
    exam_date: dt.date | None = None  # the learner's exam date for this bank, if set
    at_exam: Readiness | None = None  # the forecast for that date (set and after today)

    @property
    def days_to_exam(self) -> int | None:
        """Days from the learner's today to the exam date (None: no date set)."""
        return None if self.exam_date is None else (self.exam_date - self.today).days

    @property
    def topics_missing(self) -> tuple[str, ...]:
        """Names of the topics with too few answers, heaviest first."""
        names = {t.id: t.name for t in self.topics}
        return tuple(names.get(t, t) for t in self.readiness.topics_missing)


def answers_to_memory(rows: Sequence[AnswerRow]) -> dict[str, MemoryState]:
    """Memory states replayed from graded answers (FSRS, one state per question)."""
    return replay_all(
        Answer(r.question_id, from_timestamp(r.answered_at), r.correct) for r in rows
    )


def stored_memory(conn: Connection, user_id: int, bank_id: str) -> dict[str, MemoryState]:
    """The stored memory states of a learner in a bank; replayed from the answers only when
    none are stored and there are answers (recorded before the memory model)."""
    stored = learning_sql.memory_states(conn, user_id, bank_id)
    if stored:
        return stored
    return answers_to_memory(history_sql.answers_in_bank(conn, user_id, bank_id))


def exam_moment(date: dt.date, zone: ZoneInfo) -> dt.datetime:
    """The instant an exam on `date` is sat: EXAM_HOUR that morning in the learner's zone."""
    return dt.datetime.combine(date, dt.time(EXAM_HOUR), zone).astimezone(dt.UTC)


def chart_first_day(today: dt.date) -> dt.date:
    """The chart's first local day (CHART_DAYS - 1 days before today)."""
    return today - dt.timedelta(days=CHART_DAYS - 1)


def days_of(counts: Sequence[tuple[dt.date, int, int]], today: dt.date) -> list[DayActivity]:
    """Answers and right answers per local day over the last CHART_DAYS days, from the
    per-day summary (days after today, left by a zone that moved back, are not shown)."""
    start = chart_first_day(today)
    return [DayActivity(d, n, k) for d, n, k in counts if start <= d <= today]


class ReadinessService:
    """The readiness estimate and study analytics, each gathered in one database round trip."""

    def __init__(
        self,
        db: Store,
        catalog: Catalog,
        *,
        clock: Clock | None = None,
        default_timezone: str = "UTC",
    ) -> None:
        self.db = db
        self.catalog = catalog
        self.clock = clock or SystemClock()
        self.default_timezone = default_timezone
        self._blueprints: dict[str, tuple[Bank, Blueprint]] = {}
        # PNGs by (user, bank, last answer, last mock, day): a new answer or a new day is a
        # new key, so a cached chart is never out of date.
        self._charts: OrderedDict[tuple[int, str, int, int, dt.date], bytes] = OrderedDict()

    def blueprint(self, bank: Bank) -> Blueprint:
        """The engine's view of a bank, computed once per loaded bank object."""
        found = self._blueprints.get(bank.id)
        if found is None or found[0] is not bank:
            found = self._blueprints[bank.id] = (bank, Blueprint.of(bank))
        return found[1]

    async def memory_states(self, user_id: int, bank_id: str) -> dict[str, MemoryState]:
        """The learner's stored memory state per question of a bank (replayed from their
        answers only when none is stored)."""
        return await self.db.read(lambda c: stored_memory(c, user_id, bank_id))

    async def report(self, user_id: int, bank_id: str | None = None) -> ReadinessReport:
        """The readiness estimate for an exam sat now and, when the learner has set an exam
        date, at that date; activity per day and the last mocks."""
        now = self.clock.now()

        def gather(conn: Connection) -> _Gathered:
            prefs = practice_sql.user_prefs(conn, user_id)
            bank = self.catalog.bank(bank_id or prefs.bank_id)
            zone = ZoneInfo(prefs.timezone or self.default_timezone)
            today = dt.datetime.fromtimestamp(now, zone).date()
            # A row per day of the chart and one state per question met: the cost does not
            # grow with the number of answers in the learner's history.
            days = summaries.bank_days(conn, user_id, bank.id, chart_first_day(today))
            mocks = mock_sql.last_mocks(conn, user_id, bank.id, MOCKS_LISTED)
            return _Gathered(
                bank.id,
                prefs.timezone,
                days,
                history_sql.latest_answer_id(conn, user_id, bank.id),
                stored_memory(conn, user_id, bank.id),
                learning_sql.exam_date(conn, user_id, bank.id),
                mocks,
                _mock_evidence(conn, mocks, now),
            )

        g = await self.db.read(gather)
        mocks = g.mocks
        bank = self.catalog.bank(g.bank_id)
        plan = self.blueprint(bank)
        at = from_timestamp(now)
        ready = readiness(plan, g.memory, at, mocks=g.evidence)
        zone = ZoneInfo(g.timezone or self.default_timezone)
        today = dt.datetime.fromtimestamp(now, zone).date()
        at_exam = None
        if g.exam_date is not None and g.exam_date > today:
            moment = exam_moment(g.exam_date, zone)
            at_exam = readiness(plan, g.memory, at, at=moment, mocks=g.evidence)
        missing = set(ready.topics_missing)
        topics = tuple(
            TopicLine(
                t.id,
                t.name,
                t.weight,
                None if t.id in missing else ready.topics[t.id].score,
                ready.topics[t.id].met,
            )
            for t in bank.meta.topics
            if t.id in ready.topics
        )
        return ReadinessReport(
            user_id=user_id,
            bank_id=bank.id,
            bank_title=bank.meta.title,
            readiness=ready,
            topics=topics,
            days=tuple(days_of(g.days, today)),
            mocks=tuple(mocks),
            today=today,
            timezone=zone.key,
            # A new answer always changes this key (the chart's cache).
            last_answer_id=g.last_answer_id,
            exam_date=g.exam_date,
            at_exam=at_exam,
        )

    @property
    def charts_cached(self) -> int:
        """How many rendered charts the cache holds."""
        return len(self._charts)

    async def chart(self, report: ReadinessReport) -> bytes:
        """The /stats PNG (rendered in a worker thread, cached until the learner's next answer)."""
        last_mock = report.mocks[0].exam_id if report.mocks else 0
        key = (report.user_id, report.bank_id, report.last_answer_id, last_mock, report.today)
        png = self._charts.get(key)
        if png is not None:
            self._charts.move_to_end(key)
            return png
        png = await asyncio.to_thread(render_stats_chart, report)
        self._charts[key] = png
        while len(self._charts) > CHART_CACHE:
            self._charts.popitem(last=False)
        return png


def render_stats_chart(report: ReadinessReport) -> bytes:
    """The /stats PNG of a report (CPU-bound: call it off the event loop)."""
    bars = [TopicBar(t.name, t.score, t.weight) for t in report.topics]
    return stats_chart(
        bars, report.days, passing_score=report.readiness.passing_score, today=report.today
    )


@dataclass(frozen=True, slots=True)
class _Gathered:
    """What one read of the database gives the report."""

    bank_id: str
    timezone: str | None
    days: list[tuple[dt.date, int, int]]  # (local day, answered, right), the chart's days
    last_answer_id: int
    memory: dict[str, MemoryState]
    exam_date: dt.date | None
    mocks: list[MockSummary]
    evidence: list[MockEvidence]


def _mock_evidence(
    conn: Connection, mocks: Sequence[MockSummary], now: float
) -> list[MockEvidence]:
    """Recent scored mock exams as per-topic (right, asked) samples for the estimate."""
    out = []
    for m in mocks:
        if not m.status.scored or now - m.started_at > MOCK_EVIDENCE_DAYS * 86400:
            continue
        exam = mock_sql.load_exam(conn, m.exam_id)
        if exam is None or exam.status is ExamStatus.RUNNING:
            continue
        by_topic: Mapping[str, tuple[int, int]] = {
            t.topic: (t.correct, t.total) for t in score(exam).topics
        }
        out.append(MockEvidence(from_timestamp(exam.finished_at or m.started_at), by_topic))
    return out
