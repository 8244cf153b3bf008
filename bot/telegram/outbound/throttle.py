"""Budget of live-count edits per group, so a busy group stays under Telegram's limit."""

from __future__ import annotations

from collections import deque

CLOSED_KEPT = 10_000  # revealed questions remembered to stop late count edits


class EditThrottle:
    """Budget of live-count edits per chat, so a busy group stays under Telegram's limit.

    Telegram allows about 20 messages or edits a minute in one group; count edits get `budget`
    of them per rolling minute and at least `gap_s` apart, the rest is left for questions,
    reveals and replies. A tap that comes too soon gets a delay after which one trailing edit
    shows the latest count; taps while that edit is pending are folded into it.
    """

    def __init__(self, budget: int = 12, gap_s: float = 5.0) -> None:
        self._whole = (max(1, budget), gap_s)
        self.budget, self.gap_s = self._whole
        self._edits: dict[int, deque[float]] = {}
        self._pending: set[int] = set()
        self._closed: dict[int, None] = {}  # an insertion-ordered set

    def split(self, processes: int) -> None:
        """One of `processes` editing the bot's groups: fewer edits, further apart."""
        budget, gap_s = self._whole
        self.budget = max(1, budget // processes)
        self.gap_s = gap_s * processes

    def decide(self, chat_id: int, delivery_id: int, now: float) -> float | None:
        """0: edit now (and it is counted); > 0: schedule a trailing edit in that many seconds;
        None: a trailing edit for this delivery is already on its way."""
        if delivery_id in self._pending:
            return None
        wait = self.wait(chat_id, now)
        if wait <= 0:
            self.note(chat_id, now)
            return 0.0
        self._pending.add(delivery_id)
        return wait

    def wait(self, chat_id: int, now: float) -> float:
        """Seconds until the chat may get another count edit."""
        edits = self._edits.get(chat_id)
        if not edits:
            return 0.0
        while edits and edits[0] <= now - 60:
            edits.popleft()
        if not edits:
            return 0.0
        wait = edits[-1] + self.gap_s - now
        if len(edits) >= self.budget:
            wait = max(wait, edits[0] + 60 - now)
        return max(wait, 0.0)

    def note(self, chat_id: int, now: float) -> None:
        """Count an edit (or a reveal) made in the chat."""
        self._edits.setdefault(chat_id, deque()).append(now)

    def defer(self, delivery_id: int) -> bool:
        """A count edit must wait (flood control): True if the caller should schedule the
        trailing edit, False if one is already pending or the question is closed."""
        if delivery_id in self._pending or delivery_id in self._closed:
            return False
        self._pending.add(delivery_id)
        return True

    def trailing_done(self, delivery_id: int) -> None:
        """The trailing edit ran (or is no longer needed)."""
        self._pending.discard(delivery_id)

    def closing(self, delivery_id: int) -> None:
        """The question is being revealed: no count edit may follow."""
        self._closed[delivery_id] = None
        self._pending.discard(delivery_id)
        while len(self._closed) > CLOSED_KEPT:
            del self._closed[next(iter(self._closed))]  # the oldest: its taps are long over

    def is_closed(self, delivery_id: int) -> bool:
        return delivery_id in self._closed

    def forget_chat(self, chat_id: int) -> None:
        self._edits.pop(chat_id, None)
