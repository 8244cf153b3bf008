"""Several `quizbot run` processes on one PostgreSQL database, for the multi-process tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.bank.models import Bank
from tests import factories, sample_bank
from tests.fakes import FakeBotApiServer
from tests.ops_support import BotRun, write_bank

SECRET = "multi-Process_secret"
# Single-answer questions only: the first button of each is an answer, not a toggle.
SINGLE = sample_bank.bank([sample_bank.question(f"q{i}", correct=(i % 4,)) for i in range(6)])


def start(
    tmp_path: Path,
    name: str,
    server: FakeBotApiServer,
    db: str,
    args: list[str] | None = None,
    env: dict[str, str] | None = None,
    bank: Bank | None = SINGLE,
) -> BotRun:
    """One bot process with its own folder (log) on the shared database `db`; `bank` None:
    the bundled banks."""
    folder = tmp_path / name
    folder.mkdir()
    banks = {} if bank is None else {"QUIZBOT_QUESTIONS": str(write_bank(folder / "banks", bank))}
    return BotRun(
        folder,
        args or [],
        {
            "BOT_API_URL": server.url,
            "QUIZBOT_DB": db,
            **banks,
            "QUIZBOT_WEBHOOK_SECRET": SECRET,
            "QUIZBOT_LOG_LEVEL": "DEBUG",
            **(env or {}),
        },
    )


def lease_pid(db: str, role: str = "poller") -> int | None:
    """The pid of the process holding a role lease, or None."""
    row = factories.one(db, "SELECT owner FROM leases WHERE name = ?", (role,))
    return int(str(row[0]).split(":")[1]) if row else None


def wait(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll until truthy; AssertionError naming `what` on timeout."""
    deadline = time.monotonic() + timeout
    while not (result := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.05)
    return result


def answer_button(message: dict[str, Any]) -> str:
    """The first answer button of a question message."""
    return str(message["reply_markup"]["inline_keyboard"][0][0]["callback_data"])


def answers(db: str) -> list[tuple[int, int]]:
    """(user_id, delivery_id) of every recorded answer."""
    return [
        (int(u), int(d)) for u, d in factories.rows(db, "SELECT user_id, delivery_id FROM answers")
    ]
