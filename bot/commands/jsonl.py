"""`quizbot play --jsonl`: the practice engine as a JSON-lines program.

One JSON object per line in, exactly one JSON object per line out. Each request is parsed and
checked here, handed to the same PracticeService methods the chat uses, and its result turned
into a reply dict. Nothing here prints: `bot.commands.jsonl_io` owns the streams.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from bot.bank.models import Bank
from bot.domain.exam_dates import DateProblem, parse_exam_date
from bot.domain.kinds import Source
from bot.domain.models import AnswerStatus, Delivery, Learner
from bot.learning.memory import Confidence
from bot.plural import plural
from bot.practice.clock import FakeClock
from bot.practice.fitting import MemoryFits, nights_between
from bot.practice.readiness_service import ReadinessService
from bot.practice.service import PracticeService

Reply = dict[str, Any]
DEFAULT_USER = 1
MAX_USER = 2**63 - 1  # SQLite INTEGER
OPEN_DELIVERIES = 10_000  # questions asked and not yet answered kept at hand; older are re-read
MAX_ADVANCE = 3650 * 86400
CONFIDENCE = tuple(c.value for c in Confidence)


class BadRequest(Exception):
    """A request that cannot be served; its message goes back in an error reply."""


def error(message: str, user: int | None = None) -> Reply:
    """An error reply (with the user when the request named a valid one)."""
    reply: Reply = {"type": "error", "message": message}
    if user is not None:
        reply["user"] = user
    return reply


def parse_clock(text: str) -> dt.datetime:
    """An ISO 8601 time with a zone, e.g. 2027-01-04T08:00:00Z."""
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a time like 2027-01-04T08:00:00Z") from None
    if when.tzinfo is None:
        raise ValueError(f"{text!r} has no zone; end it with Z for UTC")
    return when


def format_time(seconds: float) -> str:
    """Unix seconds as ISO 8601 UTC with a Z (milliseconds only when there are any)."""
    when = dt.datetime.fromtimestamp(seconds, dt.UTC)
    spec = "seconds" if when.microsecond == 0 else "milliseconds"
    return when.isoformat(timespec=spec).replace("+00:00", "Z")


def _field_int(req: dict[str, Any], key: str, *, low: int = 0, high: int = MAX_USER) -> int:
    value = req.get(key)
    # bool is an int in Python; in JSON true is not a number.
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise BadRequest(f'"{key}" must be an integer from {low} to {high}')
    return value


def _field_number(req: dict[str, Any], key: str) -> float | None:
    value = req.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadRequest(f'"{key}" must be a number')
    if value < 0:
        raise BadRequest(f'"{key}" must not be negative')
    return float(value)


class JsonlSession:
    """The state of one run: the service, the bank, the optional simulated clock, and the
    questions asked and not yet answered (so an answer is checked without another read)."""

    def __init__(
        self,
        service: PracticeService,
        readiness: ReadinessService,
        bank: Bank,
        clock: FakeClock | None,
        fits: MemoryFits | None = None,
    ) -> None:
        self.service = service
        self.readiness_service = readiness
        self.bank = bank
        self.clock = clock
        self.fits = fits
        self._users: set[int] = set()  # learners already moved to this run's bank
        self._open: OrderedDict[int, Delivery] = OrderedDict()
        self._commands: dict[str, Callable[[int, dict[str, Any]], Awaitable[Reply]]] = {
            "next": self.next,
            "answer": self.answer,
            "advance": self.advance,
            "fit": self.fit,
            "exam_date": self.exam_date,
            "topic": self.topic,
            "readiness": self.readiness,
            "stats": self.stats,
        }

    async def handle(self, line: str) -> Reply:
        """The reply to one request line; never raises for anything the client sent."""
        try:
            req = json.loads(line)
        except (ValueError, RecursionError) as err:
            return error(f"not JSON: {err}")
        if not isinstance(req, dict):
            return error("a request is one JSON object")
        cmd = req.get("cmd")
        if not isinstance(cmd, str):
            return error('"cmd" is required: ' + ", ".join(self._commands))
        try:
            user = DEFAULT_USER if req.get("user") is None else _field_int(req, "user")
        except BadRequest as err:
            return error(str(err))
        run = self._commands.get(cmd)
        if run is None:
            return error(f"unknown cmd {cmd!r}; one of " + ", ".join(self._commands), user)
        try:
            return await run(user, req)
        except BadRequest as err:
            return error(str(err), user)

    async def _learner(self, user: int) -> Learner:
        """The learner, moved to this run's bank on first use (their topic kept if it is)."""
        if user not in self._users:
            prefs = await self.service.prefs(user)
            if prefs.bank_id != self.bank.id:
                await self.service.choose_topic(user, self.bank.id, None)
            self._users.add(user)
        return Learner(id=user, first_name="jsonl")

    async def next(self, user: int, req: dict[str, Any]) -> Reply:
        """Ask the learner's next question."""
        learner = await self._learner(user)
        delivery = await self.service.next_delivery(user, learner, source=Source.TERMINAL)
        if delivery is None:
            return {"type": "none", "user": user}
        self._open[delivery.id] = delivery
        if len(self._open) > OPEN_DELIVERIES:
            self._open.popitem(last=False)
        q = delivery.question
        reply: Reply = {
            "type": "question",
            "user": user,
            "delivery": delivery.id,
            "question_id": q.id,
            "topic": q.topic,
            "stem": q.stem,
            "kind": q.kind.value,
            "select": q.select_count,
            # The delivery's question is as shown: options in its stored (shuffled) order.
            "options": [o.text for o in q.options],
        }
        return reply

    async def answer(self, user: int, req: dict[str, Any]) -> Reply:
        """Grade an answer given as positions in the options as shown."""
        delivery_id = _field_int(req, "delivery", low=1)
        chosen = req.get("chosen")
        if (
            not isinstance(chosen, list)
            or not chosen
            or any(not isinstance(i, int) or isinstance(i, bool) for i in chosen)
        ):
            raise BadRequest('"chosen" must be a non-empty list of option positions (0-based)')
        seconds = _field_number(req, "seconds")
        confidence = req.get("confidence")
        if confidence is not None and confidence not in CONFIDENCE:
            raise BadRequest('"confidence" must be ' + " or ".join(f'"{c}"' for c in CONFIDENCE))
        delivery = self._open.get(delivery_id) or await self.service.delivery(delivery_id)
        if delivery is None or delivery.chat_id != user:
            raise BadRequest(f"user {user} has no delivery {delivery_id}")
        q = delivery.question
        n = len(q.options)
        if len(set(chosen)) != len(chosen) or not all(0 <= i < n for i in chosen):
            raise BadRequest(f'"chosen" must name distinct positions from 0 to {n - 1}')
        if len(chosen) != q.select_count:
            # As in the chat, a wrong count is a slip to correct: the question stays open.
            raise BadRequest(f"this question asks for {plural(q.select_count, 'option')}")
        outcome = await self.service.answer(
            delivery_id,
            Learner(id=user, first_name="jsonl"),
            user,
            frozenset(chosen),
            confidence=Confidence(confidence) if confidence is not None else None,
            seconds=seconds,
        )
        status = outcome.status
        if status is AnswerStatus.CONFIRM:
            raise BadRequest('this learner is asked how sure they are: add "confidence"')
        if status is AnswerStatus.REMOVED:
            raise BadRequest(f"delivery {delivery_id}: its question was withdrawn from the bank")
        if status is AnswerStatus.REVISED:
            raise BadRequest(f"delivery {delivery_id}: the question changed since it was shown")
        if status not in (AnswerStatus.RECORDED, AnswerStatus.ALREADY):
            raise BadRequest(f"delivery {delivery_id} cannot be answered ({status})")
        self._open.pop(delivery_id, None)
        reply: Reply = {
            "type": "verdict",
            "user": user,
            "delivery": delivery_id,
            "correct": outcome.correct,
            "correct_options": sorted(q.correct_indices),  # positions as shown
            "chosen": sorted(outcome.chosen),
        }
        if status is AnswerStatus.ALREADY:
            reply["already"] = True
        return reply

    async def advance(self, user: int, req: dict[str, Any]) -> Reply:
        """Move the simulated clock forward."""
        if self.clock is None:
            raise BadRequest("advance needs a simulated clock: start with --clock TIME")
        seconds = _field_number(req, "seconds")
        if seconds is None:
            raise BadRequest('"seconds" is required')
        if seconds > MAX_ADVANCE:
            # Far beyond any exam plan, and past year 9999 times no longer format.
            raise BadRequest(f'"seconds" must be at most {MAX_ADVANCE} (ten years)')
        before = self.clock.now()
        self.clock.advance(seconds)
        reply: dict[str, Any] = {
            "type": "clock",
            "user": user,
            "now": format_time(self.clock.now()),
        }
        # The bot fits the memory model every night: so does a simulated clock passing the
        # hour (once, however many nights it skipped: a fit reads every answer so far).
        if self.fits is not None and nights_between(before, self.clock.now()):
            reply["fit"] = await self._fit()
        return reply

    async def fit(self, user: int, req: dict[str, Any]) -> Reply:
        """Fit the memory model to this bank's answers now, as the nightly job does."""
        if self.fits is None:
            raise BadRequest("fit needs the program's own database")
        return {"type": "fit", "user": user, **await self._fit()}

    async def _fit(self) -> dict[str, Any]:
        assert self.fits is not None
        outcome = await self.fits.fit_bank(self.bank.id)
        return {
            "version": outcome.pooled_version,
            "learners_with_their_own": outcome.learners,
            "failed": outcome.failed,
        }

    async def exam_date(self, user: int, req: dict[str, Any]) -> Reply:
        """Set (or clear with null) the learner's exam date in this bank."""
        if "date" not in req:
            raise BadRequest('"date" is required: YYYY-MM-DD, or null to clear it')
        raw = req["date"]
        if raw is not None and not isinstance(raw, str):
            raise BadRequest('"date" must be YYYY-MM-DD or null')
        await self._learner(user)
        date: dt.date | None = None
        if raw is not None:
            # The rule of /exam: today or later, at most two years ahead.
            today = (await self.service.learning.exam(user)).today
            parsed = parse_exam_date(raw, today)
            if parsed.problem is DateProblem.PAST:
                raise BadRequest(f"the exam date {raw} is before today ({today})")
            if parsed.problem is DateProblem.TOO_FAR:
                raise BadRequest(f"the exam date {raw} is more than two years after {today}")
            if parsed.date is None:
                raise BadRequest('"date" must be YYYY-MM-DD or null')
            date = parsed.date
        await self.service.learning.set_exam(user, date)
        return {"type": "ok", "user": user}

    async def topic(self, user: int, req: dict[str, Any]) -> Reply:
        """Practise one topic of the bank, or all of them (null)."""
        if "topic" not in req:
            raise BadRequest('"topic" is required: a topic id, or null for all')
        topic = req["topic"]
        if topic is not None and not isinstance(topic, str):
            raise BadRequest('"topic" must be a topic id or null')
        self._users.add(user)  # choosing a topic also moves the learner to this bank
        if not await self.service.choose_topic(user, self.bank.id, topic):
            ids = ", ".join(t.id for t in self.bank.meta.topics)
            raise BadRequest(f"bank {self.bank.id} has no topic {topic!r}; topics: {ids}")
        return {"type": "ok", "user": user}

    async def readiness(self, user: int, req: dict[str, Any]) -> Reply:
        """The predicted exam score for an exam sat now, its range and the pass probability."""
        await self._learner(user)
        report = await self.readiness_service.report(user, self.bank.id)
        ready = report.readiness
        return {
            "type": "readiness",
            "user": user,
            "enough_data": ready.enough_data,
            "score": _round(ready.score, 2),
            "low": _round(ready.low, 2),
            "high": _round(ready.high, 2),
            "pass_probability": _round(ready.pass_probability, 4),
            "passing_score": ready.passing_score,
            "answers": ready.answers,
            "answers_missing": ready.answers_missing,
            "topics_missing": list(ready.topics_missing),
            "topics": {
                t.id: {"score": _round(t.score, 2), "met": round(t.met, 4)} for t in report.topics
            },
        }

    async def stats(self, user: int, req: dict[str, Any]) -> Reply:
        """Answered, correct and the streak, overall and per topic."""
        await self._learner(user)
        stats = await self.service.stats(user)
        check = await self.service.learning.memory_check(self.bank.id, user)
        return {
            "type": "stats",
            "user": user,
            "bank": self.bank.id,
            "answered": stats.answered,
            "correct": stats.correct,
            "accuracy": round(stats.accuracy, 4),
            "streak_days": stats.streak_days,
            "topics": {
                t.topic: {"answered": t.answered, "correct": t.correct} for t in stats.topics
            },
            "queue_mode": check.mode.value,  # the study order the learner's fitted model sets
        }


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)
