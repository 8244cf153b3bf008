"""The item-analysis report an admin asks for in the chat: read, analysed and rendered off the
event loop (one read-only connection, SQL aggregates, one pass, then the HTML)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.analysis.admin import AdminReport, admin_report
from bot.analysis.model import DEFAULT_MIN_N
from bot.bank.models import Bank
from bot.storage.item_sql import read_item_report


async def bank_item_report(
    db_path: Path | str, bank: Bank, min_n: int = DEFAULT_MIN_N
) -> AdminReport:
    """The worst-flagged questions of a bank and its HTML report, built in a worker thread."""

    def build() -> AdminReport:
        # Reading a year of answers and rendering the HTML take CPU time that the learners'
        # taps must not wait for: all of it runs in the thread.
        return admin_report(read_item_report(db_path, bank, min_n))

    return await asyncio.to_thread(build)
