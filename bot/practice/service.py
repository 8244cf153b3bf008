"""The practice engine: pick a question, record a delivery, grade and store an answer, stats.

No Telegram here: the bot, the terminal player and the daily push all drive this service.
"""

from __future__ import annotations

import random
from zoneinfo import ZoneInfo

from bot.bank.models import Bank, Kind
from bot.domain import display, grading
from bot.domain.kinds import Audience, Source
from bot.domain.models import (
    AnswerOutcome,
    AnswerStatus,
    Delivery,
    ExamTotal,
    Learner,
    Stats,
    TopicStats,
)
from bot.domain.streaks import Streak
from bot.learning.memory import Answer, Confidence, from_timestamp
from bot.practice.catalog import Catalog
from bot.practice.clock import Clock, SystemClock
from bot.practice.learning_service import LearningService
from bot.practice.memory_updates import take_answer, take_misconceptions
from bot.practice.picking import delivery_from, pick_for_learner
from bot.practice.picking import record as record_delivery
from bot.storage import answer_sql, mock_sql, summaries
from bot.storage import practice_sql as sql
from bot.storage.answer_sql import AnswerContext
from bot.storage.port import Connection, DatabaseBusy, Store
from bot.storage.practice_sql import DeliveryRecord
from bot.storage.push_log import DueRow

# Reads and saves of one toggle before it is answered "busy" (see `toggle`).
TOGGLE_TRIES = 3


class PracticeService:
    """Everything a learner does, as async calls that each cost one database round trip."""

    def __init__(
        self,
        db: Store,
        catalog: Catalog,
        *,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        default_timezone: str = "UTC",
    ) -> None:
        self.db = db
        self.catalog = catalog
        self.clock = clock or SystemClock()
        self.rng = rng or random.Random()
        self.default_timezone = default_timezone
        self.learning = LearningService(
            db, catalog, clock=self.clock, default_timezone=default_timezone
        )

    async def register(self, learner: Learner, *, started: bool = False) -> None:
        """Remember a user (and that they opened a private chat, when started)."""
        now = self.clock.now()
        await self.db.write(lambda c: sql.upsert_user(c, learner, now, started))

    async def has_started(self, user_id: int) -> bool:
        """Whether the user opened a private chat with the bot."""
        return await self.db.read(lambda c: sql.has_started(c, user_id))

    async def register_chat(self, chat_id: int, chat_type: str, title: str | None) -> None:
        """Remember a chat the bot talks in."""
        now = self.clock.now()
        await self.db.write(lambda c: sql.upsert_chat(c, chat_id, chat_type, title, now))

    async def prefs(self, user_id: int) -> sql.UserPrefs:
        """The user's chosen bank, topic and timezone."""
        return await self.db.read(lambda c: sql.user_prefs(c, user_id))

    async def current_bank(self, user_id: int) -> Bank:
        """The bank the user practises (the default bank until they choose one)."""
        return self.catalog.bank((await self.prefs(user_id)).bank_id)

    async def choose_topic(self, user_id: int, bank_id: str, topic: str | None) -> bool:
        """Set the learner's topic (None: all); False if the bank has no such topic."""
        bank = self.catalog.banks.get(bank_id)
        if bank is None or (topic is not None and bank.meta.topic(topic) is None):
            return False
        now = self.clock.now()
        await self.db.write(lambda c: sql.set_user_topic(c, user_id, bank_id, topic, now))
        return True

    async def next_delivery(
        self,
        chat_id: int,
        learner: Learner,
        *,
        source: Source = Source.QUIZ,
        after: int | None = None,
    ) -> Delivery | None:
        """Pick the learner's next question and record its delivery (message id comes later).

        `after`: the delivery whose Next button was tapped; a /mistakes question's Next stays
        in /mistakes. Source MISTAKES: only questions last answered wrong (None when none left).
        """
        now = self.clock.now()

        def pick(conn: Connection) -> Delivery | None:
            prefs = sql.upsert_user_prefs(conn, learner, now)
            mode = source
            before = sql.delivery_record(conn, after) if after is not None else None
            if before is not None and before.source is Source.MISTAKES:
                mode = Source.MISTAKES
            return self.pick(conn, chat_id, learner.id, mode, now, prefs=prefs)

        return await self.db.write(pick)

    def pick(
        self,
        conn: Connection,
        chat_id: int,
        user_id: int,
        source: Source,
        now: float,
        *,
        bank_id: str | None = None,
        topic: str | None = None,
        prefs: sql.UserPrefs | None = None,
    ) -> Delivery | None:
        """The learner's next question in their bank and topic (or the ones given), recorded,
        inside a caller's transaction (the daily push claims a batch with it). `prefs`: the
        user's, when the caller read them in this transaction."""
        if prefs is None:
            prefs = sql.user_prefs(conn, user_id)
        bank = self.catalog.bank(bank_id or prefs.bank_id)
        return pick_for_learner(
            conn,
            self.catalog,
            bank,
            self.rng,
            user_id=user_id,
            chat_id=chat_id,
            topic=topic or prefs.topic,
            source=source,
            now=now,
            timezone=prefs.timezone or self.default_timezone,
            mistakes=source is Source.MISTAKES,
            # Practice beside a running mock exam never asks (and answers) its questions.
            outside=mock_sql.running_question_ids(conn, user_id, bank.id),
        )

    def pick_daily(self, conn: Connection, row: DueRow, now: float) -> tuple[int, str, str] | None:
        """The push's picker for a private chat: the /quiz rule, source 'daily'."""
        user_id = row.user_id if row.user_id is not None else row.chat_id
        found = self.pick(
            conn, row.chat_id, user_id, Source.DAILY, now, bank_id=row.bank_id, topic=row.topic
        )
        return None if found is None else (found.id, found.bank_id, found.question.id)

    async def is_mistakes_round(self, delivery_id: int) -> bool:
        """Whether a delivery was asked by /mistakes (its Next stays in /mistakes)."""
        record = await self.db.read(lambda c: sql.delivery_record(c, delivery_id))
        return record is not None and record.source is Source.MISTAKES

    async def attach_message(self, delivery_id: int, message_id: int) -> None:
        """Store the Telegram message id of a delivery once it was sent."""
        await self.db.write(lambda c: sql.set_delivery_message(c, delivery_id, message_id))

    async def delivery(self, delivery_id: int, token: str | None = None) -> Delivery | None:
        """A delivery with its question as shown, or None if either is gone (or the button's
        token does not match: a button from another copy of the data)."""
        record = await self.db.read(lambda c: sql.delivery_record(c, delivery_id))
        if record is None or (token is not None and (record.token or "") != token):
            return None
        question = self.catalog.question_at(record.bank_id, record.question_id, record.version)
        if question is None:
            question = self.catalog.question(record.bank_id, record.question_id)
        return None if question is None else delivery_from(record, question)

    async def button_delivery(
        self, delivery_id: int, chat_id: int, token: str | None
    ) -> tuple[Delivery | None, AnswerStatus | None]:
        """`delivery` for a button of this chat, or why the button no longer fits: unknown
        (gone, as after /reset, or another chat's), stale (another copy of the data) or
        removed (withdrawn from the bank, no version of it kept)."""
        record = await self.db.read(lambda c: sql.delivery_record(c, delivery_id))
        if record is None or record.chat_id != chat_id:
            return None, AnswerStatus.UNKNOWN
        if token is not None and (record.token or "") != token:
            return None, AnswerStatus.STALE
        question = self.catalog.question_at(record.bank_id, record.question_id, record.version)
        if question is None:
            question = self.catalog.question(record.bank_id, record.question_id)
        if question is None:
            return None, AnswerStatus.REMOVED
        return delivery_from(record, question), None

    # `token` below: the one in the button's callback data ("" for a button made before
    # tokens), or None when the caller is not a button (a poll vote, the terminal player).
    def _check(
        self,
        conn: Connection,
        delivery_id: int,
        chat_id: int,
        now: float,
        token: str | None = None,
    ) -> tuple[DeliveryRecord | None, Delivery | None, AnswerStatus | None]:
        """The delivery behind a button (its question as the learner saw it), or why the
        press cannot count."""
        return self._checked(sql.delivery_record(conn, delivery_id), chat_id, now, token)

    def _checked(
        self, record: DeliveryRecord | None, chat_id: int, now: float, token: str | None
    ) -> tuple[DeliveryRecord | None, Delivery | None, AnswerStatus | None]:
        """`_check` of a delivery row read already."""
        if record is None or record.chat_id != chat_id:
            return None, None, AnswerStatus.UNKNOWN
        if token is not None and token != (record.token or ""):
            # Ids are handed out again after a restore from backup: the token tells copies
            # apart. A button without a token ("") predates tokens and fits only such a row.
            return None, None, AnswerStatus.STALE
        current = self.catalog.question(record.bank_id, record.question_id)
        if current is None:
            return record, None, AnswerStatus.REMOVED
        question = self.catalog.question_at(record.bank_id, record.question_id, record.version)
        if question is None:
            return record, delivery_from(record, current), AnswerStatus.REVISED
        delivery = delivery_from(record, question)
        if record.is_closed(now):
            return record, delivery, AnswerStatus.CLOSED
        return record, delivery, None

    async def answer(
        self,
        delivery_id: int,
        learner: Learner,
        chat_id: int,
        chosen: frozenset[int],
        *,
        token: str | None = None,
        kind: Kind | None = None,
        confidence: Confidence | None = None,
        seconds: float | None = None,
    ) -> AnswerOutcome:
        """Grade and record a learner's choice (display positions); a second answer to one
        delivery is not counted. With confidence on (private chats), the choice is held
        (CONFIRM) until `confirm`, unless `confidence` comes with it (machine clients).

        `kind` is the kind of question the button was made for: a single-answer button pressed
        (forged) on a "select two" question is refused, never graded as a full answer.
        `seconds` is the response time when the client measured it (a simulated learner);
        without it, the time since the delivery was recorded.
        """
        now = self.clock.now()

        def record(c: Connection) -> AnswerOutcome:
            return self._record(
                c, delivery_id, learner, chat_id, chosen, now, token, kind,
                confidence=confidence, seconds=seconds,
            )  # fmt: skip

        return await self.db.write(record, learner=learner.id)

    async def confirm(
        self,
        delivery_id: int,
        learner: Learner,
        chat_id: int,
        confidence: Confidence,
        *,
        token: str | None = None,
    ) -> AnswerOutcome:
        """Record the held choice with how sure the learner said they were."""
        now = self.clock.now()
        return await self.db.write(
            lambda c: self._record(
                c, delivery_id, learner, chat_id, None, now, token, confidence=confidence
            ),
            learner=learner.id,
        )

    async def held_choice(
        self, delivery_id: int, user_id: int, chat_id: int, *, token: str | None = None
    ) -> AnswerOutcome:
        """The choice held for Sure/Unsure, to change it before it counts: CONFIRM with the
        held positions, ALREADY once it was recorded, or why the button no longer fits."""
        now = self.clock.now()

        def go(conn: Connection) -> AnswerOutcome:
            _, delivery, problem = self._check(conn, delivery_id, chat_id, now, token)
            if problem is not None or delivery is None:
                return AnswerOutcome(problem or AnswerStatus.UNKNOWN, delivery)
            if sql.existing_answer(conn, delivery_id, user_id) is not None:
                return self._already(conn, delivery, user_id)
            held = grading.decode_choice(sql.pending_choice(conn, delivery_id, user_id))
            return AnswerOutcome(AnswerStatus.CONFIRM, delivery, held)

        return await self.db.read(go)

    def _record(
        self,
        conn: Connection,
        delivery_id: int,
        learner: Learner,
        chat_id: int,
        chosen: frozenset[int] | None,
        now: float,
        token: str | None = None,
        kind: Kind | None = None,
        *,
        confidence: Confidence | None = None,
        seconds: float | None = None,
    ) -> AnswerOutcome:
        """The answer transaction: the answer row, the memory state and the misconceptions
        change together or not at all. Run as a write for `learner` (one at a time per learner,
        READ COMMITTED on PostgreSQL): keep every write it shares with other learners a single
        statement computed in SQL, and every read-then-write about this learner alone.
        chosen None means the options held so far (Submit, or the Sure/Unsure tap); positions
        are as displayed, the row stores file indices."""
        context = answer_sql.answer_context(conn, delivery_id, learner.id)
        record = None if context is None else context.delivery
        row, delivery, problem = self._checked(record, chat_id, now, token)
        if problem is not None or row is None or delivery is None or context is None:
            return AnswerOutcome(problem or AnswerStatus.UNKNOWN, delivery)
        question = delivery.question
        if kind is not None and kind is not question.kind:
            return AnswerOutcome(AnswerStatus.UNKNOWN, delivery)
        group = delivery.audience is Audience.GROUP
        # A practice message sent before a mock exam started may hold one of its questions:
        # its verdict would give the exam's answer away.
        if not group and mock_sql.in_running_exam(conn, learner.id, delivery.bank_id, question.id):
            return AnswerOutcome(AnswerStatus.IN_EXAM, delivery)
        if chosen is None:
            if sql.existing_answer(conn, delivery_id, learner.id) is not None:
                return self._already(conn, delivery, learner.id)
            chosen = grading.decode_choice(sql.pending_choice(conn, delivery_id, learner.id))
            if len(chosen) != question.select_count:
                # "Select two" means two: a wrong count is a slip to correct, not an answer.
                return AnswerOutcome(AnswerStatus.EMPTY, delivery, chosen)
        if not grading.valid_choice(question, chosen) or (
            question.kind is Kind.SINGLE and len(chosen) != 1
        ):
            return AnswerOutcome(AnswerStatus.UNKNOWN, delivery)
        if confidence is None and not group and context.confidence:
            if sql.existing_answer(conn, delivery_id, learner.id) is not None:
                return self._already(conn, delivery, learner.id)
            sql.set_pending_choice(conn, delivery_id, learner.id, grading.encode_choice(chosen))
            return AnswerOutcome(AnswerStatus.CONFIRM, delivery, chosen)
        correct = grading.is_correct(question, chosen)
        if group:
            # In groups and channels a member may never have talked to the bot: keep the name
            # for leaderboards. Private practice created the row when it sent the question.
            sql.upsert_user(conn, learner, now)
        file_chosen = display.to_file(delivery.order, chosen)
        fresh = sql.insert_answer(
            conn,
            delivery=row,
            user_id=learner.id,
            topic=question.topic,
            chosen=grading.encode_choice(file_chosen),
            correct=correct,
            now=now,
            confidence=confidence.value if confidence else None,
            default_timezone=self.default_timezone,
            seconds=seconds,
            timezone=context.timezone,
        )
        if not fresh:
            return self._already(conn, delivery, learner.id)
        self._learn(conn, row, learner.id, file_chosen, correct, now, confidence, seconds, context)
        if question.kind is Kind.MULTIPLE or confidence is not None:
            sql.clear_pending_choice(conn, delivery_id, learner.id)
        count = sql.answer_count(conn, delivery_id) if group else 0
        return AnswerOutcome(AnswerStatus.RECORDED, delivery, chosen, correct, count)

    async def redeliver(self, delivery_id: int, learner: Learner, chat_id: int) -> Delivery | None:
        """The current version of a revised question, as a new delivery to the same chat."""
        now = self.clock.now()

        def go(conn: Connection) -> Delivery | None:
            old = sql.delivery_record(conn, delivery_id)
            if old is None or old.chat_id != chat_id:
                return None
            question = self.catalog.question(old.bank_id, old.question_id)
            if question is None:
                return None
            bank = self.catalog.bank(old.bank_id)
            user_id = learner.id if old.user_id is not None else None
            return record_delivery(
                conn, bank, question, self.rng,
                chat_id=chat_id, user_id=user_id, source=old.source, now=now,
            )  # fmt: skip

        return await self.db.write(go)

    def _learn(
        self,
        conn: Connection,
        row: DeliveryRecord,
        user_id: int,
        file_chosen: frozenset[int],
        correct: bool,
        now: float,
        confidence: Confidence | None,
        seconds: float | None,
        context: AnswerContext,
    ) -> None:
        """The memory model and misconceptions take in a newly recorded answer (`context`: the
        question's memory state and the learner's weights, read in this transaction)."""
        at = from_timestamp(now)
        took = max(0.0, now - row.sent_at) if seconds is None else seconds
        answer = Answer(row.question_id, at, correct, confidence, took)
        question = self.catalog.question_at(row.bank_id, row.question_id, row.version)
        take_answer(conn, user_id, row.bank_id, answer, context.memory, context.weights)
        if question is not None:
            take_misconceptions(conn, user_id, row.bank_id, question, file_chosen, at)

    @staticmethod
    def _already(conn: Connection, delivery: Delivery, user_id: int) -> AnswerOutcome:
        """The answer this user gave before (shown in display positions)."""
        before = sql.existing_answer(conn, delivery.id, user_id)
        assert before is not None
        group = delivery.audience is Audience.GROUP
        count = sql.answer_count(conn, delivery.id) if group else 0
        chosen = display.to_display(delivery.order, before.chosen)
        return AnswerOutcome(AnswerStatus.ALREADY, delivery, chosen, before.correct, count)

    async def toggle(
        self,
        delivery_id: int,
        learner: Learner,
        chat_id: int,
        option: int,
        *,
        token: str | None = None,
    ) -> AnswerOutcome:
        """Flip one option of a multiple-answer question; returns the options now selected."""
        now = self.clock.now()

        def flip(conn: Connection) -> AnswerOutcome:
            _, delivery, problem = self._check(conn, delivery_id, chat_id, now, token)
            if problem is not None or delivery is None:
                return AnswerOutcome(problem or AnswerStatus.UNKNOWN, delivery)
            question = delivery.question
            if question.kind is not Kind.MULTIPLE or not 0 <= option < len(question.options):
                # Toggles exist only on "select two" questions: a forged one is refused.
                return AnswerOutcome(AnswerStatus.UNKNOWN, delivery)
            # A toggle that lost to another writer (a second tap, a Submit elsewhere) reads
            # again: two taps count one after the other, and a submitted answer stays.
            for _ in range(TOGGLE_TRIES):
                if sql.existing_answer(conn, delivery_id, learner.id) is not None:
                    return self._already(conn, delivery, learner.id)
                seen = sql.pending_choice(conn, delivery_id, learner.id)
                chosen = grading.decode_choice(seen) ^ {option}
                if sql.swap_pending_choice(
                    conn, delivery_id, learner.id, seen, grading.encode_choice(chosen)
                ):
                    return AnswerOutcome(AnswerStatus.RECORDED, delivery, chosen)
            raise DatabaseBusy("a multiple-answer choice kept changing under its save")

        return await self.db.write(flip, learner=learner.id)

    async def pending(self, delivery_id: int, user_id: int) -> frozenset[int]:
        """Options toggled but not yet submitted."""
        text = await self.db.read(lambda c: sql.pending_choice(c, delivery_id, user_id))
        return grading.decode_choice(text)

    async def submit(
        self, delivery_id: int, learner: Learner, chat_id: int, *, token: str | None = None
    ) -> AnswerOutcome:
        """Submit the toggled options of a multiple-answer question (EMPTY if none)."""
        now = self.clock.now()

        def go(conn: Connection) -> AnswerOutcome:
            return self._record(
                conn, delivery_id, learner, chat_id, None, now, token, Kind.MULTIPLE
            )

        return await self.db.write(go, learner=learner.id)

    async def stats(self, user_id: int) -> Stats:
        """Answered, accuracy overall and per topic, and the current streak of days."""
        now = self.clock.now()

        def gather(
            conn: Connection,
        ) -> tuple[sql.UserPrefs, list[sql.TopicTotal], Streak, list[sql.BankTotal]]:
            prefs = sql.user_prefs(conn, user_id)
            bank_id = self.catalog.bank(prefs.bank_id).id
            zone = ZoneInfo(prefs.timezone or self.default_timezone)
            return (
                prefs,
                sql.topic_totals(conn, user_id, bank_id),
                summaries.streak_with_freezes(conn, user_id, now, zone),
                sql.bank_totals(conn, user_id),
            )

        prefs, totals, streak, per_bank = await self.db.read(gather)
        bank = self.catalog.bank(prefs.bank_id)
        # A bank no longer served keeps its answers: it is named by its id.
        others = [
            ExamTotal(
                (b.meta.title if (b := self.catalog.banks.get(r.bank_id)) else r.bank_id),
                r.answered,
                r.correct,
            )
            for r in per_bank
            if r.bank_id != bank.id
        ]
        topics = [
            TopicStats(
                r.topic,
                (t.name if (t := bank.meta.topic(r.topic)) else r.topic),
                r.answered,
                r.correct,
            )
            for r in totals
        ]
        return Stats(
            bank_title=bank.meta.title,
            answered=sum(t.answered for t in topics),
            correct=sum(t.correct for t in topics),
            streak_days=streak.days,
            streak_freezes_left=streak.freezes_left,
            topics=topics,
            other_exams=others,
        )
