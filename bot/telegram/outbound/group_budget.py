"""A group's messages a minute, shared so that no member can spend them all.

Telegram allows about 20 messages a minute in one group. Questions and admins' replies are
counted but never refused; a reserve of the minute is kept for them, and each member's replies
get a small share of the rest. A reply over the member's share (or eating into the reserve)
goes to the member privately, or is dropped.
"""

from __future__ import annotations

import math
from collections import deque
from typing import TypeVar

K = TypeVar("K")

MEMBER_SHARE = 3  # replies a minute to one member in one group
RESERVE = 6  # messages a minute kept for questions, reveals and admins
WINDOW_S = 60.0
SWEEP_AT = 10_000  # remembered chats or (chat, member) pairs before idle ones are dropped


class GroupBudget:
    """Rolling minute of sends per group and per (group, member); time comes from the caller."""

    def __init__(self, per_minute: int = 20, share: int = MEMBER_SHARE) -> None:
        self._whole = (per_minute, share)
        self.member_limit = max(0, per_minute - RESERVE)
        self.share = share
        self._chats: dict[int, deque[float]] = {}
        self._members: dict[tuple[int, int], deque[float]] = {}

    def split(self, processes: int) -> None:
        """One of `processes` sending to the bot's groups: this one takes its part."""
        per_minute, share = self._whole
        self.member_limit = max(0, math.floor((per_minute - RESERVE) / processes))
        self.share = max(1, math.ceil(share / processes))

    def note(self, chat_id: int, now: float) -> None:
        """A message that goes out whatever the budget (a question, an admin's reply)."""
        self._take(self._chats, chat_id, now)

    def allow_member(self, chat_id: int, user_id: int, now: float) -> bool:
        """Whether a reply to this member may be posted in the group now (noted if so)."""
        sent = _recent(self._chats.get(chat_id), now)
        mine = _recent(self._members.get((chat_id, user_id)), now)
        if sent >= self.member_limit or mine >= self.share:
            return False
        self._take(self._chats, chat_id, now)
        self._take(self._members, (chat_id, user_id), now)
        return True

    def _take(self, table: dict[K, deque[float]], key: K, now: float) -> None:
        if len(table) >= SWEEP_AT:
            for stale in [k for k, q in table.items() if not _recent(q, now)]:
                del table[stale]
        table.setdefault(key, deque()).append(now)


def _recent(sends: deque[float] | None, now: float) -> int:
    """Sends within the last minute (older ones are forgotten)."""
    if not sends:
        return 0
    if sends[-1] > now:
        sends.clear()  # the clock was set back: a member must not be held to the future
    while sends and sends[0] <= now - WINDOW_S:
        sends.popleft()
    return len(sends)
