"""Can the push's rate serve the busiest due instant within the grace? (Pure arithmetic.)"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

from bot.storage.push_peak import Peak


@dataclass(frozen=True, slots=True)
class Capacity:
    """The busiest due instant against what the rate sends within the grace."""

    peak_at: float
    peak_subscribers: int
    rate: float
    grace_s: float

    @property
    def servable(self) -> int:
        """Pushes the rate sends between a due instant and the end of its grace."""
        return math.floor(self.rate * self.grace_s)

    @property
    def short(self) -> int:
        """Subscribers of the peak instant that would be skipped as late (0 when it fits)."""
        return max(0, self.peak_subscribers - self.servable)

    def warning(self) -> str | None:
        """One line for the log and /admin when the peak does not fit, else None."""
        if not self.short:
            return None
        at = dt.datetime.fromtimestamp(self.peak_at, dt.UTC).strftime("%H:%M UTC")
        need = self.peak_subscribers / self.grace_s if self.grace_s else math.inf
        return (
            f"{self.peak_subscribers} subscribers fall due at {at}, but {self.rate:g} msg/s "
            f"sends only {self.servable} within the {self.grace_s / 60:g}-minute grace: "
            f"{self.short} would be skipped as late. Needs {need:.1f} msg/s: raise "
            "QUIZBOT_PUSH_RATE if Telegram allows it, or use paid broadcast "
            "(QUIZBOT_PAID_BROADCAST=true, up to 1000 msg/s), or a longer grace."
        )


def capacity(peak: Peak | None, rate: float, grace_s: float) -> Capacity | None:
    """The capacity check for the busiest instant, or None without subscribers."""
    if peak is None:
        return None
    return Capacity(peak.at, peak.subscribers, rate, grace_s)
