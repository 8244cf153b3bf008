"""Use cases that keep the chat sane under repeats and haste: one result per button, the pace
of a group's questions, and a learner's reset of one exam. No Telegram here."""

from __future__ import annotations

from dataclasses import dataclass

from bot.practice.clock import Clock, SystemClock
from bot.storage import abuse_sql
from bot.storage.port import Store

NEXT = "next"
EXPLAIN = "explain"
REVISED_COPY = "revised"  # the current version of a question sent again in place of this one


@dataclass(frozen=True, slots=True)
class QuizPace:
    """Whether a group's /quiz may post now, and if not, how long to wait and why."""

    wait_s: float  # 0: it may post now
    open_question: bool  # the wait is the open question's minimum time (admins may skip)


class ChatGuards:
    """Each call one database round trip."""

    def __init__(
        self,
        db: Store,
        *,
        clock: Clock | None = None,
        cooldown_s: float = 20.0,
        min_open_s: float = 60.0,
    ) -> None:
        self.db = db
        self.clock = clock or SystemClock()
        self.cooldown_s = cooldown_s
        self.min_open_s = min_open_s

    async def claim_button(self, chat_id: int, delivery_id: int, button: str) -> bool | None:
        """True for the first press of a one-shot button under a chat's delivery, False for a
        repeat, None if the chat has no such delivery."""
        now = self.clock.now()
        return await self.db.write(
            lambda c: abuse_sql.claim_button(c, chat_id, delivery_id, button, now)
        )

    async def release_button(self, delivery_id: int, button: str) -> None:
        """The press could not be served: the next one may try again."""
        await self.db.write(lambda c: abuse_sql.release_button(c, delivery_id, button))

    async def quiz_pace(self, chat_id: int, *, admin: bool) -> QuizPace:
        """May a /quiz post now in this group? An open question must have been open
        `min_open_s` before a non-admin's /quiz closes it; every /quiz waits `cooldown_s`
        after the last question went out."""
        now = self.clock.now()
        last = await self.db.read(lambda c: abuse_sql.last_group_question(c, chat_id, now))
        if last is None:
            return QuizPace(0.0, False)
        age = now - last.sent_at
        if last.open and not admin and age < self.min_open_s:
            return QuizPace(self.min_open_s - age, True)
        if age < self.cooldown_s:
            return QuizPace(self.cooldown_s - age, False)
        return QuizPace(0.0, False)

    async def last_question_id(self, chat_id: int) -> int:
        """The id of the chat's newest windowed question (0 when none)."""
        now = self.clock.now()
        last = await self.db.read(lambda c: abuse_sql.last_group_question(c, chat_id, now))
        return 0 if last is None else last.delivery_id

    async def reset(self, user_id: int, bank_id: str) -> int:
        """Forget the learner's history in one bank; how many answers were forgotten."""
        return await self.db.write(lambda c: abuse_sql.reset_history(c, user_id, bank_id))
