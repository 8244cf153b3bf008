"""Flood control: a token bucket per sender, checked before any work is done for an update.

Each sender (a user; in a channel, where posts have no user, the chat) holds up to `burst`
tokens and gets `per_minute` back a minute. An update takes one token; an update that finds
none is dropped, and the first one dropped in a row earns the sender one polite "slow down"
(the next only after the bucket has filled up again, i.e. after a real pause).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum, auto

IDLE_KEPT_S = 3600.0  # a bucket untouched this long is full again: forget it
SWEEP_EVERY = 10_000  # verdicts between sweeps of idle buckets


class Verdict(Enum):
    """What to do with one update."""

    PASS = auto()
    WARN = auto()  # drop it and say "slow down" (once per flood)
    DROP = auto()  # drop it silently


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float
    warned: bool = False


class FloodGate:
    """Token buckets per sender key; time comes from the caller (the bot's clock)."""

    def __init__(self, burst: int, per_minute: int) -> None:
        self._whole = (burst, per_minute)
        self.burst = burst
        self.rate = per_minute / 60.0
        self._buckets: dict[int, _Bucket] = {}
        self._since_sweep = 0

    def split(self, processes: int) -> None:
        """One of `processes` handling the bot's updates: this one takes its part of the
        budget (a sender's updates are spread over them)."""
        burst, per_minute = self._whole
        before = self.burst
        self.burst = max(1, math.ceil(burst / processes)) if burst > 0 else 0
        self.rate = per_minute / 60.0 / processes
        # A sender's tokens change hands with the share: when a process dies, what its
        # buckets held comes here (as a share of the bucket), not a bucket drained by the
        # sender's part of the load that process carried.
        if before > 0 and self.burst != before:
            for bucket in self._buckets.values():
                bucket.tokens = min(float(self.burst), bucket.tokens * self.burst / before)

    @property
    def enabled(self) -> bool:
        return self.burst > 0

    def check(self, key: int, now: float) -> Verdict:
        """Take a token for one update from `key`, or say why not."""
        if not self.enabled:
            return Verdict.PASS
        self._maybe_sweep(now)
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(float(self.burst), now)
        else:
            # max(): a clock set back (NTP, a test) must not take tokens away.
            elapsed = max(0.0, now - bucket.at)
            bucket.tokens = min(self.burst, bucket.tokens + elapsed * self.rate)
            bucket.at = now
        if bucket.tokens >= self.burst:
            bucket.warned = False  # a full bucket: the sender paused, the flood is over
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return Verdict.PASS
        if bucket.warned:
            return Verdict.DROP
        bucket.warned = True
        return Verdict.WARN

    def _maybe_sweep(self, now: float) -> None:
        self._since_sweep += 1
        if self._since_sweep < SWEEP_EVERY:
            return
        self._since_sweep = 0
        stale = [k for k, b in self._buckets.items() if now - b.at > IDLE_KEPT_S]
        for key in stale:
            del self._buckets[key]
