"""Group and channel practice: one question for the whole chat, answer windows, reveals,
leaderboards, settings and supergroup migrations. No Telegram here.

Answers themselves go through `PracticeService.answer`/`toggle`/`submit`: the unique
(delivery, user) key makes them per member in a group exactly as in a private chat.
"""

from __future__ import annotations

import asyncio
import random
import weakref

from bot.domain import display, grading, zones
from bot.domain.groups import GroupSettings, Leaderboard, Reveal, week_key
from bot.domain.kinds import PollMode, Source
from bot.domain.models import Delivery
from bot.domain.selection import Seen
from bot.practice import group_results
from bot.practice.catalog import Catalog
from bot.practice.clock import Clock, SystemClock
from bot.practice.picking import delivery_from, pick_and_record
from bot.storage import group_sql as gsql
from bot.storage import practice_sql as sql
from bot.storage import summaries
from bot.storage.chat_migration import migrate_chat
from bot.storage.group_sql import ChatRecord
from bot.storage.port import Connection, Store
from bot.storage.push_log import DueRow, forget_thread

POLL_MODES = frozenset(PollMode)
MIN_WINDOW_S = 60
MAX_WINDOW_S = 24 * 3600


class GroupService:
    """Everything a group or channel does, each call one database round trip."""

    def __init__(
        self,
        db: Store,
        catalog: Catalog,
        *,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        default_window_s: int = 600,
        default_timezone: str = "UTC",
    ) -> None:
        self.db = db
        self.catalog = catalog
        self.clock = clock or SystemClock()
        self.rng = rng or random.Random()
        self.default_window_s = default_window_s
        self.default_timezone = default_timezone
        # One question posted at a time per chat (see `posting`). Weak values: a chat's lock
        # lives only while someone holds or waits for it, so idle chats cost nothing.
        self._posting: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    def posting(self, chat_id: int) -> asyncio.Lock:
        """The chat's lock around "reveal what is open, then post the next question".

        Two /quiz close together would otherwise both post, and the second would try to
        reveal the first while its sendMessage is still in flight. It covers this process
        only, and spares it database round trips; the poster takes the chat's lease row
        inside it for the other processes on the database (`group_rounds.post_lease`).
        """
        lock = self._posting.get(chat_id)
        if lock is None:
            lock = self._posting[chat_id] = asyncio.Lock()
        return lock

    # ------------------------------------------------------------------ chats
    async def register(self, chat_id: int, chat_type: str, title: str | None) -> None:
        """Remember a group or channel (again active)."""
        now = self.clock.now()
        await self.db.write(lambda c: sql.upsert_chat(c, chat_id, chat_type, title, now))

    async def deactivate(self, chat_id: int) -> None:
        """The bot left, was removed or may not post: stop sending there."""
        now = self.clock.now()
        await self.db.write(lambda c: gsql.set_active(c, chat_id, False, now))

    async def migrate(self, old_id: int, new_id: int) -> bool:
        """A group became a supergroup: its settings and history follow the new id."""
        now = self.clock.now()
        return await self.db.write(lambda c: migrate_chat(c, old_id, new_id, now))

    async def forget_daily_topic(self, chat_id: int, thread: int) -> None:
        """The chat's daily question goes to the chat itself from now on: its forum topic
        `thread` is gone (deleted, or closed to the bot)."""
        await self.db.write(lambda c: forget_thread(c, chat_id, thread))

    async def known(self, chat_id: int) -> bool:
        """Whether the bot has recorded this chat (it does when it is added to one)."""
        return await self.db.read(lambda c: gsql.chat_record(c, chat_id)) is not None

    async def settings(self, chat_id: int) -> GroupSettings:
        """A chat's settings with defaults for what it never set."""
        record = await self.db.read(lambda c: gsql.chat_record(c, chat_id))
        return self._settings(chat_id, record)

    def _settings(self, chat_id: int, record: ChatRecord | None) -> GroupSettings:
        if record is None:
            return GroupSettings(
                chat_id, "group", True, self.default_window_s, True, PollMode.BUTTONS,
                self.default_timezone,
            )  # fmt: skip
        mode = record.poll_mode
        topic = record.topic
        if topic is not None and self.catalog.bank(record.bank_id).meta.topic(topic) is None:
            topic = None  # gone with a /reload: the chat's questions come from the whole bank
        return GroupSettings(
            chat_id=chat_id,
            chat_type=record.type,
            active=record.active,
            window_s=record.answer_window_s or self.default_window_s,
            leaderboard=record.leaderboard,
            poll_mode=PollMode(mode) if mode in POLL_MODES else PollMode.BUTTONS,
            timezone=record.tz or self.default_timezone,
            bank_id=record.bank_id,
            topic=topic,
        )

    async def _set(self, chat_id: int, name: str, value: object) -> None:
        now = self.clock.now()
        await self.db.write(lambda c: gsql.set_setting(c, chat_id, name, value, now))

    async def set_window(self, chat_id: int, minutes: int) -> int:
        """Set the answer window (clamped to 1 minute..1 day); returns the seconds set."""
        seconds = min(max(minutes * 60, MIN_WINDOW_S), MAX_WINDOW_S)
        await self._set(chat_id, "answer_window_s", seconds)
        return seconds

    async def choose_topic(self, chat_id: int, bank_id: str, topic: str | None) -> bool:
        """Set the exam (bank) and topic (None: all) the chat's questions come from; False if
        the bank has no such topic."""
        bank = self.catalog.banks.get(bank_id)
        if bank is None or (topic is not None and bank.meta.topic(topic) is None):
            return False
        now = self.clock.now()

        def choose(conn: Connection) -> None:
            gsql.set_setting(conn, chat_id, "bank_id", bank_id, now)
            gsql.set_setting(conn, chat_id, "topic", topic, now)

        await self.db.write(choose)
        return True

    async def set_leaderboard(self, chat_id: int, on: bool) -> None:
        await self._set(chat_id, "leaderboard", int(on))

    async def set_poll_mode(self, chat_id: int, mode: PollMode) -> None:
        await self._set(chat_id, "poll_mode", PollMode(mode).value)

    async def set_timezone(self, chat_id: int, timezone: str) -> None:
        if not zones.is_known(timezone):
            raise ValueError(f"unknown timezone {timezone!r}")
        await self._set(chat_id, "tz", timezone)

    # ------------------------------------------------------------------ questions
    async def ask(self, chat_id: int, *, source: Source = Source.GROUP) -> Delivery | None:
        """Pick the chat's next question (never asked here first) and record its delivery."""
        now = self.clock.now()
        return await self.db.write(lambda c: self.pick(c, chat_id, source, now))

    def pick(self, conn: Connection, chat_id: int, source: Source, now: float) -> Delivery | None:
        """The chooser inside a caller's transaction (the daily push claims with it too)."""
        settings = self._settings(chat_id, gsql.chat_record(conn, chat_id))
        bank = self.catalog.bank(settings.bank_id)
        # In a group nobody's history matters but the chat's: a question asked before is
        # "seen", and the one asked longest ago comes back first.
        asked = gsql.asked_in_chat(conn, chat_id, bank.id)
        return pick_and_record(
            conn,
            bank,
            settings.topic,
            {qid: Seen(t, True) for qid, t in asked.items()},
            self.rng,
            chat_id=chat_id,
            user_id=None,
            source=source,
            now=now,
            closes_at=now + settings.window_s,
        )

    def pick_daily(self, conn: Connection, row: DueRow, now: float) -> tuple[int, str, str] | None:
        """The push's picker for groups and channels: a windowed question, source 'daily'."""
        found = self.pick(conn, row.chat_id, Source.DAILY, now)
        return None if found is None else (found.id, found.bank_id, found.question.id)

    async def discard(self, delivery_id: int) -> None:
        """Telegram refused the question: forget its delivery."""
        await self.db.write(lambda c: gsql.discard_delivery(c, delivery_id))

    async def attach_poll(self, delivery_id: int, message_id: int, poll_id: str) -> None:
        await self.db.write(lambda c: gsql.set_poll(c, delivery_id, message_id, poll_id))

    async def delivery_of_poll(self, poll_id: str) -> tuple[int, int] | None:
        """(delivery id, chat id) of a native quiz poll we sent."""
        return await self.db.read(lambda c: gsql.delivery_by_poll(c, poll_id))

    async def unrevealed(self, chat_id: int) -> list[int]:
        """The chat's questions still waiting for their reveal."""
        return await self.db.read(lambda c: gsql.unrevealed_in_chat(c, chat_id))

    async def due(self) -> list[int]:
        """Questions whose window is over and not yet revealed (any chat)."""
        now = self.clock.now()
        return await self.db.read(lambda c: gsql.due_for_reveal(c, now))

    async def open_windows(self) -> list[tuple[int, float]]:
        """(delivery id, closes_at) of windows still open, to re-arm their jobs at start."""
        now = self.clock.now()
        return await self.db.read(lambda c: gsql.open_windows(c, now))

    async def claim_reveal(self, delivery_id: int) -> Reveal | None:
        """Close a question and claim its reveal: None if gone, not posted yet (its message
        is still on its way) or revealed by someone else."""
        now = self.clock.now()

        def claim(conn: Connection) -> Reveal | None:
            record = sql.delivery_record(conn, delivery_id)
            if record is None or not gsql.claim_reveal(conn, delivery_id, now):
                return None
            # The record read before the claim: the claim only set revealed_at and closed_at.
            return self._reveal(conn, record)

        return await self.db.write(claim)

    async def revealed(self, delivery_id: int) -> Reveal | None:
        """The reveal of a question revealed already (by this process or another), else None."""

        def go(conn: Connection) -> Reveal | None:
            record = sql.delivery_record(conn, delivery_id)
            if record is None or not gsql.is_revealed(conn, delivery_id):
                return None
            return self._reveal(conn, record)

        return await self.db.read(go)

    def _reveal(self, conn: Connection, record: sql.DeliveryRecord) -> Reveal | None:
        """What a reveal shows: the answers per displayed option."""
        question = self.catalog.question(record.bank_id, record.question_id)
        if question is None:
            return None
        delivery = delivery_from(record, question)
        per_option = [0] * len(question.options)
        chosen_list = gsql.chosen_of_delivery(conn, record.id)
        for encoded in chosen_list:
            # Answers are stored in file order; the reveal counts per displayed option.
            for p in display.to_display(delivery.order, grading.decode_choice(encoded)):
                per_option[p] += 1
        return Reveal(delivery, len(chosen_list), tuple(per_option), record.poll_id)

    async def release_reveal(self, delivery_id: int) -> None:
        """The reveal's edit failed for a passing reason: let the next sweep try again."""
        await self.db.write(lambda c: gsql.release_reveal(c, delivery_id))

    async def is_closed(self, delivery_id: int) -> bool:
        """Whether a windowed question takes no more answers (a "Why?" may be shown)."""
        now = self.clock.now()
        record = await self.db.read(lambda c: sql.delivery_record(c, delivery_id))
        return record is not None and record.is_closed(now)

    async def answer_of(
        self, delivery_id: int, user_id: int
    ) -> tuple[frozenset[int], bool] | None:
        """A member's recorded answer (chosen options, correct) to one question."""

        def go(conn: Connection) -> tuple[frozenset[int], bool] | None:
            found = sql.existing_answer(conn, delivery_id, user_id)
            record = sql.delivery_record(conn, delivery_id)
            if found is None or record is None:
                return None
            question = self.catalog.question(record.bank_id, record.question_id)
            if question is None:
                return None
            # Stored in file order; shown in the delivery's order.
            order = display.decode_order(record.option_order, len(question.options))
            return display.to_display(order, found.chosen), found.correct

        return await self.db.read(go)

    async def answer_count(self, delivery_id: int) -> int:
        return await self.db.read(lambda c: sql.answer_count(c, delivery_id))

    # ------------------------------------------------------------------ leaderboard
    async def leaderboard(self, chat_id: int, limit: int = 10) -> Leaderboard:
        """This week's (in the chat's timezone) and all-time standings, best first."""
        now = self.clock.now()

        def gather(conn: Connection) -> Leaderboard:
            settings = self._settings(chat_id, gsql.chat_record(conn, chat_id))
            week = week_key(now, settings.timezone)
            return Leaderboard(
                week=summaries.standings(conn, chat_id, week, limit),
                all_time=summaries.standings(conn, chat_id, summaries.ALL_TIME, limit),
            )

        return await self.db.read(gather)

    # ------------------------------------------------------------------ results
    async def results_csv(self, chat_id: int) -> tuple[bytes, int]:
        """The chat's results, one CSV row per member, times in the chat's timezone, and the
        number of members."""
        settings = await self.settings(chat_id)
        return await group_results.results_csv(self.db, self.catalog, chat_id, settings.timezone)
