"""Reading an exam date the learner typed: ISO dates, in the future, within two years."""

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
    """`2027-03-15` -> that date if it is after today and at most two years ahead."""
    try:
        date = dt.date.fromisoformat(text.strip())
    except ValueError:
        return ParsedDate(None, DateProblem.MALFORMED)
    if len(text.strip()) != 10:  # fromisoformat also takes 20270315; ask for the plain form
        return ParsedDate(None, DateProblem.MALFORMED)
    if date <= today:
        return ParsedDate(None, DateProblem.PAST)
    if (date - today).days > MAX_AHEAD_DAYS:
        return ParsedDate(None, DateProblem.TOO_FAR)
    return ParsedDate(date)
