"""Readiness (/ready, the top of /stats) and the list of past mock exams, as Telegram HTML."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from bot.domain.models import Stats
from bot.mock.models import ExamStatus, MockSummary
from bot.practice.readiness_service import ReadinessReport
from bot.telegram.views import mock_texts, render
from bot.telegram.views.render import esc


def probability(p: float) -> str:
    """A pass probability without false precision: never 0% or 100%."""
    if p < 0.01:
        return "under 1%"
    if p > 0.99:
        return "over 99%"
    return f"{p:.0%}"


def readiness_text(report: ReadinessReport) -> str:
    """The predicted score with its range and pass probability, or what is still missing."""
    r = report.readiness
    lines = [mock_texts.READY_HEAD.format(bank=esc(report.bank_title)), ""]
    if r.enough_data and r.score is not None and r.low is not None and r.high is not None:
        if report.at_exam is not None:
            lines.append(mock_texts.READY_NOW)
        lines.append(
            mock_texts.READY_SCORE.format(
                score=r.score,
                low=r.low,
                high=r.high,
                passing=r.passing_score,
                probability=probability(r.pass_probability or 0.0),
            )
        )
    else:
        what = []
        if r.answers_missing:
            what.append(mock_texts.READY_MISSING_ANSWERS.format(n=r.answers_missing))
        if report.topics_missing:
            names = ", ".join(esc(n) for n in report.topics_missing)
            what.append(mock_texts.READY_MISSING_TOPICS.format(topics=names))
        lines.append(mock_texts.READY_MISSING.format(answers=r.answers, what="\n".join(what)))
    if (exam := exam_line(report)) is not None:
        lines.append(exam)
    lines += ["", "<b>By topic</b> (predicted · share met)"]
    for t in report.topics:
        score = "not enough answers" if t.score is None else f"{t.score:.0f}%"
        lines.append(
            mock_texts.READY_TOPIC.format(
                name=esc(t.name), weight=t.weight, score=score, met=t.met
            )
        )
    lines += ["", mock_texts.READY_NOTE]
    return "\n".join(lines)


def exam_line(report: ReadinessReport) -> str | None:
    """The forecast at the learner's exam date, or just the date when there is no forecast."""
    date, days = report.exam_date, report.days_to_exam
    if date is None or days is None:
        return None
    shown = date.strftime("%d %b %Y")
    f = report.at_exam
    if f is not None and f.enough_data and f.score is not None:
        return mock_texts.READY_AT_EXAM.format(
            date=shown,
            days=days,
            score=f.score,
            low=f.low or 0.0,
            high=f.high or 0.0,
            probability=probability(f.pass_probability or 0.0),
        )
    when = "today" if days == 0 else "passed" if days < 0 else f"in {days} days"
    return mock_texts.READY_EXAM_DATE.format(date=shown, when=when)


def mock_line(m: MockSummary, zone: ZoneInfo) -> str:
    """One past exam: its date, then score and pass/fail (or how it ended)."""
    date = dt.datetime.fromtimestamp(m.started_at, zone).strftime("%d %b %Y")
    if m.status is ExamStatus.RUNNING:
        what = f"running ({m.size} questions)"
    elif m.status is ExamStatus.ABANDONED:
        what = f"abandoned ({m.size} questions)"
    else:
        verdict = "passed ✅" if m.passed else "not passed ❌"
        late = ", time ran out" if m.status is ExamStatus.EXPIRED else ""
        what = f"{m.percent or 0:.0f}% ({m.correct}/{m.size}) · {verdict}{late}"
    return mock_texts.MOCKS_LINE.format(date=date, what=what)


def mocks_text(mocks: tuple[MockSummary, ...], zone: ZoneInfo) -> str:
    """The last mock exams, newest first (empty text when there are none)."""
    if not mocks:
        return ""
    return "\n".join([mock_texts.MOCKS_HEAD, *(mock_line(m, zone) for m in mocks)])


def stats_text(report: ReadinessReport, stats: Stats) -> str:
    """/stats: readiness at the top, then progress per topic and streak, then the last mocks."""
    parts = [readiness_text(report), render.stats_text(stats)]
    mocks = mocks_text(report.mocks, ZoneInfo(report.timezone))
    if mocks:
        parts.append(mocks)
    return "\n\n".join(parts)
