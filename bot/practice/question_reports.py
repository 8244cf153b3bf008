"""Learners' reports of a bad question: one per learner and question, an optional one-line
comment, and the admins' daily digest of new ones. No Telegram here."""

from __future__ import annotations

from bot.analysis.learner_reports import LearnerReport
from bot.practice.clock import Clock
from bot.storage import report_sql
from bot.storage.port import Store

COMMENT_CHARS = 200  # one line, short enough to list in a digest
SKIP = "skip"


def one_line(text: str) -> str | None:
    """The comment a reply stands for: its first line, trimmed and clipped; None for "skip"
    or nothing."""
    lines = text.strip().splitlines()
    line = lines[0].strip() if lines else ""
    if not line or line.lower() == SKIP:
        return None
    return line[:COMMENT_CHARS]


class QuestionReports:
    """Each call one database round trip."""

    def __init__(self, db: Store, clock: Clock) -> None:
        self.db, self.clock = db, clock

    async def reported(self, user_id: int, bank_id: str, question_id: str) -> bool:
        """Whether this learner already reported this question."""
        return await self.db.read(
            lambda c: report_sql.has_report(c, user_id, bank_id, question_id)
        )

    async def file(self, delivery_id: int, user_id: int, reason: str) -> int | None:
        """The new report's id; None when it does not count (a repeat, or not their delivery)."""
        if reason not in report_sql.REASONS:
            return None
        now = self.clock.now()
        return await self.db.write(
            lambda c: report_sql.file_report(c, delivery_id, user_id, reason, now)
        )

    async def prompted(self, report_id: int, message_id: int) -> None:
        """The comment prompt went out as this message."""
        await self.db.write(lambda c: report_sql.set_prompt(c, report_id, message_id))

    async def comment(self, user_id: int, prompt_message_id: int, text: str) -> bool | None:
        """Add a reply as the comment of the report it answers: True when added, False for
        "skip", None when the replied-to message is no waiting report's prompt."""
        line = one_line(text)
        if line is None:
            waiting = await self.db.read(
                lambda c: report_sql.awaits_comment(c, user_id, prompt_message_id)
            )
            return False if waiting else None
        added = await self.db.write(
            lambda c: report_sql.add_comment(c, user_id, prompt_message_id, line)
        )
        return True if added else None

    async def bank(self, bank_id: str) -> list[LearnerReport]:
        """Every report on a bank, oldest first."""
        return await self.db.read(lambda c: report_sql.bank_reports(c, bank_id))

    async def undigested(self) -> list[LearnerReport]:
        """The reports no digest has listed yet, oldest first."""
        now = self.clock.now()
        return await self.db.read(lambda c: report_sql.undigested(c, now))

    async def digested(self, reports: list[LearnerReport]) -> None:
        """These reports went out in a digest: the next one leaves them out."""
        now, ids = self.clock.now(), [r.id for r in reports]
        await self.db.write(lambda c: report_sql.mark_digested(c, ids, now))
