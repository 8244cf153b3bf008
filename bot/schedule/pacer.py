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
        self.rate = rate
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

    def split(self, processes: int) -> None:
        """One of `processes` sending at the bot's rate: this one sends its part of it."""
        self.interval = processes / self.rate

    def pause(self, seconds: float) -> None:
        """Hold every sender for `seconds` (Telegram said 429: the flood limit is global)."""
        self._next = max(self._next, self._now() + seconds)

    def wait_for_slot(self) -> float:
        """Seconds until the next free slot (every sender waiting already holds its own)."""
        return max(0.0, self._next - self._now())


class GroupWindow:
    """At most `limit` messages per `window` seconds to any one chat (groups: 20 a minute)."""

    def __init__(
        self, limit: int, now: Now, sleep: Sleep = asyncio.sleep, window: float = 60.0
    ) -> None:
        self.whole = self.limit = limit
        self.window = window
        self._now = now
        self._sleep = sleep
        self._sent: dict[int, deque[float]] = {}

    def split(self, processes: int) -> None:
        """One of `processes` sending to the groups: this one takes its part of the limit."""
        self.limit = max(1, self.whole // processes)

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

    def split(self, processes: int) -> None:
        """Nothing to share."""

    def pause(self, seconds: float) -> None:
        """Nothing to pause."""

    interval = 0.0

    def wait_for_slot(self) -> float:
        """Never waits."""
        return 0.0


# A 429 on a send to one chat is about that chat: only that chat waits. When most recent sends
# meet 429s from several chats at once, the limit hit is the bot's: everyone waits.
FLOOD_WINDOW_S = 5.0
FLOOD_MIN_CHATS = 5
FLOOD_SHARE = 0.5


class PushLate(Exception):
    """The message's slot came after its due time plus the grace: it is not sent."""


class PushPacing:
    """What a courier waits on before each message: the bot-wide pacer and, for groups and
    channels (negative chat ids), the per-chat window; and what a 429 means (one chat, or
    the whole bot when many chats get one)."""

    def __init__(
        self, pacer: Pacer | Unpaced, groups: GroupWindow, sleep: Sleep, now: Now | None = None
    ) -> None:
        self.pacer = pacer
        self.groups = groups
        self.sleep = sleep
        self._now = now or (lambda: 0.0)
        self._sends: deque[float] = deque()
        self._floods: deque[tuple[float, int]] = deque()
        self.global_pauses = 0

    async def acquire(self, chat_id: int) -> None:
        """Wait for this message's slot."""
        if chat_id < 0:  # groups and channels: 20 a minute each
            await self.groups.acquire(chat_id)
        await self.pacer.acquire()
        self._sends.append(self._now())

    async def flood_wait(self, seconds: float) -> None:
        """Everyone waits: the flood limit hit is the bot's."""
        self.pacer.pause(seconds)
        await self.sleep(seconds)

    def chat_flood(self, chat_id: int, seconds: float) -> bool:
        """Telegram said 429 on a send to chat_id. Only that chat waits (the caller retries it
        later), unless many chats got one lately: then the bot-wide pacer pauses too, and this
        returns True."""
        now = self._now()
        self._floods.append((now, chat_id))
        for queue in (self._sends, self._floods):
            while queue and _stamp(queue[0]) < now - FLOOD_WINDOW_S:
                queue.popleft()
        chats = {chat for _, chat in self._floods}
        if len(chats) >= FLOOD_MIN_CHATS and len(self._floods) >= FLOOD_SHARE * len(self._sends):
            self.pacer.pause(seconds)
            self.global_pauses += 1
            self._floods.clear()
            return True
        return False

    def for_claim(self, deadline: float, wall: Now) -> ClaimPacing:
        """The pacing one claim's courier sees: its first message is not sent after `deadline`
        (wall-clock seconds), however long it waited for a slot."""
        return ClaimPacing(self, deadline, wall)


def _stamp(item: float | tuple[float, int]) -> float:
    return item if isinstance(item, float) else item[0]


class ClaimPacing:
    """PushPacing for one claim: checks the claim's deadline before its first message."""

    def __init__(self, shared: PushPacing, deadline: float, wall: Now) -> None:
        self.shared = shared
        self.deadline = deadline
        self._wall = wall
        self._started = False

    async def acquire(self, chat_id: int) -> None:
        """Wait for this message's slot; PushLate if the first one comes past the deadline."""
        if not self._started and self._wall() > self.deadline:
            raise PushLate
        await self.shared.acquire(chat_id)
        if not self._started and self._wall() > self.deadline:
            raise PushLate  # the slot came too late: a morning question is not sent at noon
        self._started = True

    async def flood_wait(self, seconds: float) -> None:
        """Everyone waits."""
        await self.shared.flood_wait(seconds)

    async def sleep(self, seconds: float) -> None:
        """This claim alone waits."""
        await self.shared.sleep(seconds)

    def chat_flood(self, chat_id: int, seconds: float) -> bool:
        """See PushPacing.chat_flood."""
        return self.shared.chat_flood(chat_id, seconds)
