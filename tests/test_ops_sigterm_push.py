"""SIGTERM in the middle of a daily push: the bot stops cleanly and loses nothing.

Sends in flight finish and are recorded; nothing is left claimed ('sending'); the restart
serves everyone else, and nobody gets the day's question twice (a graceful stop leaves no
"maybe delivered" send behind, unlike kill -9).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes import FakeBotApi, FakeBotApiServer, wait_for
from tests.push_support import FIRST_CHAT, SUBSCRIBERS, seed, served, start_bot, states

# Starts `quizbot run` as a real process: `pytest -m "not slow"` leaves it out.
pytestmark = pytest.mark.slow


def test_sigterm_mid_push_loses_nothing(tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    seed(db)
    api = FakeBotApi()
    api.set_delay("sendMessage", 0.02)
    with FakeBotApiServer(api) as server:
        proc = start_bot(server, db, tmp_path)
        try:
            wait_for(api, lambda a: served(a) >= 80, timeout=20)
        finally:
            proc.terminate()  # SIGTERM
            _, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, err.decode()[-2000:]
        after_stop = states(db)
        assert after_stop.get("sending", 0) == 0, after_stop  # every claim got its outcome
        assert after_stop.get("sent", 0) == served(api)  # every send that went out is recorded
        assert served(api) < SUBSCRIBERS  # the stop really came mid-push

        proc = start_bot(server, db, tmp_path)
        try:
            wait_for(api, lambda a: states(db) == {"sent": SUBSCRIBERS}, timeout=30)
        finally:
            proc.terminate()
            _, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, err.decode()[-2000:]
    counts = api.send_counts
    assert [counts[c] for c in range(FIRST_CHAT, FIRST_CHAT + SUBSCRIBERS)] == [1] * SUBSCRIBERS
