"""What an admin's `/report` sends: the worst-flagged questions as plain data, and the HTML."""

from __future__ import annotations

from dataclasses import dataclass

from bot.analysis.learner_reports import ReportedQuestion
from bot.analysis.model import ItemReport, Status
from bot.analysis.render_html import render_html
from bot.analysis.report import worst_flagged


@dataclass(frozen=True, slots=True)
class WorstQuestion:
    """One flagged question, reduced to what a chat message shows (plain text, unescaped)."""

    question_id: str
    topic: str
    n: int
    p: float | None
    r: float | None
    status: Status
    flags: tuple[str, ...]  # each flag's message, worst first


@dataclass(frozen=True, slots=True)
class AdminReport:
    """The five worst-flagged questions and the whole report as one HTML file."""

    bank_id: str
    learners: int
    first_attempts: int
    flagged: int
    worst: tuple[WorstQuestion, ...]
    reported: tuple[ReportedQuestion, ...]  # learners' reports, marked for review first
    html: bytes
    filename: str


def admin_report(report: ItemReport, limit: int = 5) -> AdminReport:
    """The `/report` payload: the `limit` worst-flagged questions plus the HTML bytes."""
    worst = tuple(
        WorstQuestion(
            question_id=q.question_id,
            topic=q.topic,
            n=q.n,
            p=q.p,
            r=q.r,
            status=q.status,
            flags=tuple(f"{f.kind.value}: {f.message}" for f in q.flags),
        )
        for q in worst_flagged(report, limit)
    )
    return AdminReport(
        bank_id=report.bank_id,
        learners=report.learners,
        first_attempts=report.first_attempts,
        flagged=len(report.flagged),
        worst=worst,
        reported=report.reported,
        html=render_html(report).encode("utf-8"),
        filename=f"item-analysis-{report.bank_id}.html",
    )
