"""Can the push's rate send every push due within its grace? (Pure arithmetic.)

The push sends in due order at a fixed rate, and a push whose grace has ended is skipped. So
what matters is not one due instant but the backlog: subscribers due close together add up,
and a spell of them is served in time only if the rate sends them all between the first one
falling due and the last one's grace ending. The check runs the backlog forward over every
instant something falls due (a queue drained at the rate, capped at what one grace holds).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass

# (instant, how many fall due at it), oldest first: the due profile.
Profile = Sequence[tuple[float, int]]


@dataclass(frozen=True, slots=True)
class Capacity:
    """The worst spell of due pushes against what the rate sends within the grace."""

    peak_at: float  # when the worst spell begins
    peak_subscribers: int  # pushes due in it
    rate: float
    grace_s: float
    spell_s: float = 0.0  # from its first due instant to its last (0: one instant)
    needed_rate: float | None = None  # the lowest rate that sends every push in time
    window_s: float | None = None  # time to send the spell in (None: grace + spell)

    @property
    def servable(self) -> int:
        """Pushes the rate sends between the spell's first due instant (or now, for a backlog
        due already) and its last one's grace ending."""
        window = self.grace_s + self.spell_s if self.window_s is None else self.window_s
        return math.floor(self.rate * max(0.0, window))

    @property
    def short(self) -> int:
        """Pushes of the spell that would be skipped as late (0 when everything fits)."""
        return max(0, self.peak_subscribers - self.servable)

    @property
    def need(self) -> float:
        """Messages per second that would send every push in time."""
        if self.needed_rate is not None:
            return self.needed_rate
        span = self.grace_s + self.spell_s if self.window_s is None else self.window_s
        return self.peak_subscribers / span if span > 0 else math.inf

    def warning(self) -> str | None:
        """One line for the log and /admin when the backlog does not fit, else None."""
        if not self.short:
            return None
        at = _hhmm(self.peak_at)
        when = (
            f"at {at}"
            if not self.spell_s
            else f"between {at} and {_hhmm(self.peak_at + self.spell_s)}"
        )
        within = (
            f"within the {self.grace_s / 60:g}-minute grace"
            if not self.spell_s
            else f"before the last one's {self.grace_s / 60:g}-minute grace ends"
        )
        return (
            f"{self.peak_subscribers} subscribers fall due {when}, but {self.rate:g} msg/s "
            f"sends only {self.servable} {within}: "
            f"{self.short} would be skipped as late. Needs {self.need:.1f} msg/s: raise "
            "QUIZBOT_PUSH_RATE if Telegram allows it, or use paid broadcast "
            "(QUIZBOT_PAID_BROADCAST=true, up to 1000 msg/s), or a longer grace."
        )


def _hhmm(at: float) -> str:
    return dt.datetime.fromtimestamp(at, dt.UTC).strftime("%H:%M UTC")


def skipped_at(profile: Profile, rate: float, grace_s: float, now: float = -math.inf) -> int:
    """Pushes of the profile the rate leaves past their grace: the backlog drains at `rate`
    between due instants (from `now` on: what fell due before waits for it), and what cannot
    be sent before the grace of the latest arrival ends is skipped."""
    backlog = 0.0
    skipped = 0.0
    last: float | None = None
    for at, n in profile:
        start = max(at, now)
        if last is not None:
            backlog = max(0.0, backlog - rate * (start - last))
        backlog += n
        held = rate * max(0.0, at + grace_s - start)
        if backlog > held:
            skipped += backlog - held
            backlog = held
        last = start
    return math.ceil(skipped - 1e-9)


def worst_spell(
    profile: Profile, rate: float, grace_s: float, now: float = -math.inf
) -> tuple[int, int, float]:
    """(first index, last index, excess) of the spell of due instants whose pushes most
    exceed what `rate` sends from its first instant (or `now`, if later) to the end of its
    last one's grace. O(instants): a running minimum over the spell's possible starts."""
    best = (0, 0, -math.inf)
    low, low_at = math.inf, 0  # min over i <= j of (pushes before i) - rate * start_i
    total = 0
    for j, (at, n) in enumerate(profile):
        if (value := total - rate * max(at, now)) < low:
            low, low_at = value, j
        total += n
        excess = total - rate * (at + grace_s) - low
        if excess > best[2]:
            best = (low_at, j, excess)
    return best


def needed_rate(profile: Profile, grace_s: float, now: float = -math.inf) -> float:
    """The lowest rate that sends every push of the profile within its grace."""
    if not profile:
        return 0.0
    low, high = 0.0, 1.0
    while worst_spell(profile, high, grace_s, now)[2] > 1e-6 and high < 1e9:
        high *= 2
    for _ in range(50):  # bisection; each pass is O(instants)
        mid = (low + high) / 2
        if worst_spell(profile, mid, grace_s, now)[2] > 1e-6:
            low = mid
        else:
            high = mid
    return high


def capacity(
    profile: Profile, rate: float, grace_s: float, now: float = -math.inf
) -> Capacity | None:
    """The capacity check over a due profile (pushes due before `now` are sent from `now`
    on; those whose grace has ended already are past saving at any rate and left out), or
    None when nothing falls due."""
    profile = [(at, n) for at, n in profile if n > 0 and at + grace_s > now]
    if not profile:
        return None
    first, last, excess = worst_spell(profile, rate, grace_s, now)
    count = sum(n for _, n in profile[first : last + 1])
    start = profile[first][0]
    # The warning names the worst spell and what it alone loses (the profile may hold
    # tomorrow's pushes too); the rate it needs sends every spell in time.
    return Capacity(
        peak_at=start,
        peak_subscribers=count,
        rate=rate,
        grace_s=grace_s,
        spell_s=profile[last][0] - start,
        needed_rate=needed_rate(profile, grace_s, now) if excess > 1e-6 else None,
        window_s=profile[last][0] + grace_s - max(start, now),
    )


def merged(*profiles: Profile) -> list[tuple[float, int]]:
    """Several due profiles as one, oldest first (equal instants added up)."""
    counts: dict[float, int] = {}
    for profile in profiles:
        for at, n in profile:
            counts[at] = counts.get(at, 0) + n
    return sorted(counts.items())
