"""Values of group practice: settings, reveals, leaderboards."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from bot.domain.kinds import PollMode
from bot.domain.models import Delivery, accuracy


@dataclass(frozen=True, slots=True)
class GroupSettings:
    """A group's or channel's settings, defaults filled in."""

    chat_id: int
    chat_type: str
    active: bool
    window_s: int
    leaderboard: bool
    poll_mode: PollMode
    timezone: str
    bank_id: str | None = None
    topic: str | None = None


@dataclass(frozen=True, slots=True)
class Reveal:
    """A closed question with how many members chose each option."""

    delivery: Delivery
    answered: int
    per_option: tuple[int, ...]
    poll_id: str | None = None

    def share(self, option: int) -> float:
        """Share of the members who answered that chose this option."""
        return self.per_option[option] / self.answered if self.answered else 0.0


@dataclass(frozen=True, slots=True)
class Standing:
    """One member's line on a leaderboard."""

    user_id: int
    first_name: str
    answered: int
    correct: int

    @property
    def accuracy(self) -> float:
        return accuracy(self.correct, self.answered)


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """This week's and all-time standings of a chat, best first."""

    week: list[Standing] = field(default_factory=list)
    all_time: list[Standing] = field(default_factory=list)


def week_start(now: float, timezone: str) -> float:
    """Monday 00:00 of the ISO week containing `now`, in the zone, as Unix time."""
    local = dt.datetime.fromtimestamp(now, ZoneInfo(timezone))
    monday = (local - dt.timedelta(days=local.weekday())).date()
    start = dt.datetime.combine(monday, dt.time(0, 0), ZoneInfo(timezone))
    return start.timestamp()


def week_key(now: float, timezone: str) -> str:
    """The ISO date of the Monday that starts `now`'s ISO week in the zone: how a chat's
    weekly leaderboard rows are keyed (a week stays one key if the chat changes zone)."""
    local = dt.datetime.fromtimestamp(now, ZoneInfo(timezone)).date()
    return (local - dt.timedelta(days=local.weekday())).isoformat()
