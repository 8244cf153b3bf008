"""Polling mode as a process: SIGHUP reloads the banks, SIGTERM exits cleanly, no token printed."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests import factories, sample_bank
from tests.backend import database_env
from tests.fakes import TOKEN, FakeBotApiServer
from tests.ops_support import BotRun, wait_until, write_bank

# Starts `quizbot run` as a real process: `pytest -m "not slow"` leaves it out.
pytestmark = pytest.mark.slow


def test_sighup_reloads_banks_while_polling(tmp_path: Path) -> None:
    root = write_bank(tmp_path / "banks", sample_bank.bank([sample_bank.question("old1")]))
    ann = factories.user(801, "Ann")
    with FakeBotApiServer() as server:
        run = BotRun(
            tmp_path,
            [],
            {
                "BOT_API_URL": server.url,
                "QUIZBOT_DB": database_env(tmp_path / "bot.sqlite3"),
                "QUIZBOT_QUESTIONS": str(root),
            },
        )
        try:
            server.wait_for(lambda api: run.alive() and api.count("getUpdates") > 0)
            write_bank(root, sample_bank.bank([sample_bank.question("new1")]))
            run.proc.send_signal(signal.SIGHUP)
            wait_until(lambda: run.alive() and "reloaded demo (1)" in run.output())
            server.api.push_update(factories.command("/quiz", ann, factories.private_chat(ann)))
            server.wait_for(lambda api: api.count("sendMessage", chat_id=801) == 1)
            assert "Stem of new1" in (server.api.last_text(801) or "")
            code, seconds = run.stop(signal.SIGTERM)
            assert code == 0 and seconds < 5, run.output()
        finally:
            run.close()
    output = run.output()
    assert "1 question added, 1 removed" in output
    assert TOKEN not in output
