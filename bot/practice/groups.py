"""Group and channel practice: one question for the whole chat, answer windows, reveals,
leaderboards, settings and supergroup migrations. No Telegram here.

Answers themselves go through `PracticeService.answer`/`toggle`/`submit`: the unique
(delivery, user) key makes them per member in a group exactly as in a private chat.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import weakref

from bot.domain import grading, zones
from bot.domain.groups import (
    POLL_MODES,
    EditThrottle,
    GroupSettings,
    Leaderboard,
    Reveal,
    Standing,
    week_start,
)
from bot.domain.models import Delivery
from bot.domain.selection import Seen, choose_next
from bot.practice.catalog import Catalog
from bot.practice.clock import Clock, SystemClock
from bot.storage import group_sql as gsql
from bot.storage import practice_sql as sql
from bot.storage.chat_migration import migrate_chat
from bot.storage.db import Database

MIN_WINDOW_S = 60
MAX_WINDOW_S = 24 * 3600


class GroupService:
    """Everything a group or channel does, each call one database round trip."""

    def __init__(
        self,
        db: Database,
        catalog: Catalog,
        *,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        default_window_s: int = 600,
        default_timezone: str = "UTC",
        throttle: EditThrottle | None = None,
    ) -> None:
        self.db = db
        self.catalog = catalog
        self.clock = clock or SystemClock()
        self.rng = rng or random.Random()
        self.default_window_s = default_window_s
        self.default_timezone = default_timezone
        self.throttle = throttle or EditThrottle()
        # One question posted at a time per chat (see `posting`). Weak values: a chat's lock
        # lives only while someone holds or waits for it, so idle chats cost nothing.
        self._posting: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    def posting(self, chat_id: int) -> asyncio.Lock:
        """The chat's lock around "reveal what is open, then post the next question".

        Two /quiz close together would otherwise both post, and the second would try to
        reveal the first while its sendMessage is still in flight.
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
        self.throttle.forget_chat(chat_id)

    async def migrate(self, old_id: int, new_id: int) -> bool:
        """A group became a supergroup: its settings and history follow the new id."""
        now = self.clock.now()
        return await self.db.write(lambda c: migrate_chat(c, old_id, new_id, now))

    async def settings(self, chat_id: int) -> GroupSettings:
        """A chat's settings with defaults for what it never set."""
        row = await self.db.read(lambda c: gsql.chat_row(c, chat_id))
        return self._settings(chat_id, row)

    def _settings(self, chat_id: int, row: sqlite3.Row | None) -> GroupSettings:
        if row is None:
            return GroupSettings(
                chat_id, "group", True, self.default_window_s, True, "buttons",
                self.default_timezone,
            )  # fmt: skip
        return GroupSettings(
            chat_id=chat_id,
            chat_type=row["type"],
            active=bool(row["active"]),
            window_s=row["answer_window_s"] or self.default_window_s,
            leaderboard=bool(row["leaderboard"]),
            poll_mode=row["poll_mode"] if row["poll_mode"] in POLL_MODES else "buttons",
            timezone=row["tz"] or self.default_timezone,
            bank_id=row["bank_id"],
            topic=row["topic"],
        )

    async def _set(self, chat_id: int, name: str, value: object) -> None:
        now = self.clock.now()
        await self.db.write(lambda c: gsql.set_setting(c, chat_id, name, value, now))

    async def set_window(self, chat_id: int, minutes: int) -> int:
        """Set the answer window (clamped to 1 minute..1 day); returns the seconds set."""
        seconds = min(max(minutes * 60, MIN_WINDOW_S), MAX_WINDOW_S)
        await self._set(chat_id, "answer_window_s", seconds)
        return seconds

    async def set_leaderboard(self, chat_id: int, on: bool) -> None:
        await self._set(chat_id, "leaderboard", int(on))

    async def set_poll_mode(self, chat_id: int, mode: str) -> None:
        if mode not in POLL_MODES:
            raise ValueError(f"unknown poll mode {mode!r}")
        await self._set(chat_id, "poll_mode", mode)

    async def set_timezone(self, chat_id: int, timezone: str) -> None:
        if not zones.is_known(timezone):
            raise ValueError(f"unknown timezone {timezone!r}")
        await self._set(chat_id, "tz", timezone)

    # ------------------------------------------------------------------ questions
    async def ask(self, chat_id: int, *, source: str = "group") -> Delivery | None:
        """Pick the chat's next question (never asked here first) and record its delivery."""
        now = self.clock.now()
        return await self.db.write(lambda c: self.pick(c, chat_id, source, now))

    def pick(
        self, conn: sqlite3.Connection, chat_id: int, source: str, now: float
    ) -> Delivery | None:
        """The chooser inside a caller's transaction (the daily push claims with it too)."""
        settings = self._settings(chat_id, gsql.chat_row(conn, chat_id))
        bank = self.catalog.bank(settings.bank_id)
        topic = settings.topic if settings.topic and bank.meta.topic(settings.topic) else None
        candidates = [q.id for q in bank.in_topic(topic)] or list(bank.questions)
        # In a group nobody's history matters but the chat's: a question asked before is
        # "seen", and the one asked longest ago comes back first.
        asked = gsql.asked_in_chat(conn, chat_id, bank.id)
        history = {qid: Seen(t, True) for qid, t in asked.items()}
        qid = choose_next(candidates, history, self.rng)
        if qid is None:
            return None
        closes_at = now + settings.window_s
        did = sql.insert_delivery(
            conn,
            chat_id=chat_id,
            user_id=None,
            bank_id=bank.id,
            question_id=qid,
            source=source,
            now=now,
            closes_at=closes_at,
        )
        question = bank.questions[qid]
        return Delivery(did, chat_id, bank.id, question, source, None, now, closes_at)

    async def discard(self, delivery_id: int) -> None:
        """Telegram refused the question: forget its delivery."""
        await self.db.write(lambda c: gsql.discard_delivery(c, delivery_id))

    async def attach_poll(self, delivery_id: int, message_id: int, poll_id: str) -> None:
        await self.db.write(lambda c: gsql.set_poll(c, delivery_id, message_id, poll_id))

    async def delivery_of_poll(self, poll_id: str) -> tuple[int, int] | None:
        """(delivery id, chat id) of a native quiz poll we sent."""
        row = await self.db.read(lambda c: gsql.delivery_by_poll(c, poll_id))
        return (row["id"], row["chat_id"]) if row else None

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

        def claim(conn: sqlite3.Connection) -> Reveal | None:
            row = sql.delivery_row(conn, delivery_id)
            if row is None or not gsql.claim_reveal(conn, delivery_id, now):
                return None
            question = self.catalog.question(row["bank_id"], row["question_id"])
            if question is None:
                return None
            per_option = [0] * len(question.options)
            chosen_list = gsql.chosen_of_delivery(conn, delivery_id)
            for encoded in chosen_list:
                for i in grading.decode_choice(encoded):
                    if 0 <= i < len(per_option):
                        per_option[i] += 1
            poll = conn.execute("SELECT poll_id FROM deliveries WHERE id = ?", (delivery_id,))
            delivery = Delivery(
                row["id"], row["chat_id"], row["bank_id"], question, row["source"],
                row["message_id"], row["sent_at"], row["closes_at"],
            )  # fmt: skip
            return Reveal(delivery, len(chosen_list), tuple(per_option), poll.fetchone()[0])

        return await self.db.write(claim)

    async def release_reveal(self, delivery_id: int) -> None:
        """The reveal's edit failed for a passing reason: let the next sweep try again."""
        await self.db.write(lambda c: gsql.release_reveal(c, delivery_id))

    async def is_closed(self, delivery_id: int) -> bool:
        """Whether a windowed question takes no more answers (a "Why?" may be shown)."""
        now = self.clock.now()
        row = await self.db.read(lambda c: sql.delivery_row(c, delivery_id))
        if row is None:
            return False
        return row["closed_at"] is not None or (
            row["closes_at"] is not None and now >= row["closes_at"]
        )

    async def answer_of(
        self, delivery_id: int, user_id: int
    ) -> tuple[frozenset[int], bool] | None:
        """A member's recorded answer (chosen options, correct) to one question."""
        row = await self.db.read(lambda c: sql.existing_answer(c, delivery_id, user_id))
        if row is None:
            return None
        return grading.decode_choice(row["chosen"]), bool(row["correct"])

    async def answer_count(self, delivery_id: int) -> int:
        return await self.db.read(lambda c: sql.answer_count(c, delivery_id))

    # ------------------------------------------------------------------ leaderboard
    async def leaderboard(self, chat_id: int, limit: int = 10) -> Leaderboard:
        """This week's (in the chat's timezone) and all-time standings, best first."""
        now = self.clock.now()

        def gather(conn: sqlite3.Connection) -> Leaderboard:
            settings = self._settings(chat_id, gsql.chat_row(conn, chat_id))
            since = week_start(now, settings.timezone)
            return Leaderboard(
                week=_standings(gsql.standings(conn, chat_id, since)[:limit]),
                all_time=_standings(gsql.standings(conn, chat_id, 0.0)[:limit]),
            )

        return await self.db.read(gather)


def _standings(rows: list[sqlite3.Row]) -> list[Standing]:
    return [
        Standing(r["user_id"], r["first_name"], r["answered"], r["correct"] or 0) for r in rows
    ]
