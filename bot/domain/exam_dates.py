"""Reading an exam date the learner typed: ISO dates, from today on, within two years."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum

MAX_AHEAD_DAYS = 2 * 366


class DateProblem(StrEnum):
    MALFORMED = "malformed"
    PAST = "past"
    TOO_FAR = "too_far"


@dataclass(frozen=True, slots=True)
class ParsedDate:
    """A usable date, or why the text is not one."""

    date: dt.date | None
    problem: DateProblem | None = None


def parse_exam_date(text: str, today: dt.date) -> ParsedDate:
    """`2027-03-15` -> that date if it is today or later and at most two years ahead (an exam
    sat today is a real plan: the last review before it)."""
    try:
        date = dt.date.fromisoformat(text.strip())
    except ValueError:
        return ParsedDate(None, DateProblem.MALFORMED)
    if len(text.strip()) != 10:  # fromisoformat also takes 20270315; ask for the plain form
        return ParsedDate(None, DateProblem.MALFORMED)
    if date < today:
        return ParsedDate(None, DateProblem.PAST)
    if (date - today).days > MAX_AHEAD_DAYS:
        return ParsedDate(None, DateProblem.TOO_FAR)
    return ParsedDate(date)
