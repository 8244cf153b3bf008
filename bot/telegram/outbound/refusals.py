"""How often a member is told, in a group, that a setting is for admins: once per window.

Every refusal is a message the whole group sees and pays for out of its 20-a-minute budget; a
member who asked once knows the answer, and repeats within the window go unanswered.
"""

from __future__ import annotations

REFUSAL_EVERY_S = 600.0
SWEEP_AT = 10_000  # remembered (chat, member) pairs before the expired ones are dropped


class RefusalGate:
    """The last refusal per (chat, member); time comes from the caller (the bot's clock)."""

    def __init__(self, every_s: float = REFUSAL_EVERY_S) -> None:
        self.every_s = every_s
        self._last: dict[tuple[int, int], float] = {}

    def allow(self, chat_id: int, user_id: int, now: float) -> bool:
        """Whether this member may be refused out loud now (and note it if so)."""
        last = self._last.get((chat_id, user_id))
        # abs(): a clock set back must not silence a member for longer than the window.
        if last is not None and abs(now - last) < self.every_s:
            return False
        if len(self._last) >= SWEEP_AT:
            self._last = {k: t for k, t in self._last.items() if now - t < self.every_s}
        self._last[(chat_id, user_id)] = now
        return True
