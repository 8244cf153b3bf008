"""Pacing of pushes: a global fixed-interval pacer and a per-group sliding window.

Our own, not PTB's AIORateLimiter: that one puts learners' replies and edits in the same queue
as the push, so a big push would make every learner wait. Only the push goes through these;
replies never wait for them.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable

Sleep = Callable[[float], Awaitable[None]]
Now = Callable[[], float]


class Pacer:
    """At most `rate` acquisitions per second, evenly spaced (no catch-up bursts)."""

    def __init__(self, rate: float, now: Now, sleep: Sleep = asyncio.sleep) -> None:
        if rate <= 0:
            raise ValueError("rate must be positive")
        self.interval = 1.0 / rate
        self._now = now
        self._sleep = sleep
        self._next = 0.0

    async def acquire(self) -> None:
        """Wait for the next slot."""
        now = self._now()
        # Reserve the slot before awaiting, so concurrent senders get distinct slots; a slot
        # in the past is not owed (no burst after an idle spell or a slow send).
        slot = max(self._next, now)
        self._next = slot + self.interval
        if slot > now:
            await self._sleep(slot - now)

    def pause(self, seconds: float) -> None:
        """Hold every sender for `seconds` (Telegram said 429: the flood limit is global)."""
        self._next = max(self._next, self._now() + seconds)


class GroupWindow:
    """At most `limit` messages per `window` seconds to any one chat (groups: 20 a minute)."""

    def __init__(
        self, limit: int, now: Now, sleep: Sleep = asyncio.sleep, window: float = 60.0
    ) -> None:
        self.limit = limit
        self.window = window
        self._now = now
        self._sleep = sleep
        self._sent: dict[int, deque[float]] = {}

    async def acquire(self, chat_id: int) -> None:
        """Wait until chat_id has room in its window, then count one message."""
        while True:
            now = self._now()
            times = self._sent.setdefault(chat_id, deque())
            while times and times[0] <= now - self.window:
                times.popleft()
            if len(times) < self.limit:
                times.append(now)
                return
            await self._sleep(times[0] + self.window - now)

    def forget_idle(self) -> None:
        """Drop chats with nothing in their window (keeps memory flat over a long push)."""
        now = self._now()
        for chat_id in [c for c, t in self._sent.items() if not t or t[-1] <= now - self.window]:
            del self._sent[chat_id]


class Unpaced:
    """No pacing (benchmarks of the bookkeeping alone)."""

    async def acquire(self) -> None:
        """Never waits."""

    def pause(self, seconds: float) -> None:
        """Nothing to pause."""


class PushPacing:
    """What a courier waits on before each message: the bot-wide pacer and, for groups and
    channels (negative chat ids), the per-chat window; and the bot-wide pause after a 429."""

    def __init__(self, pacer: Pacer | Unpaced, groups: GroupWindow, sleep: Sleep) -> None:
        self.pacer = pacer
        self.groups = groups
        self.sleep = sleep

    async def acquire(self, chat_id: int) -> None:
        """Wait for this message's slot."""
        if chat_id < 0:  # groups and channels: 20 a minute each
            await self.groups.acquire(chat_id)
        await self.pacer.acquire()

    async def flood_wait(self, seconds: float) -> None:
        """Telegram said 429: every sender waits, the flood limit is the bot's."""
        self.pacer.pause(seconds)
        await self.sleep(seconds)
