"""Mock exams on the store: start, move, finish, auto-submit at the deadline, past results.

No Telegram here: the chat, `quizbot play --mock` and the scheduler's jobs drive this service.
Each call is one transaction; the exam's moves are the pure functions of `bot.mock.exam`.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from bot.bank.models import Question
from bot.mock import exam as moves
from bot.mock.blueprint import TooSmall, draw, plan
from bot.mock.exam import ExamError, Pending
from bot.mock.models import Exam, ExamKind, ExamStatus, MockSummary
from bot.mock.scoring import GradedAnswer, MockResult, graded_answers, score
from bot.practice.catalog import Catalog
from bot.practice.clock import Clock, JumpWatch, SystemClock
from bot.practice.memory_updates import record_mock_answers
from bot.practice.mock_models import MockReply, MockStatus, ReviewEntry
from bot.storage import mock_sql, practice_sql
from bot.storage.port import Connection, DatabaseBusy, Store

# Runs inside the transaction that submits an exam, so the answers are recorded exactly once
# with it; the default writes them into deliveries/answers (source 'mock').
GradedSink = Callable[[Connection, Exam, tuple[GradedAnswer, ...], str], object]
Move = Callable[[Exam, float], Exam | Pending]
T = TypeVar("T")
CACHE_EXAMS = 4096
CACHE_QUESTIONS = 65536
# A save that lost to another writer is read and made again in the same transaction, whose
# reads see what committed before them (never on SQLite's one writer; PostgreSQL's default
# isolation): the two count one after the other. One that keeps losing is answered "busy".
SAVE_TRIES = 3


@functools.lru_cache(maxsize=1024)
def _question(snapshot: str) -> Question:
    """A question snapshot parsed once: snapshots never change and Questions are frozen, so
    repeated taps on one exam cost a dictionary look-up."""
    return Question.model_validate_json(snapshot)


def _until_saved(
    fn: Callable[[Connection], T | None],
) -> Callable[[Connection], T]:
    """`fn` (None: its save lost to another writer) run again on what is stored now."""

    def run(conn: Connection) -> T:
        for _ in range(SAVE_TRIES):
            reply = fn(conn)
            if reply is not None:
                return reply
        raise DatabaseBusy("a mock exam kept changing under its save")

    return run


def _same_item(before: Question, now: Question | None) -> bool:
    """The question still exists and grades the same (stem, option texts and answers)."""
    return (
        now is not None
        and now.stem == before.stem
        and [(o.text, o.correct) for o in now.options]
        == [(o.text, o.correct) for o in before.options]
    )


class MockService:
    """A learner's mock exams, as async calls that each cost one database round trip."""

    def __init__(
        self,
        db: Store,
        catalog: Catalog,
        *,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        record: GradedSink | None = record_mock_answers,
    ) -> None:
        self.db = db
        self.catalog = catalog
        self.clock = clock or SystemClock()
        self.rng = rng or random.Random()
        self.record = record
        self._watch = JumpWatch(self.clock)
        # Committed exams and parsed snapshots, so a tap reads one row instead of the whole
        # exam: a cached exam is used only while its stored revision is unchanged.
        self._exams: dict[int, Exam] = {}
        self._questions: dict[tuple[int, int, int], Question] = {}

    async def _now(self) -> float:
        """The wall time, after moving running exams' deadlines by any step of the wall clock
        since the last look: a deadline follows the time the learner actually had, so a clock
        set forward half an hour does not submit an exam they had just begun."""
        jump = self._watch.check()
        if jump:
            await self.db.write(lambda c: mock_sql.shift_running(c, jump))
            self._exams.clear()
        return self.clock.now()

    def _remember(self, reply: MockReply) -> MockReply:
        """Cache the exam of a reply whose transaction has committed."""
        exam = reply.exam
        if exam is not None and exam.id:
            if len(self._exams) >= CACHE_EXAMS:
                self._exams.clear()
            if exam.status is ExamStatus.RUNNING:
                self._exams[exam.id] = exam
            else:
                self._exams.pop(exam.id, None)
        return reply

    async def start(
        self,
        user_id: int,
        *,
        chat_id: int | None = None,
        bank_id: str | None = None,
        kind: ExamKind = ExamKind.FULL,
        questions: int | None = None,
    ) -> MockReply:
        """Start an exam (REDUCED takes `questions`); refused (RUNNING) while one is running, or
        EXPIRED with the result of one whose deadline passed unnoticed."""
        now = await self._now()

        def look(
            conn: Connection,
        ) -> tuple[MockReply | None, str | None, set[str]] | None:
            running = mock_sql.running_exam(conn, user_id)
            if running is not None and running.is_due(now):
                # Its time ran out unseen: the learner gets that result before a new exam.
                submitted = self._submit(conn, running, moves.expire(running))
                return None if submitted is None else (submitted, None, set())
            if running is not None:
                return self._screen(conn, MockStatus.RUNNING, running, now), None, set()
            prefs = practice_sql.user_prefs(conn, user_id).bank_id
            bank = self.catalog.bank(bank_id or prefs)
            return None, bank.id, mock_sql.mocked_question_ids(conn, user_id, bank.id)

        refused, chosen_bank, seen = await self.db.write(_until_saved(look))
        if refused is not None:
            return self._remember(refused)
        bank = self.catalog.bank(chosen_bank)
        exam_plan = plan(bank.meta, kind, questions)
        seed = self.rng.randrange(2**62)
        drawn = draw(bank, exam_plan.questions, seen, random.Random(seed))
        if isinstance(drawn, TooSmall):
            offer = plan(bank.meta, ExamKind.REDUCED, drawn.available) if drawn.available else None
            return MockReply(MockStatus.TOO_SMALL, too_small=drawn, offer=offer)
        questions_ = [bank.questions[q] for q in drawn.question_ids]
        exam = moves.new_exam(
            user_id=user_id,
            meta=bank.meta,
            questions=questions_,
            exam_plan=exam_plan,
            seed=seed,
            now=now,
        )
        exam = replace(exam, chat_id=chat_id)
        snaps = {q.id: q.model_dump_json() for q in questions_}

        def store(conn: Connection) -> MockReply:
            exam_id = mock_sql.insert_exam(conn, exam, snaps)
            if exam_id is None:  # another start won the race
                running = mock_sql.running_exam(conn, user_id)
                assert running is not None
                return self._screen(conn, MockStatus.RUNNING, running, now)
            return self._screen(conn, MockStatus.STARTED, replace(exam, id=exam_id), now)

        return self._remember(await self.db.write(store))

    async def resume(self, user_id: int, *, unpause: bool = True) -> MockReply:
        """The running exam where the learner left it (submitted first if its time is up); a
        paused one's clock starts again (RESUMED), unless `unpause` is False."""
        now = await self._now()

        def fn(conn: Connection) -> MockReply | None:
            running = mock_sql.running_exam(conn, user_id)
            if running is None:
                return MockReply(MockStatus.NONE)
            if running.is_due(now):
                return self._submit(conn, running, moves.expire(running))
            if running.paused and unpause:
                saved = mock_sql.save_exam(conn, running, moves.unpause(running, now))
                if saved is None:
                    return None
                return self._screen(conn, MockStatus.RESUMED, saved, now)
            return self._screen(conn, MockStatus.SHOWN, running, now)

        return self._remember(await self.db.write(_until_saved(fn)))

    async def pause(self, user_id: int, exam_id: int) -> MockReply:
        """Stop the clock of the learner's running exam (PAUSED, its time left kept); STALE
        for an exam that is over or not theirs, EXPIRED when its time ran out first."""
        now = await self._now()

        def fn(conn: Connection) -> MockReply | None:
            exam = self._ticking(conn, user_id, exam_id, now)
            if not isinstance(exam, Exam):
                return exam
            saved = mock_sql.save_exam(conn, exam, moves.pause(exam, now))
            if saved is None:
                return None
            return MockReply(MockStatus.PAUSED, saved, time_left_s=saved.time_left(now))

        return self._remember(await self.db.write(_until_saved(fn)))

    async def running(self, user_id: int) -> Exam | None:
        """The learner's running exam while its time lasts, paused or not (None: none, or due
        to submit)."""
        now = await self._now()
        exam = await self.db.read(lambda c: mock_sql.running_exam(c, user_id))
        return None if exam is None or exam.is_due(now) else exam

    async def choose(
        self, user_id: int, exam_id: int, position: int, option: int, *, on: bool | None = None
    ) -> MockReply:
        """Pick, change or toggle an answer; `option` is the DISPLAY position (the letter)."""
        return await self._move(
            user_id, exam_id, lambda e, now: moves.choose(e, position, option, now, on=on)
        )

    async def flag(
        self, user_id: int, exam_id: int, position: int, *, on: bool | None = None
    ) -> MockReply:
        """Flag or unflag a question for review (on=None toggles)."""
        return await self._move(
            user_id, exam_id, lambda e, now: moves.flag(e, position, now, on=on)
        )

    async def go(self, user_id: int, exam_id: int, position: int) -> MockReply:
        """Jump to a question (the grid)."""
        return await self._move(user_id, exam_id, lambda e, now: moves.go(e, position, now))

    async def step(self, user_id: int, exam_id: int, delta: int) -> MockReply:
        """Previous (-1) or next (+1) question."""
        return await self._move(user_id, exam_id, lambda e, now: moves.step(e, delta, now))

    async def finish(self, user_id: int, exam_id: int, *, confirmed: bool = False) -> MockReply:
        """Submit: CONFIRM first when questions are unanswered or flagged, unless confirmed."""
        return await self._move(
            user_id, exam_id, lambda e, now: moves.finish(e, now, confirmed=confirmed)
        )

    async def abandon(self, user_id: int, exam_id: int | None = None) -> MockReply:
        """Stop the running exam (or this one) without a score."""
        now = await self._now()

        def fn(conn: Connection) -> MockReply | None:
            exam = (
                mock_sql.running_exam(conn, user_id)
                if exam_id is None
                else mock_sql.load_exam(conn, exam_id)
            )
            if exam is None or exam.user_id != user_id:
                return MockReply(MockStatus.NONE if exam_id is None else MockStatus.STALE)
            if exam.status is not ExamStatus.RUNNING:
                return MockReply(MockStatus.STALE, exam)
            if exam.is_due(now):
                return self._submit(conn, exam, moves.expire(exam))
            after = mock_sql.save_exam(conn, exam, moves.abandon(exam, now))
            return None if after is None else MockReply(MockStatus.ABANDONED, after)

        return self._remember(await self.db.write(_until_saved(fn)))

    async def expire_due(self, now: float | None = None) -> list[MockReply]:
        """Submit every running exam past its deadline (a job, and once at start-up)."""
        at = await self._now() if now is None else now

        def fn(conn: Connection) -> list[MockReply]:
            out = []
            for exam_id in mock_sql.due_exam_ids(conn, at):
                exam = mock_sql.load_exam(conn, exam_id)
                reply = None if exam is None else self.submit_due(conn, exam, at)
                if reply is not None:
                    out.append(reply)
            return out

        return [self._remember(r) for r in await self.db.write(fn)]

    def submit_due(self, conn: Connection, exam: Exam, at: float) -> MockReply | None:
        """Inside a transaction: submit `exam`, as read, because its deadline passed. None
        when there is nothing to do: it was not running and due when read, or another writer
        saved it since (a submit or an abandon elsewhere: theirs to report; anything else:
        the next pass of the deadline job submits it)."""
        if exam.status is not ExamStatus.RUNNING or not exam.is_due(at):
            return None
        return self._submit(conn, exam, moves.expire(exam))

    async def next_deadline(self) -> float | None:
        """When the next running exam is due (for the auto-submit job)."""
        return await self.db.read(mock_sql.next_deadline)

    async def attach_message(self, exam_id: int, chat_id: int, message_id: int) -> None:
        """Remember the message that shows the exam, once Telegram accepted it."""
        await self.db.write(lambda c: mock_sql.set_message(c, exam_id, chat_id, message_id))

    async def last_results(
        self, user_id: int, *, bank_id: str | None = None, limit: int = 5
    ) -> list[MockSummary]:
        """The learner's latest exams, newest first (for /stats)."""
        return await self.db.read(lambda c: mock_sql.last_mocks(c, user_id, bank_id, limit))

    async def made_for(self, user_id: int, exam_id: int, token: str | None) -> bool:
        """Whether a button's token is the learner's exam's (a button without one predates
        tokens and is taken as it is)."""
        if token is None:
            return True
        exam = await self.db.read(lambda c: mock_sql.load_exam(c, exam_id))
        return exam is not None and exam.user_id == user_id and exam.token == token

    async def result(self, user_id: int, exam_id: int) -> MockResult | None:
        """The result of one of the learner's submitted exams."""
        exam = await self.db.read(lambda c: mock_sql.load_exam(c, exam_id))
        if exam is None or exam.user_id != user_id or not exam.status.scored:
            return None
        return score(exam)

    async def review(self, user_id: int, exam_id: int) -> list[ReviewEntry] | None:
        """Each wrong or unanswered question of a submitted exam, with the question as shown;
        None while the learner's running exam asks one of them (its answer would show)."""

        def fn(conn: Connection) -> tuple[Exam | None, list[str], frozenset[str]]:
            exam = mock_sql.load_exam(conn, exam_id)
            if exam is None or exam.user_id != user_id or not exam.status.scored:
                return None, [], frozenset()
            asked = mock_sql.running_question_ids(conn, user_id, exam.bank_id)
            return exam, mock_sql.snapshots(conn, exam_id), asked

        exam, snaps, asked = await self.db.read(fn)
        if exam is None:
            return []
        mistakes = score(exam).mistakes
        if any(m.question_id in asked for m in mistakes):
            return None
        return [ReviewEntry(m, _question(snaps[m.position])) for m in mistakes]

    async def _move(self, user_id: int, exam_id: int, move: Move) -> MockReply:
        now = await self._now()

        def fn(conn: Connection) -> MockReply | None:
            exam = self._ticking(conn, user_id, exam_id, now)
            if not isinstance(exam, Exam):
                return exam
            try:
                after = move(exam, now)
            except ExamError:
                return self._screen(conn, MockStatus.INVALID, exam, now)
            if isinstance(after, Pending):
                return replace(self._screen(conn, MockStatus.CONFIRM, exam, now), pending=after)
            if after.status is ExamStatus.FINISHED:
                return self._submit(conn, exam, after)
            saved = mock_sql.save_exam(conn, exam, after)
            return None if saved is None else self._screen(conn, MockStatus.SHOWN, saved, now)

        return self._remember(await self.db.write(_until_saved(fn)))

    def _ticking(
        self, conn: Connection, user_id: int, exam_id: int, now: float
    ) -> Exam | MockReply | None:
        """The learner's exam when its clock runs and a move may change it; else the reply
        (STALE: over or not theirs; the submit of one whose time ran out; PAUSED: a tap while
        its clock is stopped changes nothing), or None when that submit lost to another
        writer. The cached copy only while the stored revision is its own (a retry reads
        anew)."""
        exam = mock_sql.load_exam(conn, exam_id, self._exams.get(exam_id))
        if exam is None or exam.user_id != user_id:
            return MockReply(MockStatus.STALE)
        if exam.status is not ExamStatus.RUNNING:
            return MockReply(MockStatus.STALE, exam)
        if exam.is_due(now):
            return self._submit(conn, exam, moves.expire(exam))
        if exam.paused:
            return MockReply(MockStatus.PAUSED, exam, time_left_s=exam.time_left(now))
        return exam

    def _submit(self, conn: Connection, before: Exam, after: Exam) -> MockReply | None:
        """Store a submitted exam with its score and record its answers, in one transaction;
        None, with nothing written, when another writer saved the exam since `before`."""
        result = score(after)
        saved = mock_sql.save_exam(conn, before, after, result)
        if saved is None:
            return None  # its answers are recorded by whoever saved it, or at its submit
        after = saved
        snaps = mock_sql.snapshots(conn, after.id)
        fed = tuple(
            g
            for g in graded_answers(after)
            if _same_item(
                _question(snaps[g.position]), self.catalog.question(after.bank_id, g.question_id)
            )
        )
        if self.record is not None and fed:
            self.record(conn, after, fed, self.db.default_timezone)
        status = MockStatus.EXPIRED if after.status is ExamStatus.EXPIRED else MockStatus.FINISHED
        return MockReply(status, after, result=result, graded=fed)

    def _screen(self, conn: Connection, status: MockStatus, exam: Exam, now: float) -> MockReply:
        """A reply that shows the exam at its current question, as snapshotted."""
        # The seed in the key: an exam id rolled back with its transaction may be reused.
        key = (exam.id, exam.seed, exam.current)
        question = self._questions.get(key)
        if question is None:
            snap = mock_sql.snapshot(conn, exam.id, exam.current)
            question = _question(snap) if snap is not None else None
            if question is not None:
                if len(self._questions) >= CACHE_QUESTIONS:
                    self._questions.clear()
                self._questions[key] = question
        return MockReply(status, exam, question=question, time_left_s=exam.time_left(now))
