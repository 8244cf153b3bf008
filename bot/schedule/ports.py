"""What the daily push needs from the chat platform, as a port: the push (schedule/) decides
what is due and records outcomes; a Courier (bot/telegram/outbound/push_courier.py) composes
and sends one push. It is handed in by the composition root, so schedule/ never imports the
platform."""

from __future__ import annotations

from typing import Protocol

from bot.schedule.pacer import ClaimPacing
from bot.storage.push_log import Claim, Outcome


class Courier(Protocol):
    """Composes and sends one claimed push."""

    async def deliver(self, claim: Claim, pacing: ClaimPacing) -> Outcome:
        """Send the claim's question, waiting on `pacing` before each message; never raises
        for a platform error: the outcome says sent, blocked, failed or retry. `pacing` raises
        PushLate when the first message's slot comes past the claim's deadline."""
        ...
