"""Error reports to the operators in Telegram, rate limited so a crash loop cannot flood them."""

from __future__ import annotations

import logging

from telegram.constants import ParseMode
from telegram.error import TelegramError
from telegram.ext import ExtBot

from bot.practice.clock import Clock
from bot.telegram.views.render import clip, esc

log = logging.getLogger(__name__)


class AdminAlerts:
    """Sends at most one report per interval to each admin; counts what it held back."""

    def __init__(
        self, bot: ExtBot[None], admins: frozenset[int], clock: Clock, interval_s: float = 300
    ) -> None:
        self.bot = bot
        self.admins = sorted(admins)
        self.clock = clock
        self.interval_s = interval_s
        self.last_sent = float("-inf")
        self.held_back = 0

    async def report(self, text: str) -> bool:
        """Tell the admins; False when rate limited or there is nobody to tell."""
        now = self.clock.now()
        if not self.admins or now - self.last_sent < self.interval_s:
            self.held_back += 1
            return False
        self.last_sent = now
        extra = f"\n({self.held_back} more since the last report)" if self.held_back else ""
        self.held_back = 0
        body = f"⚠️ <b>quizbot error</b>\n<pre>{esc(clip(text, 3000))}</pre>{extra}"
        for admin in self.admins:
            try:
                await self.bot.send_message(admin, body, parse_mode=ParseMode.HTML)
            except TelegramError as err:
                log.warning("could not alert admin %s: %s", admin, err)
        return True
